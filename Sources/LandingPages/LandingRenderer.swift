import Foundation
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

/// Landing and not-found pages for every site of a route table: templates, string catalogs and
/// per-site stylesheets compiled once (per snapshot), pages rendered as a pure function of
/// (table, site, match, User-Agent, Accept-Language).
public struct LandingRenderer: Sendable {
    public let table: RouteTable
    /// Per site, parallel to `table.sites`.
    public let templates: [LandingTemplates]
    /// Page strings by language tag (`public/locales/<tag>.json`).
    public let catalogs: [String: StringCatalog]
    /// The tags of `catalogs`, sorted.
    public let locales: [String]
    /// Per site: the brand stylesheet (`themeColor` as the accent), served under its content hash.
    public let brandStyles: [BrandStylesheet?]
    /// The desktop page's QR code of a link. The server passes a cached one (the SVG of a URL
    /// never changes, and encoding it costs more than the rest of the page).
    public var qrCode: @Sendable (_ url: String, _ label: String) -> TrustedHTML? = LandingRenderer.makeQRCode
    /// The generated preview card's URL path for a page without a configured image (nil: no
    /// generated cards).
    public var previewCard: (@Sendable (PreviewCard) -> String?)? = nil
    /// Per site: the icon file the cards show (a local file of the tree; remote icons are not
    /// fetched).
    public let cardIcons: [(bytes: [UInt8], type: String)?]
    /// Per site: `website` when it does not loop back to this server's not-found page.
    public let homes: [String?]
    /// Which parameter values page text may show.
    public internal(set) var parameterDisplay: ParameterDisplay

    public static func makeQRCode(_ url: String, label: String) -> TrustedHTML? {
        QRCode(url).map { $0.svg(label: label) }
    }

    /// No scripts, no frames, no third parties; images from here, `data:` and any https host
    /// (an app icon or preview image on a CDN).
    public static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self' data: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// On every not-found answer: "no link here", for a proxy that then asks the website sharing
    /// the domain (the configs of `linkwell generate nginx|caddy --website-upstream`).
    public static let missHeader = ("X-Linkwell-Miss", "1")

    public static let pageHeaders: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Cache-Control", "no-cache"),
        ("Vary", "User-Agent, Accept-Language"),
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// The policy of a site with `deferredLinks.ios: "clipboard"`: the same, plus scripts from this
    /// origin (the App Store button's clipboard hand-off, `clipboardScript`).
    public static let clipboardContentSecurityPolicy = contentSecurityPolicy.replacingOccurrences(
        of: "default-src 'none'; ", with: "default-src 'none'; script-src 'self'; ")

    /// `pageHeaders` with `clipboardContentSecurityPolicy`.
    public static let clipboardPageHeaders: [(String, String)] = pageHeaders.map {
        $0.0 == "Content-Security-Policy" ? ($0.0, clipboardContentSecurityPolicy) : $0
    }

    /// The landing-page headers of `site`: scripts allowed only when it opts in to the clipboard hand-off.
    public static func pageHeaders(for site: CompiledSite) -> [(String, String)] {
        site.config.deferredLinks?.iosClipboard == true ? clipboardPageHeaders : pageHeaders
    }

    /// The script file (under `public/`) of the App Store button's clipboard hand-off.
    public static let clipboardScript = "/static/linkwell-deferred.js"

