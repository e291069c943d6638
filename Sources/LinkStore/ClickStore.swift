// Click counts in the link database: migration 4's tables, the batched upserts the server's
// flusher writes (counts add up, so two instances sharing one database add up), the daily
// maintenance (referrer hosts trimmed to the top N, old days folded into months), and the query
// behind `linkwell stats` (and `/api/v1/stats`). Portable SQL: SQLite 3.40 and PostgreSQL 15.

import Foundation

/// The clicks of one link (or route) and day: one count per platform, per outcome, and how many
/// came from an in-app browser and from a crawler (each click is in one platform and one outcome).
public struct ClickCountRow: Sendable, Equatable {
    public var day: Int
    public var site: String
    public var code: String
    public var route: String
    /// By ``ClickPlatform`` raw value.
    public var platforms: [Int] = Array(repeating: 0, count: ClickPlatform.allCases.count)
    /// By ``ClickOutcome`` raw value.
    public var outcomes: [Int] = Array(repeating: 0, count: ClickOutcome.allCases.count)
    public var inAppBrowser = 0
    public var crawlers = 0

    public init(day: Int, site: String, code: String, route: String) {
        self.day = day
        self.site = site
        self.code = code
        self.route = route
    }

    /// A row of `count` clicks like `click` (tests, benchmarks).
    public init(day: Int, click: ClickEvent, count: Int) {
        self.init(day: day, site: click.site, code: click.code, route: click.route)
        add(click, count: count)
    }

    /// Adds `count` clicks with the dimensions of `click` (its site, code and route are not checked).
    public mutating func add(_ click: ClickEvent, count: Int = 1) {
        add(slot: click.slot, count: count)
    }

    /// Adds `count` clicks of one combination (``ClickEvent/slot``).
    public mutating func add(slot: Int, count: Int) {
        let po = ClickEvent.platformOutcome(slot)
        platforms[po / ClickEvent.outcomeCount] += count
        outcomes[po % ClickEvent.outcomeCount] += count
        if (slot >> 1) & 1 == 1 { inAppBrowser += count }
        if slot & 1 == 1 { crawlers += count }
    }

    /// Adds the counts of `other` (its day, site, code and route are not checked).
    mutating func addCounts(of other: ClickCountRow) {
        for i in platforms.indices { platforms[i] += other.platforms[i] }
        for i in outcomes.indices { outcomes[i] += other.outcomes[i] }
        inAppBrowser += other.inAppBrowser
        crawlers += other.crawlers
    }

    /// Every click of the row.
    public var total: Int { platforms.reduce(0, +) }

    /// The count columns, in table order.
    static let countColumns = ClickPlatform.allCases.map { "p_\($0.name)" } + ClickOutcome.allCases.map { "o_\($0.name)" } + ["in_app", "crawler"]

    /// Appends the count columns' values, in table order.
    func appendCounts(to values: inout [SQLValue]) {
        for n in platforms { values.append(.integer(Int64(n))) }
        for n in outcomes { values.append(.integer(Int64(n))) }
        values.append(.integer(Int64(inAppBrowser)))
        values.append(.integer(Int64(crawlers)))
    }
}

/// Clicks of one link (or route) and day from one referrer host.
public struct ReferrerCountRow: Sendable, Equatable {
    public var day: Int
    public var site: String
    public var code: String
    public var route: String
    /// ``ReferrerHost``: a host, "" (none), `(other)`, `(ip)`, `(invalid)`.
    public var referrer: String
    public var count: Int

    public init(day: Int, site: String, code: String, route: String, referrer: String, count: Int) {
        self.day = day
        self.site = site
        self.code = code
        self.route = route
        self.referrer = referrer
        self.count = count
    }
}

/// What `linkwell stats` asks: every filter optional; days are yyyymmdd, inclusive.
public struct ClickQuery: Sendable, Equatable {
    public var site: String?
    public var code: String?
    public var route: String?
    public var since: Int?
    public var until: Int?
    /// Only the short links with most clicks, at most this many (read from each day's top
    /// links); nil: every link and route, most clicks first.
    public var linkLimit: Int?
}

