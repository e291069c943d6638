// The link refresher reads only the changed links once it has read them all; every link is read
// again only at start and after an outage (counted in /metrics by reason).

import Foundation
import LinkRouting
import LinkStore
import Testing

@testable import LinkServer

@Suite struct LinkRefresherPatchTests {
    static func link(_ code: String, target: String? = nil, disabled: Bool = false) -> ShortLink {
        ShortLink(code: code, site: "shop", target: target ?? "https://shop.example.com/item/\(code)", disabled: disabled)
    }

    static func contents(_ cell: LinkIndexCell) -> [String: String] {
        var out: [String: String] = [:]
        cell.index.forEach { out[$0.code] = $0.target }
        return out
    }

    @Test func aFullReadOnlyAtStartAndAfterAnOutage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-patch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = StorageSettings(sqlite: "links.db")
        let writer = try LinkStore(path: dir + "/links.db")
        try writer.insertAll([Self.link("a"), Self.link("b"), Self.link("c")])
        let cell = LinkIndexCell()
        let refresher = LinkRefresher(cell: cell, log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)), configPath: dir + "/linkwell.json5")
        #expect(refresher.check(storage: settings, reason: "start"))
        #expect(Self.contents(cell).count == 3)

        try writer.insert(Self.link("new"))
        try writer.upsert(Self.link("a", target: "https://shop.example.com/a2"))
        try writer.setDisabled(true, site: "shop", code: "b")
        try writer.delete(site: "shop", code: "c")
        #expect(refresher.check(storage: settings, reason: "changed"))
        #expect(Self.contents(cell) == ["new": "https://shop.example.com/item/new", "a": "https://shop.example.com/a2"])
        #expect(cell.current.revision == (try writer.revision()))
        #expect(refresher.check(storage: settings, reason: "changed"))  // nothing moved: nothing read
        var counts = refresher.status.refreshCounts
        #expect(counts.fullReads == [.start: 1] && counts.patches == 1)

        // An outage (the file moved away, then back): the index keeps serving, then is read whole.
        try FileManager.default.moveItem(atPath: dir + "/links.db", toPath: dir + "/away.db")
        #expect(!refresher.check(storage: settings, reason: "changed"))
        #expect(Self.contents(cell).count == 2)
        try FileManager.default.moveItem(atPath: dir + "/away.db", toPath: dir + "/links.db")
        #expect(refresher.check(storage: settings, reason: "changed"))
        try writer.setDisabled(false, site: "shop", code: "b")
        #expect(refresher.check(storage: settings, reason: "changed"))
        #expect(Self.contents(cell).keys.sorted() == ["a", "b", "new"])
        counts = refresher.status.refreshCounts
        #expect(counts.fullReads == [.start: 1, .outage: 1] && counts.patches == 2)
        let metrics = refresher.status.metricsText(served: cell.index.count)
        #expect(metrics.contains("linkwell_links_full_reads_total{reason=\"outage\"} 1\n"))
        #expect(metrics.contains("linkwell_links_full_reads_total{reason=\"change_log\"} 0\n"))
        #expect(metrics.contains("linkwell_links_patches_total 2\n"))
    }
}
