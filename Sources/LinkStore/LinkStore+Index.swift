// Loading the in-memory index straight from the store: rows are streamed into
// `LinkIndex.Builder`, so a million links are never all in memory as `ShortLink`s (SQLite steps
// through the table; PostgreSQL sends rows one at a time).

import LinkRouting

extension LinkStore {
    /// Every link indexed against `table`, and the change counter read just before the links
    /// (a write in between bumps it past this number, so the next check reads again).
    public func loadIndex(table: RouteTable?) throws(LinkStoreError) -> (index: LinkIndex, revision: Int64) {
        let revision = try self.revision()
        var builder = LinkIndex.Builder(table: table)
        try forEachLink { builder.add($0) }
        return (builder.finish(), revision)
    }

    /// Calls `body` with every stored link, in no particular order, one row at a time.
    public func forEachLink(_ body: (ShortLink) -> Void) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in
            try db.query("SELECT \(LinkStore.columns) FROM links") { body(LinkStore.link($0)) }
        }
    }
}

extension LinkStore {
    /// Adds `links` in one transaction, many rows per statement (bulk loads, the bench); fails
    /// with `.constraint` — and adds none — when a code is taken.
    public func insertAll(_ links: [ShortLink]) throws(LinkStoreError) {
        let perStatement = 200
        let row = "(" + LinkStore.placeholders + ")"
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                var start = 0
                while start < links.count {
                    let batch = links[start..<min(start + perStatement, links.count)]
                    let sql = "INSERT INTO links (\(LinkStore.columns)) VALUES " + Array(repeating: row, count: batch.count).joined(separator: ", ")
                    try db.query(sql, batch.flatMap(LinkStore.values))
                    start += batch.count
                }
            }
        }
    }
}
