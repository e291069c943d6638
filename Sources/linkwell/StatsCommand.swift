// linkwell stats — the click counts `serve` flushed to the link database: totals by platform,
// outcome, in-app browser, crawler, the top referrer hosts, per day; --json for scripts.

import Foundation
import LinkRouting
import LinkStore

enum StatsCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "stats",
        overview: "Show click counts (per short link, route and UTC day) from the link database.",
        abstract: "Click counts per short link, route and day (platform, outcome, referrer).",
        options: [CommonOptions.config.spec, link.spec, route.spec, site.spec, since.spec, until.spec, CommonOptions.json.spec],
        discussion: """
            The funnel adds the app opens the apps reported (POST /.well-known/linkwell/opens): first
            opens after an install and re-opens.
            'linkwell serve' counts clicks in memory and writes them every storage.clicks.flushSeconds
            (default 10) and at SIGHUP/SIGTERM, so the last seconds of a running server are not here yet.
            Days older than storage.clicks.retentionDays (default 400) are kept as months. Stored: the
            site, code, route, UTC day, platform, outcome, in-app browser yes/no, crawler yes/no and the
            referrer's host — no IP address, User-Agent, cookie or URL. See docs/reference/stats.md.
            """
    )

    static let link = Option<String>("--link", "code", help: "Only this short link's clicks.")
    static let route = Option<String>("--route", "name", help: "Only clicks answered by this route (its pages and the short links to it).")
    static let site = Option<String>("--site", "name", help: "Only this site's clicks (default: every site).")
    static let since = Option<String>("--since", "date", help: "From this UTC day on (YYYY-MM-DD or 'today'), inclusive.")
    static let until = Option<String>("--until", "date", help: "Up to this UTC day (YYYY-MM-DD or 'today'), inclusive.")

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "'stats' takes no arguments; filter with --link, --route, --site, --since, --until") }
        let (validated, _) = try args.loadConfig()
        let table = validated.table
        var parameters: [String: String] = [:]
        if let site = args[Self.site] {
            guard let s = table.site(named: site) else {
                throw UsageError(message: "there is no site '\(site)'; the config's sites are \(table.sites.map(\.name).joined(separator: ", "))")
            }
            parameters["site"] = s.name
        }
        if let route = args[route] {
            let sites = parameters["site"].flatMap { table.site(named: $0) }.map { [$0] } ?? table.sites
            guard sites.contains(where: { $0.entry(named: route)?.route != nil }) else {
                let names = sites.flatMap { $0.routes.compactMap(\.route?.name) }
                let hint = DidYouMean.closest(route, in: names).map { " Did you mean '\($0)'?" } ?? ""
                throw UsageError(message: "no site has a route '\(route)'.\(hint) 'linkwell routes' lists them")
            }
            parameters["route"] = route
        }
        parameters["link"] = args[link]
        let today = ClickDay.text(ClickDay.of(unixSeconds: Int(Date().timeIntervalSince1970)))
        for (key, option) in [("since", since), ("until", until)] {
            if let v = args[option] { parameters[key] = v == "today" ? today : v }
        }
        let query: ClickQuery
        do { query = try ClickQuery(parameters: parameters) } catch { throw UsageError(message: "--\(error.description)") }
        if let since = query.since, let until = query.until, since > until {
            throw UsageError(message: "--since \(ClickDay.text(since)) is after --until \(ClickDay.text(until)); swap them")
        }

        let location: StorageLocation
        do { location = try StorageLocation.of(storage: table.config.storage, configPath: validated.file) } catch {
            Output.err("Error: \(error)")
            return 1
        }
        var report = ClickReport()
        if location.exists {  // a SQLite file 'serve' has not created yet has no clicks
            do { report = try LinkStore(location).clickReport(query) } catch {
                Output.err("Error: \(error)")
                return 1
            }
        }
        if args.has(CommonOptions.json) {
            Output.json(report.document(query: query))
            return 0
        }
        printReport(report, query: query, path: location.description, exists: location.exists)
        return 0
    }

    static func printReport(_ r: ClickReport, query: ClickQuery, path: String, exists: Bool) {
        var scope: [String] = []
        if let s = query.site { scope.append("site \(s)") }
        if let c = query.code { scope.append("link \(c)") }
        if let r = query.route { scope.append("route \(r)") }
        if query.since != nil || query.until != nil {
            scope.append("\(query.since.map(ClickDay.text) ?? "…") to \(query.until.map(ClickDay.text) ?? "…")")
        }
        Output.out("Clicks\(scope.isEmpty ? "" : " of " + scope.joined(separator: ", ")) in \(path)")
        guard r.total > 0 || r.appOpens > 0 else {
            Output.out(exists
                ? "No clicks match. 'linkwell serve' writes them every storage.clicks.flushSeconds (default 10 s) and when it stops."
                : "No clicks yet: the database does not exist; 'linkwell serve' creates it at its first flush.")
            return
        }
        func pct(_ n: Int) -> String { String(format: "%5.1f%%", 100 * Double(n) / Double(max(r.total, 1))) }
        Output.out("")
        Output.out("total \(r.total): humans \(r.humans), crawlers \(r.crawlers), in-app browsers \(r.inAppBrowser)")
        funnel(r)
        section("PLATFORM", r.platforms.map { ($0.name, $0.clicks) }, pct)
        section("OUTCOME", r.outcomes.map { ($0.name, $0.clicks) }, pct)
        section("IN-APP BROWSER", [("yes", r.inAppBrowser), ("no", r.total - r.inAppBrowser)], pct)
        section("CRAWLER", [("yes", r.crawlers), ("no", r.humans)], pct)
        section("REFERRER", r.referrers.prefix(10).map { ($0.name.isEmpty ? "(none)" : $0.name, $0.clicks) }, pct)
        if r.referrers.count > 10 { Output.out("  … \(r.referrers.count - 10) more (--json lists them)") }
        if !r.months.isEmpty { split("MONTH", r.months, r.monthPlatforms) }
        split("DAY", r.days, r.dayPlatforms)
        if query.code == nil, query.route == nil, !r.routes.isEmpty {
            section("ROUTE", r.routes.prefix(10).map { ("\($0.site) \($0.route)", $0.clicks) }, pct)
            if r.routes.count > 10 { Output.out("  … \(r.routes.count - 10) more (--json lists them)") }
        }
        if query.code == nil {
            section("LINK / ROUTE", r.links.prefix(10).map { l in
                let what = l.code.isEmpty ? (l.route.isEmpty ? "not found" : "route \(l.route)") : "/\(l.code)" + (l.route.isEmpty ? "" : " → \(l.route)")
                return ("\(l.site) \(what)", l.clicks)
            }, pct)
            if r.links.count > 10 { Output.out("  … \(r.links.count - 10) more (--json lists them)") }
        }
    }

    /// Clicks → app opens → first opens, each as a share of the clicks.
    static func funnel(_ r: ClickReport) {
        func share(_ n: Int) -> String { r.total == 0 ? "" : String(format: "  %5.1f%% of clicks", 100 * Double(n) / Double(r.total)) }
        let rows = [("clicks", r.total, ""), ("app opens", r.appOpens, share(r.appOpens)),
                    ("first opens", r.firstOpens, share(r.firstOpens)), ("re-opens", r.appOpens - r.firstOpens, share(r.appOpens - r.firstOpens))]
        Output.out("")
        Output.out("FUNNEL         COUNT")
        for (name, n, note) in rows {
            let number = String(n)
            Output.out(name.padding(toLength: 11, withPad: " ", startingAt: 0) + String(repeating: " ", count: max(0, 10 - number.count)) + number + note)
        }
    }

    /// Clicks per day (or month) and their split by platform, one column per platform.
    static func split(_ title: String, _ periods: [ClickReport.Count], _ platforms: [[Int]]) {
        let names = ClickPlatform.allCases.map(\.name)
        let width = max(title.count, periods.map(\.name.count).max() ?? 0) + 2
        func cell(_ text: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - text.count)) + text }
        Output.out("")
        Output.out(title.padding(toLength: width, withPad: " ", startingAt: 0) + cell("CLICKS", 8) + names.map { cell($0.uppercased(), 9) }.joined())
        for (i, p) in periods.enumerated() {
            let row = i < platforms.count ? platforms[i] : Array(repeating: 0, count: names.count)
            Output.out(p.name.padding(toLength: width, withPad: " ", startingAt: 0) + cell(String(p.clicks), 8) + row.map { cell(String($0), 9) }.joined())
        }
    }

    static func section(_ title: String, _ rows: [(String, Int)], _ pct: (Int) -> String) {
        let width = max(title.count, rows.map { $0.0.count }.max() ?? 0) + 2
        Output.out("")
        Output.out(title.padding(toLength: width, withPad: " ", startingAt: 0) + "  CLICKS")
        for (name, n) in rows {
            let number = String(n)
            Output.out(name.padding(toLength: width, withPad: " ", startingAt: 0) + String(repeating: " ", count: max(0, 8 - number.count)) + number + "  " + pct(n))
        }
    }
}
