// The console's link list: one page of a site's links, filtered by a search and ordered by code,
// creation time or recent clicks, read with LIMIT/OFFSET on an index (the primary key, or
// links_site_created) so a page never reads every link; and the daily clicks of the links on a
// page, for their sparklines.

import Foundation

/// How the console's list is ordered.
public enum LinkListSort: String, Sendable, CaseIterable {
    case code, created, clicks
}

/// One page of the console's list.
public struct LinkListQuery: Sendable {
    public var site: String
    /// Matched, case-insensitively, anywhere in the code, the target and the preview title.
    public var search: String?
    public var sort: LinkListSort
    public var descending: Bool
    public var offset: Int
    public var limit: Int
    /// The first day (yyyymmdd) whose clicks count for `sort = clicks`.
    public var clicksSince: Int
    /// How many matches a search may have for them to be read first (tests lower it to check
    /// the other way, walking the order).
    var narrowLimit = LinkStore.searchNarrowDocuments
    /// How many ordered candidates are checked with one statement (tests lower it).
    var candidateBatch = LinkStore.candidateBatch

    public init(site: String, search: String?, sort: LinkListSort, descending: Bool, offset: Int, limit: Int, clicksSince: Int) {
        (self.site, self.search, self.sort, self.descending) = (site, search, sort, descending)
        (self.offset, self.limit, self.clicksSince) = (offset, limit, clicksSince)
    }
}

extension LinkStore {
    static let linkListVersion = 12

    /// Migration 12 (SQLite): what the list reads instead of every link.
    /// - links_site_created: the `sort = created` pages walk it.
    /// - link_list: a row per link (kept by triggers on links) with its clicks of the last 7 days,
    ///   indexed both ways for `sort = clicks`; its integer id is the link's row in link_search
    ///   (links has no rowid). The click flush adds to clicks_7d; the daily maintenance subtracts
    ///   each day that leaves the window (link_list_window.subtracted_through is the last day
    ///   subtracted; NULL until the first maintenance rebuilds the column from clicks_daily).
    /// - clicks_daily_day: the maintenance finds the codes that had clicks on a day without
    ///   reading the others.
    /// - link_search: a contentless FTS5 trigram index of code, target and title, so a search of
    ///   3 characters or more reads the matching links only.
    static let linkListIndex = """
        CREATE INDEX links_site_created ON links (site, created_at, code);
        CREATE TABLE link_list (
            id INTEGER PRIMARY KEY, site TEXT NOT NULL, code TEXT NOT NULL, clicks_7d BIGINT NOT NULL DEFAULT 0, UNIQUE (site, code)
        );
        CREATE INDEX link_list_clicks_up ON link_list (site, clicks_7d, code);
        CREATE INDEX link_list_clicks_down ON link_list (site, clicks_7d DESC, code);
        CREATE TABLE link_list_window (id BIGINT NOT NULL PRIMARY KEY, subtracted_through BIGINT);
        INSERT INTO link_list_window (id, subtracted_through) VALUES (1, NULL);
        CREATE INDEX clicks_daily_day ON clicks_daily (day, site, code);
        CREATE VIRTUAL TABLE link_search USING fts5 (code, target, title, content = '', tokenize = 'trigram');
        CREATE VIRTUAL TABLE link_search_terms USING fts5vocab (link_search, 'row');
        INSERT INTO link_list (site, code) SELECT site, code FROM links;
        INSERT INTO link_search (rowid, code, target, title)
            SELECT link_list.id, links.code, links.target, COALESCE(links.preview_title, '') FROM link_list JOIN links USING (site, code);
        CREATE TRIGGER link_list_insert AFTER INSERT ON links BEGIN
            INSERT INTO link_list (site, code, clicks_7d) VALUES (new.site, new.code, COALESCE((
                SELECT SUM(p_ios + p_android + p_desktop + p_other) FROM clicks_daily WHERE site = new.site AND code = new.code
                AND day > (SELECT subtracted_through FROM link_list_window WHERE id = 1)), 0));
            INSERT INTO link_search (rowid, code, target, title)
                SELECT id, new.code, new.target, COALESCE(new.preview_title, '') FROM link_list WHERE site = new.site AND code = new.code;
        END;
        CREATE TRIGGER link_list_update AFTER UPDATE OF target, preview_title ON links BEGIN
            INSERT INTO link_search (link_search, rowid, code, target, title)
                SELECT 'delete', id, old.code, old.target, COALESCE(old.preview_title, '') FROM link_list WHERE site = old.site AND code = old.code;
            INSERT INTO link_search (rowid, code, target, title)
                SELECT id, new.code, new.target, COALESCE(new.preview_title, '') FROM link_list WHERE site = new.site AND code = new.code;
        END;
        CREATE TRIGGER link_list_delete AFTER DELETE ON links BEGIN
            INSERT INTO link_search (link_search, rowid, code, target, title)
                SELECT 'delete', id, old.code, old.target, COALESCE(old.preview_title, '') FROM link_list WHERE site = old.site AND code = old.code;
            DELETE FROM link_list WHERE site = old.site AND code = old.code;
        END;
        """

