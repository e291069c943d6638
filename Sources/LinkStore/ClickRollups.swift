// The click tables the console reads so a page never sums every link's rows (migration 11, with
// the console's sessions): per site, route and period — the same counts as the per-link tables
// summed over the links — and each site's and day's most clicked links (``topLinksPerDay``).
// The flush writes them in the same transaction as the per-link rows, the daily housekeeping
// folds and trims them the same way, so a report without a link filter reads a few rows per day.

import Foundation

/// A (site, route, day) of the per-site tables (hashing three fields instead of a string built from them).
private struct RouteDay: Hashable {
    var site, route: String
    var day: Int
}

/// A (site, day) of the top links.
private struct SiteDay: Hashable {
    var site: String
    var day: Int
}

/// A link's day total as the clicks_daily upsert wrote it (its `RETURNING` list).
struct LinkDayTotal: Sendable, Equatable {
    var site: String
    var day: Int
    var code: String
    var route: String
    var clicks: Int

    static let returning = "site, day, code, route, " + ClickPlatform.allCases.map { "p_\($0.name)" }.joined(separator: " + ")

    /// The short link's total from a row of ``returning``; nil for a route's row (code "").
    init?(_ r: SQLRow) {
        guard let code = r.text(2), !code.isEmpty else { return nil }
        self.init(site: r.text(0) ?? "", day: Int(r.integer(1) ?? 0), code: code, route: r.text(3) ?? "", clicks: Int(r.integer(4) ?? 0))
    }

    init(site: String, day: Int, code: String, route: String, clicks: Int) {
        (self.site, self.day, self.code, self.route, self.clicks) = (site, day, code, route, clicks)
    }
}

extension LinkStore {
    /// Links kept per site and UTC day in `clicks_top_daily`.
    static let topLinksPerDay = 100

    /// True when the per-site tables exist (a file of an older version, opened without
    /// migrating it, has only the per-link ones).
    static func hasRollups(_ db: any DatabaseConnection) throws(LinkStoreError) -> Bool {
        try appliedVersions(db).contains(consoleSessionMigration.version)
    }

    static let rollupSchema: String = {
        let counts = ClickCountRow.countColumns.map { "\($0) BIGINT NOT NULL" }.joined(separator: ", ")
        let sum = ClickCountRow.countColumns.map { "SUM(\($0))" }.joined(separator: ", ")
        let total = ClickPlatform.allCases.map { "p_\($0.name)" }.joined(separator: " + ")
        return """
            CREATE TABLE clicks_site_daily (site TEXT NOT NULL, route TEXT NOT NULL, day BIGINT NOT NULL, \(counts), PRIMARY KEY (site, route, day));
            CREATE TABLE clicks_site_monthly (site TEXT NOT NULL, route TEXT NOT NULL, month BIGINT NOT NULL, \(counts), PRIMARY KEY (site, route, month));
            CREATE TABLE click_referrers_site_daily (
                site TEXT NOT NULL, route TEXT NOT NULL, day BIGINT NOT NULL, referrer TEXT NOT NULL, count BIGINT NOT NULL,
                PRIMARY KEY (site, route, day, referrer));
            CREATE TABLE click_referrers_site_monthly (
                site TEXT NOT NULL, route TEXT NOT NULL, month BIGINT NOT NULL, referrer TEXT NOT NULL, count BIGINT NOT NULL,
                PRIMARY KEY (site, route, month, referrer));
            CREATE TABLE clicks_top_daily (
                site TEXT NOT NULL, day BIGINT NOT NULL, code TEXT NOT NULL, route TEXT NOT NULL, clicks BIGINT NOT NULL,
                PRIMARY KEY (site, day, code, route));
            INSERT INTO clicks_site_daily SELECT site, route, day, \(sum) FROM clicks_daily GROUP BY site, route, day;
            INSERT INTO clicks_site_monthly SELECT site, route, month, \(sum) FROM clicks_monthly GROUP BY site, route, month;
            INSERT INTO click_referrers_site_daily SELECT site, route, day, referrer, SUM(count) FROM click_referrers_daily GROUP BY site, route, day, referrer;
            INSERT INTO click_referrers_site_monthly SELECT site, route, month, referrer, SUM(count) FROM click_referrers_monthly GROUP BY site, route, month, referrer;
            INSERT INTO clicks_top_daily SELECT site, day, code, route, clicks FROM (
                SELECT site, day, code, route, \(total) AS clicks,
                    ROW_NUMBER() OVER (PARTITION BY site, day ORDER BY \(total) DESC, code, route) AS rank
                FROM clicks_daily WHERE code <> '') AS r WHERE rank <= \(topLinksPerDay);
            """
    }()

