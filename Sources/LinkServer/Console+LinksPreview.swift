// The console's live previews of a link: the public landing page as an iPhone, an Android phone
// and a desktop browser get it (the public Responder run in-process with that device's
// User-Agent, nothing counted), served for an iframe of the console's own origin; and the card a
// chat app draws, read from the og tags the same page carries for a link-preview crawler.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// The devices the link editor previews.
enum PreviewDevice: String, CaseIterable {
    case iphone, android, desktop

    var name: String {
        switch self {
        case .iphone: "iPhone"
        case .android: "Android phone"
        case .desktop: "Desktop browser"
        }
    }

    var userAgent: String {
        switch self {
        case .iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
        case .android: "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
        case .desktop: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
        }
    }
}

extension Console {
    /// The prefix under which a preview's own assets (`/static/…` of the site) are served:
    /// `/console/preview/<site>/static/…`.
    static let previewAssets = "/console/preview/"

    /// A chat app's link-preview crawler (it gets the og tags, never a redirect by platform).
    static let cardCrawler = "WhatsApp/2.24.24.78 A"

    /// The console's CSP for the link editor: the device previews are frames of this origin, and
    /// the card's image may come from the image's own origin.
    static func editorCSP(image: String?) -> String {
        var imageSources = "'self' data:"
        if let image, let url = URL(string: image), url.scheme == "https", let host = url.host {
            imageSources += " https://\(host)\(url.port.map { ":\($0)" } ?? "")"
        }
        return "default-src 'none'; style-src 'self'; img-src \(imageSources); frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    static func replacingCSP(_ response: HTTPResponse, _ csp: String) -> HTTPResponse {
        guard case let .dynamic(status, headers, body) = response else { return response }
        return .dynamic(status: status, headers: headers.map { $0.0 == "Content-Security-Policy" ? ($0.0, csp) : $0 }, body: body)
    }

    /// What the public listener answers for `link` to `userAgent`: the link's path on the site's
    /// canonical host, through the same Responder (the click is not counted).
    func publicAnswer(_ link: ShortLink, userAgent: String) -> HTTPResponse? {
        let snapshot = runtime.snapshot
        guard let site = snapshot.table.site(named: link.site) else { return nil }
        let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
        let facts = RequestFacts(rawTarget: prefix + PercentEncoding.encodeComponent(link.code), host: site.canonicalHost, userAgent: userAgent, acceptLanguage: "en")
        return Responder.respond(snapshot, facts).response
    }

    /// The card a chat app shows for `link`: og:title, og:description and og:image of the page.
    func previewCard(_ link: ShortLink) -> (title: String, description: String?, image: String?) {
        let fallback = (title: link.previewTitle ?? link.code, description: link.previewDescription, image: link.previewImage)
        guard let answer = publicAnswer(link, userAgent: Self.cardCrawler), answer.status == 200 else { return fallback }
        let html = String(decoding: answer.body, as: UTF8.self)
        func meta(_ property: String) -> String? {
            guard let start = html.range(of: "<meta property=\"\(property)\" content=\"") else { return nil }
            guard let end = html[start.upperBound...].firstIndex(of: "\"") else { return nil }
            return Self.unescapeHTML(String(html[start.upperBound..<end]))
        }
        var image = meta("og:image")
        if let i = image, let site = runtime.snapshot.table.site(named: link.site), i.hasPrefix("https://\(site.canonicalHost)/static/") {
            // The server's own card image: shown through the console's path for the site's assets.
            image = Self.previewAssets + PercentEncoding.encodeComponent(link.site) + i.dropFirst("https://\(site.canonicalHost)".count)
        }
        return (meta("og:title") ?? fallback.title, meta("og:description"), image)
    }

