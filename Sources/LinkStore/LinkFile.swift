// Linkwell's own link file (`linkwell links export` / `links import FILE`): CSV or JSON with one
// record per link and the same field names in both, so an export imports back unchanged.

import Foundation
import LinkRouting

public enum LinkFile {
    public enum Format: String, Sendable, CaseIterable {
        case csv, json
    }

    /// The fields, in CSV column order (JSON uses the same keys; empty values are left out).
    public static let fields = [
        "site", "code", "target", "previewTitle", "previewDescription", "previewImage", "iosFallback", "androidFallback", "desktopFallback",
        "forcedRedirect", "expiresAt", "disabled", "createdAt", "updatedAt",
        "apn", "amv", "ibi", "ius", "ipfl", "ipbi", "isi", "imv", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content",
        "at", "ct", "mt", "pt", "linkName", "archived",
    ]

    static func iso(_ d: Date) -> String { d.formatted(.iso8601) }

    /// A link's fields as strings ("" for unset; booleans `true`/`false`).
    public static func values(_ l: ShortLink) -> [String] {
        let f = l.fdl ?? FDLParameters()
        let optional: [String?] = [
            l.site, l.code, l.target, l.previewTitle, l.previewDescription, l.previewImage, l.iosFallback, l.androidFallback, l.desktopFallback,
            l.forcedRedirect ? "true" : "false", l.expiresAt.map(iso), l.disabled ? "true" : "false", iso(l.createdAt), iso(l.updatedAt),
            f.apn, f.amv, f.ibi, f.ius, f.ipadFallback, f.ipbi, f.isi, f.imv, f.utmSource, f.utmMedium, f.utmCampaign, f.utmTerm, f.utmContent,
            f.at, f.ct, f.mt, f.pt, f.linkName, f.archived ? "true" : "false",
        ]
        return optional.map { $0 ?? "" }
    }

    /// The file's bytes.
    public static func encode(_ links: [ShortLink], format: Format) -> [UInt8] {
        switch format {
        case .csv:
            var out = CSV.record(fields)
            for l in links { out += CSV.record(values(l)) }
            return Array(out.utf8)
        case .json:
            let objects: [[String: Any]] = links.map { l in
                var o: [String: Any] = [:]
                for (k, v) in zip(fields, values(l)) where !v.isEmpty {
                    o[k] = ["forcedRedirect", "disabled", "archived"].contains(k) ? (v == "true") : v
                }
                return o
            }
            let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data("[]".utf8)
            return Array(data) + [0x0A]
        }
    }

    /// Reads a file into records of field → value (strings; JSON booleans as `true`/`false`),
    /// with their row (CSV: the header is row 1; JSON: the element number, from 1).
    public static func records(_ bytes: [UInt8], format: Format) throws(ImportRowError) -> [(row: Int, line: Int, values: [String: String])] {
        switch format {
        case .csv:
            var out: [(Int, Int, [String: String])] = []
            var header: [String] = []
            do {
                try CSV.parse(bytes) { (r: CSVRecord) throws(CSVError) in
                    if r.row == 1 { header = r.fields.map { $0.trimmingCharacters(in: .whitespaces) }; return }
                    var v: [String: String] = [:]
                    for (k, value) in zip(header, r.fields) where !value.isEmpty { v[k] = value }
                    if r.fields.count != header.count { v["\u{0}count"] = "\(r.fields.count)/\(header.count)" }
                    out.append((r.row, r.line, v))
                }
            } catch {
                throw ImportRowError(row: 0, line: error.line, column: nil, message: "the file is not valid CSV at line \(error.line), column \(error.column): \(error.message)",
                                     fix: "repair that spot (RFC 4180: quoted fields, \"\" for a quote)")
            }
            return out
        case .json:
            guard let any = try? JSONSerialization.jsonObject(with: Data(bytes)), let list = any as? [Any] else {
                throw ImportRowError(row: 0, line: 1, column: nil, message: "the file is not a JSON array of links",
                                     fix: "write [{\"site\": …, \"code\": …, \"target\": …}, …] as 'linkwell links export --format json' does")
            }
            var out: [(Int, Int, [String: String])] = []
            for (i, item) in list.enumerated() {
                var v: [String: String] = [:]
                if let o = item as? [String: Any] {
                    for (k, value) in o {
                        if let s = value as? String { v[k] = s } else if let b = value as? Bool { v[k] = b ? "true" : "false" } else { v[k] = "\u{0}\(value)" }
                    }
                } else {
                    v["\u{0}notObject"] = "1"
                }
                out.append((i + 1, 0, v))
            }
            return out
        }
    }

