import Foundation
import LandingPages
import LinkRouting
import Synchronization
import MicroHTTP

/// QR SVGs by URL, shared by a snapshot's requests; bounded (emptied when full).
final class QRCodeCache: Sendable {
    private let entries = Mutex<[String: TrustedHTML]>([:])
    static let capacity = 4096

    func svg(_ url: String) -> TrustedHTML? {
        if let hit = entries.withLock({ $0[url] }) { return hit }
        guard let made = LandingRenderer.makeQRCode(url) else { return nil }
        entries.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[url] = made
        }
        return made
    }
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
