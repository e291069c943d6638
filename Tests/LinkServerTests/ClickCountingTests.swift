// Click counting: what the responder reports for each kind of link request, the sharded
// in-memory counter (exact under concurrency, bounded keys and referrer hosts, UTC day
// boundaries), and the recorder's flush (to a real SQLite file; a locked file keeps the counts).

import Foundation
import LinkRouting
import MicroHTTP
import Testing

@testable import LinkServer
@testable import LinkStore

@Suite("Click counting")
struct ClickCountingTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
    static let instagram = iPhone + " Instagram 312.0.0.0"
    static let slack = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"

    static let site = SiteConfig(
        name: "shop", domains: ["shop.example.com"], website: "https://shop.example.com",
        ios: [Fixture.ios], android: [Fixture.android],
        routes: [
            .route(RouteConfig(name: "item", path: "/item/{id}")),
            .route(RouteConfig(name: "go", path: "/go/{dest}", fallback: FallbackConfig(desktop: .web, web: "https://web.example.com/p/{dest}"))),
        ],
        fallback: FallbackConfig(android: .store))
    // Made per use, not a `static let`: the caches a request fills (compiled pages) hang off the
    // snapshot through enum payloads whose pointers carry Swift's tag bits, which LeakSanitizer
    // does not recognise, so `make asan` reported them as leaked from a global snapshot.
    static var snapshot: Snapshot {
        try! Snapshot(
            table: Fixture.table([site]), publicDirectory: Fixture.publicDir,
            links: [
                ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/42"),
                ShortLink(code: "web1", site: "shop", target: "https://shop.example.com/about"),
                ShortLink(code: "fast", site: "shop", target: "https://shop.example.com/item/7", forcedRedirect: true),
            ])
    }

    @Test(arguments: [
        ("/item/1", iPhone, ClickEvent(site: "shop", route: "item", platform: .ios, outcome: .appPage)),
        ("/item/1", android, ClickEvent(site: "shop", route: "item", platform: .android, outcome: .store)),
        ("/item/1", nil, ClickEvent(site: "shop", route: "item", platform: .other, outcome: .appPage)),
        ("/go/x", desktop, ClickEvent(site: "shop", route: "go", platform: .desktop, outcome: .web)),
        ("/item/1", instagram, ClickEvent(site: "shop", route: "item", platform: .ios, outcome: .appPage, inAppBrowser: true)),
        ("/item/1", slack, ClickEvent(site: "shop", route: "item", platform: .desktop, outcome: .appPage, crawler: true)),
        ("/sale", android, ClickEvent(site: "shop", code: "sale", route: "item", platform: .android, outcome: .store)),
        ("/sale", iPhone, ClickEvent(site: "shop", code: "sale", route: "item", platform: .ios, outcome: .appPage)),
        ("/fast", iPhone, ClickEvent(site: "shop", code: "fast", route: "item", platform: .ios, outcome: .redirect)),
        ("/web1", desktop, ClickEvent(site: "shop", code: "web1", route: "", platform: .desktop, outcome: .redirect)),
        ("/nope", android, ClickEvent(site: "shop", platform: .android, outcome: .notFound)),
        ("/item/1/2", slack, ClickEvent(site: "shop", platform: .desktop, outcome: .notFound, crawler: true)),
    ] as [(String, String?, ClickEvent)])
    func responderReportsTheClick(path: String, userAgent: String?, click: ClickEvent) {
        let r = Responder.respond(Self.snapshot, RequestFacts(rawTarget: path, host: "shop.example.com", userAgent: userAgent))
        #expect(r.click == click)
    }

    @Test(arguments: ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/static/linkwell.css", "/robots.txt"])
    func associationFilesAndAssetsAreNoClicks(path: String) {
        let r = Responder.respond(Self.snapshot, RequestFacts(rawTarget: path, host: "shop.example.com", userAgent: Self.iPhone))
        #expect(r.click == nil)
    }

    static let noon = 1_796_126_400  // 2026-12-01T12:00:00Z

    static func click(_ code: String = "", route: String = "item", _ p: ClickPlatform = .ios, _ o: ClickOutcome = .appPage) -> ClickEvent {
        ClickEvent(site: "shop", code: code, route: route, platform: p, outcome: o)
    }

    @Test func concurrentCountsAreExact() async {
        let counter = ClickCounter(maxKeys: 10_000, referrerSlots: 8)
        let threads = 8, perThread = 20_000
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<threads {
                group.addTask {
                    for i in 0..<perThread {
                        let p = ClickPlatform(rawValue: i % 4)!
                        counter.record(Self.click("c\(i % 50)", p, ClickOutcome(rawValue: (i + t) % 5)!), referrer: "r\(i % 3).example", unixSeconds: Self.noon)
                    }
                }
            }
        }
        let drained = counter.drain()
        #expect(drained.count == 50)
        #expect(drained.values.reduce(0) { $0 + $1.total } == threads * perThread)
        for (key, entry) in drained {
            #expect(entry.total == threads * perThread / 50, "\(key)")
            #expect(entry.referrerCounts.reduce(0) { $0 + $1.count } == entry.total)
        }
        #expect(counter.keyCount == 0 && counter.drain().isEmpty)
    }

    @Test func keysBeyondTheCapCountUnderTheRoutesOtherLink() {
        let counter = ClickCounter(maxKeys: 5, referrerSlots: 4)
        for i in 0..<12 { counter.record(Self.click("c\(i)"), referrer: "", unixSeconds: Self.noon) }
        for i in 0..<3 { counter.record(Self.click("", route: "r\(i)"), referrer: "", unixSeconds: Self.noon) }  // route pages: always kept
        #expect(counter.overflowed == 7)
        let drained = counter.drain()
        #expect(drained.values.reduce(0) { $0 + $1.total } == 15)
        let other = drained.first { $0.key.code == ClickCounter.overflowCode }
        #expect(other?.value.total == 7 && other?.key.route == "item")
        #expect(drained.keys.filter { $0.code.isEmpty }.count == 3)
        #expect(drained.count == 5 + 1 + 3)
    }

    @Test func referrerHostsBeyondTheSlotsCountAsOther() {
        let counter = ClickCounter(maxKeys: 100, referrerSlots: 3)
        for (host, n) in [("a.example", 4), ("b.example", 3), ("c.example", 2), ("d.example", 5), ("e.example", 1)] {
            for _ in 0..<n { counter.record(Self.click("x"), referrer: host, unixSeconds: Self.noon) }
        }
        let entry = try! #require(counter.drain().values.first)
        let counts = Dictionary(uniqueKeysWithValues: entry.referrerCounts.map { ($0.host, $0.count) })
        #expect(counts == ["a.example": 4, "b.example": 3, "c.example": 2, "(other)": 6])
    }

    @Test func clicksEitherSideOfMidnightUTCLandOnTheirDays() {
        let counter = ClickCounter()
        let midnight = 1_796_083_200  // 2026-12-01T00:00:00Z
        for (seconds, n) in [(midnight - 1, 2), (midnight, 3), (midnight + 86_399, 4), (midnight + 86_400, 5)] {
            for _ in 0..<n { counter.record(Self.click("x"), referrer: "", unixSeconds: seconds) }
        }
        let days = Dictionary(uniqueKeysWithValues: counter.drain().map { ($0.key.day, $0.value.total) })
        #expect(days == [20261130: 2, 20261201: 7, 20261202: 5])
    }

    @Test func everySlotRoundTrips() {
        var seen = Set<Int>()
        for p in ClickPlatform.allCases {
            for o in ClickOutcome.allCases {
                for inApp in [false, true] {
                    for crawler in [false, true] {
                        let e = ClickEvent(site: "s", platform: p, outcome: o, inAppBrowser: inApp, crawler: crawler)
                        let d = ClickEvent.dimensions(e.slot)
                        #expect(d.platform == p && d.outcome == o && d.inApp == inApp && d.crawler == crawler)
                        seen.insert(e.slot)
                    }
                }
            }
        }
        #expect(seen == Set(0..<ClickEvent.slotCount))
    }

    // MARK: The recorder and the database

    final class Clock: @unchecked Sendable {
        let now = Locked(noon)
    }

    static func recorder(_ path: String, clock: Clock = Clock(), maxKeys: Int = 100_000) -> ClickRecorder {
        var settings = ClickRecorder.Settings(databasePath: path, clicks: ClickSettings(maxKeys: maxKeys))
        settings.maxKeys = maxKeys
        settings.busyTimeoutMilliseconds = 50
        return ClickRecorder(settings: settings, log: nil, clock: { clock.now.withLock { $0 } })
    }

    static func tempPath() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clicks-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("linkwell.db").path
    }

    @Test func flushWritesEverythingAndTwoInstancesAddUp() throws {
        let path = Self.tempPath()
        let a = Self.recorder(path), b = Self.recorder(path)
        for i in 0..<1000 { a.record(Self.click("c\(i % 7)", ClickPlatform(rawValue: i % 4)!), referer: "https://t.co/\(i)") }
        for _ in 0..<500 { b.record(Self.click("c1", .android, .store), referer: nil) }
        #expect(a.flush() == .written(clicks: 1000, rows: 7 + 7))  // a row per link and day, one per referrer host
        #expect(b.flush() == .written(clicks: 500, rows: 1))  // no referrer: no referrer row (the report derives "")
        #expect(a.flush() == .nothing)
        let report = try LinkStore(path: path).clickReport(ClickQuery())
        #expect(report.total == 1500)
        #expect(report.platforms.map(\.clicks) == [250, 750, 250, 250])
        let referrers: [ClickReport.Count] = [.init(name: "t.co", clicks: 1000), .init(name: "", clicks: 500)]
        #expect(report.referrers == referrers)
        #expect(try LinkStore(path: path).clickReport(ClickQuery(code: "c1")).total == 143 + 500)
    }

    @Test func aLockedDatabaseKeepsTheCountsForTheNextFlush() throws {
        let path = Self.tempPath()
        _ = try LinkStore(path: path)
        let r = Self.recorder(path)
        for _ in 0..<10 { r.record(Self.click("x"), referer: nil) }
        let holder = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 10)
        try holder.exec("BEGIN EXCLUSIVE")
        #expect(r.flush() == .failed(pendingClicks: 10))
        for _ in 0..<5 { r.record(Self.click("x"), referer: nil) }
        #expect(r.flush() == .failed(pendingClicks: 15))
        #expect(r.metricsText().contains("linkwell_clicks_flushes_total{result=\"failure\"} 2"))
        try holder.exec("COMMIT")
        #expect(r.flush() == .written(clicks: 15, rows: 1))
        #expect(try LinkStore(path: path).clickReport(ClickQuery()).total == 15)
        #expect(r.metricsText().contains("linkwell_clicks_unwritten 0"))
    }

    @Test func metricsCountEverythingAndOnlyTheTopLinks() {
        let path = Self.tempPath()
        var settings = ClickRecorder.Settings(databasePath: path, clicks: ClickSettings(metricsTopLinks: 2))
        settings.metricsTopLinks = 2
        let r = ClickRecorder(settings: settings, log: nil, clock: { Self.noon })
        for (code, n) in [("a", 5), ("b", 3), ("c", 1)] {
            for _ in 0..<n { r.record(Self.click(code), referer: nil) }
        }
        for _ in 0..<2 { r.record(Self.click("", route: "", .desktop, .notFound), referer: nil) }
        let before = r.metricsText()
        _ = r.flush()
        let after = r.metricsText()
        for text in [before, after] {  // the same before and after a flush
            #expect(text.contains("linkwell_clicks_total{site=\"shop\",route=\"item\",platform=\"ios\",outcome=\"app_page\"} 9\n"))
            #expect(text.contains("linkwell_clicks_total{site=\"shop\",route=\"\",platform=\"desktop\",outcome=\"not_found\"} 2\n"))
            #expect(text.contains("linkwell_link_clicks_total{site=\"shop\",link=\"a\"} 5\n"))
            #expect(text.contains("linkwell_link_clicks_total{site=\"shop\",link=\"b\"} 3\n"))
            #expect(!text.contains("link=\"c\""))
        }
        #expect(before.contains("linkwell_clicks_unwritten 11") && after.contains("linkwell_clicks_unwritten 0"))
    }

    @Test func theDayComesFromTheClockAndMaintenanceFoldsOldDays() throws {
        let path = Self.tempPath()
        let clock = Clock()
        let r = Self.recorder(path, clock: clock)
        clock.now.withLock { $0 = Self.noon - 401 * 86_400 }  // 2025-10-26
        for _ in 0..<3 { r.record(Self.click("x"), referer: "https://old.example/") }
        _ = r.flush()
        clock.now.withLock { $0 = Self.noon }
        for _ in 0..<2 { r.record(Self.click("x"), referer: nil) }
        _ = r.flush()  // more than an hour later: the maintenance folds 2025-10-26 into its month
        let report = try LinkStore(path: path).clickReport(ClickQuery())
        #expect(report.total == 5)
        let months: [ClickReport.Count] = [.init(name: "2025-10", clicks: 3)]
        let days: [ClickReport.Count] = [.init(name: "2026-12-01", clicks: 2)]
        #expect(report.months == months)
        #expect(report.days == days)
    }
}

