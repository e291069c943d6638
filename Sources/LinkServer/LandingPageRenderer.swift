import Foundation
import LandingPages
import LinkRouting

/// The default `PageRenderer`: the landing pages of module LandingPages (templates from the
/// snapshot's `public/templates`, compiled once per snapshot).
public struct LandingPageRenderer: PageRenderer {
    public let landing: LandingRenderer

    public init(table: RouteTable, publicDirectory: String) throws(LandingTemplateError) {
        landing = try LandingRenderer(table: table, publicDirectory: publicDirectory)
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
