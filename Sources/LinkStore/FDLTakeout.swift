// Firebase's Takeout export of Dynamic Links (one CSV per domain) → short links of one site.
// Every code is kept as it was; each row is checked on its own: a malformed value is an error
// naming the row, the column and the fix; a well-formed row that cannot be served (its code is a
// route now, its target's host is not allowed) is skipped with the reason.

import Foundation
import LinkRouting

/// One problem with one row (or the header, row 1) of an import file.
public struct ImportRowError: Error, Equatable, CustomStringConvertible {
    public var row: Int
    public var line: Int
    /// The column (Takeout header name or field); nil: the whole row.
    public var column: String?
    public var message: String
    public var fix: String
    public var description: String {
        "row \(row) (line \(line))\(column.map { ", column '\($0)'" } ?? ""): \(message); \(fix)"
    }
}

/// A row that is well-formed but not imported, with why.
public struct ImportSkip: Equatable, Sendable {
    public var row: Int
    public var code: String
    public var reason: String
}

/// A row ready to be written.
public struct ImportRow: Equatable, Sendable {
    public var row: Int
    public var link: ShortLink
    /// The route the target opens (the app opens the link), or nil: a web page, browser only.
    public var route: String?
}

/// What an import file holds, checked against the config: rows to write, rows skipped, errors.
public struct ImportPlan: Sendable {
    public var rows: [ImportRow] = []
    public var skipped: [ImportSkip] = []
    public var errors: [ImportRowError] = []
    /// Header columns that are not read (a newer export, a typo), for a note.
    public var ignoredColumns: [String] = []
    public var recordCount = 0
    public init() {}
}

/// What to do with links the console had archived.
public enum ArchivedPolicy: String, Sendable, CaseIterable {
    /// Imported disabled: the code stays taken and answers as not found; `links enable` revives it.
    case disable
    /// Imported like the others, served.
    case serve
    /// Not imported (reported as skipped).
    case skip
}

extension String {
    /// Without leading and trailing spaces and tabs (cheap when there are none, as in most fields).
    var trimmedSpaces: String {
        guard let f = utf8.first, let l = utf8.last, f == 0x20 || f == 0x09 || l == 0x20 || l == 0x09 else { return self }
        return trimmingCharacters(in: .whitespaces)
    }
}

public enum FDLTakeout {
    /// The Takeout's columns, as Firebase wrote them.
    public static let columns = ["Short link"] + FDLLink.parameters + ["Archived?", "Link name", "Creation timestamp"]

    /// Reads a Takeout CSV for `site`. Throws only when the file itself cannot be read as CSV or
    /// lacks the `Short link` / `link` columns; everything about single rows is in the plan.
    public static func plan(_ bytes: [UInt8], site: CompiledSite, table: RouteTable, archived: ArchivedPolicy) throws(ImportRowError) -> ImportPlan {
        var plan = ImportPlan()
        var header: [String: Int] = [:]
        var headerCount = 0
        var seen: [String: Int] = [:]
        let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
        do {
            try CSV.parse(bytes) { (record: CSVRecord) throws(CSVError) in
                if record.row == 1 {
                    headerCount = record.fields.count
                    for (i, raw) in record.fields.enumerated() {
                        let name = raw.trimmingCharacters(in: .whitespaces)
                        if let known = columns.first(where: { $0.lowercased() == name.lowercased() }) { header[known] = i } else if !name.isEmpty { plan.ignoredColumns.append(name) }
                    }
                    return
                }
                plan.recordCount += 1
                if header["Short link"] == nil || header["link"] == nil { return }
                row(record, header: header, headerCount: headerCount, site: site, table: table, prefix: prefix, archived: archived,
                    seen: &seen, plan: &plan)
            }
        } catch {
            throw ImportRowError(row: 0, line: error.line, column: nil, message: "the file is not valid CSV at line \(error.line), column \(error.column): \(error.message)",
                                 fix: "export it again from Firebase, or repair that spot (RFC 4180: quoted fields, \"\" for a quote)")
        }
        for required in ["Short link", "link"] where header[required] == nil {
            throw ImportRowError(row: 1, line: 1, column: required, message: "the header has no '\(required)' column",
                                 fix: "is this a Firebase Dynamic Links Takeout CSV? Its first line names the columns: \(columns.joined(separator: ","))")
        }
        return plan
    }