    /// Migration 12 (PostgreSQL): the same link_list (an identity id, a row trigger), and pg_trgm
    /// GIN indexes for the search when the role may create the extension (else the search scans;
    /// the server warns at start, ``searchIndexMissing``).
    static let linkListIndexPostgres = """
        CREATE INDEX links_site_created ON links (site, created_at, code);
        CREATE TABLE link_list (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, site TEXT NOT NULL, code TEXT NOT NULL,
            clicks_7d BIGINT NOT NULL DEFAULT 0, UNIQUE (site, code)
        );
        CREATE INDEX link_list_clicks_up ON link_list (site, clicks_7d, code);
        CREATE INDEX link_list_clicks_down ON link_list (site, clicks_7d DESC, code);
        CREATE TABLE link_list_window (id BIGINT NOT NULL PRIMARY KEY, subtracted_through BIGINT);
        INSERT INTO link_list_window (id, subtracted_through) VALUES (1, NULL);
        CREATE INDEX clicks_daily_day ON clicks_daily (day, site, code);
        INSERT INTO link_list (site, code) SELECT site, code FROM links;
        CREATE FUNCTION linkwell_link_list() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO link_list (site, code, clicks_7d) VALUES (NEW.site, NEW.code, COALESCE((
                    SELECT SUM(p_ios + p_android + p_desktop + p_other) FROM clicks_daily WHERE site = NEW.site AND code = NEW.code
                    AND day > (SELECT subtracted_through FROM link_list_window WHERE id = 1)), 0)) ON CONFLICT DO NOTHING;
            ELSE
                DELETE FROM link_list WHERE site = OLD.site AND code = OLD.code;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER link_list_changed AFTER INSERT OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION linkwell_link_list();
        DO $$ BEGIN
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
        EXCEPTION WHEN OTHERS THEN NULL;
        END $$;
        DO $$ BEGIN
            IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
                CREATE INDEX links_search_trgm ON links USING gin (
                    LOWER(code) gin_trgm_ops, LOWER(target) gin_trgm_ops, LOWER(COALESCE(preview_title, '')) gin_trgm_ops);
            END IF;
        END $$;
        """

    /// PostgreSQL only: why the list's search reads every link of the site (pg_trgm is not
    /// installed and this role could not create it), with the fix; nil when it reads an index.
    public func searchIndexMissing() throws(LinkStoreError) -> String? {
        try withDB { db throws(LinkStoreError) in
            guard db.dialect == .postgres else { return nil }
            var found = false
            try db.query("SELECT 1 FROM pg_indexes WHERE indexname = 'links_search_trgm'") { _ in found = true }
            if found { return nil }
            var hasExtension = false
            try db.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'") { _ in hasExtension = true }
            if hasExtension {
                // Created by a superuser after the migration: build the index now.
                try db.exec("""
                    CREATE INDEX IF NOT EXISTS links_search_trgm ON links USING gin (
                        LOWER(code) gin_trgm_ops, LOWER(target) gin_trgm_ops, LOWER(COALESCE(preview_title, '')) gin_trgm_ops)
                    """)
                return nil
            }
            return "the console's link search reads every link of a site: PostgreSQL's pg_trgm extension is not installed and this database role may not create it. Fix: run `CREATE EXTENSION pg_trgm;` in this database as a superuser, then restart linkwell (it builds the search index at start)"
        }
    }