    /// Adds a flush's rows to the per-site tables and refreshes the top links of the days it
    /// touched from the links' new day totals (inside the flush's transaction; the caller checked
    /// ``hasRollups(_:)``). The rows are summed in memory first: one upsert per (site, route, day)
    /// and per (site, route, day, referrer), not one per link.
    static func addRollups(_ db: any DatabaseConnection, _ rows: [ClickCountRow], referrers: [ReferrerCountRow],
                           linkTotals: [LinkDayTotal]) throws(LinkStoreError) {
        // One row per (site, route, day), summed in place. The flush's rows come in key order, so
        // a row mostly has the previous row's (site, route, day): compared before it is hashed.
        var perRoute: [ClickCountRow] = []
        var routeIndex: [RouteDay: Int] = [:]
        var current = -1
        for r in rows {
            if current < 0 || perRoute[current].day != r.day || perRoute[current].route != r.route || perRoute[current].site != r.site {
                let key = RouteDay(site: r.site, route: r.route, day: r.day)
                if let i = routeIndex[key] {
                    current = i
                } else {
                    current = perRoute.count
                    routeIndex[key] = current
                    perRoute.append(ClickCountRow(day: r.day, site: r.site, code: "", route: r.route))
                }
            }
            perRoute[current].addCounts(of: r)
        }
        try insertChunks(db, perRoute, keys: ["site", "route", "day"], counts: ClickCountRow.countColumns, table: "clicks_site_daily") { r, values in
            values.append(.text(r.site))
            values.append(.text(r.route))
            values.append(.integer(Int64(r.day)))
            r.appendCounts(to: &values)
        }
        // The same per (site, route, day, referrer); the hosts of one (site, route, day) — a run
        // of neighbouring rows — are looked up in that group's own table, by host alone.
        var perReferrer: [ReferrerCountRow] = []
        var groups: [RouteDay: [String: Int]] = [:]
        var group: [String: Int] = [:]
        var groupKey: RouteDay?
        for r in referrers {
            if groupKey.map({ $0.day != r.day || $0.route != r.route || $0.site != r.site }) ?? true {
                if let groupKey { groups[groupKey] = group }
                let key = RouteDay(site: r.site, route: r.route, day: r.day)
                group = groups.removeValue(forKey: key) ?? [:]
                groupKey = key
            }
            if let i = group[r.referrer] {
                perReferrer[i].count += r.count
            } else {
                group[r.referrer] = perReferrer.count
                perReferrer.append(ReferrerCountRow(day: r.day, site: r.site, code: "", route: r.route, referrer: r.referrer, count: r.count))
            }
        }
        try insertChunks(db, perReferrer, keys: ["site", "route", "day", "referrer"], counts: ["count"], table: "click_referrers_site_daily") { r, values in
            values.append(.text(r.site))
            values.append(.text(r.route))
            values.append(.integer(Int64(r.day)))
            values.append(.text(r.referrer))
            values.append(.integer(Int64(r.count)))
        }
        try refreshTopLinks(db, linkTotals)
    }