/// The answer: totals by each dimension, the top referrer hosts, per day (and per month for the
/// days already folded into months).
public struct ClickReport: Sendable, Equatable, Codable {
    public struct Count: Sendable, Equatable, Codable {
        public var name: String
        public var clicks: Int
    }
    public struct LinkCount: Sendable, Equatable, Codable {
        public var site: String
        public var code: String
        public var route: String
        public var clicks: Int
    }

    public var total = 0
    public var humans = 0
    public var crawlers = 0
    public var inAppBrowser = 0
    /// Every platform, in `ClickPlatform` order (zeros included).
    public var platforms: [Count] = ClickPlatform.allCases.map { Count(name: $0.name, clicks: 0) }
    /// Every outcome, in `ClickOutcome` order (zeros included).
    public var outcomes: [Count] = ClickOutcome.allCases.map { Count(name: $0.name, clicks: 0) }
    /// Referrer hosts, most clicks first ("" is no referrer).
    public var referrers: [Count] = []
    /// Days with clicks (`2026-12-01`), in order.
    public var days: [Count] = []
    /// The clicks of each of ``days`` (same order) by platform, in `ClickPlatform` order.
    public var dayPlatforms: [[Int]] = []
    /// Months (`2025-10`) whose days are past `storage.clicks.retentionDays`, in order.
    public var months: [Count] = []
    /// The clicks of each of ``months`` (same order) by platform, in `ClickPlatform` order.
    public var monthPlatforms: [[Int]] = []
    /// Per route (code "") and per short link, most clicks first.
    public var links: [LinkCount] = []
    /// Per route of a site (route pages and the short links to them; code ""), most clicks first;
    /// clicks that resolved to no route (not found, short links to web pages) are in none.
    public var routes: [LinkCount] = []
    /// Times a link opened the app (first opens and re-opens, as the apps reported them).
    public var appOpens = 0
    /// App opens that were the first launch after an install.
    public var firstOpens = 0

    /// No clicks.
    public init() {}
}

extension LinkStore {
    /// Migration 4: for each period (the UTC day, then the month), a table of counts and a table of
    /// referrer hosts' counts.
    static let clickSchema = [(table: "daily", period: "day"), (table: "monthly", period: "month")].map { t in
        """
        CREATE TABLE clicks_\(t.table) (
            site TEXT NOT NULL, code TEXT NOT NULL, route TEXT NOT NULL, \(t.period) BIGINT NOT NULL,
            p_ios BIGINT NOT NULL, p_android BIGINT NOT NULL, p_desktop BIGINT NOT NULL, p_other BIGINT NOT NULL,
            o_app_page BIGINT NOT NULL, o_store BIGINT NOT NULL, o_web BIGINT NOT NULL, o_redirect BIGINT NOT NULL, o_not_found BIGINT NOT NULL,
            in_app BIGINT NOT NULL, crawler BIGINT NOT NULL,
            PRIMARY KEY (site, code, route, \(t.period))
        );
        CREATE TABLE click_referrers_\(t.table) (
            site TEXT NOT NULL, code TEXT NOT NULL, route TEXT NOT NULL, \(t.period) BIGINT NOT NULL, referrer TEXT NOT NULL,
            count BIGINT NOT NULL,
            PRIMARY KEY (site, code, route, \(t.period), referrer)
        );
        """
    }.joined(separator: "\n")

