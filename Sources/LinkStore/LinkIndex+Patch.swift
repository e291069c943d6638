// Patching the link index copy-on-write: a few changed links make a new index that shares the
// unchanged record chunks with the one serving (only the last chunk, which takes the new
// records, and the hash table are copied), so one changed link costs milliseconds at a million
// links instead of a full read. The index serving is never touched: requests keep reading it
// until the new one is swapped in.
//
// Removal from the open-addressing table is a backward shift (linear probing needs no
// tombstones). A replaced or removed link's record stays in its chunk, unreferenced; when such
// dead records outnumber the live ones the patch compacts (rebuilds from the live links in
// memory, no database read).

extension LinkIndex {
    /// This index with `changed` put in (each replacing the link with its site and code; a
    /// disabled one only removes it) and `removed` taken out, bound to the same table.
    public func patched(changed: [ShortLink], removed: [(site: String, code: String)]) -> LinkIndex {
        var patch = Patch(storage)
        for key in removed { patch.remove(site: key.site, code: key.code) }
        for link in changed {
            patch.remove(site: link.site, code: link.code)
            if !link.disabled { patch.add(link) }
        }
        let patchedStorage = patch.finish()
        let result = LinkIndex(storage: patchedStorage, table: tableRef)
        guard patchedStorage.dead > 1024, patchedStorage.dead > patchedStorage.count else { return result }
        var builder = Builder(table: nil)
        result.forEach { builder.add($0) }
        return LinkIndex(storage: builder.finish().storage, table: tableRef)
    }

    /// The parts of a storage being patched (copies: the original is shared with requests).
    struct Patch {
        var records: RecordChunks
        var sites: [String]
        var siteIndex: [String: UInt16]
        var slots: [UInt32]
        var count: Int
        var dead: Int

        init(_ s: Storage) {
            records = s.records
            sites = s.sites
            siteIndex = s.siteIndex
            slots = s.slots
            count = s.count
            dead = s.dead
        }

        var mask: Int { slots.count - 1 }

        /// The slot holding `code` on `site`, or nil.
        func slot(site: UInt16, code: String) -> Int? {
            var code = code
            return code.withUTF8 { bytes -> Int? in
                var i = Int(truncatingIfNeeded: RecordChunks.hash(site: site, code: bytes)) & mask
                while slots[i] != 0 {
                    if records.matches(at: slots[i] - 1, site: site, code: bytes) { return i }
                    i = (i + 1) & mask
                }
                return nil
            }
        }

        mutating func remove(site name: String, code: String) {
            guard let site = siteIndex[name], var hole = slot(site: site, code: code) else { return }
            count -= 1
            dead += 1
            // Backward shift: move up each following entry of the run whose home slot is not
            // in (hole, j], so every entry stays reachable from its home slot.
            var j = hole
            while true {
                j = (j + 1) & mask
                guard slots[j] != 0 else { break }
                let home = Int(truncatingIfNeeded: records.hash(at: slots[j] - 1)) & mask
                let stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
                if stays { continue }
                slots[hole] = slots[j]
                hole = j
            }
            slots[hole] = 0
        }

        /// Adds `link`, whose site and code are not in the table (removed first).
        mutating func add(_ link: ShortLink) {
            let site: UInt16
            if let known = siteIndex[link.site] {
                site = known
            } else {
                guard sites.count < Int(UInt16.max) else { return }
                site = UInt16(sites.count)
                siteIndex[link.site] = site
                sites.append(link.site)
            }
            guard let position = records.append(link, site: site) else { return }
            if (count + 1) * 2 > slots.count { grow() }
            var i = Int(truncatingIfNeeded: records.hash(at: position)) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = position + 1
            count += 1
        }

        /// Doubles the table (load stays ≤ 1/2).
        mutating func grow() {
            let old = slots
            slots = [UInt32](repeating: 0, count: old.count * 2)
            for p in old where p != 0 {
                var i = Int(truncatingIfNeeded: records.hash(at: p - 1)) & mask
                while slots[i] != 0 { i = (i + 1) & mask }
                slots[i] = p
            }
        }

        func finish() -> Storage {
            Storage(records: records, sites: sites, siteIndex: siteIndex, slots: slots, count: count, dead: dead)
        }
    }
}
