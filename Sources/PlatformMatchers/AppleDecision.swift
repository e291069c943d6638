// What Apple's matcher decides for one app ID and one URL.

/// The two outcomes that a rule of an apple-app-site-association file can produce for an app.
/// An app that no rule decides claims nothing, so it has no verdict at all.
public enum AppleVerdict: String, Sendable, Codable {
    /// A component (or legacy path) claimed the URL: iOS opens the app.
    case match
    /// A component with `"exclude": true` (or a legacy `NOT ` path) decided: iOS opens the browser.
    case block
}

/// The rule that decided one app ID's verdict for a URL.
public struct AppleDecision: Sendable, Equatable {
    /// The app ID (`<Team ID>.<bundle ID>`) the verdict is for.
    public var appID: String
    /// Whether the deciding rule opens the app (``AppleVerdict/match``) or keeps the link in the browser (``AppleVerdict/block``).
    public var verdict: AppleVerdict
    /// The index of the deciding entry in `applinks.details`.
    public var detailsIndex: Int
    /// The index of the deciding rule in that entry's `components` (modern form) or `paths` (legacy form).
    public var componentIndex: Int
    /// A short description of the deciding rule: a component as compact JSON with sorted keys
    /// (`{"/":"/post/*"}`), or a legacy path as written (`NOT /videos/2010/*`).
    public var rule: String
}