    /// Compiles the templates under `templates/` of `files`, and for each site with
    /// `landing.templatesDir`, that folder of `files` over them; reads `locales/*.json`.
    public init(table: RouteTable, files: AssetFiles = .embedded) throws(LandingTemplateError) {
        let shipped = try LandingTemplates(files: files, folders: ["templates"])
        var perSite: [LandingTemplates] = []
        for site in table.sites {
            if let dir = Self.templatesFolder(site) {
                guard !dir.split(separator: "/").contains(".."), !dir.hasPrefix("/") else {
                    throw LandingTemplateError(file: dir, message: "site '\(site.name)': landing.templatesDir must be a relative path without '..'",
                                               fix: "put the folder under server.publicDir (or beside the config file) and name it relative to that")
                }
                perSite.append(try LandingTemplates(files: files, folders: ["templates", dir]))
            } else {
                perSite.append(shipped)
            }
        }
        var catalogs: [String: StringCatalog] = [:]
        for (path, bytes) in files.files where path.hasPrefix("locales/") && path.hasSuffix(".json") {
            let tag = String(path.dropFirst("locales/".count).dropLast(".json".count))
            guard !tag.contains("/") else { continue }
            do {
                catalogs[tag] = try StringCatalog(tag: tag, json: bytes)
            } catch {
                throw LandingTemplateError(file: path, message: "string catalog \(error.message)", fix: error.fix)
            }
        }
        guard catalogs["en"] != nil else {
            throw LandingTemplateError(file: "locales/en.json", message: "the English string catalog is missing",
                                       fix: "copy public/locales/en.json from the shipped tree")
        }
        self.table = table
        self.templates = perSite
        self.catalogs = catalogs
        self.locales = catalogs.keys.sorted()
        self.brandStyles = table.sites.map { BrandStylesheet(themeColor: $0.config.landing?.themeColor) }
        self.homes = table.sites.map { NextSteps.home(table: table, site: $0) }
        self.parameterDisplay = ParameterDisplay(table: table)
        self.cardIcons = table.sites.map { site in
            guard let icon = Self.icon(site, platform: .desktop), !icon.contains(":") else { return nil }
            let path = icon.hasPrefix("/") ? String(icon.dropFirst()) : icon
            let type: String? = switch (path as NSString).pathExtension.lowercased() {
            case "svg": "image/svg+xml"
            case "png": "image/png"
            case "jpg", "jpeg": "image/jpeg"
            default: nil
            }
            guard let type, let bytes = files.files[path] else { return nil }
            return (bytes, type)
        }
    }

    /// `landing.templatesDir`, trimmed of slashes; nil when unset.
    public static func templatesFolder(_ site: CompiledSite) -> String? {
        guard let dir = site.config.landing?.templatesDir, !dir.isEmpty else { return nil }
        var d = Substring(dir)
        while d.hasPrefix("./") { d = d.dropFirst(2) }
        while d.hasSuffix("/") { d = d.dropLast() }
        return String(d)
    }

    // MARK: Pages

    /// The language a page for `browser` is in: crawlers get the site's default (a preview is
    /// shown to everyone in the chat), others what `Accept-Language` prefers.
    public func locale(site: CompiledSite, browser: BrowserFacts, acceptLanguage: String?) -> StringCatalog {
        let siteDefault = site.config.landing?.defaultLocale
        let tag = LocaleNegotiation.choose(acceptLanguage: browser.crawler == nil ? acceptLanguage : nil,
                                           available: locales, siteDefault: siteDefault)
        return catalogs[tag] ?? catalogs["en"]!
    }

    /// The landing page for a matched link, as `browser` should see it.
    /// `overrides`: a short or long link's preview and fallbacks over the route's (LinkOverrides).
    public func page(for match: LinkMatch, site: CompiledSite, browser: BrowserFacts, acceptLanguage: String? = nil,
                     overrides: LinkOverrides? = nil, iPad: Bool = false) -> LandingResponse {
        let catalog = locale(site: site, browser: browser, acceptLanguage: acceptLanguage)
        let context = pageContext(site: site, match: match, browser: browser, catalog: catalog, overrides: overrides, iPad: iPad)
        return LandingResponse(status: 200, headers: Self.pageHeaders(for: site), body: templates[site.index].landing.renderBytes(context))
    }

    /// The site-branded not-found page (404): the site's stores for this platform and its home,
    /// never a link this server would answer with this page again.
    public func notFound(site: CompiledSite, browser: BrowserFacts = BrowserFacts(platform: .desktop), acceptLanguage: String? = nil) -> LandingResponse {
        notFound(site: site, browser: browser, catalog: locale(site: site, browser: browser, acceptLanguage: acceptLanguage))
    }

    func notFound(site: CompiledSite, browser: BrowserFacts, catalog: StringCatalog) -> LandingResponse {
        var c = brand(site, platform: browser.platform, catalog: catalog)
        c["title"] = .string(catalog.text("notFoundTitle"))
        let appName = Self.appName(site)
        c["t"] = .object([
            "notFoundHeading": .string(catalog.text("notFoundHeading")),
            "notFoundBody": .string(catalog.text("notFoundBody", ["appName": appName])),
            "actions": .string(catalog.text("actions")),
        ])
        let steps = NextSteps.notFound(platform: browser.platform, site: site, home: homes[site.index])
        addSteps(steps, to: &c, site: site, catalog: catalog, inApp: nil)
        return LandingResponse(status: 404, headers: Self.pageHeaders + [Self.missHeader], body: templates[site.index].notFound.renderBytes(.object(c)))
    }

    // MARK: Context