@Suite struct ClickRecorderStoreFaultTests {
    @Test func aReadOnlyStoreDropsAndCountsTheClicks() throws {
        let path = ClickCountingTests.tempPath()
        _ = try LinkStore(path: path)
        let r = ClickCountingTests.recorder(path)
        r.attach(readOnly: { "the file is on a read-only volume" }, mayCreateDatabase: { false })
        for _ in 0..<7 { r.record(ClickCountingTests.click("x"), referer: nil) }
        #expect(r.flush() == .dropped(clicks: 7))
        #expect(r.flush() == .nothing)
        #expect(r.metricsText().contains("linkwell_clicks_dropped_total 7"))
        #expect(r.metricsText().contains("linkwell_clicks_unwritten 0"))
        #expect(try LinkStore(path: path).clickReport(ClickQuery()).total == 0)
    }

    @Test func aDeletedDatabaseIsNotRecreatedWhileLinksServeFromMemory() throws {
        let path = ClickCountingTests.tempPath()
        let r = ClickCountingTests.recorder(path)
        r.attach(readOnly: { nil }, mayCreateDatabase: { false })
        for _ in 0..<3 { r.record(ClickCountingTests.click("x"), referer: nil) }
        #expect(r.flush() == .failed(pendingClicks: 3))
        #expect(!FileManager.default.fileExists(atPath: path))
        // Before any database was read (clicks before the first link), the flush creates it.
        r.attach(readOnly: { nil }, mayCreateDatabase: { true })
        #expect(r.flush() == .written(clicks: 3, rows: 1))
    }

