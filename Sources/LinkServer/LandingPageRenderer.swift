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

    func svg(_ url: String) -> TrustedHTML? {
        if let hit = state.withLock({ $0.entries[url] }) { return hit }
        guard let made = LandingRenderer.makeQRCode(url) else { return nil }
        let size = url.utf8.count + made.html.utf8.count
        guard size <= largestEntry else { return made }
        state.withLock { state in
            guard state.entries[url] == nil else { return }
            if state.bytes + size > byteBudget { state = State() }
            state.entries[url] = made
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

    public init(table: RouteTable, publicDirectory: String) throws(LandingTemplateError) {
        var renderer = try LandingRenderer(table: table, publicDirectory: publicDirectory)
        let cache = QRCodeCache()
        renderer.qrCode = { cache.svg($0) }
        landing = renderer
    }

    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        Self.http(landing.page(for: match, site: site, browser: BrowserFacts(userAgent: request.userAgent)))
    }

    public func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        Self.http(landing.notFound(site: site))
    }

    static func http(_ r: LandingResponse) -> HTTPResponse {
        .dynamic(status: r.status, headers: r.headers, body: r.body)
    }

    /// True when `publicDirectory` has a `templates` folder (else the server falls back to
    /// `MinimalPageRenderer`).
    public static func hasTemplates(_ publicDirectory: String?) -> Bool {
        guard let publicDirectory else { return false }
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: publicDirectory + "/templates", isDirectory: &isDir) && isDir.boolValue
    }
}
