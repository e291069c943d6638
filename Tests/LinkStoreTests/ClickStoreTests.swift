// Click counts in the store: UTC days as yyyymmdd, referrer hosts, the additive upserts, the
// referrer trim, the monthly rollup with retention, and the stats query with its filters.

import Foundation
import Testing

@testable import LinkStore

@Suite struct ClickDayTests {
    @Test(arguments: [
        (0, 19700101), (86_399, 19700101), (86_400, 19700102), (-1, 19691231),
        (951_782_400, 20000229), (951_868_800, 20000301), (1_709_164_800, 20240229), (1_709_251_199, 20240229),
        (1_796_083_199, 20261130), (1_796_083_200, 20261201), (4_102_444_800, 21000101),
    ])
    func unixSecondsToUTCDay(seconds: Int, day: Int) {
        #expect(ClickDay.of(unixSeconds: seconds) == day)
    }

    @Test func epochDaysRoundTripOverTwoCenturies() {
        var previous = 0
        for days in stride(from: -36_500, through: 73_000, by: 1) {
            let day = ClickDay.fromEpochDays(days)
            #expect(ClickDay.epochDays(day) == days)
            #expect(day > previous)
            previous = day
        }
    }

    @Test(arguments: [
        ("2026-12-01", 20261201), ("20261201", 20261201), ("2024-02-29", 20240229), ("2023-02-29", nil), ("2026-13-01", nil),
        ("2026-1-01", nil), ("yesterday", nil), ("", nil), ("2026/12/01", nil), ("2026-12-32", nil),
    ] as [(String, Int?)])
    func parsesDates(text: String, day: Int?) {
        #expect(ClickDay.parse(text) == day)
    }

    @Test func addingCrossesMonthsAndYears() {
        #expect(ClickDay.adding(1, to: 20261231) == 20270101)
        #expect(ClickDay.adding(-400, to: 20261201) == 20251027)
        #expect(ClickDay.text(20260105) == "2026-01-05")
        #expect(ClickDay.monthText(202601) == "2026-01")
        #expect(ClickDay.text(410826) == "0041-08-26")
    }
}

@Suite struct ReferrerHostTests {
    @Test(arguments: [
        (nil, ""), ("", ""), ("https://Mail.Google.com:443/mail/u/0?x=1#y", "mail.google.com"), ("http://t.co/abc", "t.co"),
        ("android-app://com.google.android.gm/", "com.google.android.gm"), ("https://user:pw@example.com/", "example.com"),
        ("https://192.168.1.5/x", "(ip)"), ("http://[2001:db8::1]:8080/", "(ip)"), ("not a url", "(invalid)"),
        ("https://exa mple.com/", "(invalid)"), ("https:///path", "(invalid)"), ("https://ex\u{e4}mple.com/", "(invalid)"),
        ("https://news.ycombinator.com?x", "news.ycombinator.com"),
    ] as [(String?, String)])
    func hostOnly(referer: String?, host: String) {
        #expect(ReferrerHost.of(referer) == host)
    }
}

@Suite struct ClickStoreTests {
    static func row(_ day: Int, _ n: Int, code: String = "spring", route: String = "signup", p: ClickPlatform = .ios, o: ClickOutcome = .appPage,
                    inApp: Bool = false, crawler: Bool = false, site: String = "fitconnect") -> ClickCountRow {
        ClickCountRow(day: day, click: ClickEvent(site: site, code: code, route: route, platform: p, outcome: o, inAppBrowser: inApp, crawler: crawler), count: n)
    }

    static func ref(_ day: Int, code: String = "spring", route: String = "signup", _ host: String, _ n: Int) -> ReferrerCountRow {
        ReferrerCountRow(day: day, site: "fitconnect", code: code, route: route, referrer: host, count: n)
    }

    @Test func countsAddUpAcrossWritesAndConnections() throws {
        let dir = try TempDir()
        let a = try LinkStore(path: dir.path("c.db"))
        let b = try LinkStore(path: dir.path("c.db"))  // a second instance on the same file
        try a.addClicks([Self.row(20261201, 3)], referrers: [Self.ref(20261201, "t.co", 5)])
        try a.addClicks([Self.row(20261201, 2, p: .android, o: .store)], referrers: [])
        try b.addClicks([Self.row(20261201, 4)], referrers: [Self.ref(20261201, "t.co", 4)])
        let r = try a.clickReport(ClickQuery())
        #expect(r.total == 9)
        #expect(r.platforms.map(\.clicks) == [7, 2, 0, 0])
        #expect(r.outcomes.map(\.clicks) == [7, 2, 0, 0, 0])
        #expect(r.referrers == [ClickReport.Count(name: "t.co", clicks: 9)])
        #expect(r.days == [ClickReport.Count(name: "2026-12-01", clicks: 9)])
    }

