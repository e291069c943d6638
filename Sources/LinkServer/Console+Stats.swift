// The console's counts: `linkwell stats` for a site (and optionally one route or one link) over
// the last 7, 30 or 90 days or a custom range, read from the aggregated click tables (ClickReport,
// the same report `stats --json` and /api/v1/stats print). The funnel clicks → app opens → first
// opens; clicks per day stacked by platform as a server-drawn SVG with a title and a table
// alternative; platform, outcome, top links, top routes and top referrers as tables.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

extension Console {
    /// `GET /console/stats?site=&route=&link=&range=7|30|90&since=&until=`.
    func statsPage(_ visit: Visit) -> HTTPResponse {
        guard visit.session != nil else { return redirect("/") }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let table = runtime.snapshot.table
        let siteEntry = query["site"].flatMap { table.site(named: $0) } ?? table.sites.first
        let site = siteEntry?.name ?? ""
        let range = ["7", "30", "90"].contains(query["range"] ?? "") ? query["range"]! : "7"
        let today = Int(Date().timeIntervalSince1970) / 86400
        var parameters = ["site": site]
        let given = { (key: String) in query[key].flatMap { $0.isEmpty ? nil : $0 } }
        let custom = given("since") != nil || given("until") != nil
        if custom {
            parameters["since"] = given("since")
            parameters["until"] = given("until")
        } else {
            parameters["since"] = Self.dayText(today - (Int(range)! - 1))
            parameters["until"] = Self.dayText(today)
        }
        if let link = given("link") { parameters["link"] = link }
        if let route = given("route") { parameters["route"] = route }
        var problem: String?
        var report = ClickReport()
        do throws(LinkStoreError) {
            var clickQuery = try ClickQuery(parameters: parameters)
            clickQuery.linkLimit = 10  // the top links only: a page never sums every link's rows
            let read: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in report = try store.clickReport(clickQuery) }
            if case let .failure(error) = read { problem = "The counts cannot be read right now: \(error.description)" }
        } catch {
            problem = error.description
        }
        let days = Self.days(report, since: parameters["since"], until: parameters["until"])
        var scope = "Site \(site)"
        if let route = parameters["route"] { scope += ", route \(route)" }
        if let link = parameters["link"] { scope += ", link \(link)" }
        let period = "\(parameters["since"] ?? "the first day") to \(parameters["until"] ?? "today")"
        func share(_ n: Int) -> TemplateValue {
            .string(report.total == 0 ? "–" : String(format: "%.1f %%", 100 * Double(n) / Double(report.total)))
        }
        var seenRoutes = Set<String>()
        let routeNames: [String] = (siteEntry?.entries ?? []).compactMap { $0.route?.name }.filter { seenRoutes.insert($0).inserted }
        var context: [String: TemplateValue] = [
            "title": "Counts", "onStats": true, "site": .string(site), "link": .string(parameters["link"] ?? ""),
            "countsScope": .string(scope),
            "sites": .list(table.sites.map { ["name": .string($0.name), "selected": .bool($0.name == site)] }),
            "routeChoices": .list(routeNames.map { ["name": .string($0), "selected": .bool($0 == parameters["route"])] }),
            "ranges": .list(["7", "30", "90"].map { ["days": .string($0), "selected": .bool(!custom && $0 == range)] }),
            "since": .string(parameters["since"] ?? "…"), "until": .string(parameters["until"] ?? "…"),
            "customSince": .string(custom ? (parameters["since"] ?? "") : ""), "customUntil": .string(custom ? (parameters["until"] ?? "") : ""),
            "total": .int(report.total), "humans": .int(report.humans), "crawlers": .int(report.crawlers),
            "funnel": .list([
                ["id": "clicks", "name": "Clicks", "count": .int(report.total), "share": share(report.total)],
                ["id": "app-opens", "name": "App opens", "count": .int(report.appOpens), "share": share(report.appOpens)],
                ["id": "first-opens", "name": "First opens (after an install)", "count": .int(report.firstOpens), "share": share(report.firstOpens)],
                ["id": "reopens", "name": "Re-opens", "count": .int(report.appOpens - report.firstOpens), "share": share(report.appOpens - report.firstOpens)],
            ]),
            "days": .list(days.map { d in
                var row: [String: TemplateValue] = ["day": .string(d.day), "clicks": .int(d.platforms.reduce(0, +))]
                for p in ClickPlatform.allCases { row[p.name] = .int(d.platforms[p.rawValue]) }
                return .object(row)
            }),
            "platformTotals": .list(ClickPlatform.allCases.map { p in
                ["name": .string(p.name), "clicks": .int(days.reduce(0) { $0 + $1.platforms[p.rawValue] })]
            }),
            "legend": .list(ClickPlatform.allCases.map { ["name": .string($0.name), "label": .string(Self.platformLabel($0))] }),
            "chart": .html(Self.stackedChart(days, title: "Clicks per day by platform: \(scope), \(period)")),
            "platforms": .list(report.platforms.map { ["name": .string($0.name), "clicks": .int($0.clicks)] }),
            "outcomes": .list(report.outcomes.map { ["name": .string($0.name), "clicks": .int($0.clicks)] }),
            "links": .list(report.links.map { l in
                ["name": .string("\(l.code) (\(l.route.isEmpty ? "web page" : l.route))"), "clicks": .int(l.clicks)]
            }),
            "topRoutes": .list(report.routes.prefix(10).map { ["name": .string($0.route), "clicks": .int($0.clicks)] }),
            "referrers": .list(report.referrers.prefix(10).map { r in
                ["name": .string(r.name.isEmpty ? "(none)" : r.name), "clicks": .int(r.clicks)]
            }),
            "problem": problem.map(TemplateValue.string) ?? .null,
        ]
        context["hasLinks"] = .bool(!report.links.isEmpty)
        context["hasRoutes"] = .bool(!report.routes.isEmpty)
        context["hasReferrers"] = .bool(!report.referrers.isEmpty)
        return page(ConsoleTemplates.compiled.stats, visit, context, status: problem == nil ? 200 : 400)
    }

    static func platformLabel(_ p: ClickPlatform) -> String {
        switch p {
        case .ios: return "iOS"
        case .android: return "Android"
        case .desktop: return "Desktop"
        case .other: return "Other"
        }
    }

    static func dayText(_ day: Int) -> String { ClickDay.text(ClickDay.fromEpochDays(day)) }

    /// Every day of the range with its clicks by platform (the report lists only days with
    /// clicks), at most 400.
    static func days(_ report: ClickReport, since: String?, until: String?) -> [(day: String, platforms: [Int])] {
        var counted: [String: [Int]] = [:]
        for (i, d) in report.days.enumerated() {
            counted[d.name] = i < report.dayPlatforms.count ? report.dayPlatforms[i] : Array(repeating: 0, count: ClickEvent.platformCount)
        }
        let zero = Array(repeating: 0, count: ClickEvent.platformCount)
        let keys = counted.keys.sorted()
        guard let first = (since.flatMap(ClickDay.parse) ?? keys.first.flatMap(ClickDay.parse)),
              let last = (until.flatMap(ClickDay.parse) ?? keys.last.flatMap(ClickDay.parse)), first <= last
        else { return keys.map { ($0, counted[$0]!) } }
        let start = ClickDay.epochDays(first), end = min(ClickDay.epochDays(last), start + 399)
        return (start...end).map { d in let text = dayText(d); return (text, counted[text] ?? zero) }
    }

    /// Bars of clicks per day, each stacked by platform: an `<svg role="img">` with a `<title>`;
    /// the page's table says the same.
    static func stackedChart(_ days: [(day: String, platforms: [Int])], title: String) -> TrustedHTML {
        let width = 720, height = 200, top = 10, bottom = 24
        let most = max(1, days.map { $0.platforms.reduce(0, +) }.max() ?? 1)
        let slot = Double(width) / Double(max(1, days.count))
        let scale = Double(height - top - bottom) / Double(most)
        // One decimal without `String(format:)` (a few hundred numbers per chart).
        func f(_ x: Double) -> String {
            let tenths = Int((x * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        }
        var bars = ""
        for (i, d) in days.enumerated() where d.platforms.reduce(0, +) > 0 {
            var y = Double(height - bottom)
            let words = ClickPlatform.allCases.filter { d.platforms[$0.rawValue] > 0 }.map { "\(platformLabel($0)) \(d.platforms[$0.rawValue])" }
            bars += "<g><title>\(HTMLEscaping.text(d.day)): \(d.platforms.reduce(0, +)) (\(words.joined(separator: ", ")))</title>"
            for p in ClickPlatform.allCases where d.platforms[p.rawValue] > 0 {
                let h = scale * Double(d.platforms[p.rawValue])
                y -= h
                bars += "<rect x=\"\(f(Double(i) * slot + slot * 0.15))\" y=\"\(f(y))\" width=\"\(f(slot * 0.7))\" height=\"\(f(h))\" class=\"bar p-\(p.name)\"/>"
            }
            bars += "</g>"
        }
        let axis = "<line x1=\"0\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\" class=\"axis\"/>"
        let labels = [days.first, days.last].compactMap { $0 }.enumerated().map { i, d in
            "<text x=\"\(i == 0 ? 0 : width)\" y=\"\(height - 6)\" text-anchor=\"\(i == 0 ? "start" : "end")\" class=\"label\">\(HTMLEscaping.text(d.day))</text>"
        }.joined()
        let peak = "<text x=\"0\" y=\"\(top + 2)\" class=\"label\">\(most)</text>"
        return TrustedHTML(uncheckedHTML: "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-labelledby=\"chart-title\"><title id=\"chart-title\">\(HTMLEscaping.text(title))</title>\(axis)\(bars)\(labels)\(peak)</svg>")
    }
}