    /// Migration 7 (SQLite): the four click tables rebuilt `WITHOUT ROWID`, their rows kept. A rowid
    /// table is a B-tree plus a separate index for its primary key, so every upserted row is
    /// written twice; in a `WITHOUT ROWID` table the primary key is the table, written once.
    /// PostgreSQL tables are a heap with a primary-key index either way: nothing to change there
    /// (`postgresMigrations`).
    static let clickTablesWithoutRowid: String = {
        var sql = ""
        for table in ["clicks_daily", "click_referrers_daily", "clicks_monthly", "click_referrers_monthly"] {
            let start = clickSchema.range(of: "CREATE TABLE \(table) (")!
            let end = clickSchema.range(of: ");", range: start.upperBound..<clickSchema.endIndex)!
            let definition = clickSchema[start.upperBound..<end.lowerBound]
            sql += """
                CREATE TABLE \(table)_v7 (\(definition)) WITHOUT ROWID;
                INSERT INTO \(table)_v7 SELECT * FROM \(table);
                DROP TABLE \(table);
                ALTER TABLE \(table)_v7 RENAME TO \(table);

                """
        }
        return sql
    }()

    /// Rows per multi-row INSERT (at most 15 values each: far below SQLite's and PostgreSQL's limits).
    static let clickRowsPerStatement = 400