    /// Adds the flushed clicks to link_list.clicks_7d (inside addClicks' transaction): only days
    /// still in the window, nothing before the first maintenance set it. One statement per
    /// `clickRowsPerStatement` links (SQLite and PostgreSQL alike), each link once per statement.
    static func addRecentClicks(_ db: any DatabaseConnection, _ rows: [ClickCountRow]) throws(LinkStoreError) {
        guard try appliedVersions(db).contains(linkListVersion) else { return }  // an older file
        var through: Int?
        try db.query("SELECT subtracted_through FROM link_list_window WHERE id = 1") { row in through = row.integer(0).map { Int($0) } }
        guard let through else { return }
        // The flush's rows come in key order (site, code, route, day): a link's rows are
        // neighbours, summed as they come. Rows in another order are summed and sorted (in key
        // order neighbouring links share index pages).
        var added: [(site: String, code: String, n: Int)] = []
        var ordered = true
        for r in rows where r.day > through && !r.code.isEmpty {
            let n = r.total
            guard n != 0 else { continue }
            if let last = added.last {
                if last.code == r.code && last.site == r.site {
                    added[added.count - 1].n += n
                    continue
                }
                if ordered && (last.site, last.code) > (r.site, r.code) { ordered = false }
            }
            added.append((r.site, r.code, n))
        }
        if !ordered {
            var sums: [String: [String: Int]] = [:]
            for a in added { sums[a.site, default: [:]][a.code, default: 0] += a.n }
            added = sums.flatMap { site, codes in codes.map { (site: site, code: $0.key, n: $0.value) } }.sorted { ($0.site, $0.code) < ($1.site, $1.code) }
        }
        var start = 0
        var statement = ""
        var statementRows = -1
        while start < added.count {
            let end = min(start + clickRowsPerStatement, added.count)
            if end - start != statementRows {
                statementRows = end - start
                statement = """
                    WITH added (site, code, n) AS (VALUES \(Array(repeating: "(?, ?, CAST(? AS BIGINT))", count: statementRows).joined(separator: ", ")))
                    UPDATE link_list SET clicks_7d = link_list.clicks_7d + added.n FROM added
                    WHERE link_list.site = added.site AND link_list.code = added.code
                    """
            }
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(statementRows * 3)
            for a in added[start..<end] {
                bindings.append(.text(a.site))
                bindings.append(.text(a.code))
                bindings.append(.integer(Int64(a.n)))
            }
            try db.query(statement, bindings)
            start = end
        }
    }

