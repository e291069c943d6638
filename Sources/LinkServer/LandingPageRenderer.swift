import Foundation
import LandingPages
import LinkRouting
import Synchronization
import MicroHTTP

/// QR SVGs by URL, shared by a snapshot's requests, bounded by bytes (URL and SVG together):
/// when a new entry would pass `byteBudget`, the cache is emptied first. An SVG larger than
/// `largestEntry` (a 2 KB link makes a ~100 KB code) is never kept. A reload builds a new cache
/// with the new snapshot; the old one goes with the old snapshot.
final class QRCodeCache: Sendable {
    struct State {
        var entries: [String: TrustedHTML] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    let byteBudget: Int
    let largestEntry: Int
    static let defaultByteBudget = 4 * 1024 * 1024

    init(byteBudget: Int = QRCodeCache.defaultByteBudget) {
        self.byteBudget = byteBudget
        self.largestEntry = byteBudget / 64
    }

    /// The SVG of `url`'s code with the accessible name `label` (default: English).
    func svg(_ url: String, label: String? = nil) -> TrustedHTML? {
        let label = label ?? "QR code for \(url)"
        let key = label + "\u{0}" + url
        if let hit = state.withLock({ $0.entries[key] }) { return hit }
        guard let made = LandingRenderer.makeQRCode(url, label: label) else { return nil }
        let size = key.utf8.count + made.html.utf8.count
        guard size <= largestEntry else { return made }
        state.withLock { state in
            guard state.entries[key] == nil else { return }
            if state.bytes + size > byteBudget { state = State() }
            state.entries[key] = made
            state.bytes += size
        }
        return made
    }

    /// Bytes held now (URLs and SVGs).
    var bytes: Int { state.withLock { $0.bytes } }
}

/// The default `PageRenderer`: the landing pages of module LandingPages (templates from the
/// snapshot's `public/templates`, compiled once per snapshot).
public struct LandingPageRenderer: PageRenderer {
    public let landing: LandingRenderer

    public init(table: RouteTable, files: AssetFiles) throws(LandingTemplateError) {
        var renderer = try LandingRenderer(table: table, files: files)
        let cache = QRCodeCache()
        renderer.qrCode = { cache.svg($0, label: $1) }
        landing = renderer
    }

    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        Self.http(landing.page(for: match, site: site, browser: BrowserFacts(userAgent: request.userAgent), acceptLanguage: request.acceptLanguage))
    }

    public func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        Self.http(landing.notFound(site: site, browser: BrowserFacts(userAgent: request.userAgent), acceptLanguage: request.acceptLanguage))
    }

    static func http(_ r: LandingResponse) -> HTTPResponse {
        .dynamic(status: r.status, headers: r.headers, body: r.body)
    }
}
