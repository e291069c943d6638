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

    public init(site: String, search: String?, sort: LinkListSort, descending: Bool, offset: Int, limit: Int, clicksSince: Int) {
        (self.site, self.search, self.sort, self.descending) = (site, search, sort, descending)
        (self.offset, self.limit, self.clicksSince) = (offset, limit, clicksSince)
    }
}

extension LinkStore {
    /// Migration 12: the index the list's `sort = created` pages walk.
    static let linkListIndex = "CREATE INDEX links_site_created ON links (site, created_at, code);"

    /// The links of one page of `query`, in its order.
    public func linkList(_ query: LinkListQuery) throws(LinkStoreError) -> [ShortLink] {
        try withDB { db throws(LinkStoreError) in
            var bindings: [SQLValue] = []
            var from = "links"
            var order: String
            let dir = query.descending ? "DESC" : "ASC"
            switch query.sort {
            case .code: order = "links.code \(dir)"
            case .created: order = "links.created_at \(dir), links.code \(dir)"
            case .clicks:
                // Only the site's click rows of the last days are summed (the primary key of
                // clicks_daily starts with the site).
                from = """
                    links LEFT JOIN (SELECT code AS c_code, SUM(p_ios + p_android + p_desktop + p_other) AS c_clicks
                    FROM clicks_daily WHERE site = ? AND day >= ? AND code <> '' GROUP BY code) recent ON recent.c_code = links.code
                    """
                bindings += [.text(query.site), .integer(Int64(query.clicksSince))]
                order = "COALESCE(recent.c_clicks, 0) \(dir), links.code ASC"
            }
            var filter = "links.site = ?"
            bindings.append(.text(query.site))
            if let search = query.search?.lowercased(), !search.isEmpty {
                let escaped = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
                let pattern = SQLValue.text("%\(escaped)%")
                filter += " AND (LOWER(links.code) LIKE ? ESCAPE '\\' OR LOWER(links.target) LIKE ? ESCAPE '\\' OR LOWER(COALESCE(links.preview_title, '')) LIKE ? ESCAPE '\\')"
                bindings += [pattern, pattern, pattern]
            }
            bindings += [.integer(Int64(query.limit)), .integer(Int64(query.offset))]
            let columns = LinkStore.columns.split(separator: ",").map { "links." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
            var out: [ShortLink] = []
            try db.query("SELECT \(columns) FROM \(from) WHERE \(filter) ORDER BY \(order) LIMIT ? OFFSET ?", bindings) { out.append(LinkStore.link($0)) }
            return out
        }
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