    /// Brings each (site, day)'s top links up to date with the flushed links' new day totals.
    /// The list held the day's top links before the flush and counts only grow, so only a flushed
    /// link can enter it, and only with a total at least the list's lowest when it is full (a
    /// tie there is settled by code and route, as ranked below). Of those candidates only the
    /// day's `topLinksPerDay` best are written: any other has that many above it, all written, so
    /// the ranking would delete it anyway. Code and route are compared as UTF-8 bytes, SQLite's
    /// order (and PostgreSQL's under the C collation; under a locale collation, which of the links
    /// tied at the last place stay may follow byte order rather than the locale's).
    static func refreshTopLinks(_ db: any DatabaseConnection, _ linkTotals: [LinkDayTotal]) throws(LinkStoreError) {
        var perDay: [SiteDay: [LinkDayTotal]] = [:]
        for t in linkTotals where !t.code.isEmpty { perDay[SiteDay(site: t.site, day: t.day), default: []].append(t) }
        guard let firstDay = perDay.keys.map(\.day).min() else { return }
        var keep: [LinkDayTotal] = []
        for (key, totals) in perDay {
            var (size, low) = (0, 0)
            try db.query("SELECT COUNT(*), MIN(clicks) FROM clicks_top_daily WHERE site = ? AND day = ?", [.text(key.site), .integer(Int64(key.day))]) { r in
                (size, low) = (Int(r.integer(0) ?? 0), Int(r.integer(1) ?? 0))
            }
            keep += best(topLinksPerDay, of: size >= topLinksPerDay ? totals.filter { $0.clicks >= low } : totals)
        }
        guard !keep.isEmpty else { return }
        var start = 0
        while start < keep.count {
            let chunk = keep[start..<min(start + clickRowsPerStatement, keep.count)]
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(chunk.count * 5)
            for t in chunk { bindings += [.text(t.site), .integer(Int64(t.day)), .text(t.code), .text(t.route), .integer(Int64(t.clicks))] }
            try db.query(
                "INSERT INTO clicks_top_daily (site, day, code, route, clicks) VALUES "
                    + Array(repeating: "(?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
                    + " ON CONFLICT (site, day, code, route) DO UPDATE SET clicks = excluded.clicks", bindings)
            start += chunk.count
        }
        try db.query(
            """
            DELETE FROM clicks_top_daily WHERE (site, day, code, route) IN (
                SELECT site, day, code, route FROM (
                    SELECT site, day, code, route, ROW_NUMBER() OVER (PARTITION BY site, day ORDER BY clicks DESC, code, route) AS rank
                    FROM clicks_top_daily WHERE day >= ?) AS r
                WHERE rank > ?)
            """, [.integer(Int64(firstDay)), .integer(Int64(topLinksPerDay))])
    }

    /// The `count` first of `totals` in the top list's order (most clicks, then code and route as
    /// UTF-8 bytes), kept sorted while the others pass by: most of a flush's links are compared
    /// with the last kept one only, instead of sorting them all.
    static func best(_ count: Int, of totals: [LinkDayTotal]) -> [LinkDayTotal] {
        guard totals.count > count else { return totals }
        func ranksBefore(_ a: LinkDayTotal, _ b: LinkDayTotal) -> Bool {
            if a.clicks != b.clicks { return a.clicks > b.clicks }
            if a.code != b.code { return a.code.utf8.lexicographicallyPrecedes(b.code.utf8) }
            return a.route.utf8.lexicographicallyPrecedes(b.route.utf8)
        }
        var kept: [LinkDayTotal] = []
        kept.reserveCapacity(count + 1)
        for t in totals {
            if kept.count == count {
                guard ranksBefore(t, kept[count - 1]) else { continue }
                kept.removeLast()
            }
            var (low, high) = (0, kept.count)
            while low < high {
                let mid = (low + high) / 2
                if ranksBefore(kept[mid], t) { low = mid + 1 } else { high = mid }
            }
            kept.insert(t, at: low)
        }
        return kept
    }

    /// The housekeeping's share: days before `cutoff` folded into the per-site months.
    static func foldRollups(_ db: any DatabaseConnection, cutoff: Int) throws(LinkStoreError) {
        guard try hasRollups(db) else { return }
        let counts = ClickCountRow.countColumns
        try db.query(
            """
            INSERT INTO clicks_site_monthly (site, route, month, \(counts.joined(separator: ", ")))
            SELECT site, route, day / 100, \(counts.map { "SUM(\($0))" }.joined(separator: ", "))
            FROM clicks_site_daily WHERE day < ? GROUP BY site, route, day / 100
            ON CONFLICT (site, route, month) DO UPDATE SET \(counts.map { "\($0) = clicks_site_monthly.\($0) + excluded.\($0)" }.joined(separator: ", "))
            """, [.integer(Int64(cutoff))])
        try db.query("DELETE FROM clicks_site_daily WHERE day < ?", [.integer(Int64(cutoff))])
        try db.query(
            """
            INSERT INTO click_referrers_site_monthly (site, route, month, referrer, count)
            SELECT site, route, day / 100, referrer, SUM(count) FROM click_referrers_site_daily WHERE day < ?
            GROUP BY site, route, day / 100, referrer
            ON CONFLICT (site, route, month, referrer) DO UPDATE SET count = click_referrers_site_monthly.count + excluded.count
            """, [.integer(Int64(cutoff))])
        try db.query("DELETE FROM click_referrers_site_daily WHERE day < ?", [.integer(Int64(cutoff))])
        try db.query("DELETE FROM clicks_top_daily WHERE day < ?", [.integer(Int64(cutoff))])
    }

    /// The `limit` links with most clicks in the query's range, each with its exact count: the
    /// candidates are the links among the days' top lists with most clicks there, then each
    /// candidate's rows are summed (a few keyed reads instead of every link's rows).
    static func topLinks(_ db: any DatabaseConnection, _ query: ClickQuery, limit: Int) throws(LinkStoreError) -> [ClickReport.LinkCount] {
        let (filter, bindings) = LinkStore.whereClause(query, period: "day")
        var candidates: [(site: String, code: String, route: String)] = []
        try db.query(
            "SELECT site, code, route FROM clicks_top_daily \(filter) GROUP BY site, code, route ORDER BY SUM(clicks) DESC, site, code, route LIMIT ?",
            bindings + [.integer(Int64(limit * 3))]
        ) { r in candidates.append((r.text(0) ?? "", r.text(1) ?? "", r.text(2) ?? "")) }
        var out: [ClickReport.LinkCount] = []
        let total = ClickPlatform.allCases.map { "p_\($0.name)" }.joined(separator: " + ")
        for c in candidates {
            var one = query
            (one.site, one.code, one.route) = (c.site, c.code, c.route)
            var clicks = 0
            for (table, period) in [("clicks_daily", "day"), ("clicks_monthly", "month")] {
                let (w, b) = LinkStore.whereClause(one, period: period)
                try db.query("SELECT SUM(\(total)) FROM \(table) \(w)", b) { r in clicks += Int(r.integer(0) ?? 0) }
            }
            out.append(.init(site: c.site, code: c.code, route: c.route, clicks: clicks))
        }
        return Array(out.sorted { ($0.clicks, $1.site, $1.code, $1.route) > ($1.clicks, $0.site, $0.code, $0.route) }.prefix(limit))
    }
}
