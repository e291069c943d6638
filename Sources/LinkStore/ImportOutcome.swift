// Writing an import plan: which rows are new, which change a stored link, which are already
// there as they are (so a second run of the same file changes nothing and says so).

import Foundation

/// The rows of a plan sorted by what writing them does (or would do, in a dry run).
public struct ImportOutcome: Sendable {
    public var imported: [ImportRow] = []
    public var updated: [ImportRow] = []
    public var unchanged: [ImportRow] = []
}

extension LinkStore {
    /// Compares each row with the stored link of its site and code and, unless `dryRun`, writes
    /// the new and changed ones in one transaction. Creation and update times do not count as a
    /// change; a changed link gets `now` as its update time and keeps its creation time.
    public func apply(_ plan: ImportPlan, dryRun: Bool, now: Date = Date()) throws(LinkStoreError) -> ImportOutcome {
        var existing: [String: [String: ShortLink]] = [:]
        for site in Set(plan.rows.map(\.link.site)) {
            existing[site] = Dictionary(try links(site: site).map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
        }
        var outcome = ImportOutcome()
        var writes: [ShortLink] = []
        for var row in plan.rows {
            guard let old = existing[row.link.site]?[row.link.code] else {
                outcome.imported.append(row)
                writes.append(row.link)
                continue
            }
            var same = row.link
            same.createdAt = old.createdAt
            same.updatedAt = old.updatedAt
            if same == old {
                outcome.unchanged.append(row)
            } else {
                row.link.createdAt = old.createdAt
                row.link.updatedAt = ShortLink.wholeSeconds(now)
                outcome.updated.append(row)
                writes.append(row.link)
            }
        }
        if !dryRun, !writes.isEmpty { try upsert(writes) }
        return outcome
    }
}