    static func row(_ record: CSVRecord, header: [String: Int], headerCount: Int, site: CompiledSite, table: RouteTable, prefix: String,
                    archived policy: ArchivedPolicy, seen: inout [String: Int], plan: inout ImportPlan) {
        func fail(_ column: String?, _ message: String, _ fix: String) {
            plan.errors.append(ImportRowError(row: record.row, line: record.line, column: column, message: message, fix: fix))
        }
        guard record.fields.count == headerCount else {
            fail(nil, "the row has \(record.fields.count) fields, the header \(headerCount)",
                 "a value with a comma or a line break must be in double quotes; count the commas of this row")
            return
        }
        func field(_ name: String) -> String {
            header[name].map { record.fields[$0].trimmedSpaces } ?? ""
        }
        // The code: the short link's path after the site's prefix.
        let short = field("Short link")
        guard let parts = URLParts(short), parts.scheme == "https" || parts.scheme == "http", !parts.host.isEmpty else {
            fail("Short link", "'\(short)' is not a short-link URL", "write the whole URL, e.g. https://\(site.canonicalHost)\(prefix)abc123")
            return
        }
        guard table.site(forHost: parts.host, fallbackToDefault: false)?.name == site.name else {
            fail("Short link", "the host '\(parts.host)' is not a domain of site '\(site.name)' (\(site.config.domains.joined(separator: ", ")))",
                 "Takeout writes one file per domain: import this one with --site <the site of \(parts.host)>, or add the domain to site '\(site.name)'")
            return
        }
        guard parts.path.hasPrefix(prefix), parts.path.count > prefix.count, !parts.path.dropFirst(prefix.count).contains("/") else {
            let dir = parts.path.split(separator: "/").dropLast().map { "\($0)/" }.joined()
            fail("Short link", "the path '\(parts.path)' is not a code under the site's short-link prefix '\(prefix)'",
                 "set sites[\(site.index)].shortLinks.prefix: \"/\(dir)\" in the config (FDL's path prefix for this domain)")
            return
        }
        let code = PercentEncoding.decode(String(parts.path.dropFirst(prefix.count)))
        if code.utf8.count > ShortCode.maximumLength || !code.unicodeScalars.allSatisfy(ShortCode.isCodeCharacter) {
            fail("Short link", "the code '\(code)' is not one Linkwell can serve (A–Z, a–z, 0–9, '-', '_', up to \(ShortCode.maximumLength))",
                 "FDL codes are made of these; check that the column holds the short link, not the long one")
            return
        }
        if let first = seen[code] {
            fail("Short link", "the code '\(code)' is also on row \(first)", "keep one row per short link")
            return
        }
        seen[code] = record.row
        var archived = false
        let flag = field("Archived?").lowercased()
        switch flag {
        case "", "false", "no", "0": archived = false
        case "true", "yes", "1": archived = true
        default:
            fail("Archived?", "'\(field("Archived?"))' is not true or false", "write TRUE, FALSE or leave it empty")
            return
        }
        var created = Date()
        let stamp = field("Creation timestamp")
        if !stamp.isEmpty {
            guard let d = parseTimestamp(stamp) else {
                fail("Creation timestamp", "'\(stamp)' is not a time", "write ISO 8601 (2021-03-04T05:06:07Z or 2021-03-04 05:06:07), or Unix seconds or milliseconds")
                return
            }
            created = d
        }
        var parameters: [String: String] = [:]
        for name in FDLLink.parameters { parameters[name] = field(name) }
        var link: ShortLink
        switch FDLLink.link(code: code, site: site, table: table, parameters: parameters, strictHosts: false, createdAt: created,
                            linkName: field("Link name"), archived: archived) {
        case let .failure(problem):
            fail(problem.parameter, problem.message, problem.fix)
            return
        case let .success(l):
            link = l
        }
        if archived {
            switch policy {
            case .skip:
                plan.skipped.append(ImportSkip(row: record.row, code: code, reason: "archived in the Firebase console (--archived skip)"))
                return
            case .disable: link.disabled = true
            case .serve: break
            }
        }
        switch ShortLinkValidator.check(link, table: table) {
        case let .failure(refusal):
            plan.skipped.append(ImportSkip(row: record.row, code: code, reason: refusal.description))
        case let .success(target):
            if case let .route(r) = target { plan.rows.append(ImportRow(row: record.row, link: link, route: r)) } else {
                plan.rows.append(ImportRow(row: record.row, link: link, route: nil))
            }
        }
    }

    /// ISO 8601 with `T` or a space, with or without a zone (UTC then), fractions allowed; or
    /// Unix seconds / milliseconds. Parsed by hand: a formatter per row would cost more than the
    /// rest of the row.
    public static func parseTimestamp(_ s: String) -> Date? {
        let b = Array(s.utf8)
        if !b.isEmpty, b.count <= 16, b.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Double(s) {
            return Date(timeIntervalSince1970: n > 100_000_000_000 ? n / 1000 : n)
        }
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard b.count >= 19, let y = number(0, 4), b[4] == UInt8(ascii: "-"), let mo = number(5, 2), b[7] == UInt8(ascii: "-"),
              let d = number(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " ") || b[10] == UInt8(ascii: "t"),
              let h = number(11, 2), b[13] == UInt8(ascii: ":"), let mi = number(14, 2), b[16] == UInt8(ascii: ":"), let sec = number(17, 2),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, sec < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0, scale = 1
            let start = i
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                if scale < 1_000_000_000 { digits = digits * 10 + Int(b[i] - 0x30); scale *= 10 }
                i += 1
            }
            if i == start { return nil }
            fraction = Double(digits) / Double(scale)
        }
        var offset = 0
        if i < b.count {
            if (b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z")), i + 1 == b.count {
                offset = 0
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), b.count == i + 6, let oh = number(i + 1, 2),
                      b[i + 3] == UInt8(ascii: ":"), let om = number(i + 4, 2) {
                offset = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "+") ? 1 : -1)
            } else {
                return nil
            }
        }
        // Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + h * 3600 + mi * 60 + sec - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
