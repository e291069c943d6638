// The request path's view of the short links: an immutable, compact index of all stored links,
// swapped whole when the links change (the server's link refresher, LinkIndexCell). A lookup
// is a hash probe over bytes in memory; no database call.
//
// Compact because a million links must load in well under 2 s and 200 MB: each link is one
// record of bytes in 4 MiB chunks (LinkIndex+Record.swift), found through an open-addressing
// table of 32-bit record positions. The records do not depend on the route table: a lookup
// checks the one link asked for against the table it is bound to (`ShortLinkValidator`, the
// same check `links add` made) and resolves its target — so a config reload re-binds the index
// in O(1), and loading does not validate a million links up front.

import Foundation
import LinkRouting
import Synchronization

/// A stored link with its target resolved against the route table it was indexed with.
public struct IndexedShortLink: Sendable, Equatable {
    public let link: ShortLink
    /// The target's route match (a deep link), or nil for a page on the site's own domains.
    public let match: LinkMatch?
}

/// Short links by site and code, bound to one route table. Disabled links are left out; a link
/// whose target no longer validates against the table (the config changed since it was stored)
/// does not answer, and `skipped` says why.
public struct LinkIndex: Sendable {
    let storage: Storage
    let tableRef: TableRef?
    /// The table lookups check against (nil: nothing answers).
    public var table: RouteTable? { tableRef?.table }
    /// How many enabled links are indexed (those in `skipped` among them).
    public var count: Int { storage.count }
    /// Different for every index built in this process, and larger for a later one (the same for
    /// its `bound` copies): the server's caches of looked-up links and their pages are released
    /// by it when the served index changes.
    public var generation: UInt64 { storage.generation }

    /// An index with no links.
    public static let empty = LinkIndex(links: [], table: nil)

    /// Indexes `links`, bound to `table`. A later link with the same site and code replaces an
    /// earlier one.
    public init(links: [ShortLink], table: RouteTable?) {
        var builder = Builder(table: table)
        for link in links { builder.add(link) }
        self = builder.finish()
    }

    init(storage: Storage, table: TableRef?) {
        self.storage = storage
        self.tableRef = table
    }

    /// A route table held by reference, so binding an index to it per request copies nothing.
    public final class TableRef: Sendable {
        public let table: RouteTable
        public init(_ table: RouteTable) { self.table = table }
    }

    /// The same links, checked against `table` from now on (a config reload).
    public func bound(to table: RouteTable?) -> LinkIndex {
        LinkIndex(storage: storage, table: table.map(TableRef.init))
    }

    /// The same links, checked against `table` (a snapshot binds the served index to its own).
    public func bound(to table: TableRef?) -> LinkIndex {
        LinkIndex(storage: storage, table: table)
    }

    /// The live link with `code` on `site` at `now`, with its target's route match: nil when
    /// there is none, it expired, or it no longer validates. From memory.
    public func lookup(site: String, code: Substring, now: Date = Date()) -> IndexedShortLink? {
        guard let found = resolved(site: site, code: code), found.link.isLive(at: now) else { return nil }
        return found
    }

    /// The link with `code` on `site`, live or not (check `link.isLive`), with its target's route
    /// match: nil when there is none or it no longer validates. The same for the same index
    /// (`generation`) and table, so a caller may keep it for those.
    public func resolved(site: String, code: Substring) -> IndexedShortLink? {
        guard let tableRef, let siteIndex = storage.siteIndex[site],
              let position = storage.find(site: siteIndex, code: code) else { return nil }
        let link = storage.records.link(at: position, site: site)
        guard case let .success(resolved) = ShortLinkValidator.resolve(link, table: tableRef.table) else { return nil }
        return IndexedShortLink(link: link, match: resolved.match)
    }

    /// Every indexed link (enabled, valid or not), in no particular order.
    public func forEach(_ body: (ShortLink) throws -> Void) rethrows {
        for position in storage.slots where position != 0 {
            let p = position - 1
            try body(storage.records.link(at: p, site: storage.sites[Int(storage.records.site(at: p))]))
        }
    }

