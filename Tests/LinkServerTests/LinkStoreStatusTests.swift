// What /readyz and /metrics say about the link store in each state.

import Foundation
import LinkStore
import Testing

@testable import LinkServer

@Suite struct LinkStoreStatusTests {
    @Test func eachStateHasItsReadyLineAndGauge() {
        let status = LinkStoreStatus()
        #expect(status.mode == .readWrite)
        #expect(status.readyLine(served: 1) == "links: read-write (1 short link served)\n")
        #expect(status.metricsText(served: 3).contains("linkwell_links_store_state{state=\"read-write\"} 1\n"))

        #expect(status.set(storage: "/data/linkwell.db", readOnly: "its directory /data is on a read-only volume"))
        #expect(!status.set(storage: "/data/linkwell.db", readOnly: "its directory /data is on a read-only volume"))  // no change
        #expect(status.mode == .readOnly)
        #expect(status.readyLine(served: 30).hasPrefix("links: read-only: its directory /data is on a read-only volume. Serving 30 short links from memory; link writes are answered 503"))
        let metrics = status.metricsText(served: 30)
        #expect(metrics.contains("linkwell_links_store_state{state=\"read-only\"} 1\n") && metrics.contains("linkwell_links_served 30\n"))

        status.set(outage: "the link database /data/linkwell.db is gone (deleted or moved).")
        #expect(status.mode == .unavailable)
        #expect(status.readyLine(served: 30) == "links: unavailable: the link database /data/linkwell.db is gone (deleted or moved). Serving the last good index (30 short links) from memory.\n")
        status.record(refused: .full)
        status.record(refused: .full)
        #expect(status.metricsText(served: 30).contains("linkwell_link_writes_refused_total{reason=\"full\"} 2\n"))

        status.set(outage: nil)
        #expect(status.set(storage: "/data/linkwell.db", readOnly: nil))
        #expect(status.mode == .readWrite)
    }
}

@Suite struct LinkRefresherApplyTests {
    static func link(_ code: String, disabled: Bool = false) -> ShortLink {
        ShortLink(code: code, site: "shop", target: "https://shop.example.com/item/\(code)", disabled: disabled)
    }

    /// A write answered 2xx whose store could not be read back a moment later (deleted, locked):
    /// applied to the served index, which otherwise stays as it was.
    @Test func writesAreAppliedToTheIndexInMemory() {
        let cell = LinkIndexCell(LinkIndexCell.State(index: LinkIndex(links: [Self.link("a"), Self.link("b"), Self.link("c")], table: nil), revision: 7))
        let refresher = LinkRefresher(cell: cell, log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)), configPath: "/nowhere/linkwell.json5")
        refresher.apply(changed: [Self.link("new"), Self.link("b", disabled: true)], removed: [(site: "shop", code: "a")])
        var codes: [String] = []
        cell.index.forEach { codes.append($0.code) }
        #expect(codes.sorted() == ["c", "new"])
        #expect(cell.current.revision == 7)  // the next check that reads the store replaces it
    }
}
