import LandingPages
import LinkRouting
import MicroHTTP

/// An honest, minimal HTML page: the site, the route and the app links. Everything from the
/// config or the request is HTML-escaped.
public struct MinimalPageRenderer: PageRenderer {
    public let table: RouteTable

    public init(table: RouteTable) {
        self.table = table
    }

    /// The landing pages' headers: the same strict CSP and security headers.
    static let headers: [(String, String)] = LandingRenderer.pageHeaders.filter { $0.0 != "Vary" }

    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        let title = site.config.landing?.appName ?? site.iosApps.first?.name ?? site.androidApps.first?.name ?? site.name
        let https = try? table.build(site: site.name, route: match.route, parameters: match.parameters, form: .https)
        let custom = try? table.build(site: site.name, route: match.route, parameters: match.parameters, form: .customScheme(nil))
        var body = "<h1>\(HTMLEscaping.text(title))</h1>\n"
        body += "<p>This link belongs to the <strong>\(HTMLEscaping.text(title))</strong> app (site <code>\(HTMLEscaping.text(site.name))</code>, route <code>\(HTMLEscaping.text(match.route))</code>).</p>\n"
        if let custom {
            body += "<p><a class=\"button\" href=\"\(HTMLEscaping.attribute(custom))\">Open in the app</a></p>\n"
        }
        if let https {
            body += "<p class=\"link\">Link: <a href=\"\(HTMLEscaping.attribute(https))\">\(HTMLEscaping.text(https))</a></p>\n"
        }
        if !match.parameters.isEmpty {
            body += "<dl>\n"
            for (k, v) in match.parameters.sorted(by: { $0.key < $1.key }) {
                body += "<dt>\(HTMLEscaping.text(k))</dt><dd>\(HTMLEscaping.text(v))</dd>\n"
            }
            body += "</dl>\n"
        }
        return .dynamic(status: 200, headers: Self.headers, body: Array(Self.document(title: title, body: body).utf8))
    }

    public func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        var body = "<h1>Not found</h1>\n<p>No app handles this link.</p>\n"
        if let website = site.config.website {
            body += "<p><a href=\"\(HTMLEscaping.attribute(website))\">Go to \(HTMLEscaping.text(website))</a></p>\n"
        }
        return .dynamic(status: 404, headers: Self.headers, body: Array(Self.document(title: "Not found", body: body).utf8))
    }

    static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLEscaping.text(title))</title>
        <link rel="stylesheet" href="/static/linkwell.css">
        </head>
        <body>
        <main>
        \(body)</main>
        </body>
        </html>

        """
    }
}