    /// Each day (and each folded month) split by platform, and the top routes summed over the
    /// route's own page and its short links; clicks that resolved to no route are in no route.
    @Test func daysAreSplitByPlatformAndRoutesAreSummed() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("p.db"))
        try store.addClicks([
            Self.row(20261201, 3), Self.row(20261201, 2, p: .android), Self.row(20261202, 1, p: .desktop),
            Self.row(20261202, 4, code: "", route: "signup", p: .other), Self.row(20261202, 5, code: "w", route: "workout"),
            Self.row(20261202, 7, code: "", route: "", o: .notFound),
        ], referrers: [])
        let r = try store.clickReport(ClickQuery())
        #expect(r.days.map(\.name) == ["2026-12-01", "2026-12-02"])
        #expect(r.dayPlatforms == [[3, 2, 0, 0], [12, 0, 1, 4]])
        #expect(r.routes.map { "\($0.route) \($0.clicks)" } == ["signup 10", "workout 5"])
        let document = r.document(query: ClickQuery())
        let json = String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
        #expect(json.contains(#""platform":{"#))
        try store.maintainClicks(today: 20270301, retentionDays: 30, referrersPerDay: 10)
        let folded = try store.clickReport(ClickQuery(route: "signup"))
        #expect(folded.months.map(\.name) == ["2026-12"])
        #expect(folded.monthPlatforms == [[3, 2, 1, 4]])
    }

    /// Without a link filter the report reads the per-site tables: the same numbers as the
    /// per-link rows; the top links (`linkLimit`) are the first of the full list, with exact counts.
    @Test func perSiteTablesAgreeWithThePerLinkRows() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("r.db"))
        var rows: [ClickCountRow] = []
        var refs: [ReferrerCountRow] = []
        for i in 0..<150 {
            for day in [20261201, 20261202, 20261203] where (i + day) % 2 == 0 || i < 5 {
                rows.append(Self.row(day, 1 + (i * 7 + day) % 13, code: "l\(i)", route: i % 3 == 0 ? "workout" : "signup", p: ClickPlatform(rawValue: i % 4)!))
                refs.append(Self.ref(day, code: "l\(i)", route: i % 3 == 0 ? "workout" : "signup", "h\(i % 5).example", 1))
            }
        }
        // Two flushes: the second adds to rows the first wrote (and re-ranks the days' top links).
        try store.addClicks(Array(rows.prefix(200)), referrers: Array(refs.prefix(200)))
        try store.addClicks(Array(rows.dropFirst(200)), referrers: Array(refs.dropFirst(200)))
        let site = try store.clickReport(ClickQuery(site: "fitconnect"))
        var perLink = ClickReport()
        for l in site.links { perLink.total += l.clicks }
        #expect(site.total == rows.map(\.total).reduce(0, +) && perLink.total == site.total)
        #expect(site.routes.map(\.clicks).reduce(0, +) == site.total)
        var top = ClickQuery(site: "fitconnect", since: 20261202)
        let full = try store.clickReport(top).links
        top.linkLimit = 5
        let limited = try store.clickReport(top)
        #expect(limited.links == Array(full.prefix(5)))
        #expect(limited.total == full.map(\.clicks).reduce(0, +))
        // Folding and trimming keep the per-site numbers equal to the per-link ones.
        try store.maintainClicks(today: 20270301, retentionDays: 30, referrersPerDay: 3)
        let folded = try store.clickReport(ClickQuery(site: "fitconnect"))
        #expect(folded.total == site.total && folded.months.map(\.clicks) == [site.total])
        #expect(folded.referrers.map(\.clicks).reduce(0, +) == site.referrers.map(\.clicks).reduce(0, +))
    }

    /// The flush writes no row for clicks without a referrer: the report counts them as "" —
    /// per filter, in days and in months — next to "" rows an older version wrote.
    @Test func clicksWithoutAReferrerRowCountAsNoReferrer() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("n.db"))
        try store.addClicks([Self.row(20261201, 10, code: "a"), Self.row(20261201, 6, code: "b"), Self.row(20261202, 5, code: "a")],
                            referrers: [Self.ref(20261201, code: "a", "t.co", 3), Self.ref(20261202, code: "a", "", 2), Self.ref(20261202, code: "a", "t.co", 1)])
        func referrers(_ q: ClickQuery) throws -> [String: Int] {
            Dictionary(uniqueKeysWithValues: try store.clickReport(q).referrers.map { ($0.name, $0.clicks) })
        }
        #expect(try referrers(ClickQuery()) == ["": 17, "t.co": 4])
        #expect(try referrers(ClickQuery(code: "b")) == ["": 6])
        #expect(try referrers(ClickQuery(code: "a", since: 20261202)) == ["": 4, "t.co": 1])
        try store.maintainClicks(today: 20270301, retentionDays: 30, referrersPerDay: 10)  // all into December
        #expect(try store.clickReport(ClickQuery()).days.isEmpty)
        #expect(try referrers(ClickQuery()) == ["": 17, "t.co": 4])
        #expect(try referrers(ClickQuery(code: "a")) == ["": 11, "t.co": 4])
    }

    /// Each (site, day)'s top links after every flush are exactly the `topLinksPerDay` first of
    /// its short links ranked from scratch (clicks, then code and route): batches where links
    /// climb past the list's lowest, many ties at its boundary, two sites, two days, routes' rows.
    @Test func topLinksMatchARankingFromScratchAfterEveryFlush() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("top.db"))
        let n = LinkStore.topLinksPerDay
        var random = SeededRandom(state: 42)
        func next(_ bound: Int) -> Int { random.below(bound) }
        func ranked(_ sql: String) throws -> [String] {
            try store.withDB { db throws(LinkStoreError) in
                var out: [String] = []
                try db.query(sql) { r in out.append("\(r.text(0) ?? "") \(r.integer(1) ?? 0) \(r.text(2) ?? "") \(r.text(3) ?? "") \(r.integer(4) ?? 0)") }
                return out
            }
        }
        let total = ClickPlatform.allCases.map { "p_\($0.name)" }.joined(separator: " + ")
        let fromScratch = """
            SELECT site, day, code, route, clicks FROM (
                SELECT site, day, code, route, \(total) AS clicks,
                    ROW_NUMBER() OVER (PARTITION BY site, day ORDER BY \(total) DESC, code, route) AS rank
                FROM clicks_daily WHERE code <> '') AS r WHERE rank <= \(n) ORDER BY site, day, code, route
            """
        // A link that reaches the full list's lowest count ranks above the lowest by its code.
        try store.addClicks((0..<n).map { Self.row(20261130, 2, code: "m\($0)", site: "tie") } + [Self.row(20261130, 1, code: "a", site: "tie")], referrers: [])
        try store.addClicks([Self.row(20261130, 1, code: "a", site: "tie")], referrers: [])
        #expect(try ranked("SELECT site, day, code, route, clicks FROM clicks_top_daily ORDER BY site, day, code, route") == (try ranked(fromScratch)))
        #expect(try ranked("SELECT site, day, code, route, clicks FROM clicks_top_daily WHERE code = 'a'").count == 1)
        try store.withDB { db throws(LinkStoreError) in try db.query("DELETE FROM clicks_daily WHERE site = 'tie'") }
        try store.withDB { db throws(LinkStoreError) in try db.query("DELETE FROM clicks_top_daily WHERE site = 'tie'") }
        var sawFullList = false
        for batch in 0..<8 {
            var rows: [ClickCountRow] = []
            for site in ["fitconnect", "other"] {
                for day in [20261201, 20261202] where batch < 5 || day == 20261202 {
                    for i in 0..<(n * 3) where next(3) != 0 {
                        // Few distinct counts: many ties; later batches lift a few links far.
                        let clicks = batch > 1 && next(25) == 0 ? 5 + next(20) : 1 + next(2)
                        rows.append(Self.row(day, clicks, code: "l\(i % (n * 2))", route: i < n * 2 ? "signup" : "workout",
                                             p: ClickPlatform(rawValue: next(4))!, site: site))
                    }
                    rows.append(Self.row(day, 3, code: "", route: "signup", site: site))
                }
            }
            try store.addClicks(rows, referrers: [])
            let top = try ranked("SELECT site, day, code, route, clicks FROM clicks_top_daily ORDER BY site, day, code, route")
            #expect(top == (try ranked(fromScratch)), "after flush \(batch)")
            sawFullList = sawFullList || top.count == 4 * n
        }
        #expect(sawFullList)
    }

    /// After every flush the per-site tables and link_list.clicks_7d hold what the per-link rows
    /// give when summed from scratch: flushes larger than one statement, rows in key order and
    /// shuffled, a link's rows over several routes and days (one day before the 7-day window),
    /// links with no row in link_list, two sites.
    @Test func perSiteTablesAndRecentClicksEqualASumFromScratchAfterEveryFlush() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("sums.db"))
        let sites = ["fitconnect", "shop"]
        var links: [ShortLink] = []
        for (s, site) in sites.enumerated() {
            for i in 0..<(s == 0 ? 450 : 40) {
                links.append(ShortLink(code: "k\(i)", site: site, target: "https://\(site).example/k\(i)", createdAt: Date(timeIntervalSince1970: 100)))
            }
        }
        try store.insertAll(links)
        try store.maintainClicks(today: 20261202, retentionDays: 400, referrersPerDay: 10)  // sets the 7-day window
        var random = SeededRandom(state: 7)
        func next(_ bound: Int) -> Int { random.below(bound) }
        func table(_ sql: String) throws -> [String] {
            try store.withDB { db throws(LinkStoreError) in
                var out: [String] = []
                try db.query(sql) { r in out.append((0..<16).map { r.isNull(Int32($0)) ? "" : (r.text(Int32($0)) ?? "") }.joined(separator: " ")) }
                return out
            }
        }
        let counts = ClickCountRow.countColumns
        let sums = counts.map { "SUM(\($0))" }.joined(separator: ", ")
        let total = ClickPlatform.allCases.map { "p_\($0.name)" }.joined(separator: " + ")
        let checks: [(String, String)] = [
            ("SELECT site, route, day, \(counts.joined(separator: ", ")) FROM clicks_site_daily ORDER BY site, route, day",
             "SELECT site, route, day, \(sums) FROM clicks_daily GROUP BY site, route, day ORDER BY site, route, day"),
            ("SELECT site, route, day, referrer, count FROM click_referrers_site_daily ORDER BY site, route, day, referrer",
             "SELECT site, route, day, referrer, SUM(count) FROM click_referrers_daily GROUP BY site, route, day, referrer ORDER BY site, route, day, referrer"),
            ("SELECT site, code, clicks_7d FROM link_list ORDER BY site, code",
             """
             SELECT l.site, l.code, COALESCE((SELECT SUM(\(total)) FROM clicks_daily d WHERE d.site = l.site AND d.code = l.code AND d.day > 20261125), 0)
             FROM link_list l ORDER BY l.site, l.code
             """),
        ]
        var sawClicks = false
        for flush in 0..<5 {
            var rows: [ClickCountRow] = []
            var refs: [ReferrerCountRow] = []
            for site in sites {
                for i in 0..<(site == "shop" ? 60 : 500) where next(4) != 0 {
                    // k450… on fitconnect and k40… on shop have no link (clicks of deleted links).
                    let code = i % 97 == 5 ? "" : "k\(i)"
                    for (route, day) in [("signup", 20261202), ("signup", 20261201), ("workout", 20261202), ("signup", 20261120)] where next(3) == 0 {
                        rows.append(Self.row(day, 1 + next(9), code: code, route: route, p: ClickPlatform(rawValue: next(4))!,
                                             o: ClickOutcome(rawValue: next(5))!, inApp: next(2) == 0, crawler: next(7) == 0, site: site))
                        for host in ["t.co", "mail.google.com", "(other)"] where next(2) == 0 {
                            refs.append(ReferrerCountRow(day: day, site: site, code: code, route: route, referrer: host, count: 1 + next(3)))
                        }
                    }
                }
            }
            // Odd flushes in another order than the recorder's (key order).
            if flush % 2 == 1 {
                rows.shuffle(using: &random)
                refs.shuffle(using: &random)
            }
            try store.addClicks(rows, referrers: refs)
            for (stored, fromScratch) in checks {
                #expect(try table(stored) == (try table(fromScratch)), "after flush \(flush): \(stored)")
            }
            let withClicks = try table("SELECT COUNT(*) FROM link_list WHERE clicks_7d > 0")
            sawClicks = sawClicks || withClicks != ["0"]
        }
        #expect(sawClicks)
    }

    @Test func batchesLargerThanOneStatement() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("big.db"))
        let rows = (0..<(LinkStore.clickRowsPerStatement * 2 + 7)).map { Self.row(20261201, 1 + $0 % 3, code: "c\($0)") }
        try store.addClicks(rows, referrers: [])
        let r = try store.clickReport(ClickQuery())
        #expect(r.total == rows.reduce(0) { $0 + $1.total })
        #expect(r.links.count == rows.count)
    }

    @Test func filtersBySiteLinkRouteAndDays() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("f.db"))
        try store.addClicks([
            Self.row(20261130, 1), Self.row(20261201, 2), Self.row(20261202, 4),
            Self.row(20261201, 8, code: "", route: "signup", p: .desktop), Self.row(20261201, 16, code: "", route: "", p: .desktop, o: .notFound),
            Self.row(20261201, 32, code: "other", route: "workout", p: .android, o: .web, crawler: true),
            Self.row(20261201, 64, site: "coffeebreak"),
        ], referrers: [])
        let cases: [(ClickQuery, Int)] = [
            (ClickQuery(), 127), (ClickQuery(site: "fitconnect"), 63), (ClickQuery(code: "spring"), 71),
            (ClickQuery(site: "fitconnect", code: "spring"), 7), (ClickQuery(route: "signup"), 79), (ClickQuery(route: ""), 16),
            (ClickQuery(since: 20261201), 126), (ClickQuery(until: 20261201), 123), (ClickQuery(since: 20261201, until: 20261201), 122),
            (ClickQuery(code: "nope"), 0),
        ]
        for (query, total) in cases {
            #expect(try store.clickReport(query).total == total, "\(query)")
        }
        let all = try store.clickReport(ClickQuery(site: "fitconnect"))
        #expect(all.crawlers == 32 && all.humans == 31)
        #expect(all.links.first == ClickReport.LinkCount(site: "fitconnect", code: "other", route: "workout", clicks: 32))
    }

    @Test func referrersTrimmedToTheTopNPerLinkAndDay() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("r.db"))
        let hosts = (1...15).map { ("h\($0).example", $0) }  // h15 has most clicks
        try store.addClicks([Self.row(20261201, 120)], referrers: hosts.map { Self.ref(20261201, $0.0, $0.1) } + [Self.ref(20261201, "", 5)])
        for _ in 0..<2 {  // idempotent
            try store.maintainClicks(today: 20261201, retentionDays: 400, referrersPerDay: 10)
            let r = try store.clickReport(ClickQuery())
            let kept = Set(r.referrers.map(\.name))
            #expect(kept == Set((6...15).map { "h\($0).example" } + ["", "(other)"]))
            #expect(r.referrers.first { $0.name == "(other)" }?.clicks == 15)  // 1 + 2 + 3 + 4 + 5
            #expect(r.referrers.reduce(0) { $0 + $1.clicks } == 125)
        }
    }

    @Test func oldDaysFoldIntoMonthsAndQueriesStillAddUp() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("m.db"))
        // 2025-10-05 and 2025-10-20 are past 400 days before 2026-12-01 (2025-10-27); 2025-10-30 is not.
        try store.addClicks([Self.row(20251005, 1), Self.row(20251020, 2, p: .android), Self.row(20251030, 4), Self.row(20261201, 8)],
                            referrers: [Self.ref(20251005, "t.co", 1), Self.ref(20251020, "t.co", 2), Self.ref(20261201, "t.co", 8)])
        let before = try store.clickReport(ClickQuery())
        try store.maintainClicks(today: 20261201, retentionDays: 400, referrersPerDay: 10)
        let after = try store.clickReport(ClickQuery())
        #expect(after.total == before.total && after.platforms == before.platforms && after.referrers == before.referrers)
        #expect(after.months == [ClickReport.Count(name: "2025-10", clicks: 3)])
        #expect(after.days.map(\.name) == ["2025-10-30", "2026-12-01"])
        var daily = 0
        try store.withDB { db throws(LinkStoreError) in try db.query("SELECT COUNT(*) FROM clicks_daily") { daily = Int($0.integer(0) ?? 0) } }
        #expect(daily == 2)
        // A second pass adds nothing twice; a month filter by day keeps the month.
        try store.maintainClicks(today: 20261201, retentionDays: 400, referrersPerDay: 10)
        #expect(try store.clickReport(ClickQuery()).total == 15)
        #expect(try store.clickReport(ClickQuery(since: 20251001, until: 20251031)).total == 7)
    }

    @Test(arguments: [
        (["since": "2026-12-01", "until": "2026-12-31", "link": "spring"], nil),
        (["since": "2026-12-32"], "since '2026-12-32' is not a date"),
        (["since": "2026-12-02", "until": "2026-12-01"], nil),  // an empty range (the CLI refuses it)
        (["code": "x"], "unknown stats parameter 'code'"),
    ] as [([String: String], String?)])
    func queryParameters(parameters: [String: String], expected: String?) {
        do throws(LinkStoreError) {
            let q = try ClickQuery(parameters: parameters)
            #expect(expected == nil)
            #expect(q.code == parameters["link"] && q.since.map(ClickDay.text) == parameters["since"])
        } catch {
            #expect(expected.map { error.description.contains($0) } == true, "\(error)")
        }
    }
}

/// A seeded generator for tests (a 64-bit LCG): the same numbers on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
    /// In 0..<bound, from the state's high bits.
    mutating func below(_ bound: Int) -> Int { Int((next() >> 33) % UInt64(bound)) }
}
