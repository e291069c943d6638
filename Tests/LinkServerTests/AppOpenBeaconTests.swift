// The app-open beacon (`POST /.well-known/linkwell/opens`): which links it counts and under which
// code and route, what it refuses and why, the per-address rate limit and its bounded table, the
// head check that lets POST through on that path only, and the counts' way to the database and
// into the click report's funnel.

import Foundation
import LinkRouting
import MicroHTTP
import Testing

@testable import LinkServer
@testable import LinkStore

@Suite("App-open beacon")
struct AppOpenBeaconTests {
    static var snapshot: Snapshot { ClickCountingTests.snapshot }

    static func beacon(_ body: String, from client: String = "10.0.0.1") -> HTTPRequest {
        HTTPRequest(method: "POST", rawTarget: AppOpenBeacon.path, headers: [("Host", "shop.example.com")], peerAddress: client,
                    body: Array(body.utf8))
    }

    static func body(_ link: String, _ kind: String) -> String { #"{"link": "\#(link)", "kind": "\#(kind)"}"# }

    @Test(arguments: [
        ("https://shop.example.com/item/42", "", "item"),
        ("https://shop.example.com/sale", "sale", "item"),
        ("https://shop.example.com/web1", "web1", ""),
        ("https://shop.example.com/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F9", "", "item"),
    ])
    func countsALinkUnderItsCodeAndRoute(link: String, code: String, route: String) throws {
        let target = try #require(AppOpenBeacon.resolve(link, snapshot: Self.snapshot))
        #expect(target.site == "shop" && target.code == code && target.route == route)
    }

    @Test(arguments: ["https://shop.example.com/nope", "https://other.example.org/item/1", "not a url", "https://shop.example.com/fast/x"])
    func unknownLinksAreNotResolved(link: String) {
        #expect(AppOpenBeacon.resolve(link, snapshot: Self.snapshot) == nil)
    }

    @Test(arguments: [
        ("", 400, "the body is empty"),
        ("{", 400, "the body is not JSON"),
        ("[1]", 400, "not an object"),
        (#"{"kind": "reopen"}"#, 400, #"no "link" string"#),
        (#"{"link": "https://shop.example.com/item/1"}"#, 400, #"no "kind" string"#),
        (#"{"link": "https://shop.example.com/item/1", "kind": "install"}"#, 400, "first_open (the first launch after an install) or reopen"),
        (#"{"link": "https://shop.example.com/nope", "kind": "reopen"}"#, 404, "is not a link of this server"),
    ])
    func refusesWithASentence(body: String, status: Int, message: String) throws {
        let recorder = ClickCountingTests.recorder(ClickCountingTests.tempPath())
        let r = AppOpenBeacon.answer(Self.beacon(body), snapshot: Self.snapshot, limiter: BeaconRateLimiter(), counter: recorder)
        guard case let .dynamic(got, _, bytes) = r.response else { Issue.record("not dynamic"); return }
        #expect(got == status)
        #expect(String(decoding: bytes, as: UTF8.self).contains(message))
        #expect(recorder.opens.unwritten == 0)
    }

    @Test func countsEachKindAndTheRecorderWritesThemIntoTheFunnel() throws {
        let path = ClickCountingTests.tempPath()
        let recorder = ClickCountingTests.recorder(path)
        let limiter = BeaconRateLimiter()
        for (link, kind, times) in [("https://shop.example.com/sale", "first_open", 3), ("https://shop.example.com/sale", "reopen", 5),
                                    ("https://shop.example.com/item/1", "reopen", 2)] {
            for i in 0..<times {
                let r = AppOpenBeacon.answer(Self.beacon(Self.body(link, kind), from: "10.0.1.\(i)"), snapshot: Self.snapshot, limiter: limiter,
                                             counter: recorder, now: 1_796_000_000)
                guard case let .dynamic(status, _, _) = r.response else { Issue.record("not dynamic"); return }
                #expect(status == 204)
                #expect(r.kind == .appOpen && r.site == "shop")
            }
        }
        #expect(recorder.metricsText().contains(#"linkwell_app_opens_total{site="shop",route="item",kind="first_open"} 3"#))
        #expect(recorder.metricsText().contains(#"linkwell_app_opens_total{site="shop",route="item",kind="reopen"} 7"#))
        #expect(recorder.metricsText().contains("linkwell_app_opens_unwritten 10"))
        recorder.record(ClickEvent(site: "shop", code: "sale", route: "item", platform: .ios, outcome: .appPage), referer: nil)
        _ = recorder.flush()
        #expect(recorder.metricsText().contains("linkwell_app_opens_unwritten 0"))
        let store = try LinkStore(path: path)
        let all = try store.clickReport(ClickQuery())
        #expect(all.total == 1 && all.appOpens == 10 && all.firstOpens == 3)
        let sale = try store.clickReport(ClickQuery(code: "sale"))
        #expect(sale.appOpens == 8 && sale.firstOpens == 3)
        let doc = String(decoding: try JSONEncoder().encode(all.document(query: ClickQuery())), as: UTF8.self)
        #expect(doc.contains(#""funnel":{"#) && doc.contains(#""appOpens":10"#) && doc.contains(#""reopens":7"#))
        #expect(try store.clickReport(ClickQuery(until: 20000101)).appOpens == 0)
    }

    @Test func aFailedWriteKeepsTheOpensForTheNextFlush() throws {
        let path = ClickCountingTests.tempPath()
        _ = try LinkStore(path: path)
        let recorder = ClickCountingTests.recorder(path)
        recorder.opens.record(site: "shop", code: "", route: "item", kind: .reopen, unixSeconds: 1_796_000_000)
        let holder = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 10)
        try holder.exec("BEGIN EXCLUSIVE")
        _ = recorder.flush()
        #expect(recorder.opens.unwritten == 1)
        try holder.exec("COMMIT")
        _ = recorder.flush()
        #expect(recorder.opens.unwritten == 0)
        #expect(try LinkStore(path: path).clickReport(ClickQuery()).appOpens == 1)
    }

    @Test func aBurstPastTheLimitIsRefusedAndNotCounted() throws {
        let recorder = ClickCountingTests.recorder(ClickCountingTests.tempPath())
        let limiter = BeaconRateLimiter()
        var statuses: [Int] = []
        var retryAfter: String?
        for _ in 0..<70 {
            let r = AppOpenBeacon.answer(Self.beacon(Self.body("https://shop.example.com/item/1", "reopen")), snapshot: Self.snapshot,
                                         limiter: limiter, counter: recorder, now: 1_796_000_000)
            guard case let .dynamic(status, headers, _) = r.response else { return }
            statuses.append(status)
            if status == 429 { retryAfter = headers.first { $0.0 == "Retry-After" }?.1 }
        }
        #expect(statuses.filter { $0 == 204 }.count == ClickSettings.defaultAppOpensPerMinute)
        #expect(statuses.filter { $0 == 429 }.count == 70 - ClickSettings.defaultAppOpensPerMinute)
        #expect(retryAfter == "60")
        #expect(recorder.opens.unwritten == ClickSettings.defaultAppOpensPerMinute)
        #expect(recorder.metricsText().contains(#"linkwell_app_open_beacons_refused_total{reason="rate_limited"} 10"#))
        // Another address is not limited; the window ends after a minute.
        #expect(limiter.admit("10.9.9.9", perMinute: 60, now: 1_796_000_000) == nil)
        #expect(limiter.admit("10.0.0.1", perMinute: 60, now: 1_796_000_060) == nil)
    }

    @Test func theLimiterTableIsBoundedAndIPv6CountsBySlash64() {
        let limiter = BeaconRateLimiter(capacity: 3)
        #expect(limiter.admit("2001:db8::1", perMinute: 2, now: 100) == nil)
        #expect(limiter.admit("2001:db8::2", perMinute: 2, now: 100) == nil)
        #expect(limiter.admit("2001:db8:0:0:ffff::3", perMinute: 2, now: 100) == 60)  // same /64
        #expect(limiter.admit("10.0.0.1", perMinute: 2, now: 100) == nil)
        #expect(limiter.admit("10.0.0.2", perMinute: 2, now: 100) == nil)
        #expect(limiter.admit("10.0.0.3", perMinute: 2, now: 110) == 60)  // full of live windows: refused
        #expect(limiter.count == 3)
        #expect(limiter.admit("10.0.0.3", perMinute: 2, now: 161) == nil)  // expired windows make room
        #expect(limiter.count == 1)
    }

    @Test func thePublicHeadCheckAllowsPostOnTheBeaconPathOnly() {
        let limits = ServerConfiguration().daemonOptions().headLimits
        #expect(limits.allowedMethods == ["GET", "HEAD"])
        #expect(limits.allowsOnPath("POST", rawTarget: AppOpenBeacon.path))
        #expect(limits.allowsOnPath("POST", rawTarget: AppOpenBeacon.path + "?x=1"))
        #expect(!limits.allowsOnPath("POST", rawTarget: "/item/1"))
        #expect(!limits.allowsOnPath("PUT", rawTarget: AppOpenBeacon.path))
        #expect(!limits.allowsOnPath("POST", rawTarget: AppOpenBeacon.path + "/"))
        #expect(limits.isPathMethod("POST") && !limits.isPathMethod("GET"))
    }
}