    @Test func tokenUsesAreWrittenWithTheFlush() throws {
        let path = ClickCountingTests.tempPath()
        let store = try LinkStore(path: path)
        _ = try store.createToken(name: "ci")
        let r = ClickCountingTests.recorder(path)
        r.recordTokenUse(name: "ci")
        #expect(try store.tokens()[0].lastUsedAt == nil)
        #expect(r.flush() == .nothing)
        #expect(try store.tokens()[0].lastUsedAt != nil)
    }
}

/// The shard's last-key shortcut counts exactly what a dictionary lookup per click counts,
/// across alternating keys, new keys, the overflow link and drains.
@Suite struct ClickCounterLastKeyTests {
    @Test func alternatingKeysDrainsAndOverflowCountExactly() {
        let counter = ClickCounter(maxKeys: 6, referrerSlots: 4)
        var expected: [String: Int] = [:]
        var overflowed = 0
        var kept = Set<String>()
        for round in 0..<3 {
            for i in 0..<400 {
                // Runs of the same key, then switches; some codes beyond the cap.
                let code = "c\((i / 3 + round) % 9)"
                counter.record(ClickCountingTests.click(code), referrer: "r\(i % 2).example", unixSeconds: ClickCountingTests.noon)
                if kept.contains(code) || kept.count < 6 {
                    kept.insert(code)
                    expected[code, default: 0] += 1
                } else {
                    overflowed += 1
                    expected[ClickCounter.overflowCode, default: 0] += 1
                }
            }
            let drained = counter.drain()
            var got: [String: Int] = [:]
            for (key, entry) in drained { got[key.code, default: 0] += entry.total }
            #expect(got == expected, "round \(round)")
            #expect(counter.keyCount == 0)
            expected = [:]
            kept = []
        }
        #expect(counter.overflowed == overflowed)
        #expect(overflowed > 0)
    }

