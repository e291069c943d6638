// The in-memory index: live links by site and code, resolved targets, skipped links with reasons.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite struct LinkIndexTests {
    static let table = ShortLinkValidatorTests.table

    @Test func indexesLiveLinksWithTheirResolvedTargets() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let links = [
            ShortLink(code: "deep", site: "fit", target: "https://fitconnect.app/w/42"),
            ShortLink(code: "web1", site: "fit", target: "https://fitconnect.app/about"),
            ShortLink(code: "gone", site: "fit", target: "https://fitconnect.app/w/1", disabled: true),
            ShortLink(code: "old1", site: "fit", target: "https://fitconnect.app/w/1", expiresAt: now.addingTimeInterval(-1)),
            ShortLink(code: "w", site: "blog", target: "https://blog.example/p/7"),
            ShortLink(code: "evil", site: "fit", target: "https://evil.example/"),
        ]
        let index = LinkIndex(links: links, table: Self.table)
        #expect(index.count == 4)  // deep, web1, old1 (expires at lookup time), w
        #expect(index.lookup(site: "fit", code: "deep", now: now)?.match?.route == "workout")
        #expect(index.lookup(site: "fit", code: "deep", now: now)?.match?.parameters == ["id": "42"])
        #expect(index.lookup(site: "fit", code: "web1", now: now).map { $0.match == nil } == true)
        #expect(index.lookup(site: "fit", code: "gone", now: now) == nil)
        #expect(index.lookup(site: "fit", code: "old1", now: now) == nil)
        #expect(index.lookup(site: "fit", code: "old1", now: now.addingTimeInterval(-2)) != nil)
        #expect(index.lookup(site: "blog", code: "w", now: now)?.match?.route == "post")
        #expect(index.lookup(site: "fit", code: "w", now: now) == nil)  // codes are per site
        #expect(index.skipped.map(\.code) == ["evil"])
        #expect(index.skipped.first?.reason.contains("'evil.example' is not a domain of site 'fit'") == true)
        #expect(LinkIndex.empty.count == 0)
    }
}
