import LinkRouting

/// A response as plain values (LinkServer turns it into an HTTP response).
public struct LandingResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public static func == (a: LandingResponse, b: LandingResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.headers.map { $0.0 + ":" + $0.1 } == b.headers.map { $0.0 + ":" + $0.1 }
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// Landing and not-found pages for every site of a route table: templates compiled once (per
/// snapshot), pages rendered as a pure function of (table, site, match, User-Agent).
public struct LandingRenderer: Sendable {
    public let table: RouteTable
    /// Per site, parallel to `table.sites`.
    public let templates: [LandingTemplates]
    /// The desktop page's QR code of a link. The server passes a cached one (the SVG of a URL
    /// never changes, and encoding it costs more than the rest of the page).
    public var qrCode: @Sendable (String) -> TrustedHTML? = LandingRenderer.makeQRCode

    public static func makeQRCode(_ url: String) -> TrustedHTML? {
        QRCode(url).map { $0.svg(label: "QR code for \(url)") }
    }

    /// No scripts, no frames, no third parties; images from here, `data:` and any https host
    /// (an app icon or preview image on a CDN).
    public static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self' data: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    public static let pageHeaders: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Cache-Control", "no-cache"),
        ("Vary", "User-Agent"),
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// Compiles the templates under `publicDirectory/templates`, and for each site with
    /// `landing.templatesDir`, that folder (under `publicDirectory`) over them.
    public init(table: RouteTable, publicDirectory: String) throws(LandingTemplateError) {
        let base = publicDirectory + "/templates"
        let shipped = try LandingTemplates(directories: [base])
        var perSite: [LandingTemplates] = []
        for site in table.sites {
            if let dir = site.config.landing?.templatesDir, !dir.isEmpty {
                guard !dir.split(separator: "/").contains(".."), !dir.hasPrefix("/") else {
                    throw LandingTemplateError(file: dir, message: "site '\(site.name)': landing.templatesDir must be a relative path under public/ without '..'")
                }
                perSite.append(try LandingTemplates(directories: [base, publicDirectory + "/" + dir]))
            } else {
                perSite.append(shipped)
            }
        }
        self.table = table
        self.templates = perSite
    }

    // MARK: Pages

    /// The landing page for a matched link, as `browser` should see it.
    public func page(for match: LinkMatch, site: CompiledSite, browser: BrowserFacts) -> LandingResponse {
        let links = LandingLinks(table: table, site: site, match: match)
        let context = Self.context(site: site, match: match, links: links, browser: browser, qrCode: qrCode)
        return LandingResponse(status: 200, headers: Self.pageHeaders, body: templates[site.index].landing.renderBytes(context))
    }

    /// The site-branded not-found page (404).
    public func notFound(site: CompiledSite) -> LandingResponse {
        var context = Self.brand(site)
        context["title"] = .string("Link not found")
        return LandingResponse(status: 404, headers: Self.pageHeaders, body: templates[site.index].notFound.renderBytes(.object(context)))
    }

    // MARK: Context

    /// What every page of a site shows: app name, icon, colours, website.
    static func brand(_ site: CompiledSite) -> [String: TemplateValue] {
        let landing = site.config.landing
        let appName = landing?.appName ?? site.iosApps.first?.name ?? site.androidApps.first?.name ?? site.name
        var c: [String: TemplateValue] = [
            "appName": .string(appName),
            "siteName": .string(appName),
        ]
        if let color = landing?.themeColor, !color.isEmpty { c["themeColor"] = .string(color) }
        if let icon = landing?.icon, let url = iconURL(icon) { c["icon"] = .url(url) }
        if let website = site.config.website, let url = SafeURL(website), website.lowercased().hasPrefix("http") {
            c["website"] = .url(url)
            c["websiteLabel"] = .string(Self.label(of: website))
        }
        return c
    }

    /// `https://www.example.com/x` → `www.example.com`.
    static func label(of url: String) -> String {
        var s = Substring(url)
        if let r = s.range(of: "://") { s = s[r.upperBound...] }
        if let slash = s.firstIndex(of: "/") { s = s[..<slash] }
        return String(s)
    }

    /// An icon is a path under public/ or an absolute https URL.
    static func iconURL(_ icon: String) -> SafeURL? {
        if icon.lowercased().hasPrefix("https://") { return SafeURL(icon) }
        guard !icon.contains(":"), !icon.hasPrefix("//") else { return nil }
        let path = icon.hasPrefix("/") ? icon : "/" + icon
        return SafeURL(path)
    }

    /// A preview image template: an absolute http(s) URL (parameters fill its path and query),
    /// or a path under public/ made absolute on the site's canonical host (crawlers need that).
    static func previewImage(_ template: String, parameters: [String: String], host: String) -> SafeURL? {
        if template.lowercased().hasPrefix("http") {
            return WebTemplate.fillURL(template, parameters: parameters).flatMap { SafeURL($0) }
        }
        guard !template.contains(":"), !template.hasPrefix("//") else { return nil }
        let path = template.hasPrefix("/") ? template : "/" + template
        return WebTemplate.fillURL("https://\(host)\(path)", parameters: parameters).flatMap { SafeURL($0) }
    }

    public static func context(
        site: CompiledSite, match: LinkMatch, links: LandingLinks, browser: BrowserFacts,
        qrCode: (String) -> TrustedHTML? = LandingRenderer.makeQRCode
    ) -> TemplateValue {
        var c = brand(site)
        let appName: String = if case let .string(s)? = c["appName"] { s } else { site.name }
        let preview = site.entry(named: match.route)?.route?.preview
        let title = preview?.title.map { WebTemplate.fillText($0, parameters: match.parameters) } ?? appName
        c["title"] = .string(title.isEmpty ? appName : title)
        if let d = preview?.description.map({ WebTemplate.fillText($0, parameters: match.parameters) }), !d.isEmpty {
            c["description"] = .string(d)
        }
        if let t = preview?.image, let image = previewImage(t, parameters: match.parameters, host: site.canonicalHost) {
            c["image"] = .url(image)
        }
        c["twitterCard"] = .string(c["image"] == nil ? "summary" : "summary_large_image")
        if let canonical = SafeURL(links.canonical) { c["canonical"] = .url(canonical) }
        if let banner = links.smartAppBanner { c["smartBanner"] = .string(banner) }
        c["platform"] = .string(browser.platform.rawValue)
        c[browser.platform.rawValue] = .bool(true)
        if let app = browser.inAppBrowser, browser.crawler == nil { c["inApp"] = .string(app) }

        // App Links tags: the URL each app opens (its scheme, else the https link).
        var al: [String: TemplateValue] = [:]
        if let app = links.iosApp {
            let schemes = Set(app.schemes ?? [])
            al["iosURL"] = (links.iosSchemeLink.flatMap { SafeURL($0, allowedSchemes: schemes) } ?? SafeURL(links.canonical)).map(TemplateValue.url) ?? .null
            if let id = app.appStoreID, LandingLinks.appStore(id: id) != nil { al["appStoreID"] = .string(id) }
            al["iosAppName"] = .string(app.name ?? appName)
        }
        if let app = links.androidApp {
            let schemes = Set(app.schemes ?? [])
            al["androidURL"] = (links.androidSchemeLink.flatMap { SafeURL($0, allowedSchemes: schemes) } ?? SafeURL(links.canonical)).map(TemplateValue.url) ?? .null
            al["androidPackage"] = .string(app.package)
            al["androidAppName"] = .string(app.name ?? appName)
        }
        c["al"] = .object(al)

        // Buttons. iOS: the custom scheme (a same-domain universal link would only reload
        // Safari). Android: Chrome's intent:// URL. Desktop: no app to open; a QR code instead.
        switch browser.platform {
        case .ios:
            if let link = links.iosSchemeLink, let app = links.iosApp,
               let url = SafeURL(link, allowedSchemes: Set(app.schemes ?? [])) {
                c["openInApp"] = .url(url)
            }
            if let s = links.appStore, let url = SafeURL(s) { c["appStore"] = .url(url); c["showAppStore"] = true }
        case .android:
            if let intent = links.androidIntent, let url = SafeURL(intent, allowedSchemes: ["intent"]) {
                c["openInApp"] = .url(url)
            }
            if let s = links.playStore, let url = SafeURL(s) { c["playStore"] = .url(url); c["showPlayStore"] = true }
        case .desktop:
            if let s = links.appStore, let url = SafeURL(s) { c["appStore"] = .url(url); c["showAppStore"] = true }
            if let s = links.playStore, let url = SafeURL(s) { c["playStore"] = .url(url); c["showPlayStore"] = true }
            if browser.crawler == nil, let qr = qrCode(links.canonical) {
                c["qr"] = .html(qr)
            }
        }
        return .object(c)
    }
}