    /// The indexed links that do not answer under `table`, each with why, ordered by site and
    /// code (checks every link: for `validate`, logs and tests, not the request path).
    public var skipped: [(site: String, code: String, reason: String)] {
        guard let table else { return [] }
        var out: [(site: String, code: String, reason: String)] = []
        forEach { link in
            if case let .failure(refusal) = ShortLinkValidator.check(link, table: table) { out.append((link.site, link.code, refusal.description)) }
        }
        return out.sorted { ($0.site, $0.code) < ($1.site, $1.code) }
    }

    /// Bytes held by the records and the hash table (for the bench and the refresh log).
    public var memoryBytes: Int { storage.records.bytes + storage.slots.count * MemoryLayout<UInt32>.stride }

    /// Builds an index link by link (the refresher streams rows from the store into it, so the
    /// links are never all in memory as `ShortLink`s).
    public struct Builder {
        let table: RouteTable?
        private var records = RecordChunks()
        private var positions: [UInt32] = []
        private var sites: [String] = []
        private var siteIndex: [String: UInt16] = [:]

        public init(table: RouteTable?) { self.table = table }

        /// Adds `link` unless it is disabled (a disabled link never answers; its code stays
        /// taken in the store).
        public mutating func add(_ link: ShortLink) {
            guard !link.disabled else { return }
            let site: UInt16
            if let known = siteIndex[link.site] {
                site = known
            } else {
                guard sites.count < Int(UInt16.max) else { return }
                site = UInt16(sites.count)
                siteIndex[link.site] = site
                sites.append(link.site)
            }
            // Records are at most a chunk (4 MiB) and the index at most 4 GiB: a link beyond
            // that cannot be stored through linkwell (codes ≤ 64 bytes, URLs far shorter).
            guard let position = records.append(link, site: site) else { return }
            positions.append(position)
        }

        /// The finished index.
        public consuming func finish() -> LinkIndex {
            records.shrinkLast()
            let storage = Storage(records: records, sites: sites, siteIndex: siteIndex, positions: positions)
            return LinkIndex(storage: storage, table: table.map(TableRef.init))
        }
    }

    /// The records and their hash table; immutable once built.
    final class Storage: @unchecked Sendable {
        let records: RecordChunks
        let sites: [String]
        let siteIndex: [String: UInt16]
        /// Open addressing, linear probing: record position + 1, 0 = empty. Load ≤ 1/2.
        let slots: [UInt32]
        let count: Int
        /// Records no slot points to any more (replaced or removed by a patch): compacted away
        /// when they outnumber the live ones (LinkIndex+Patch.swift).
        let dead: Int
        let generation = Storage.generations.add(1, ordering: .relaxed).newValue
        let mask: Int
        private static let generations = Atomic<UInt64>(0)

        init(records: RecordChunks, sites: [String], siteIndex: [String: UInt16], positions: [UInt32]) {
            self.records = records
            self.sites = sites
            self.siteIndex = siteIndex
            var capacity = 8
            while capacity < positions.count * 2 { capacity <<= 1 }
            mask = capacity - 1
            var slots = [UInt32](repeating: 0, count: capacity)
            var count = 0
            for p in positions {
                var i = Int(truncatingIfNeeded: records.hash(at: p)) & mask
                while slots[i] != 0, !records.sameKey(slots[i] - 1, p) { i = (i + 1) & mask }
                if slots[i] == 0 { count += 1 }
                slots[i] = p + 1  // a later record with the same site and code replaces the earlier
            }
            self.slots = slots
            self.count = count
            self.dead = positions.count - count
        }

        /// A patched copy's parts, as they are (`slots.count` a power of two).
        init(records: RecordChunks, sites: [String], siteIndex: [String: UInt16], slots: [UInt32], count: Int, dead: Int) {
            self.records = records
            self.sites = sites
            self.siteIndex = siteIndex
            self.slots = slots
            self.count = count
            self.dead = dead
            mask = slots.count - 1
        }

        func find(site: UInt16, code: Substring) -> UInt32? {
            var code = code
            return code.withUTF8 { bytes -> UInt32? in
                var i = Int(truncatingIfNeeded: RecordChunks.hash(site: site, code: bytes)) & mask
                while slots[i] != 0 {
                    let p = slots[i] - 1
                    if records.matches(at: p, site: site, code: bytes) { return p }
                    i = (i + 1) & mask
                }
                return nil
            }
        }
    }
}