    /// The maintenance's part (inside its transaction, before old days are deleted): subtracts the
    /// days that left the 7-day window ending `today` (or the shorter retention window) from
    /// link_list.clicks_7d, reading only those days' rows; rebuilds the column when the window was
    /// never set or went backwards (a clock set back).
    static func slideRecentClicks(_ db: any DatabaseConnection, today: Int, cutoff: Int) throws(LinkStoreError) {
        guard try appliedVersions(db).contains(linkListVersion) else { return }  // an older file
        let edge = max(ClickDay.adding(-7, to: today), ClickDay.adding(-1, to: cutoff))
        var through: Int?
        try db.query("SELECT subtracted_through FROM link_list_window WHERE id = 1") { row in through = row.integer(0).map { Int($0) } }
        let sum = "SUM(p_ios + p_android + p_desktop + p_other)"
        if let through, through <= edge {
            guard through < edge else { return }
            try db.query(
                """
                UPDATE link_list SET clicks_7d = link_list.clicks_7d - gone.n
                FROM (SELECT site, code, \(sum) AS n FROM clicks_daily WHERE day > ? AND day <= ? AND code <> '' GROUP BY site, code) gone
                WHERE link_list.site = gone.site AND link_list.code = gone.code
                """, [.integer(Int64(through)), .integer(Int64(edge))])
        } else {
            try db.query("UPDATE link_list SET clicks_7d = 0 WHERE clicks_7d <> 0")
            try db.query(
                """
                UPDATE link_list SET clicks_7d = recent.n
                FROM (SELECT site, code, \(sum) AS n FROM clicks_daily WHERE day > ? AND code <> '' GROUP BY site, code) recent
                WHERE link_list.site = recent.site AND link_list.code = recent.code
                """, [.integer(Int64(edge))])
        }
        try db.query("UPDATE link_list_window SET subtracted_through = ? WHERE id = 1", [.integer(Int64(edge))])
    }

    /// The shortest search the trigram index serves; shorter ones match the code's start only.
    public static let searchIndexMinimum = 3

    /// How many links (of all sites) may contain the rarest of a search's trigrams for the FTS5
    /// matches to drive the list; past it the page is found faster by walking the list's order
    /// and checking each link with LIKE (a word in one link of this many or more: a page of 50
    /// is full after some thousands of links at most).
    static let searchNarrowDocuments = 20_000

    /// SQLite: whether the FTS5 index's matches for `search` are few enough to read them all:
    /// some trigram of it is in at most `limit` links (a trigram in no link means no match at
    /// all, found at once by the index). Each trigram's links are counted through the index up
    /// to `limit + 1` only: fts5vocab's count reads a trigram's whole list (some tens of ms for
    /// one in every link of a million).
    static func searchIsNarrow(_ db: any DatabaseConnection, _ search: String, limit: Int) throws(LinkStoreError) -> Bool {
        let scalars = Array(search.unicodeScalars)
        guard scalars.count >= 3 else { return true }
        for gram in Set((0...(scalars.count - 3)).map { i in String(String.UnicodeScalarView(scalars[i..<(i + 3)])) }) {
            var docs = 0
            try db.query("SELECT COUNT(*) FROM (SELECT rowid FROM link_search WHERE link_search MATCH ? LIMIT ?)",
                         [.text(ftsPhrase(gram)), .integer(Int64(max(limit, 0) + 1))]) { docs = Int($0.integer(0) ?? 0) }
            if docs <= limit { return true }
        }
        return false
    }

