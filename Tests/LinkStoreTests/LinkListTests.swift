// The console's list query: search in code, target and title (case ignored, LIKE's wildcards
// taken literally), the three orders in both directions, pages by LIMIT/OFFSET, and the daily
// clicks of the listed codes.

import Foundation
import Testing

@testable import LinkStore

@Suite struct LinkListTests {
    static func link(_ code: String, created: TimeInterval, title: String? = nil, site: String = "fitconnect") -> ShortLink {
        ShortLink(code: code, site: site, target: "https://fitconnect.app/signup?referralCode=\(code.uppercased())", previewTitle: title,
                  createdAt: Date(timeIntervalSince1970: created))
    }

    static func store(_ dir: TempDir) throws -> LinkStore {
        let store = try LinkStore(path: dir.path("l.db"))
        for l in [link("b", created: 300, title: "Spring 50% off"), link("a", created: 200), link("c", created: 100, title: "Summer_sale"),
                  link("d", created: 400), link("x", created: 50, site: "other")] {
            try store.insert(l)
        }
        try store.addClicks([ClickStoreTests.row(20261201, 5, code: "c"), ClickStoreTests.row(20261202, 2, code: "c"),
                             ClickStoreTests.row(20261202, 3, code: "a"), ClickStoreTests.row(20261120, 50, code: "d")], referrers: [])
        // The first maintenance builds the 7-day clicks (the server runs it at start).
        try store.maintainClicks(today: 20261202, retentionDays: 400, referrersPerDay: 10)
        return store
    }

    /// The codes listed; a search is run both ways (its matches read first, and the order walked
    /// with each link checked), which must agree.
    func codes(_ store: LinkStore, q: String? = nil, sort: LinkListSort = .code, desc: Bool = false, offset: Int = 0, limit: Int = 10) throws -> [String] {
        var query = LinkListQuery(site: "fitconnect", search: q, sort: sort, descending: desc, offset: offset, limit: limit, clicksSince: 20261126)
        let narrow = try store.linkList(query).map(\.code)
        query.narrowLimit = -1
        let walked = try store.linkList(query).map(\.code)
        #expect(narrow == walked, "q=\(q ?? "")")
        return narrow
    }

    @Test func ordersAndPages() throws {
        let dir = try TempDir()
        let store = try Self.store(dir)
        #expect(try codes(store) == ["a", "b", "c", "d"])
        #expect(try codes(store, desc: true) == ["d", "c", "b", "a"])
        #expect(try codes(store, sort: .created) == ["c", "a", "b", "d"])
        #expect(try codes(store, sort: .created, desc: true) == ["d", "b", "a", "c"])
        // Clicks since the 26th only: d's 50 clicks are older; ties in code order.
        #expect(try codes(store, sort: .clicks, desc: true) == ["c", "a", "b", "d"])
        #expect(try codes(store, sort: .clicks) == ["b", "d", "a", "c"])
        #expect(try codes(store, offset: 1, limit: 2) == ["b", "c"])
        #expect(try codes(store, offset: 4, limit: 2) == [])
    }

    @Test func searchesCodeTargetAndTitleLiterally() throws {
        let dir = try TempDir()
        let store = try Self.store(dir)
        #expect(try codes(store, q: "SPRING") == ["b"])
        #expect(try codes(store, q: "referralcode=d") == ["d"])
        #expect(try codes(store, q: "50%") == ["b"])
        #expect(try codes(store, q: "0% o") == ["b"])
        #expect(try codes(store, q: "r_s") == ["c"])
        #expect(try codes(store, q: "r%s") == [])
        #expect(try codes(store, q: "nothing") == [])
        #expect(try codes(store, q: "promo", sort: .clicks, desc: true) == [])
        #expect(try codes(store, q: "referralcode=", sort: .clicks, desc: true) == ["c", "a", "b", "d"])
    }

