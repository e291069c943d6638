// linkwell check — what a URL is, and who claims it through which generated component.

import Association
import Foundation
import LandingPages
import LinkRouting
import LinkServer
import LinkStore
import LinkwellJSON
import PlatformMatchers

enum CheckCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "check",
        overview: "Explain a URL: its site, route and parameters, and which iOS and Android app claims it through which generated component.",
        abstract: "Explain what a URL is: route, parameters, which app claims it and why.",
        arguments: [ArgumentSpec(name: "<url>", help: "An https link on a site's domain, or a custom-scheme link.")],
        options: [CommonOptions.config.spec, userAgent.spec, acceptLanguage.spec, storage.spec, CommonOptions.json.spec]
    )
    static let storage = Option<String>(
        "--storage", "file|postgres-url",
        help: "Read the short links from this SQLite file or PostgreSQL URL instead of the config's storage (say, a copy of production's).")
    static let userAgent = Option<String>(
        "--user-agent", "ua",
        help: "Also say what a browser with this User-Agent gets for the link (landing page, store or web redirect) and why, and the page's language, preview image and buttons.")
    static let acceptLanguage = Option<String>(
        "--accept-language", "list",
        help: "The browser's Accept-Language (e.g. 'pt-BR,pt;q=0.9'), for the page's language; default none (the site's defaultLocale).")

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError(message: "give exactly one URL") }
        let url = args.positional[0]
        let (validated, _) = try args.loadConfig()
        let table = validated.table
        var report = try LinkExplanation(validated: validated, url: url)
        // The server's own snapshot, short links read from its store: what serve answers.
        let (snapshot, loading) = ServerRuntime.loadSnapshot(configPath: validated.file, liveLinks: try args[storage].map(links(from:)))
        if let ua = args[userAgent] {
            // The page as the server would make it: the same snapshot (publicDir, templatesDir, cards).
            let landing = (snapshot?.renderer as? LandingPageRenderer)?.landing
            report.explainBrowser(userAgent: ua, table: table, acceptLanguage: args[acceptLanguage], landing: landing)
        }
        if let parts = URLParts(url), parts.scheme == "https" || parts.scheme == "http", report.site != nil {
            if let snapshot {
                let target = (parts.path.isEmpty ? "/" : parts.path) + (parts.query.map { "?" + $0 } ?? "")
                report.served = Responder.served(snapshot, host: parts.host, rawTarget: target, userAgent: args[userAgent], acceptLanguage: args[acceptLanguage])
            } else {
                for d in loading.errors { Output.err(d.description) }
            }
        }
        if args.has(CommonOptions.json) {
            Output.json(report.json)
        } else {
            Output.out(report.text)
        }
        return 0
    }
}

extension CheckCommand {
    /// `--storage`: the short links of another store, read once, read-only.
    static func links(from storage: String) throws -> LinkIndexCell {
        let location: StorageLocation = storage.hasPrefix("postgres://") || storage.hasPrefix("postgresql://")
            ? .postgres(conninfo: storage, password: nil) : .sqlite(path: storage)
        guard location.exists else {
            throw UsageError(message: "--storage \(storage): no such file; give the link database (a SQLite file) or a postgres:// URL")
        }
        do throws(LinkStoreError) {
            let (index, revision) = try LinkStore(reading: location, busyTimeoutMilliseconds: 2000).loadIndex(table: nil)
            return LinkIndexCell(LinkIndexCell.State(index: index, revision: revision, source: location))
        } catch {
            throw IOFailure(description: "--storage \(location): \(error)")
        }
    }
}

/// A file generated from the config that its own platform matcher cannot read (a bug in the generator).
struct GeneratedFileUnreadable: Error, CustomStringConvertible {
    var site: String
    var file: String
    var reason: String

    var description: String {
        "the generated \(file) of site '\(site)' does not read back (\(reason)); this is a bug in Linkwell: please report it with the config"
    }
}

