// A short link: a code on one site that stands for a target URL, with optional per-link
// overrides. Stored by `LinkStore`; the target is checked against the site's route table by
// `ShortLinkValidator` before it is written.

import Foundation

/// One short link: `https://<site domain>/<code>` → `target`.
public struct ShortLink: Sendable, Equatable, Codable {
    /// The code after the slash (`abc123`): base62 when generated, any FDL code when imported.
    public var code: String
    /// The name of the site the code lives on (``LinkRouting/CompiledSite/name``).
    public var site: String
    /// Where the link leads: a URL one of the site's routes accepts, or a web URL.
    public var target: String
    /// Preview overrides (FDL `st`, `sd`, `si`); nil: the target route's preview.
    public var previewTitle: String?
    public var previewDescription: String?
    public var previewImage: String?
    /// Per-platform fallbacks (FDL `ifl`, `afl`, `ofl`); nil: the target route's fallback.
    public var iosFallback: String?
    public var androidFallback: String?
    public var desktopFallback: String?
    /// Skip the landing page and redirect straight away (FDL `efr`).
    public var forcedRedirect: Bool
    /// After this moment the link answers as not found; nil: never expires.
    public var expiresAt: Date?
    /// A disabled link answers as not found but keeps its code (it is never handed out again).
    public var disabled: Bool
    /// The FDL parameters without a column of their own (imported links, migration v5); nil: none.
    public var fdl: FDLParameters?
    /// When the link was created and last changed (whole seconds).
    public var createdAt: Date
    public var updatedAt: Date

    /// A link with no overrides, enabled, never expiring, created `now`.
    public init(
        code: String, site: String, target: String,
        previewTitle: String? = nil, previewDescription: String? = nil, previewImage: String? = nil,
        iosFallback: String? = nil, androidFallback: String? = nil, desktopFallback: String? = nil,
        forcedRedirect: Bool = false, expiresAt: Date? = nil, disabled: Bool = false,
        createdAt: Date = Date(), updatedAt: Date? = nil, fdl: FDLParameters? = nil
    ) {
        self.fdl = fdl.flatMap { $0.isEmpty ? nil : $0 }
        self.code = code
        self.site = site
        self.target = target
        self.previewTitle = previewTitle
        self.previewDescription = previewDescription
        self.previewImage = previewImage
        self.iosFallback = iosFallback
        self.androidFallback = androidFallback
        self.desktopFallback = desktopFallback
        self.forcedRedirect = forcedRedirect
        self.expiresAt = expiresAt.map(ShortLink.wholeSeconds)
        self.disabled = disabled
        self.createdAt = ShortLink.wholeSeconds(createdAt)
        self.updatedAt = ShortLink.wholeSeconds(updatedAt ?? createdAt)
    }

    /// True when the link answers (`GET /{code}`) at `now`: not disabled and not expired.
    public func isLive(at now: Date = Date()) -> Bool {
        !disabled && (expiresAt.map { now < $0 } ?? true)
    }

    /// The store keeps whole seconds (Unix time); links compare equal after a round trip.
    public static func wholeSeconds(_ d: Date) -> Date {
        Date(timeIntervalSince1970: d.timeIntervalSince1970.rounded(.down))
    }
}