    /// Adds the counts in one transaction (`count = count + excluded.count`): all or nothing, so a
    /// failed flush can be retried with the same batch. Each (key) must appear once per call.
    public func addClicks(_ rows: [ClickCountRow], referrers: [ReferrerCountRow]) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in
            // A large batch touches pages all over the tables: 64 MB of page cache instead of
            // SQLite's 2 MB (PostgreSQL has its shared buffers).
            if db.dialect == .sqlite { try db.exec("PRAGMA cache_size = -65536") }
            try db.transaction { () throws(LinkStoreError) in
                // With the per-site tables, the upsert returns each short link's new day total
                // for its day's top links (no second read of the rows).
                let rollups = try LinkStore.hasRollups(db)
                var totals: [LinkDayTotal] = []
                if rollups { totals.reserveCapacity(rows.count) }
                try LinkStore.insertChunks(
                    db, rows, keys: ["site", "code", "route", "day"], counts: ClickCountRow.countColumns, table: "clicks_daily",
                    returning: rollups ? LinkDayTotal.returning : nil, values: { r, values in
                        values.append(.text(r.site))
                        values.append(.text(r.code))
                        values.append(.text(r.route))
                        values.append(.integer(Int64(r.day)))
                        r.appendCounts(to: &values)
                    }, row: { r throws(LinkStoreError) in
                        if let t = LinkDayTotal(r) { totals.append(t) }
                    })
                try LinkStore.insertChunks(
                    db, referrers, keys: ["site", "code", "route", "day", "referrer"], counts: ["count"], table: "click_referrers_daily"
                ) { r, values in
                    values.append(.text(r.site))
                    values.append(.text(r.code))
                    values.append(.text(r.route))
                    values.append(.integer(Int64(r.day)))
                    values.append(.text(r.referrer))
                    values.append(.integer(Int64(r.count)))
                }
                if rollups { try LinkStore.addRollups(db, rows, referrers: referrers, linkTotals: totals) }
                try LinkStore.addRecentClicks(db, rows)
            }
        }
    }

    /// Upserts `rows` (counts added to existing ones), `clickRowsPerStatement` per statement; with
    /// `returning` (a RETURNING list: SQLite ≥ 3.35 and PostgreSQL return the rows as written,
    /// after the update), `row` is called once per row upserted.
    static func insertChunks<Row>(
        _ db: any DatabaseConnection, _ rows: [Row], keys: [String], counts: [String], table: String, returning: String? = nil,
        values: (Row, inout [SQLValue]) -> Void, row: (SQLRow) throws(LinkStoreError) -> Void = { _ in }
    ) throws(LinkStoreError) {
        guard !rows.isEmpty else { return }
        let columns = (keys + counts).joined(separator: ", ")
        let conflict = keys.joined(separator: ", ")
        let sums = counts.map { "\($0) = \(table).\($0) + excluded.\($0)" }.joined(separator: ", ")
        let width = keys.count + counts.count
        let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        var start = 0
        var statement = ""
        var statementRows = -1
        while start < rows.count {
            let end = min(start + clickRowsPerStatement, rows.count)
            if end - start != statementRows {
                statementRows = end - start
                statement = "INSERT INTO \(table) (\(columns)) VALUES " + Array(repeating: tuple, count: statementRows).joined(separator: ", ")
                    + " ON CONFLICT (\(conflict)) DO UPDATE SET \(sums)" + (returning.map { " RETURNING \($0)" } ?? "")
            }
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(statementRows * width)
            for r in rows[start..<end] { values(r, &bindings) }
            try db.query(statement, bindings, row: row)
            start = end
        }
    }

    /// The daily housekeeping (the server runs it at start and every hour), in one transaction:
    /// - the referrer hosts of each link and day from `today - 2` on are trimmed to the
    ///   `referrersPerDay` with most clicks, the rest added to `(other)` (no referrer, `(other)`,
    ///   `(ip)` and `(invalid)` are never trimmed);
    /// - days before `today - retentionDays` are added to their month and deleted;
    /// - the months' referrer hosts are trimmed the same way.
    public func maintainClicks(today: Int, retentionDays: Int, referrersPerDay: Int) throws(LinkStoreError) {
        let cutoff = ClickDay.adding(-retentionDays, to: today)
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                try LinkStore.trimReferrers(db, table: "click_referrers_daily", period: "day", from: ClickDay.adding(-2, to: today), keep: referrersPerDay)
                try LinkStore.slideRecentClicks(db, today: today, cutoff: cutoff)
                let counts = ClickCountRow.countColumns
                try db.query(
                    """
                    INSERT INTO clicks_monthly (site, code, route, month, \(counts.joined(separator: ", ")))
                    SELECT site, code, route, day / 100, \(counts.map { "SUM(\($0))" }.joined(separator: ", "))
                    FROM clicks_daily WHERE day < ? GROUP BY site, code, route, day / 100
                    ON CONFLICT (site, code, route, month) DO UPDATE SET \(counts.map { "\($0) = clicks_monthly.\($0) + excluded.\($0)" }.joined(separator: ", "))
                    """, [.integer(Int64(cutoff))])
                try db.query("DELETE FROM clicks_daily WHERE day < ?", [.integer(Int64(cutoff))])
                try db.query(
                    """
                    INSERT INTO click_referrers_monthly (site, code, route, month, referrer, count)
                    SELECT site, code, route, day / 100, referrer, SUM(count) FROM click_referrers_daily WHERE day < ?
                    GROUP BY site, code, route, day / 100, referrer
                    ON CONFLICT (site, code, route, month, referrer) DO UPDATE SET count = click_referrers_monthly.count + excluded.count
                    """, [.integer(Int64(cutoff))])
                try db.query("DELETE FROM click_referrers_daily WHERE day < ?", [.integer(Int64(cutoff))])
                try LinkStore.trimReferrers(db, table: "click_referrers_monthly", period: "month", from: 0, keep: referrersPerDay)
                if try LinkStore.hasRollups(db) {
                    try LinkStore.trimReferrers(
                        db, table: "click_referrers_site_daily", period: "day", from: ClickDay.adding(-2, to: today), keep: referrersPerDay, keys: ["site", "route"])
                    try LinkStore.foldRollups(db, cutoff: cutoff)
                    try LinkStore.trimReferrers(db, table: "click_referrers_site_monthly", period: "month", from: 0, keep: referrersPerDay, keys: ["site", "route"])
                }
            }
        }
    }

    /// Folds every host past the `keep` most clicked of its (period, site, code, route) — or of
    /// its (period, site, route) in the per-site tables — into `(other)`.
    static func trimReferrers(_ db: any DatabaseConnection, table: String, period: String, from: Int, keep: Int,
                              keys: [String] = ["site", "code", "route"]) throws(LinkStoreError) {
        let special = [ReferrerHost.none, ReferrerHost.other, ReferrerHost.address, ReferrerHost.invalid]
        let notSpecial = "referrer NOT IN (" + special.map { _ in "?" }.joined(separator: ", ") + ")"
        let k = keys.joined(separator: ", ")
        let ranked = """
            SELECT \(period), \(k), referrer, count, ROW_NUMBER() OVER (
                PARTITION BY \(period), \(k) ORDER BY count DESC, referrer) AS rank
            FROM \(table) WHERE \(period) >= ? AND \(notSpecial)
            """
        let bindings: [SQLValue] = [.integer(Int64(from))] + special.map { .text($0) } + [.integer(Int64(keep))]
        try db.query(
            """
            INSERT INTO \(table) (\(k), \(period), referrer, count)
            SELECT \(k), \(period), ?, SUM(count) FROM (\(ranked)) AS r WHERE rank > ?
            GROUP BY \(k), \(period)
            ON CONFLICT (\(k), \(period), referrer) DO UPDATE SET count = \(table).count + excluded.count
            """, [.text(ReferrerHost.other)] + bindings)
        try db.query(
            """
            DELETE FROM \(table) WHERE (\(k), \(period), referrer) IN (
                SELECT \(k), \(period), referrer FROM (\(ranked)) AS r WHERE rank > ?)
            """, bindings)
    }

    /// The counts matching `query`, from the daily rows and the months already folded.
    public func clickReport(_ query: ClickQuery) throws(LinkStoreError) -> ClickReport {
        try withDB { db throws(LinkStoreError) in
            var report = ClickReport()
            var referrers: [String: Int] = [:]
            var links: [String: ClickReport.LinkCount] = [:]
            // Without a link filter the per-site tables hold the same sums in far fewer rows.
            let perSite = query.code == nil ? try LinkStore.hasRollups(db) : false
            let tables = perSite
                ? [("clicks_site_daily", "day", "click_referrers_site_daily"), ("clicks_site_monthly", "month", "click_referrers_site_monthly")]
                : [("clicks_daily", "day", "click_referrers_daily"), ("clicks_monthly", "month", "click_referrers_monthly")]
            var routes: [String: ClickReport.LinkCount] = [:]
            for ((table, period, refTable), linkTable) in zip(tables, ["clicks_daily", "clicks_monthly"]) {
                let monthly = period == "month"
                let (whereClause, bindings) = LinkStore.whereClause(query, period: period)
                let counts = ClickCountRow.countColumns
                var tableTotal = 0
                try db.query("SELECT \(counts.map { "SUM(\($0))" }.joined(separator: ", ")) FROM \(table) \(whereClause)", bindings) { r in
                    let n = counts.indices.map { Int(r.integer(Int32($0)) ?? 0) }
                    let platforms = ClickPlatform.allCases.count, outcomes = ClickOutcome.allCases.count
                    for p in 0..<platforms { report.platforms[p].clicks += n[p] }
                    for o in 0..<outcomes { report.outcomes[o].clicks += n[platforms + o] }
                    let total = n[0..<platforms].reduce(0, +)
                    tableTotal = total
                    report.total += total
                    report.inAppBrowser += n[platforms + outcomes]
                    report.crawlers += n[platforms + outcomes + 1]
                    report.humans += total - n[platforms + outcomes + 1]
                }
                let platformColumns = ClickPlatform.allCases.map { "p_\($0.name)" }
                let total = platformColumns.joined(separator: " + ")
                try db.query(
                    "SELECT \(period), \(platformColumns.map { "SUM(\($0))" }.joined(separator: ", ")) FROM \(table) \(whereClause) GROUP BY \(period) ORDER BY \(period)",
                    bindings
                ) { r in
                    let p = Int(r.integer(0) ?? 0)
                    let split = platformColumns.indices.map { Int(r.integer(Int32($0 + 1)) ?? 0) }
                    let entry = ClickReport.Count(name: monthly ? ClickDay.monthText(p) : ClickDay.text(p), clicks: split.reduce(0, +))
                    if monthly {
                        report.months.append(entry)
                        report.monthPlatforms.append(split)
                    } else {
                        report.days.append(entry)
                        report.dayPlatforms.append(split)
                    }
                }
                if query.linkLimit == nil || !perSite {
                    try db.query("SELECT site, code, route, SUM(\(total)) FROM \(linkTable) \(whereClause) GROUP BY site, code, route", bindings) { r in
                        let key = [r.text(0) ?? "", r.text(1) ?? "", r.text(2) ?? ""].joined(separator: "\u{0}")
                        links[key, default: ClickReport.LinkCount(site: r.text(0) ?? "", code: r.text(1) ?? "", route: r.text(2) ?? "", clicks: 0)].clicks +=
                            Int(r.integer(3) ?? 0)
                    }
                }
                try db.query("SELECT site, route, SUM(\(total)) FROM \(table) \(whereClause) GROUP BY site, route", bindings) { r in
                    guard let route = r.text(1), !route.isEmpty else { return }
                    let site = r.text(0) ?? ""
                    routes[site + "\u{0}" + route, default: ClickReport.LinkCount(site: site, code: "", route: route, clicks: 0)].clicks += Int(r.integer(2) ?? 0)
                }
                // Clicks without a referrer are the clicks in no referrer row (the flush writes no
                // row for them; rows for "" written by older versions or by callers still count).
                var inReferrerRows = 0
                try db.query("SELECT referrer, SUM(count) FROM \(refTable) \(whereClause) GROUP BY referrer", bindings) { r in
                    let n = Int(r.integer(1) ?? 0)
                    referrers[r.text(0) ?? "", default: 0] += n
                    inReferrerRows += n
                }
                if tableTotal > inReferrerRows { referrers[ReferrerHost.none, default: 0] += tableTotal - inReferrerRows }
            }
            let opens = try LinkStore.appOpenTotals(db, query)
            report.appOpens = opens.firstOpens + opens.reopens
            report.firstOpens = opens.firstOpens
            report.referrers = referrers.map { ClickReport.Count(name: $0.key, clicks: $0.value) }
                .sorted { ($0.clicks, $1.name) > ($1.clicks, $0.name) }
            if let limit = query.linkLimit, perSite {
                report.links = try LinkStore.topLinks(db, query, limit: limit)
            } else {
                report.links = links.values.sorted { ($0.clicks, $1.site, $1.code, $1.route) > ($1.clicks, $0.site, $0.code, $0.route) }
            }
            report.routes = routes.values.sorted { ($0.clicks, $1.site, $1.route) > ($1.clicks, $0.site, $0.route) }
            return report
        }
    }
}

