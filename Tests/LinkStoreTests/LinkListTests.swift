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
        return store
    }

    func codes(_ store: LinkStore, q: String? = nil, sort: LinkListSort = .code, desc: Bool = false, offset: Int = 0, limit: Int = 10) throws -> [String] {
        try store.linkList(LinkListQuery(site: "fitconnect", search: q, sort: sort, descending: desc, offset: offset, limit: limit, clicksSince: 20261126)).map(\.code)
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
        #expect(try codes(store, q: "%") == ["b"])
        #expect(try codes(store, q: "_") == ["c"])
        #expect(try codes(store, q: "nothing") == [])
    }

    @Test func dailyClicksOfTheListedCodes() throws {
        let dir = try TempDir()
        let store = try Self.store(dir)
        let clicks = try store.dailyClicks(site: "fitconnect", codes: ["a", "c", "d"], since: 20261126, through: 20261202)
        #expect(clicks == ["a": [20261202: 3], "c": [20261201: 5, 20261202: 2]])
        #expect(try store.dailyClicks(site: "fitconnect", codes: [], since: 20261126, through: 20261202) == [:])
    }
}