    static func appName(_ site: CompiledSite) -> String {
        site.config.landing?.appName ?? site.iosApps.first?.name ?? site.androidApps.first?.name ?? site.name
    }

    /// The icon shown for `platform`: the platform's app's own `icon`, else `landing.icon`.
    static func icon(_ site: CompiledSite, platform: Platform, ios: IOSAppConfig? = nil, android: AndroidAppConfig? = nil) -> String? {
        let own: String? = switch platform {
        case .ios: (ios ?? site.iosApps.first)?.icon
        case .android: (android ?? site.androidApps.first)?.icon
        case .desktop: nil
        }
        return own ?? site.config.landing?.icon ?? site.iosApps.lazy.compactMap(\.icon).first ?? site.androidApps.lazy.compactMap(\.icon).first
    }

    /// What every page of a site shows: language, app name, icon, colours, stylesheet.
    func brand(_ site: CompiledSite, platform: Platform, catalog: StringCatalog,
               ios: IOSAppConfig? = nil, android: AndroidAppConfig? = nil) -> [String: TemplateValue] {
        let landing = site.config.landing
        let appName = Self.appName(site)
        var c: [String: TemplateValue] = [
            "lang": .string(catalog.tag),
            "appName": .string(appName),
            "siteName": .string(appName),
        ]
        if let color = landing?.themeColor, !color.isEmpty { c["themeColor"] = .string(color) }
        if let icon = Self.icon(site, platform: platform, ios: ios, android: android), let url = Self.iconURL(icon) { c["icon"] = .url(url) }
        if let style = brandStyles[site.index], let url = SafeURL(style.path) { c["brandStyle"] = .url(url) }
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

    /// The route's preview title and description in `catalog`'s language: `preview.locales[tag]`
    /// (then its language without region), else the plain texts (the site's default language).
    static func previewText(_ preview: PreviewConfig?, tag: String) -> (title: String?, description: String?) {
        var localized: PreviewText?
        if let locales = preview?.locales {
            let lower = Dictionary(locales.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            localized = lower[tag.lowercased()] ?? tag.split(separator: "-").first.flatMap { lower[$0.lowercased()] }
        }
        return (localized?.title ?? preview?.title, localized?.description ?? preview?.description)
    }

    /// The image a page's preview shows, absolute: the route's `preview.image`, the site's
    /// `landing.image`, else the generated card (nil without a card renderer).
    /// `cardLink`: the link the card is for, when not the route's (a stored short link's own URL).
    func image(site: CompiledSite, match: LinkMatch, title: String, catalog: StringCatalog, links: LandingLinks,
               cardLink: String? = nil) -> (url: SafeURL, generated: Bool)? {
        let preview = site.entry(named: match.route)?.route?.preview
        for template in [preview?.image, site.config.landing?.image].compactMap({ $0 }) where !template.isEmpty {
            if let url = Self.previewImage(template, parameters: match.parameters, host: site.canonicalHost) { return (url, false) }
        }
        let card = PreviewCard(site: site.name, route: match.route, link: cardLink ?? links.canonical, appName: Self.appName(site), title: title,
                               themeColor: site.config.landing?.themeColor, icon: Self.icon(site, platform: .desktop), locale: catalog.tag)
        guard let path = previewCard?(card), let url = SafeURL("https://\(site.canonicalHost)\(path)") else { return nil }
        return (url, true)
    }

    /// The title a page in `tag`'s language shows for a match.
    func title(site: CompiledSite, match: LinkMatch, tag: String) -> String {
        let appName = Self.appName(site)
        let text = Self.previewText(site.entry(named: match.route)?.route?.preview, tag: tag)
        guard parameterDisplay.shows(match, site: site) else { return appName }
        let title = text.title.map { WebTemplate.fillText($0, parameters: match.parameters) } ?? appName
        return title.isEmpty ? appName : title
    }

    /// The card a page of this link in `locale` shows (to rebuild it from the image URL).
    /// `link` and `title`: a stored short link's own URL and title, when it has them.
    public func card(for match: LinkMatch, site: CompiledSite, locale: String, link: String? = nil, title linkTitle: String? = nil) -> PreviewCard {
        let tag = catalogs[locale]?.tag ?? "en"
        let links = LandingLinks(table: table, site: site, match: match)
        return PreviewCard(site: site.name, route: match.route, link: link ?? links.canonical, appName: Self.appName(site),
                           title: linkTitle ?? title(site: site, match: match, tag: tag), themeColor: site.config.landing?.themeColor,
                           icon: Self.icon(site, platform: .desktop), locale: tag)
    }

    /// `/static/og/<hash of the SVG>.png?l=<path and query of the link>&hl=<language>`: the
    /// content names the file, the query lets any instance rebuild it.
    public func previewCardPath(_ card: PreviewCard) -> String {
        let hash = BrandStylesheet.hash(Array(svg(card).utf8))
        var rest = Substring(card.link)
        if let r = rest.range(of: "://") { rest = rest[r.upperBound...] }
        let local = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { String(rest[$0...]) } ?? "/"
        return "/static/og/\(hash).png?l=\(PercentEncoding.encodeComponent(local))&hl=\(PercentEncoding.encodeComponent(card.locale))"
    }

    /// What a page for `browser` holds, for `linkwell check`: its language, preview image and buttons.
    public struct Summary: Sendable {
        public var locale: String
        public var image: String?
        public var imageGenerated: Bool
        public var steps: NextSteps
    }

    public func summary(for match: LinkMatch, site: CompiledSite, browser: BrowserFacts, acceptLanguage: String?) -> Summary {
        let catalog = locale(site: site, browser: browser, acceptLanguage: acceptLanguage)
        let links = LandingLinks(table: table, site: site, match: match)
        let img = image(site: site, match: match, title: title(site: site, match: match, tag: catalog.tag), catalog: catalog, links: links)
        let steps = NextSteps.decide(platform: browser.platform, links: links, webPage: NextSteps.webPage(table: table, site: site, match: match),
                                     home: homes[site.index])
        return Summary(locale: catalog.tag, image: img?.url.string, imageGenerated: img?.generated ?? false, steps: steps)
    }

    /// The card's SVG, with the site's icon.
    public func svg(_ card: PreviewCard) -> String {
        let icon = table.site(named: card.site).flatMap { cardIcons[$0.index] }
        return PreviewCardRenderer.svg(card, icon: icon)
    }

    func pageContext(site: CompiledSite, match: LinkMatch, browser: BrowserFacts, catalog: StringCatalog,
                     overrides: LinkOverrides? = nil, iPad: Bool = false) -> TemplateValue {
        let links = LandingLinks(table: table, site: site, match: match).overridden(by: overrides)
        var c = brand(site, platform: browser.platform, catalog: catalog, ios: links.iosApp, android: links.androidApp)
        let appName = Self.appName(site)
        let text = Self.previewText(site.entry(named: match.route)?.route?.preview, tag: catalog.tag)
        // A generated card's URL must rebuild it from the link alone: a route's card shows the
        // route's title; a stored short link's (its own URL, `overrides.canonical`) the link's title.
        let routeTitle = title(site: site, match: match, tag: catalog.tag)
        let title = overrides?.title ?? routeTitle
        let card = overrides?.canonical.map { (link: $0, title: title) }
        c["title"] = .string(title)
        let routeDescription = parameterDisplay.shows(match, site: site) ? text.description.map { WebTemplate.fillText($0, parameters: match.parameters) } : nil
        if let d = overrides?.description ?? routeDescription, !d.isEmpty {
            c["description"] = .string(d)
        }
        if let image = overrides?.image.flatMap({ SafeURL($0).map { (url: $0, generated: false) } })
            ?? image(site: site, match: match, title: card?.title ?? routeTitle, catalog: catalog, links: links, cardLink: card?.link) {
            c["image"] = .url(image.url)
            c["imageAlt"] = .string(catalog.text("imageAlt", ["title": title, "appName": appName]))
            if image.generated {
                c["imageWidth"] = .int(PreviewCard.width)
                c["imageHeight"] = .int(PreviewCard.height)
                c["imageType"] = "image/png"
            }
        }
        c["twitterCard"] = .string(c["image"] == nil ? "summary" : "summary_large_image")
        if let canonical = SafeURL(overrides?.canonical ?? links.canonical) { c["canonical"] = .url(canonical) }
        if let banner = links.smartAppBanner { c["smartBanner"] = .string(banner) }
        c["platform"] = .string(browser.platform.rawValue)
        c[browser.platform.rawValue] = .bool(true)

        c["al"] = appLinksTags(links, appName: appName)

        let steps = NextSteps.decide(platform: browser.platform, links: links,
                                     webPage: NextSteps.webPage(table: table, site: site, match: match),
                                     home: homes[site.index]).overridden(by: overrides, platform: browser.platform, iPad: iPad)
        let inApp = browser.crawler == nil ? browser.inAppBrowser : nil
        addSteps(steps, to: &c, site: site, catalog: catalog, inApp: inApp)
        if browser.platform == .ios, site.config.deferredLinks?.iosClipboard == true {
            addClipboardHandOff(to: &c, link: links.canonical, appName: appName, catalog: catalog)
        }
        c["t"] = .object([
            "qrCaption": .string(catalog.text("qrCaption")),
            "link": .string(catalog.text("link")),
            "actions": .string(catalog.text("actions")),
        ])
        if browser.platform == .desktop, browser.crawler == nil, let qr = qrCode(links.canonical, catalog.text("qrLabel", ["url": links.canonical])) {
            c["qr"] = .html(qr)
        }
        return .object(c)
    }

    /// The App Links tags: the URL each app opens (its scheme, else the https link).
    func appLinksTags(_ links: LandingLinks, appName: String) -> TemplateValue {
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
        return .object(al)
    }

    /// The iOS clipboard hand-off (`deferredLinks.ios: "clipboard"`): the App Store button carries
    /// the link to copy (`data-linkwell-copy`), and the page its one-line note and the script.
    /// Without an App Store button there is nothing to hand over.
    func addClipboardHandOff(to c: inout [String: TemplateValue], link: String, appName: String, catalog: StringCatalog) {
        guard case var .list(steps)? = c["steps"], let url = SafeURL(link) else { return }
        var found = false
        for i in steps.indices {
            guard case var .object(b) = steps[i], b["id"] == "app-store" else { continue }
            b["copy"] = .url(url)
            steps[i] = .object(b)
            found = true
        }
        guard found, let script = SafeURL(Self.clipboardScript) else { return }
        c["steps"] = .list(steps)
        c["clipboard"] = .object(["note": .string(catalog.text("clipboardNote", ["appName": appName])), "script": .url(script)])
    }

    /// The buttons: `primary` (Open in app, followed by the in-app-browser note), then `steps`;
    /// `availableOn` when this platform has no app.
    func addSteps(_ steps: NextSteps, to c: inout [String: TemplateValue], site: CompiledSite, catalog: StringCatalog, inApp: String?) {
        let appName = Self.appName(site)
        var rest: [TemplateValue] = []
        for step in steps.steps {
            var b: [String: TemplateValue] = ["id": .string(step.id)]
            let url: SafeURL?
            switch step {
            case let .openInApp(u):
                let schemes = Set((site.iosApps.flatMap { $0.schemes ?? [] }) + (site.androidApps.flatMap { $0.schemes ?? [] }) + ["intent"])
                url = SafeURL(u, allowedSchemes: schemes)
                b["label"] = .string(catalog.text("openInApp", ["appName": appName]))
                b["class"] = "primary"
            case let .appStore(u):
                url = SafeURL(u)
                b["eyebrow"] = .string(catalog.text("appStoreEyebrow"))
                b["label"] = .string(catalog.text("appStore"))
                b["class"] = "store app-store"
            case let .playStore(u):
                url = SafeURL(u)
                b["eyebrow"] = .string(catalog.text("playStoreEyebrow"))
                b["label"] = .string(catalog.text("playStore"))
                b["class"] = "store play-store"
            case let .web(u):
                url = SafeURL(u)
                b["label"] = .string(catalog.text("webPage"))
                b["class"] = "web"
            case let .home(u):
                url = SafeURL(u)
                b["label"] = .string(catalog.text("home", ["website": Self.label(of: u)]))
                b["class"] = "web"
            }
            guard let url else { continue }
            b["url"] = .url(url)
            if case .openInApp = step {
                c["primary"] = .object(b)
            } else {
                rest.append(.object(b))
            }
        }
        // Without an app to open, the first web or store button is the primary one.
        if c["primary"] == nil, !rest.isEmpty, case var .object(first) = rest[0], first["class"] == "web" {
            first["class"] = "primary web"
            rest[0] = .object(first)
        }
        c["steps"] = .list(rest)
        if let inApp, c["primary"] != nil {
            c["inAppNote"] = .string(catalog.text("inAppNote", ["inApp": inApp, "appName": appName]))
        }
        let key: String? = switch Set(steps.availableOn) {
        case [.ios]: "availableOnIOS"
        case [.android]: "availableOnAndroid"
        case [.ios, .android]: "availableOnBoth"
        default: nil
        }
        if let key { c["availableOn"] = .string(catalog.text(key, ["appName": appName])) }
    }
}