/// Everything `check` says about a URL, computed once for both output forms.
struct LinkExplanation {
    var url: String
    var resolution: LinkResolution
    var site: CompiledSite?
    /// No route takes the link, but the site claims it as a short link (`shortLinks.openApp`).
    var claimedShortLink = false
    var apple: [(app: String, decision: AppleDecision?)] = []
    var android: [(app: String, decision: AndroidURLDecision?)] = []
    /// The same under Android 15's dynamic-rule parser.
    var android15: [(app: String, decision: AndroidURLDecision?)] = []
    var userAgent: String?
    var browser: BrowserFacts?
    var fallback: FallbackDecision?
    /// For a link that matches no route: the not-found redirect, or nil (the not-found page).
    var notFoundRedirect: String?
    /// The landing page's language, preview image and buttons (when the decision is the page).
    var page: LandingRenderer.Summary?
    var acceptLanguage: String?
    /// What serve answers (the same responder, the store's short links).
    var served: ServedAnswer?

    mutating func explainBrowser(userAgent ua: String, table: RouteTable, acceptLanguage: String? = nil, landing: LandingRenderer? = nil) {
        userAgent = ua
        self.acceptLanguage = acceptLanguage
        let facts = BrowserFacts(userAgent: ua)
        browser = facts
        guard let site else { return }
        if case let .matched(m) = resolution {
            let decision = LandingChoice(table: table, site: site, match: m, overrides: nil, browser: facts, iPad: false).decision
            fallback = decision
            if case .landing = decision, let renderer = landing {
                page = renderer.summary(for: m, site: site, browser: facts, acceptLanguage: acceptLanguage)
            }
        } else {
            notFoundRedirect = site.config.notFound?.redirect
        }
    }

    /// What a browser gets for a link no route takes: the config's redirect, or the page.
    var notFoundOutcome: String {
        if let target = site?.config.notFound?.redirect { return "are redirected (302) to \(target) (notFound.redirect)" }
        return "get the not-found page (404)"
    }

    /// A stored short link or a long link answered (no route, but no miss either).
    var isLink: Bool { served?.code != nil || served?.link == "long_link" }

    var browserLines: [String] {
        guard let ua = userAgent, let b = browser else { return [] }
        var kind = b.platform.rawValue
        if let c = b.crawler { kind += ", link-preview crawler \(c)" }
        if let a = b.inAppBrowser { kind += ", \(a) in-app browser" }
        var lines = ["Browser:   \(kind)  (User-Agent: \(ua))"]
        if let f = fallback {
            switch f {
            case .landing:
                lines.append("Gets:      landing page (200) — \(f.reason)")
                if let p = page {
                    lines.append("Language:  \(p.locale)" + (acceptLanguage.map { " (Accept-Language: \($0))" } ?? " (no Accept-Language: the site's default)"))
                    lines.append("Image:     " + (p.image.map { "\($0)" + (p.imageGenerated ? " (generated 1200×630 card)" : " (configured)") } ?? "none"))
                    lines.append("Buttons:   " + (p.steps.steps.isEmpty ? "none" : p.steps.steps.map { "\($0.id) \($0.url)" }.joined(separator: "\n           ")))
                }
            case let .redirect(_, target, reason): lines.append("Gets:      302 → \(target) (\(f.name)) — \(reason)")
            }
        } else if site != nil, !isLink {
            if let r = notFoundRedirect { lines.append("Gets:      302 → \(r) (notFound.redirect)") } else { lines.append("Gets:      not-found page (404)") }
        }
        return lines
    }