    @Test func shortSearchesMatchTheCodeStart() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("l.db"))
        for code in ["Ab1", "ab2", "xab", "b%c", "zz"] { try store.insert(Self.link(code, created: 1, title: "ab")) }
        #expect(try codes(store, q: "AB") == ["Ab1", "ab2"])
        #expect(try codes(store, q: "b%") == ["b%c"])
        #expect(try codes(store, q: "%") == [])
        #expect(try codes(store, q: "z", sort: .clicks) == ["zz"])
    }

    /// Every plan of a search ≥ 3 characters (the order walked and each link checked; the
    /// trigram index's matches read first, in code and clicks order checked a batch at a time)
    /// gives the rows, order and pages of a plain LIKE scan: multi-word searches, searches whose
    /// trigrams are all common, matches bunched in code order, on links inserted out of order.
    @Test func everyPlanAnswersAsAPlainLikeScan() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("l.db"))
        let words = ["Promo", "Spring", "Summer", "Partner"]
        var order = Array(0..<240)
        var seed: UInt64 = 7
        for i in order.indices.reversed() {  // a fixed shuffle: link_list's ids not in code order
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            order.swapAt(i, Int(seed >> 33) % (i + 1))
        }
        for (n, i) in order.enumerated() {
            try store.insert(ShortLink(code: String(format: "c%04d", i), site: "fitconnect", target: "https://fitconnect.app/signup?referralCode=R\(i)",
                                       previewTitle: "\(words[i % words.count]) offer \(i)", createdAt: Date(timeIntervalSince1970: TimeInterval(1000 + (n * 37) % 240))))
        }
        try store.insert(Self.link("zz", created: 5, title: "OFFER 77 \"quoted\"", site: "fitconnect"))
        try store.insert(Self.link("c0077", created: 5, title: "offer 77", site: "other"))
        try store.addClicks(order.prefix(120).map { ClickStoreTests.row(20261201, 1 + $0 % 4, code: String(format: "c%04d", $0)) }, referrers: [])
        try store.maintainClicks(today: 20261202, retentionDays: 400, referrersPerDay: 10)

        func scan(_ q: String, _ sort: LinkListSort, _ desc: Bool, offset: Int, limit: Int) throws -> [String] {
            let dir = desc ? "DESC" : "ASC"
            let order = switch sort {
            case .code: "links.code \(dir)"
            case .created: "links.created_at \(dir), links.code \(dir)"
            case .clicks: "link_list.clicks_7d \(dir), links.code ASC"
            }
            let like = "%" + q.lowercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            var out: [String] = []
            try store.withDB { db throws(LinkStoreError) in
                try db.query("""
                    SELECT links.code FROM links JOIN link_list ON link_list.site = links.site AND link_list.code = links.code
                    WHERE links.site = 'fitconnect' AND (LOWER(links.code) LIKE ?1 ESCAPE '\\' OR LOWER(links.target) LIKE ?1 ESCAPE '\\'
                        OR LOWER(COALESCE(links.preview_title, '')) LIKE ?1 ESCAPE '\\')
                    ORDER BY \(order) LIMIT ?2 OFFSET ?3
                    """, [.text(like), .integer(Int64(limit)), .integer(Int64(offset))]) { out.append($0.text(0) ?? "") }
            }
            return out
        }
        var checked = 0
        for q in ["offer 77", "offer 7", "OFFER 1", "promo offer 1", "offer", "er 2", "ffe", "referralcode=r1", "r12", "\"quoted\"", "zzz", "spring offer 23"] {
            for sort in LinkListSort.allCases {
                for desc in [false, true] {
                    for (offset, limit) in [(0, 10), (10, 10), (35, 50), (0, 300), (250, 10)] {
                        let want = try scan(q, sort, desc, offset: offset, limit: limit)
                        for (narrow, batch) in [(-1, 500), (5, 500), (60, 7), (1_000_000, 1), (1_000_000, 500)] {
                            var query = LinkListQuery(site: "fitconnect", search: q, sort: sort, descending: desc, offset: offset, limit: limit, clicksSince: 20261126)
                            (query.narrowLimit, query.candidateBatch) = (narrow, batch)
                            let got = try store.linkList(query).map(\.code)
                            #expect(got == want, "q=\(q) sort=\(sort) desc=\(desc) offset=\(offset) limit=\(limit) narrow=\(narrow) batch=\(batch)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 12 * 3 * 2 * 5 * 5)
        // The scan itself finds the bunched matches (not an empty answer agreeing with another).
        #expect(try scan("offer 77", .code, false, offset: 0, limit: 10) == ["c0077", "zz"])
        #expect(try scan("offer 1", .code, false, offset: 0, limit: 300).count == 1 + 10 + 100)
    }

    @Test func searchIndexFollowsEdits() throws {
        let dir = try TempDir()
        let store = try Self.store(dir)
        try store.upsert(Self.link("a", created: 200, title: "Autumn deal"))
        #expect(try codes(store, q: "autumn") == ["a"])
        try store.upsert(Self.link("a", created: 200))
        #expect(try codes(store, q: "autumn") == [])
        try store.delete(site: "fitconnect", code: "b")
        #expect(try codes(store, q: "spring") == [])
        try store.insert(Self.link("b", created: 500, title: "Spring again"))
        #expect(try codes(store, q: "spring") == ["b"])
    }

    /// clicks_7d stays the sum of the last 7 daily rows of each link as the days go by (the
    /// flush adds, the maintenance subtracts the day that leaves), with a late flush for an old
    /// day, a link deleted and created again, and a clock set back.
    @Test func recentClicksFollowTheWindow() throws {
        let dir = try TempDir()
        let store = try Self.store(dir)
        func recent() throws -> [String: Int] {
            var out: [String: Int] = [:]
            try store.withDB { db throws(LinkStoreError) in
                try db.query("SELECT code, clicks_7d FROM link_list WHERE site = 'fitconnect'") { out[$0.text(0) ?? ""] = Int($0.integer(1) ?? 0) }
            }
            return out
        }
        func truth(today: Int, since: Int? = nil, through: Int? = nil) throws -> [String: Int] {
            let clicks = try store.dailyClicks(site: "fitconnect", codes: ["a", "b", "c", "d"], since: since ?? ClickDay.adding(-6, to: today), through: through ?? today)
            var out = ["a": 0, "b": 0, "c": 0, "d": 0]
            for (code, perDay) in clicks { out[code] = perDay.values.reduce(0, +) }
            return out
        }
        var today = 20261202
        #expect(try recent() == truth(today: today))
        #expect(try recent() == ["a": 3, "b": 0, "c": 7, "d": 0])
        for step in 1...9 {
            today = ClickDay.adding(1, to: today)
            try store.maintainClicks(today: today, retentionDays: 400, referrersPerDay: 10)
            try store.addClicks([ClickStoreTests.row(today, step, code: "b"), ClickStoreTests.row(ClickDay.adding(-8, to: today), 100, code: "a")], referrers: [])
            if step == 4 {
                try store.delete(site: "fitconnect", code: "b")
                try store.insert(Self.link("b", created: 600))
            }
            #expect(try recent() == truth(today: today), "day \(today)")
        }
        // b deleted and created again keeps the clicks its code had in the window.
        #expect(try recent()["b"] == 3 + 4 + 5 + 6 + 7 + 8 + 9)
        // A clock set back: rebuilt from the daily rows (the later days counted until they leave).
        try store.maintainClicks(today: 20261205, retentionDays: 400, referrersPerDay: 10)
        #expect(try recent() == truth(today: 20261205, through: today))
        // A retention shorter than 7 days: the window is the retained days.
        try store.maintainClicks(today: today, retentionDays: 2, referrersPerDay: 10)
        #expect(try recent() == truth(today: today, since: ClickDay.adding(-2, to: today)))
    }

    @Test func dailyClicksOfTheListedCodes() throws {
        let dir = try TempDir()
        let store = try Self.store(dir)
        let clicks = try store.dailyClicks(site: "fitconnect", codes: ["a", "c", "d"], since: 20261126, through: 20261202)
        #expect(clicks == ["a": [20261202: 3], "c": [20261201: 5, 20261202: 2]])
        #expect(try store.dailyClicks(site: "fitconnect", codes: [], since: 20261126, through: 20261202) == [:])
    }
}
