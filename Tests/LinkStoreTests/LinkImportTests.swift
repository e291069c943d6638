// Migration v5 (the FDL columns), Linkwell's own link file (CSV and JSON round trips), and
// writing an import plan: new, updated, unchanged, and nothing written in a dry run.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite("Link import and export")
struct LinkImportTests {
    static let table = FDLTakeoutTests.table()

    static func link(_ code: String, title: String? = nil) -> ShortLink {
        ShortLink(code: code, site: "ex", target: "https://links.example.com/post/\(code)", previewTitle: title,
                  createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                  fdl: FDLParameters(apn: "com.example.app", ipadFallback: "https://www.example.com/ipad", utmSource: "news", linkName: "N, \"q\"\nx", archived: true))
    }

    @Test func versionTwoGetsTheFDLColumnsKeepingItsLinks() throws {
        let dir = try TempDir()
        let path = dir.path("v2.db")
        _ = try LinkStore(path: path, upTo: 2)
        try SQLiteConnection(path: path).query(
            "INSERT INTO links (site, code, target, preview_title, created_at, updated_at) VALUES ('ex', 'keep', 'https://links.example.com/post/1', 'T', 1700000000, 1700000000)")
        let store = try LinkStore(path: path)
        #expect(try store.appliedVersions().contains(5))
        let kept = try #require(try store.link(site: "ex", code: "keep"))
        #expect(kept.previewTitle == "T" && kept.fdl == nil)
        let full = Self.link("full1")
        try store.upsert(full)
        #expect(try store.link(site: "ex", code: "full1") == full)
    }

    @Test(arguments: LinkFile.Format.allCases)
    func exportImportsBackUnchanged(format: LinkFile.Format) throws {
        let links = [Self.link("a1", title: "Title, with \"quotes\""), ShortLink(code: "b2", site: "ex", target: "https://www.example.com/blog/1",
                     expiresAt: Date(timeIntervalSince1970: 1_900_000_000), disabled: true, createdAt: Date(timeIntervalSince1970: 1_700_000_000))]
        let bytes = LinkFile.encode(links, format: format)
        let plan = try LinkFile.plan(bytes, format: format, table: Self.table, defaultSite: nil)
        #expect(plan.errors.isEmpty && plan.skipped.isEmpty)
        #expect(plan.rows.map(\.link) == links)
        #expect(plan.rows.map(\.route) == ["post", nil])
        #expect(LinkFile.encode(plan.rows.map(\.link), format: format) == bytes)
    }

    @Test(arguments: [
        (LinkFile.Format.json, #"[{"site":"ex","code":"x1","target":"https://links.example.com/post/1","disabled":"maybe"}]"#, "disabled"),
        (.json, #"[{"site":"ex","code":"x1","target":"https://links.example.com/post/1","colour":"red"}]"#, "colour"),
        (.json, #"[{"site":"ex","code":"x1","target":"https://links.example.com/post/1","expiresAt":"soon"}]"#, "expiresAt"),
        (.json, #"[{"site":"ex","target":"https://links.example.com/post/1"}]"#, "code"),
        (.csv, "site,code,target,forcedRedirect\r\nex,x1,https://links.example.com/post/1,yes\r\n", "forcedRedirect"),
    ])
    func badRecordsNameTheField(format: LinkFile.Format, text: String, field: String) throws {
        let plan = try LinkFile.plan(Array(text.utf8), format: format, table: Self.table, defaultSite: nil)
        #expect(plan.rows.isEmpty)
        #expect(plan.errors.first?.column == field)
    }

    @Test func applyCountsNewChangedAndUnchangedAndADryRunWritesNothing() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("i.db"))
        var plan = ImportPlan()
        plan.rows = [ImportRow(row: 2, link: Self.link("a1"), route: "post"), ImportRow(row: 3, link: Self.link("b2"), route: "post")]
        let dry = try store.apply(plan, dryRun: true)
        let afterDry = try store.links()
        #expect(dry.imported.count == 2 && afterDry.isEmpty)
        let first = try store.apply(plan, dryRun: false)
        #expect(first.imported.count == 2 && first.updated.isEmpty)
        let again = try store.apply(plan, dryRun: false, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(again.unchanged.count == 2 && again.imported.isEmpty && again.updated.isEmpty)
        plan.rows[1].link.previewTitle = "New title"
        let changed = try store.apply(plan, dryRun: false, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(changed.updated.map(\.link.code) == ["b2"] && changed.unchanged.map(\.link.code) == ["a1"])
        let stored = try #require(try store.link(site: "ex", code: "b2"))
        #expect(stored.previewTitle == "New title")
        #expect(stored.createdAt == Date(timeIntervalSince1970: 1_700_000_000) && stored.updatedAt == Date(timeIntervalSince1970: 1_800_000_000))
    }
}
