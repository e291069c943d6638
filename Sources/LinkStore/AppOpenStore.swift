// App-open counts in the link database: how often a link opened the app, per link (or route)
// and UTC day, split into first opens (the first launch after an install) and re-opens. The
// server adds them in batches, as the clicks (`addAppOpens`, counts add up across instances);
// `clickReport` reads them beside the clicks. No identifier of the app or the device is stored.

/// The app opens of one link (or route) and day.
public struct AppOpenRow: Sendable, Equatable {
    public var day: Int
    public var site: String
    /// The short link's code; "" for a route link (or a long link).
    public var code: String
    /// The route the link opens; "" for a short link to a web page.
    public var route: String
    public var firstOpens: Int
    public var reopens: Int

    public init(day: Int, site: String, code: String, route: String, firstOpens: Int, reopens: Int) {
        self.day = day
        self.site = site
        self.code = code
        self.route = route
        self.firstOpens = firstOpens
        self.reopens = reopens
    }
}

/// What a beacon says the open was.
public enum AppOpenKind: String, Sendable, CaseIterable {
    /// The first launch after an install (a deferred deep link, or a link that led to the store).
    case firstOpen = "first_open"
    /// A launch of an installed app by a link.
    case reopen
}

extension LinkStore {
    /// The app-open migration: one table, a row per link (or route) and UTC day.
    static let appOpenMigration = (
        version: 9, name: "app opens",
        sql: """
            CREATE TABLE app_opens_daily (
                site TEXT NOT NULL, code TEXT NOT NULL, route TEXT NOT NULL, day BIGINT NOT NULL,
                first_opens BIGINT NOT NULL, reopens BIGINT NOT NULL,
                PRIMARY KEY (site, code, route, day)
            );
            """
    )

    /// Adds the counts in one transaction (`count = count + excluded.count`); each key once per call.
    public func addAppOpens(_ rows: [AppOpenRow]) throws(LinkStoreError) {
        guard !rows.isEmpty else { return }
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                try LinkStore.insertChunks(
                    db, rows, keys: ["site", "code", "route", "day"], counts: ["first_opens", "reopens"], table: "app_opens_daily"
                ) { r, values in
                    values.append(.text(r.site))
                    values.append(.text(r.code))
                    values.append(.text(r.route))
                    values.append(.integer(Int64(r.day)))
                    values.append(.integer(Int64(r.firstOpens)))
                    values.append(.integer(Int64(r.reopens)))
                }
            }
        }
    }

    /// The app opens matching `query` (the same filters as the clicks): first opens and re-opens;
    /// none from a file of an older version read without migrating it (a read-only file).
    static func appOpenTotals(_ db: any DatabaseConnection, _ query: ClickQuery) throws(LinkStoreError) -> (firstOpens: Int, reopens: Int) {
        guard try appliedVersions(db).contains(appOpenMigration.version) else { return (0, 0) }
        let (whereClause, bindings) = whereClause(query, period: "day")
        var totals = (firstOpens: 0, reopens: 0)
        try db.query("SELECT SUM(first_opens), SUM(reopens) FROM app_opens_daily \(whereClause)", bindings) { r in
            totals = (Int(r.integer(0) ?? 0), Int(r.integer(1) ?? 0))
        }
        return totals
    }
}