    /// Runs of the same click are held as one pending addition: the combinations, referrer hosts
    /// (with the `(other)` overflow) and totals are exactly those of counting one by one, whether
    /// read live (`forEach`) or drained.
    @Test func repeatedClicksCountLikeSingleOnes() {
        let counter = ClickCounter(maxKeys: 100, referrerSlots: 2)
        var expected: [String: [String: Int]] = [:]  // code -> slot -> count
        var expectedHosts: [String: [String: Int]] = [:]  // code -> referrer host -> count
        let platforms: [ClickPlatform] = [.ios, .ios, .android]
        let referrers = ["a.example", "a.example", "b.example", "c.example", "a.example"]
        var n = 0
        for code in ["x", "x", "y", "x"] {
            for run in 0..<4 {
                for i in 0..<(run + 1) * 3 {
                    let click = ClickCountingTests.click(code, platforms[(run + i / 2) % 3])
                    let referrer = referrers[(run * 2 + i / 3) % referrers.count]
                    counter.record(click, referrer: referrer, unixSeconds: ClickCountingTests.noon)
                    expected[code, default: [:]]["\(click.slot)", default: 0] += 1
                    // The first two hosts a key sees are kept, the rest count under (other).
                    var hosts = expectedHosts[code, default: [:]]
                    let kept = hosts.keys.filter { $0 != ReferrerHost.other }
                    hosts[kept.contains(referrer) || kept.count < 2 ? referrer : ReferrerHost.other, default: 0] += 1
                    expectedHosts[code] = hosts
                    n += 1
                }
            }
        }
        func check(_ entries: [(ClickCounter.Key, ClickCounter.Entry)], _ label: String) {
            var total = 0
            for (key, entry) in entries {
                var slots: [String: Int] = [:]
                for (slot, count) in entry.counts { slots["\(slot)", default: 0] += count }
                #expect(slots == expected[key.code], "\(label) \(key.code)")
                var hosts: [String: Int] = [:]
                for (host, count) in entry.referrerCounts { hosts[host, default: 0] += count }
                #expect(hosts == expectedHosts[key.code], "\(label) \(key.code)")
                total += entry.total
            }
            #expect(total == n, "\(label)")
        }
        var live: [(ClickCounter.Key, ClickCounter.Entry)] = []
        counter.forEach { live.append(($0, $1)) }
        check(live, "live")
        check(Array(counter.drain()), "drained")
        #expect(counter.keyCount == 0)
    }
}