    static func unescapeHTML(_ s: String) -> String {
        var out = s
        for (entity, text) in [("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&#x2F;", "/"), ("&#47;", "/"), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: entity, with: text)
        }
        return out
    }

    /// `GET /console/links/preview?device=&site=&code=`: the landing page that device gets, for
    /// a frame of the console (its own strict CSP kept, framing allowed from this origin only);
    /// a redirect or a 404 is described instead of followed.
    func preview(_ visit: Visit) -> HTTPResponse {
        guard visit.session != nil else { return redirect("/") }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        guard let device = query["device"].flatMap(PreviewDevice.init(rawValue:)) else {
            return message(visit, "Not found", "Preview a link as device=iphone, android or desktop.", status: 404)
        }
        var link: ShortLink?
        _ = withStore { store throws(LinkStoreError) in link = try store.link(site: query["site"] ?? "", code: query["code"] ?? "") }
        guard let link, let answer = publicAnswer(link, userAgent: device.userAgent) else {
            return message(visit, "Not found", "Site '\(query["site"] ?? "")' has no short link '\(query["code"] ?? "")'.", status: 404)
        }
        let headers = answer.headers
        let type = headers.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
        if answer.status == 200, type.hasPrefix("text/html") {
            // The page's assets are the site's /static/ files: fetched through the console.
            let assets = Self.previewAssets + PercentEncoding.encodeComponent(link.site) + "/static/"
            let body = String(decoding: answer.body, as: UTF8.self)
                .replacingOccurrences(of: "=\"/static/", with: "=\"\(assets)")
            let framed = headers.compactMap { (name, value) -> (String, String)? in
                switch name.lowercased() {
                case "content-security-policy": return (name, value.replacingOccurrences(of: "frame-ancestors 'none'", with: "frame-ancestors 'self'"))
                case "x-frame-options": return (name, "SAMEORIGIN")
                case "cache-control", "etag", "vary", "set-cookie": return nil
                default: return (name, value)
                }
            } + [("Cache-Control", "no-store")]
            return .dynamic(status: 200, headers: framed, body: Array(body.utf8))
        }
        let location = headers.first { $0.0.lowercased() == "location" }?.1
        let why: String
        switch answer.status {
        case 300..<400: why = link.forcedRedirect ? "The link has a forced redirect: no landing page is shown." : "This device is sent on without a landing page (a fallback, or the target is not a route)."
        case 404: why = link.disabled ? "The link is disabled: enable it to serve it again." : "The link has expired or its target is not served: see its problem on the form."
        default: why = "The public listener answers this device with status \(answer.status)."
        }
        let body = ConsoleTemplates.linkPages.previewAnswer.renderBytes([
            "device": .string(device.name), "status": .string("\(answer.status) \(Self.statusText(answer.status))"),
            "location": location.map(TemplateValue.string) ?? .null, "why": .string(why),
        ])
        return .dynamic(status: 200, headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"),
            ("X-Frame-Options", "SAMEORIGIN"), ("Referrer-Policy", "same-origin"),
        ], body: body)
    }

    static func statusText(_ status: Int) -> String {
        [301: "Moved Permanently", 302: "Found", 303: "See Other", 307: "Temporary Redirect", 308: "Permanent Redirect", 404: "Not Found", 410: "Gone"][status] ?? ""
    }

    /// `GET /console/preview/<site>/static/…`: a site's static file (stylesheets, icons, the card
    /// image) as the public listener serves it, for the previews.
    func previewAsset(_ visit: Visit) -> HTTPResponse {
        guard visit.session != nil else { return Responder.plain(404, "Not Found\n") }
        let rest = visit.request.rawPath.dropFirst(Self.previewAssets.count)
        guard let slash = rest.firstIndex(of: "/"), let site = runtime.snapshot.table.site(named: PercentEncoding.decode(String(rest[..<slash]))) else {
            return Responder.plain(404, "Not Found\n")
        }
        let path = rest[slash...]
        guard path.hasPrefix("/static/") else { return Responder.plain(404, "Not Found\n") }
        let target = String(path) + (visit.request.rawQuery.map { "?\($0)" } ?? "")
        return Responder.respond(runtime.snapshot, RequestFacts(rawTarget: target, host: site.canonicalHost, userAgent: PreviewDevice.desktop.userAgent)).response
    }
}
