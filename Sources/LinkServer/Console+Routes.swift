// The console's routes page: a site's route table; a URL tester that answers as `linkwell check`
// does (the route and parameters from the parser, each app's verdict from the platform matchers
// reading the association files this snapshot serves, under Android 16's and 15's parsers, and what
// the server's own Responder answers a phone and a desktop browser on the same snapshot); the AASA
// and assetlinks.json bytes as the public listener serves them, with the matchers' and the config's
// warnings; and the `linkwell doctor` commands for the checks that need the network.

import Association
import Foundation
import LandingPages
import LinkRouting
import LinkwellJSON
import MicroHTTP
import PlatformMatchers

extension Console {
    /// Browsers the tester asks the Responder as: what each would get for the URL.
    static let testerBrowsers: [(name: String, userAgent: String)] = [
        ("iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"),
        ("Android phone", "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"),
        ("Desktop", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"),
    ]

    /// `GET /console/routes?site=&url=`: read scope suffices.
    func routesPage(_ visit: Visit) -> HTTPResponse {
        guard visit.session != nil else { return redirect("/") }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let snapshot = runtime.snapshot
        let url = (query["url"] ?? "").trimmingCharacters(in: .whitespaces)
        // A tested URL picks its own site; otherwise the one asked for, or the first.
        var site = snapshot.sites.first { $0.name == query["site"] } ?? snapshot.sites.first
        if let parts = URLParts(url), let s = snapshot.table.site(forHost: parts.host, fallbackToDefault: false) {
            site = snapshot.sites.first { $0.name == s.name } ?? site
        }
        guard let site else { return message(visit, "No sites", "The config has no sites.", status: 404) }
        let compiled = site.compiled
        let entries: [TemplateValue] = compiled.entries.map { e in
            [
                "index": .int(e.index), "name": .string(e.route?.name ?? "(exclusion)"), "pattern": .string(e.pattern.source),
                "ios": .string(e.iosAppIDs.joined(separator: ", ")), "android": .string(e.androidPackages.joined(separator: ", ")),
            ]
        }
        var warnings: [String] = []
        var files: [TemplateValue] = []
        if site.aasa != nil {
            let body = site.generated.aasa
            if let matcher = try? AppleMatcher(aasa: JSONValue.parse(body)) { warnings += matcher.warnings.map { "AASA: \($0)" } }
            files.append(["id": "aasa", "path": "/.well-known/apple-app-site-association", "bytes": .int(body.count), "text": .string(String(decoding: body, as: UTF8.self))])
        }
        if site.assetLinks != nil {
            let body = site.generated.assetLinks
            if case let .success(file) = AssetLinksFile.parse(body) { warnings += file.warnings.map { "assetlinks.json: \($0)" } }
            files.append(["id": "assetlinks", "path": "/.well-known/assetlinks.json", "bytes": .int(body.count), "text": .string(String(decoding: body, as: UTF8.self))])
        }
        // The config's warnings, as `linkwell validate` prints them (read from the file on disk).
        warnings += LoadedConfig.load(path: runtime.configPath).1.warnings.map(\.description)
        let host = compiled.canonicalHost
        var context: [String: TemplateValue] = [
            "title": "Routes", "onRoutes": true, "site": .string(site.name), "host": .string(host),
            "sites": .list(snapshot.sites.map { ["name": .string($0.name), "selected": .bool($0.name == site.name)] }),
            "entries": .list(entries), "files": .list(files), "warnings": .list(warnings.map { ["text": .string($0)] }),
            "hasWarnings": .bool(!warnings.isEmpty), "url": .string(url),
            "doctor": .list([
                "linkwell doctor https://\(host) --config \(runtime.configPath) --site \(site.name)",
                "linkwell doctor https://\(host) --config \(runtime.configPath) --site \(site.name) --offline",
            ].map { ["command": .string($0)] }),
            "checks": .list(offlineChecks(site, snapshot: snapshot).map { c in
                ["result": .string(c.result.rawValue), "label": .string(c.result.rawValue.uppercased()), "what": .string(c.what), "fix": c.fix.map(TemplateValue.string) ?? .null]
            }),
        ]
        if !url.isEmpty { context["test"] = .object(test(url, snapshot: snapshot)) }
        return page(ConsoleTemplates.compiled.routes, visit, context, status: 200)
    }

    /// `linkwell doctor`'s checks that need no network, on what this server's public listener
    /// serves for the site's canonical host: each file's status and Content-Type, its syntax,
    /// size and apps (ServedFileChecks, the code doctor runs on what it fetches), and every
    /// route's sample link claimed through the files.
    func offlineChecks(_ site: Site, snapshot: Snapshot) -> [ServedFileCheck] {
        let compiled = site.compiled
        let host = compiled.canonicalHost
        var checks: [ServedFileCheck] = []
        var served: [ServedFileChecks.Kind: [UInt8]] = [:]
        var files: [(path: String, kind: ServedFileChecks.Kind)] = []
        if !compiled.iosApps.isEmpty { files.append(("/.well-known/apple-app-site-association", .aasa)) }
        if !compiled.androidApps.isEmpty { files.append(("/.well-known/assetlinks.json", .assetlinks)) }
        for file in files {
            let result = Responder.respond(snapshot, RequestFacts(rawTarget: file.path, host: host, userAgent: file.kind == .aasa ? "AASA-Bot/1.0.0" : "Mozilla/5.0"))
            let response = result.response
            let body = response.body
            guard response.status == 200 else {
                checks.append(.init(.fail, "\(host): \(file.path) answers \(response.status) on this server; anything but 200 means no association",
                                    fix: "check that '\(host)' is one of the site's domains and the site lists its apps (linkwell validate)"))
                continue
            }
            checks.append(.init(.pass, "\(host): \(file.path) status 200 without redirect"))
            let type = response.header("Content-Type") ?? ""
            checks.append(type.hasPrefix("application/json")
                ? .init(.pass, "\(host): \(file.path) Content-Type \(type)")
                : .init(.fail, "\(host): \(file.path) Content-Type is '\(type)', not application/json", fix: "report this: Linkwell serves application/json"))
            let content = ServedFileChecks.file(label: host, name: file.path, kind: file.kind, body: body, site: compiled)
            checks += content.checks
            if content.usable { served[file.kind] = body }
        }
        checks += ServedFileChecks.routes(label: host, host: host, site: compiled, table: snapshot.table, aasa: served[.aasa], assetLinks: served[.assetlinks])
        return checks
    }

    /// What `linkwell check URL` says, as template values.
    private func test(_ url: String, snapshot: Snapshot) -> [String: TemplateValue] {
        let table = snapshot.table
        var out: [String: TemplateValue] = ["url": .string(url)]
        switch table.resolve(url) {
        case let .matched(m):
            out["status"] = "matched"
            out["route"] = .string(m.route)
            out["summary"] = .string("Route \(m.route) (routes[\(m.entryIndex)]) on site \(m.site)")
            out["parameters"] = .list(m.parameters.keys.sorted().map { ["name": .string($0), "value": .string(m.parameters[$0]!)] })
            out["hasParameters"] = .bool(!m.parameters.isEmpty)
        case let .excluded(site, index, pattern):
            out["status"] = "excluded"
            out["summary"] = .string("No route: excluded by routes[\(index)] '\(pattern)' of site \(site); no app opens it")
        case let .noRoute(site):
            out["status"] = "no_route"
            out["summary"] = .string("No route of site \(site) matches; no app opens it")
        case let .unknownHost(host):
            out["status"] = "unknown_host"
            out["summary"] = .string("No site lists the host '\(host)'")
        case let .unsupported(why):
            out["status"] = "unsupported"
            out["summary"] = .string("Not a link of this config: \(why)")
        }
        guard let parts = URLParts(url), parts.scheme == "https" || parts.scheme == "http",
              let compiled = table.site(forHost: parts.host, fallbackToDefault: false),
              let site = snapshot.sites.first(where: { $0.name == compiled.name })
        else { return out }
        var claims: [TemplateValue] = []
        if let matcher = try? AppleMatcher(aasa: JSONValue.parse(site.generated.aasa)) {
            let decisions = matcher.decisions(for: url)
            for app in compiled.iosApps {
                let verdict = CheckVerdict.apple(decisions.first { $0.appID == app.appID })
                claims.append(["platform": "iOS", "app": .string(app.appID), "verdict": .string(verdict)])
            }
        }
        for (generation, label) in [(AndroidParserGeneration.android16, "Android 16"), (.android15, "Android 15")] {
            guard case let .success(file) = AssetLinksFile.parse(site.generated.assetLinks, generation: generation) else { continue }
            for app in compiled.androidApps {
                let verdict = CheckVerdict.android(file.handles(url: url, package: app.package, certificates: app.fingerprints))
                claims.append(["platform": .string(label), "app": .string(app.package), "verdict": .string(verdict)])
            }
        }
        out["claims"] = .list(claims)
        out["hasClaims"] = .bool(!claims.isEmpty)
        out["hasBrowsers"] = true
        let target = parts.path + (parts.query.map { "?\($0)" } ?? "")
        out["browsers"] = .list(Self.testerBrowsers.map { browser in
            let result = Responder.respond(snapshot, RequestFacts(rawTarget: target.isEmpty ? "/" : target, host: parts.host, userAgent: browser.userAgent))
            var answer = "\(result.response.status) \(result.kind.rawValue)"
            if let location = result.response.header("Location") { answer += " → \(location)" }
            return ["name": .string(browser.name), "answer": .string(answer)]
        })
        return out
    }
}

/// One app's verdict on a URL in the words `linkwell check` and the console's tester both use.
public enum CheckVerdict {
    /// The iOS app's deciding AASA component, or nil when none matches.
    public static func apple(_ d: AppleDecision?) -> String {
        guard let d else { return "not claimed (no component matches)" }
        return "\(d.verdict == .match ? "claimed" : "blocked") by component #\(d.componentIndex) \(d.rule)"
    }

    /// The Android app's decision, or nil when assetlinks.json does not verify the app.
    public static func android(_ d: AndroidURLDecision?) -> String {
        guard let d else { return "not verified" }
        if d.handled {
            return d.rule.map { "handled through component #\(d.ruleIndex ?? 0) \($0)" } ?? "handled (no dynamic rules)"
        }
        return d.rule.map { "not handled: component #\(d.ruleIndex ?? 0) \($0) decides" } ?? "not handled: no component matches"
    }
}