    init(validated: ValidatedConfig, url: String) throws(GeneratedFileUnreadable) {
        let table = validated.table
        self.url = url
        resolution = table.resolve(url)
        if let parts = URLParts(url), parts.scheme == "https" || parts.scheme == "http" {
            site = table.site(forHost: parts.host, fallbackToDefault: false)
        } else if case let .matched(m) = resolution {
            site = table.site(named: m.site)
        }
        guard let site, let parts = URLParts(url), parts.scheme == "https" || parts.scheme == "http" else { return }
        let generated = validated.generated(site)
        if case .noRoute = resolution, case let .matched(m) = table.resolve(site: generated.claims, path: parts.path, query: parts.query, fragment: parts.fragment) {
            claimedShortLink = m.route == ShortLinksConfig.claimRouteName
        }
        // The files were generated from this config a moment ago: one that does not read back is
        // a bug to report, not a claim to leave out silently.
        let aasa: AppleMatcher
        do { aasa = try AppleMatcher(aasa: JSONValue.parse(generated.aasa)) } catch {
            throw GeneratedFileUnreadable(site: site.name, file: "apple-app-site-association", reason: "\(error)")
        }
        let decisions = aasa.decisions(for: url)
        apple = site.iosApps.map { app in (app.appID, decisions.first { $0.appID == app.appID }) }
        for generation in [AndroidParserGeneration.android16, .android15] {
            let file: AssetLinksFile
            switch AssetLinksFile.parse(generated.assetLinks, generation: generation) {
            case let .success(f): file = f
            case let .failure(rejection): throw GeneratedFileUnreadable(site: site.name, file: "assetlinks.json", reason: "\(rejection)")
            }
            let verdicts = site.androidApps.map { app in (app: app.package, decision: file.handles(url: url, package: app.package, certificates: app.fingerprints)) }
            if generation == .android16 { android = verdicts } else { android15 = verdicts }
        }
    }

    var text: String {
        var lines: [String] = ["URL:       \(url)"]
        switch resolution {
        case let .matched(m):
            lines.append("Site:      \(m.site)")
            let entry = site?.entries.first { $0.index == m.entryIndex }
            lines.append("Route:     \(m.route)  (\(entry?.pattern.source ?? "?"), routes[\(m.entryIndex)])")
            if m.parameters.isEmpty {
                lines.append("Params:    (none)")
            } else {
                for (i, key) in m.parameters.keys.sorted().enumerated() {
                    lines.append((i == 0 ? "Params:    " : "           ") + "\(key) = \"\(m.parameters[key]!)\"")
                }
            }
            lines.append("Opens:     " + (m.iosAppIDs.map { "iOS \($0)" } + m.androidPackages.map { "Android \($0)" }).joined(separator: ", "))
        case let .excluded(site, index, pattern):
            lines.append("Site:      \(site)")
            lines.append("Route:     none — excluded by routes[\(index)] '\(pattern)'; no app opens it; browsers \(notFoundOutcome)")
        case let .noRoute(site):
            lines.append("Site:      \(site)")
            let claimed = claimedShortLink ? "; a short-link path the apps are given (shortLinks.openApp): they resolve it with /.well-known/linkwell/resolve" : ""
            if let served, let code = served.code {
                lines.append("Route:     none — the path is short link '\(code)' of the link store" + (served.route.map { ", which leads to route '\($0)'" } ?? "") + claimed)
            } else if let served, served.link == "long_link" {
                lines.append("Route:     none — a long link (link=…)" + (served.route.map { ", which leads to route '\($0)'" } ?? ""))
            } else if claimedShortLink {
                lines.append("Route:     none — a short-link path the apps are given (shortLinks.openApp): they resolve it with /.well-known/linkwell/resolve; browsers get a stored code's landing page, and for an unknown code \(notFoundOutcome)")
            } else {
                lines.append("Route:     none — no route matches; browsers \(notFoundOutcome)")
            }
        case let .unknownHost(host):
            lines.append("Site:      none — no site lists the host '\(host)'")
        case let .unsupported(why):
            lines.append("Site:      none — \(why)")
        }
        if apple.isEmpty && android.isEmpty, case .matched = resolution, let scheme = URLParts(url)?.scheme, scheme != "https" && scheme != "http" {
            lines.append("Scheme:    '\(scheme)://' opens the app directly; no association file is involved")
        }
        for (app, d) in apple {
            lines.append("iOS:       \(app) — \(CheckVerdict.apple(d))")
        }
        for (k, (app, d)) in android.enumerated() {
            lines.append("Android:   \(app) — \(CheckVerdict.android(d))")
            if k < android15.count, let d15 = android15[k].decision, d15.handled != d?.handled {
                lines.append("Android 15: \(app) — \(d15.handled ? "handled" : "not handled") under Android 15's parser (\(d15))")
            }
        }
        lines += browserLines
        if let served {
            var line = "Served:    \(served.status) \(served.kind)"
            if let outcome = served.outcome { line += ", outcome \(outcome)" }
            if let location = served.location { line += " → \(location)" }
            lines.append(line + (userAgent == nil ? "  (as serve answers a browser without a User-Agent; --user-agent for another)" : ""))
        }
        return lines.joined(separator: "\n")
    }