extension LinkStore {
    /// The `WHERE` clause (empty without filters) and its bindings of `query` over a table keyed by
    /// site, code, route and `period` (`day`, or `month`: the days are compared as their months).
    static func whereClause(_ query: ClickQuery, period: String) -> (String, [SQLValue]) {
        let monthly = period == "month"
        var filters: [String] = []
        var bindings: [SQLValue] = []
        for (column, value) in [("site", query.site), ("code", query.code), ("route", query.route)] {
            if let value {
                filters.append("\(column) = ?")
                bindings.append(.text(value))
            }
        }
        if let since = query.since {
            filters.append("\(period) >= ?")
            bindings.append(.integer(Int64(monthly ? since / 100 : since)))
        }
        if let until = query.until {
            filters.append("\(period) <= ?")
            bindings.append(.integer(Int64(monthly ? until / 100 : until)))
        }
        return (filters.isEmpty ? "" : "WHERE " + filters.joined(separator: " AND "), bindings)
    }
}

extension ClickQuery {
    /// The query of `linkwell stats` and `GET /api/v1/stats`: `site`, `link` (a code), `route`,
    /// `since` and `until` (`2026-12-01`, inclusive; `since` after `until` matches nothing). Fails
    /// with a message naming the bad value.
    public init(parameters: [String: String]) throws(LinkStoreError) {
        self.init(site: parameters["site"], code: parameters["link"], route: parameters["route"])
        for key in parameters.keys where !["site", "link", "route", "since", "until"].contains(key) {
            throw LinkStoreError(.invalid, "unknown stats parameter '\(key)'; use site, link, route, since or until")
        }
        for (key, value) in [("since", parameters["since"]), ("until", parameters["until"])] {
            guard let value else { continue }
            guard let day = ClickDay.parse(value) else {
                throw LinkStoreError(.invalid, "\(key) '\(value)' is not a date; write it as YYYY-MM-DD, e.g. 2026-12-01 (UTC days)")
            }
            if key == "since" { since = day } else { until = day }
        }
    }
}