    /// The plan for a file of Linkwell's format: each record checked against the config.
    /// `site`: the site of records without one (--site).
    public static func plan(_ bytes: [UInt8], format: Format, table: RouteTable, defaultSite: String?) throws(ImportRowError) -> ImportPlan {
        var plan = ImportPlan()
        var seen: [String: Int] = [:]
        for (row, line, v) in try records(bytes, format: format) {
            plan.recordCount += 1
            func fail(_ column: String?, _ message: String, _ fix: String) {
                plan.errors.append(ImportRowError(row: row, line: line, column: column, message: message, fix: fix))
            }
            if v["\u{0}notObject"] != nil { fail(nil, "the element is not an object", "write each link as {\"site\": …, \"code\": …, \"target\": …}"); continue }
            if let count = v["\u{0}count"] { fail(nil, "the row has \(count.split(separator: "/")[0]) fields, the header \(count.split(separator: "/")[1])", "quote values that hold commas or line breaks"); continue }
            if let (k, _) = v.first(where: { $0.value.hasPrefix("\u{0}") }) { fail(k, "the value is not a string or a boolean", "write it as a string"); continue }
            if let unknown = v.keys.first(where: { !fields.contains($0) }) {
                fail(unknown, "'\(unknown)' is not a field of Linkwell's link file", "the fields are \(fields.joined(separator: ", "))"); continue
            }
            guard let site = v["site"] ?? defaultSite else { fail("site", "the link names no site", "add a site column, or pass --site"); continue }
            guard let code = v["code"] else { fail("code", "the link has no code", "every link needs its code"); continue }
            guard let target = v["target"] else { fail("target", "the link has no target", "give the URL it leads to"); continue }
            var dates: [String: Date] = [:]
            var bad = false
            for k in ["expiresAt", "createdAt", "updatedAt"] {
                guard let text = v[k] else { continue }
                guard let d = FDLTakeout.parseTimestamp(text), !text.allSatisfy(\.isNumber) else {
                    fail(k, "'\(text)' is not an ISO 8601 time", "write e.g. 2027-01-31T00:00:00Z"); bad = true; break
                }
                dates[k] = d
            }
            for k in ["forcedRedirect", "disabled", "archived"] where !bad {
                if let b = v[k], b != "true", b != "false" { fail(k, "'\(b)' is not true or false", "write true or false"); bad = true }
            }
            if bad { continue }
            let key = site + "\u{0}" + code
            if let first = seen[key] { fail("code", "site '\(site)' code '\(code)' is also on row \(first)", "keep one record per link"); continue }
            seen[key] = row
            let fdl = FDLParameters(
                apn: v["apn"], amv: v["amv"], ibi: v["ibi"], ius: v["ius"], ipbi: v["ipbi"], isi: v["isi"], imv: v["imv"], ipadFallback: v["ipfl"],
                utmSource: v["utm_source"], utmMedium: v["utm_medium"], utmCampaign: v["utm_campaign"], utmTerm: v["utm_term"],
                utmContent: v["utm_content"], at: v["at"], ct: v["ct"], mt: v["mt"], pt: v["pt"], linkName: v["linkName"], archived: v["archived"] == "true")
            let created = dates["createdAt"] ?? Date()
            let link = ShortLink(
                code: code, site: site, target: target, previewTitle: v["previewTitle"], previewDescription: v["previewDescription"],
                previewImage: v["previewImage"], iosFallback: v["iosFallback"], androidFallback: v["androidFallback"], desktopFallback: v["desktopFallback"],
                forcedRedirect: v["forcedRedirect"] == "true", expiresAt: dates["expiresAt"], disabled: v["disabled"] == "true",
                createdAt: created, updatedAt: dates["updatedAt"] ?? created, fdl: fdl)
            switch ShortLinkValidator.check(link, table: table) {
            case let .failure(refusal): plan.skipped.append(ImportSkip(row: row, code: code, reason: refusal.description))
            case let .success(.route(r)): plan.rows.append(ImportRow(row: row, link: link, route: r))
            case .success(.webPage): plan.rows.append(ImportRow(row: row, link: link, route: nil))
            }
        }
        return plan
    }
}
