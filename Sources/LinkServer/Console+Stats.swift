// The console's counts: `linkwell stats` for a site (and optionally one link) over the last 7, 30
// or 90 days or a custom range, read from the aggregated click tables (ClickReport, the same
// document `stats --json` and /api/v1/stats print). Clicks per day as a server-drawn SVG with a
// title and a table alternative; platform, outcome, top links and top referrers as tables.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

extension Console {
    /// `GET /console/stats?site=&link=&range=7|30|90&since=&until=`.
    func statsPage(_ visit: Visit) -> HTTPResponse {
        guard visit.session != nil else { return redirect("/") }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let table = runtime.snapshot.table
        let site = query["site"].flatMap { table.site(named: $0)?.name } ?? table.sites.first?.name ?? ""
        let range = ["7", "30", "90"].contains(query["range"] ?? "") ? query["range"]! : "7"
        let today = Int(Date().timeIntervalSince1970) / 86400
        var parameters = ["site": site]
        let custom = (query["since"]?.isEmpty == false) || (query["until"]?.isEmpty == false)
        if custom {
            parameters["since"] = query["since"].flatMap { $0.isEmpty ? nil : $0 }
            parameters["until"] = query["until"].flatMap { $0.isEmpty ? nil : $0 }
        } else {
            parameters["since"] = Self.dayText(today - (Int(range)! - 1))
            parameters["until"] = Self.dayText(today)
        }
        if let link = query["link"], !link.isEmpty { parameters["link"] = link }
        var problem: String?
        var document: JSONValue = .object([])
        do throws(LinkStoreError) {
            let clickQuery = try ClickQuery(parameters: parameters)
            let read: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let data = (try? encoder.encode(try store.clickReport(clickQuery).document(query: clickQuery))) ?? Data("{}".utf8)
                document = (try? JSONValue.parse(Array(data))) ?? .object([])
            }
            if case let .failure(error) = read { problem = "The counts cannot be read right now: \(error.description)" }
        } catch {
            problem = error.description
        }
        let days = Self.days(document, since: parameters["since"], until: parameters["until"])
        var context: [String: TemplateValue] = [
            "title": "Counts", "onStats": true, "site": .string(site), "link": .string(parameters["link"] ?? ""),
            "sites": .list(table.sites.map { ["name": .string($0.name), "selected": .bool($0.name == site)] }),
            "ranges": .list(["7", "30", "90"].map { ["days": .string($0), "selected": .bool(!custom && $0 == range)] }),
            "since": .string(parameters["since"] ?? ""), "until": .string(parameters["until"] ?? ""),
            "total": .int(Self.int(document["total"])), "humans": .int(Self.int(document["humans"])), "crawlers": .int(Self.int(document["crawlers"])),
            "days": .list(days.map { ["day": .string($0.day), "clicks": .int($0.clicks)] }),
            "chart": .html(Self.barChart(days, title: "Clicks per day on \(site), \(parameters["since"] ?? "") to \(parameters["until"] ?? "")")),
            "platforms": Self.rows(document["platform"]), "outcomes": Self.rows(document["outcome"]),
            "links": .list((document["links"]?.arrayValue ?? []).prefix(10).map { l in
                ["name": .string("\(l["code"]?.stringValue ?? "") (\(l["route"]?.stringValue ?? ""))"), "clicks": .int(Self.int(l["clicks"]))]
            }),
            "referrers": .list((document["referrers"]?.arrayValue ?? []).prefix(10).map { r in
                ["name": .string(r["host"]?.stringValue ?? ""), "clicks": .int(Self.int(r["clicks"]))]
            }),
            "problem": problem.map(TemplateValue.string) ?? .null,
        ]
        context["hasLinks"] = .bool(!(document["links"]?.arrayValue ?? []).isEmpty)
        context["hasReferrers"] = .bool(!(document["referrers"]?.arrayValue ?? []).isEmpty)
        return page(ConsoleTemplates.compiled.stats, visit, context, status: problem == nil ? 200 : 400)
    }

    static func int(_ value: JSONValue?) -> Int {
        if case let .number(text)? = value { return Int(text) ?? 0 }
        return 0
    }

    static func dayText(_ day: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(day * 86400)))
    }

    /// Every day of the range (the report lists only days with clicks), at most 400.
    static func days(_ document: JSONValue, since: String?, until: String?) -> [(day: String, clicks: Int)] {
        var counted: [String: Int] = [:]
        for d in document["days"]?.arrayValue ?? [] { counted[d["day"]?.stringValue ?? ""] = int(d["clicks"]) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        let keys = counted.keys.sorted()
        guard let first = (since.flatMap(f.date(from:)) ?? keys.first.flatMap(f.date(from:))),
              let last = (until.flatMap(f.date(from:)) ?? keys.last.flatMap(f.date(from:))), first <= last
        else { return keys.map { ($0, counted[$0]!) } }
        let start = Int(first.timeIntervalSince1970) / 86400, end = min(Int(last.timeIntervalSince1970) / 86400, start + 399)
        return (start...end).map { d in let text = dayText(d); return (text, counted[text] ?? 0) }
    }

    static func rows(_ value: JSONValue?) -> TemplateValue {
        .list((value?.objectValue ?? []).sorted { int($0.value) > int($1.value) }.map { ["name": .string($0.key), "clicks": .int(int($0.value))] })
    }

    /// Bars of clicks per day: an `<svg role="img">` with a `<title>`; the page's table says the same.
    static func barChart(_ days: [(day: String, clicks: Int)], title: String) -> TrustedHTML {
        let width = 720, height = 200, top = 10, bottom = 24
        let most = max(1, days.map(\.clicks).max() ?? 1)
        let slot = Double(width) / Double(max(1, days.count))
        var bars = ""
        for (i, d) in days.enumerated() where d.clicks > 0 {
            let h = Double(height - top - bottom) * Double(d.clicks) / Double(most)
            bars += "<rect x=\"\(String(format: "%.1f", Double(i) * slot + slot * 0.15))\" y=\"\(String(format: "%.1f", Double(height - bottom) - h))\" width=\"\(String(format: "%.1f", slot * 0.7))\" height=\"\(String(format: "%.1f", h))\" class=\"bar\"><title>\(HTMLEscaping.text(d.day)): \(d.clicks)</title></rect>"
        }
        let axis = "<line x1=\"0\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\" class=\"axis\"/>"
        let labels = [days.first, days.last].compactMap { $0 }.enumerated().map { i, d in
            "<text x=\"\(i == 0 ? 0 : width)\" y=\"\(height - 6)\" text-anchor=\"\(i == 0 ? "start" : "end")\" class=\"label\">\(HTMLEscaping.text(d.day))</text>"
        }.joined()
        let peak = "<text x=\"0\" y=\"\(top + 2)\" class=\"label\">\(most)</text>"
        return TrustedHTML(uncheckedHTML: "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-labelledby=\"chart-title\"><title id=\"chart-title\">\(HTMLEscaping.text(title))</title>\(axis)\(bars)\(labels)\(peak)</svg>")
    }
}