extension ClickReport {
    /// The JSON of `linkwell stats --json` (and `/api/v1/stats`): counts by name, lists in order.
    public struct Document: Encodable, Sendable {
        public struct Query: Encodable, Sendable {
            var site, link, route, since, until: String?
        }
        public struct YesNo: Encodable, Sendable {
            var yes, no: Int
        }
        public struct Referrer: Encodable, Sendable {
            var host: String
            var clicks: Int
        }
        public struct Day: Encodable, Sendable {
            var day: String
            var clicks: Int
            /// The day's clicks by platform (every platform, zeros included).
            var platform: [String: Int]
        }
        public struct Month: Encodable, Sendable {
            var month: String
            var clicks: Int
            var platform: [String: Int]
        }
        public struct Route: Encodable, Sendable {
            var site, route: String
            var clicks: Int
        }
        public struct Link: Encodable, Sendable {
            var site, code, route: String
            var clicks: Int
        }
        /// Clicks → app opens → first opens: how many link requests there were, how often a
        /// link opened the app, and how many of those were the first launch after an install.
        public struct Funnel: Encodable, Sendable {
            var clicks, appOpens, firstOpens, reopens: Int
        }
        var query: Query
        var total, humans, crawlers: Int
        var inAppBrowser, crawler: YesNo
        var platform, outcome: [String: Int]
        var referrers: [Referrer]
        var days: [Day]
        var months: [Month]
        var links: [Link]
        var routes: [Route]
        var funnel: Funnel
    }

