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
        #expect(index.count == 5)  // deep, web1, old1 (expires at lookup time), w, evil (refused at lookup)
        #expect(index.lookup(site: "fit", code: "deep", now: now)?.match?.route == "workout")
        #expect(index.lookup(site: "fit", code: "deep", now: now)?.match?.parameters == ["id": "42"])
        #expect(index.lookup(site: "fit", code: "web1", now: now).map { $0.match == nil } == true)
        #expect(index.lookup(site: "fit", code: "gone", now: now) == nil)
        #expect(index.lookup(site: "fit", code: "old1", now: now) == nil)
        #expect(index.lookup(site: "fit", code: "old1", now: now.addingTimeInterval(-2)) != nil)
        #expect(index.lookup(site: "blog", code: "w", now: now)?.match?.route == "post")
        #expect(index.lookup(site: "fit", code: "w", now: now) == nil)  // codes are per site
        #expect(index.lookup(site: "fit", code: "evil", now: now) == nil)
        #expect(index.skipped.map(\.code) == ["evil"])
        #expect(index.skipped.first?.reason.contains("'evil.example' is not a domain of site 'fit'") == true)
        #expect(LinkIndex.empty.count == 0)
    }

    /// A config reload re-binds the same records to the new table: a link whose target the new
    /// table no longer accepts stops answering, and answers again under a table that does.
    @Test func rebindingChecksAgainstTheNewTable() throws {
        let links = [ShortLink(code: "deep", site: "fit", target: "https://fitconnect.app/w/42")]
        let index = LinkIndex(links: links, table: Self.table)
        #expect(index.lookup(site: "fit", code: "deep")?.match?.route == "workout")
        let other = try RouteTable(config: LinkwellConfig(sites: [
            SiteConfig(name: "fit", domains: ["other.example"], ios: [IOSAppConfig(teamID: "ABCDE12345", bundleID: "app.fit")],
                       routes: [.route(RouteConfig(name: "workout", path: "/w/{id}"))]),
        ]))
        let rebound = index.bound(to: other)
        #expect(rebound.lookup(site: "fit", code: "deep") == nil)
        #expect(rebound.skipped.first?.reason.contains("'fitconnect.app' is not a domain of site 'fit'") == true)
        #expect(rebound.bound(to: Self.table).lookup(site: "fit", code: "deep") != nil)
        #expect(index.bound(to: nil as RouteTable?).lookup(site: "fit", code: "deep") == nil)
    }

    /// Every field survives the compact record (what `lookup` hands the responder).
    @Test func everyFieldSurvivesTheRecord() throws {
        var full = ShortLink(
            code: "abc123", site: "fit", target: "https://fitconnect.app/w/42?utm=ü",
            previewTitle: "Leg day", previewDescription: String(repeating: "long ", count: 100), previewImage: "https://fitconnect.app/i.png",
            iosFallback: "https://apps.apple.com/app/id1", androidFallback: "https://play.google.com/x", desktopFallback: "https://fitconnect.app/web",
            forcedRedirect: true, expiresAt: Date(timeIntervalSince1970: 2_100_000_000), createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_500),
            fdl: FDLParameters(apn: "app.fit", isi: "123", utmSource: "mail", linkName: "Spring ✓", archived: true))
        let sparse = ShortLink(code: "s", site: "fit", target: "https://fitconnect.app/about", previewImage: "https://fitconnect.app/only.png")
        let index = LinkIndex(links: [full, sparse], table: Self.table)
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        #expect(index.lookup(site: "fit", code: "abc123", now: now)?.link == full)
        #expect(index.lookup(site: "fit", code: "s", now: now)?.link == sparse)
        var all: [ShortLink] = []
        index.forEach { all.append($0) }
        #expect(all.sorted { $0.code < $1.code } == [full, sparse])
        // A later link with the same site and code replaces the earlier one.
        full.target = "https://fitconnect.app/w/43"
        let replaced = LinkIndex(links: [sparse, LinkIndexTests.copy(of: full, target: "https://fitconnect.app/w/1"), full], table: Self.table)
        #expect(replaced.count == 2)
        #expect(replaced.lookup(site: "fit", code: "abc123", now: now)?.match?.parameters == ["id": "43"])
    }

    static func copy(of link: ShortLink, target: String) -> ShortLink {
        var l = link
        l.target = target
        return l
    }

    /// The record holds every stored property of `ShortLink`: a field added to the model (a new
    /// migration's column) must be added to LinkIndex+Record.swift too, or serving drops it.
    @Test func theRecordKnowsEveryShortLinkField() {
        let fields = Mirror(reflecting: ShortLink(code: "c", site: "s", target: "t")).children.count
        #expect(fields == RecordChunks.encodedFieldCount, "ShortLink has \(fields) stored properties, the index record \(RecordChunks.encodedFieldCount): extend RecordChunks")
    }

    @Test(arguments: [1, 7, 5_000, 40_000])
    func manyLinksAreAllFoundAndOthersAreNot(count: Int) {
        let links = (0..<count).map { i in
            ShortLink(code: "c\(i)", site: i % 3 == 0 ? "blog" : "fit", target: i % 3 == 0 ? "https://blog.example/p/\(i)" : "https://fitconnect.app/w/\(i)")
        }
        let index = LinkIndex(links: links, table: Self.table)
        #expect(index.count == count)
        #expect(index.skipped.isEmpty)
        for (i, link) in links.enumerated() {
            #expect(index.lookup(site: link.site, code: Substring(link.code))?.link.target == link.target, "link \(i)")
            #expect(index.lookup(site: link.site == "fit" ? "blog" : "fit", code: Substring(link.code)) == nil)
        }
        #expect(index.lookup(site: "fit", code: "c\(count)") == nil)
        #expect(index.lookup(site: "fit", code: "") == nil)
        #expect(index.lookup(site: "nosuchsite", code: "c1") == nil)
        #expect(index.memoryBytes < 200 + count * 120)
    }
}