    /// `text` as one FTS5 phrase (quoted, its quotes doubled): matched as a substring.
    static func ftsPhrase(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// LinkStore.columns, each qualified with `links.`.
    static let listColumns = columns.split(separator: ",").map { "links." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")

    /// How many of the ordered candidates are checked with one statement.
    static let candidateBatch = 500

    /// SQLite, a narrow search: the FTS5 matches' codes in the list's order (read from link_list
    /// alone in code and clicks order; with each link's creation time for `created`), then the links checked with `check` a batch at a time
    /// in that order until the page is full; the trigram index matches (almost) exactly, so a
    /// page reads its own links and those before it, not every match.
    static func orderedCandidatePage(_ db: any DatabaseConnection, _ query: LinkListQuery, phrase: String, sort: LinkListSort, check: (sql: String, bindings: [SQLValue])) throws(LinkStoreError) -> [ShortLink] {
        let dir = query.descending ? "DESC" : "ASC"
        var join = ""
        let order: String
        switch sort {
        case .code: order = "l.code \(dir)"
        case .clicks: order = "l.clicks_7d \(dir), l.code ASC"
        case .created:  // the creation time is in links: its row is read, but not checked yet
            join = " CROSS JOIN links ON links.site = l.site AND links.code = l.code"
            order = "links.created_at \(dir), links.code \(dir)"
        }
        var ordered: [String] = []
        try db.query("SELECT l.code FROM link_search CROSS JOIN link_list l ON l.id = link_search.rowid\(join) WHERE link_search MATCH ? AND l.site = ? ORDER BY \(order)",
                     [.text(phrase), .text(query.site)]) { if let code = $0.text(0) { ordered.append(code) } }
        let wanted = query.offset + query.limit
        var matched: [ShortLink] = []
        var start = 0
        while matched.count < wanted, start < ordered.count {
            let batch = Array(ordered[start..<min(start + max(query.candidateBatch, 1), ordered.count)])
            start += batch.count
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            var found: [String: ShortLink] = [:]
            try db.query("SELECT \(listColumns) FROM links WHERE links.site = ? AND links.code IN (\(marks)) AND \(check.sql)",
                         [.text(query.site)] + batch.map { .text($0) } + check.bindings) { row in
                let link = LinkStore.link(row)
                found[link.code] = link
            }
            matched += batch.compactMap { found[$0] }
        }
        guard query.offset < matched.count, query.limit > 0 else { return [] }
        return Array(matched[query.offset..<min(wanted, matched.count)])
    }

    /// The links of one page of `query`, in its order. Every form reads an index: the primary key,
    /// links_site_created, link_list's clicks indexes; a search of ``searchIndexMinimum``
    /// characters or more narrows to the trigram index's matches (SQLite FTS5 when they are few,
    /// ``searchIsNarrow``, read in the list's order and checked until the page is full,
    /// ``orderedCandidatePage``; PostgreSQL pg_trgm, chosen by its planner) and is checked exactly
    /// with LIKE; a shorter one matches the start of the code only. Every plan answers the same.
    public func linkList(_ query: LinkListQuery) throws(LinkStoreError) -> [ShortLink] {
        try withDB { db throws(LinkStoreError) in
            let dir = query.descending ? "DESC" : "ASC"
            // A file of an older version read without migrating it (read-only) has none of
            // link_list: code order instead of clicks, and the search scans.
            let indexed = try LinkStore.appliedVersions(db).contains(LinkStore.linkListVersion)
            let sort = indexed ? query.sort : .code
            var order: String
            switch sort {
            case .code: order = "links.code \(dir)"
            case .created: order = "links.created_at \(dir), links.code \(dir)"
            case .clicks: order = "link_list.clicks_7d \(dir), link_list.code ASC"  // link_list's indexes give this order
            }
            // SQLite, a short search with few codes starting so: those codes first (from the
            // primary key), then those links sorted; CROSS JOIN keeps SQLite from walking the
            // whole order instead and probing each link.
            var candidates: (sql: String, bindings: [SQLValue])?
            var check: (sql: String, bindings: [SQLValue])?
            if let search = query.search?.lowercased(), !search.isEmpty {
                let escaped = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
                let escape = db.dialect == .sqlite ? " ESCAPE '\\'" : ""  // PostgreSQL's LIKE escapes with \ already
                if search.count < LinkStore.searchIndexMinimum {
                    // Ranges of the primary key, one per spelling of the prefix's letters.
                    var spellings: Set<String> = [""]
                    for ch in search { spellings = Set(spellings.flatMap { s in Set([String(ch).lowercased(), String(ch).uppercased()]).map { s + $0 } }) }
                    let ranges = spellings.sorted().map { (low: SQLValue.text($0), high: SQLValue.text($0 + "\u{10FFFF}")) }
                    check = ("LOWER(links.code) LIKE ?\(escape)", [.text("\(escaped)%")])
                    if db.dialect == .sqlite, try LinkStore.prefixIsNarrow(db, site: query.site, ranges, limit: query.narrowLimit) {
                        candidates = (
                            ranges.map { _ in "SELECT code FROM links WHERE site = ? AND code >= ? AND code < ?" }.joined(separator: " UNION ALL "),
                            ranges.flatMap { [SQLValue.text(query.site), $0.low, $0.high] })
                    } else {
                        check = (
                            "(" + ranges.map { _ in "(links.code >= ? AND links.code < ?)" }.joined(separator: " OR ") + ") AND " + check!.sql,
                            ranges.flatMap { [$0.low, $0.high] } + check!.bindings)
                    }
                } else {
                    let pattern = SQLValue.text("%\(escaped)%")
                    check = ("(LOWER(links.code) LIKE ?\(escape) OR LOWER(links.target) LIKE ?\(escape) OR LOWER(COALESCE(links.preview_title, '')) LIKE ?\(escape))",
                             [pattern, pattern, pattern])
                    if db.dialect == .sqlite, indexed, try LinkStore.searchIsNarrow(db, search, limit: query.narrowLimit) {
                        return try LinkStore.orderedCandidatePage(db, query, phrase: LinkStore.ftsPhrase(search), sort: sort, check: check!)
                    }
                }
            }
            var sql = ""
            var bindings: [SQLValue] = []
            let columns = LinkStore.listColumns
            let clicksJoin = "link_list ON link_list.site = links.site AND link_list.code = links.code"
            if let candidates {
                sql = "WITH candidates (code) AS MATERIALIZED (\(candidates.sql)) SELECT \(columns) FROM candidates CROSS JOIN links ON links.site = ? AND links.code = candidates.code"
                bindings = candidates.bindings + [.text(query.site)]
                if sort == .clicks { sql += " CROSS JOIN " + clicksJoin }
                sql += " WHERE 1 = 1"
            } else if sort == .clicks {
                sql = "SELECT \(columns) FROM link_list JOIN links ON links.site = link_list.site AND links.code = link_list.code WHERE link_list.site = ?"
                bindings = [.text(query.site)]
            } else {
                sql = "SELECT \(columns) FROM links WHERE links.site = ?"
                bindings = [.text(query.site)]
            }
            if let check {
                sql += " AND " + check.sql
                bindings += check.bindings
            }
            sql += " ORDER BY \(order) LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(query.limit)), .integer(Int64(query.offset))]
            var out: [ShortLink] = []
            try db.query(sql, bindings) { out.append(LinkStore.link($0)) }
            return out
        }
    }

    /// SQLite: whether the codes starting with one of `ranges` are few enough to read them all
    /// (counted on the primary key, up to ``searchNarrowDocuments``).
    static func prefixIsNarrow(_ db: any DatabaseConnection, site: String, _ ranges: [(low: SQLValue, high: SQLValue)], limit: Int) throws(LinkStoreError) -> Bool {
        var total = 0
        for r in ranges {
            try db.query("SELECT COUNT(*) FROM (SELECT 1 FROM links WHERE site = ? AND code >= ? AND code < ? LIMIT ?)",
                         [.text(site), r.low, r.high, .integer(Int64(limit + 1))]) { total += Int($0.integer(0) ?? 0) }
        }
        return total <= limit
    }

    /// The clicks of each of `codes` on `site` per day from `since` to `through` (yyyymmdd), read
    /// by the primary key of clicks_daily; codes without clicks are absent.
    public func dailyClicks(site: String, codes: [String], since: Int, through: Int) throws(LinkStoreError) -> [String: [Int: Int]] {
        guard !codes.isEmpty else { return [:] }
        return try withDB { db throws(LinkStoreError) in
            var out: [String: [Int: Int]] = [:]
            let marks = Array(repeating: "?", count: codes.count).joined(separator: ", ")
            try db.query(
                "SELECT code, day, SUM(p_ios + p_android + p_desktop + p_other) FROM clicks_daily WHERE site = ? AND code IN (\(marks)) AND day >= ? AND day <= ? GROUP BY code, day",
                [.text(site)] + codes.map { .text($0) } + [.integer(Int64(since)), .integer(Int64(through))]
            ) { row in
                out[row.text(0) ?? "", default: [:]][Int(row.integer(1) ?? 0)] = Int(row.integer(2) ?? 0)
            }
            return out
        }
    }
}