    /// Row `i` of a per-platform split by platform name (zeros when the split is missing).
    static func byPlatform(_ split: [[Int]], _ i: Int) -> [String: Int] {
        let row = i < split.count ? split[i] : []
        return Dictionary(uniqueKeysWithValues: ClickPlatform.allCases.map { ($0.name, $0.rawValue < row.count ? row[$0.rawValue] : 0) })
    }

    /// This report as `linkwell stats --json` prints it, for `query`.
    public func document(query: ClickQuery) -> Document {
        func named(_ counts: [Count]) -> [String: Int] { Dictionary(uniqueKeysWithValues: counts.map { ($0.name, $0.clicks) }) }
        return Document(
            query: .init(site: query.site, link: query.code, route: query.route,
                         since: query.since.map(ClickDay.text), until: query.until.map(ClickDay.text)),
            total: total, humans: humans, crawlers: crawlers,
            inAppBrowser: .init(yes: inAppBrowser, no: total - inAppBrowser),
            crawler: .init(yes: crawlers, no: humans),
            platform: named(platforms), outcome: named(outcomes),
            referrers: referrers.map { .init(host: $0.name, clicks: $0.clicks) },
            days: days.indices.map { .init(day: days[$0].name, clicks: days[$0].clicks, platform: Self.byPlatform(dayPlatforms, $0)) },
            months: months.indices.map { .init(month: months[$0].name, clicks: months[$0].clicks, platform: Self.byPlatform(monthPlatforms, $0)) },
            links: links.map { .init(site: $0.site, code: $0.code, route: $0.route, clicks: $0.clicks) },
            routes: routes.map { .init(site: $0.site, route: $0.route, clicks: $0.clicks) },
            funnel: .init(clicks: total, appOpens: appOpens, firstOpens: firstOpens, reopens: appOpens - firstOpens))
    }
}