    /// `check --json`.
    struct Report: Encodable {
        struct Opens: Encodable { var ios, android: [String] }
        struct Exclusion: Encodable {
            var index: Int
            var pattern: String
        }
        struct Button: Encodable { var id, url: String }
        struct Browser: Encodable {
            var userAgent, platform: String
            var crawler, inAppBrowser, decision, reason, target, locale, image: String?
            var imageGenerated: Bool?
            var buttons: [Button]?
        }
        struct Apple: Encodable {
            var appID, verdict: String
            var component: Int?
            var rule: String?
        }
        struct Android: Encodable {
            var package: String
            var handled, verified: Bool
            var component: Int?
            var rule: String?
        }

        var url, status: String
        var site, route, notFoundRedirect, host, reason: String?
        var parameters: [String: String]?
        var opens: Opens?
        var exclusion: Exclusion?
        var browser: Browser?
        /// What serve answers, in the access log's and the click counts' names.
        var served: Served?
        struct Served: Encodable {
            var status: Int
            var kind: String
            var outcome, route, code, location: String?
        }
        var apple: [Apple] = []
        var android: [Android] = []
        var android15: [Android] = []
    }

    var json: Report {
        var o: Report
        switch resolution {
        case let .matched(m):
            // The parser's answer; the platform matchers' answers are under "apple" and "android".
            o = Report(url: url, status: "matched", site: m.site, route: m.route, parameters: m.parameters,
                       opens: Report.Opens(ios: m.iosAppIDs, android: m.androidPackages))
        case let .excluded(site, index, pattern):
            o = Report(url: url, status: "excluded", site: site, exclusion: Report.Exclusion(index: index, pattern: pattern))
        case let .noRoute(site):
            // A short or long link is no route, but is no miss either.
            let status = !isLink ? "no_route" : served?.code != nil ? "short_link" : "long_link"
            o = Report(url: url, status: status, site: site, notFoundRedirect: status == "no_route" ? self.site?.config.notFound?.redirect : nil)
        case let .unknownHost(h):
            o = Report(url: url, status: "unknown_host", host: h)
        case let .unsupported(why):
            o = Report(url: url, status: "unsupported", reason: why)
        }
        if let b = browser {
            var x = Report.Browser(userAgent: userAgent ?? "", platform: b.platform.rawValue, crawler: b.crawler, inAppBrowser: b.inAppBrowser)
            if let f = fallback {
                x.decision = f.name
                x.reason = f.reason
                x.target = f.target
                if let p = page {
                    x.locale = p.locale
                    if let i = p.image { x.image = "\(i)"; x.imageGenerated = p.imageGenerated }
                    x.buttons = p.steps.steps.map { Report.Button(id: $0.id, url: $0.url) }
                }
            } else if site != nil, !isLink {
                x.decision = notFoundRedirect == nil ? "not_found" : "not_found_redirect"
                x.target = notFoundRedirect
            }
            o.browser = x
        }
        if let s = served {
            o.served = Report.Served(status: s.status, kind: s.kind, outcome: s.outcome, route: s.route, code: s.code, location: s.location)
        }
        o.apple = apple.map { a in
            Report.Apple(appID: a.app, verdict: a.decision?.verdict.rawValue ?? "none", component: a.decision?.componentIndex, rule: a.decision?.rule)
        }
        func androidJSON(_ list: [(app: String, decision: AndroidURLDecision?)]) -> [Report.Android] {
            list.map { a in
                Report.Android(package: a.app, handled: a.decision?.handled ?? false, verified: a.decision != nil, component: a.decision?.ruleIndex, rule: a.decision?.rule)
            }
        }
        o.android = androidJSON(android)
        o.android15 = androidJSON(android15)
        return o
    }
}
