// A store kept open while its SQLite file is replaced by a rename or deleted: no change is ever
// reported as stored unless it is in the file at the path; a missing file is never re-created by
// a store that only writes to existing ones; a full or read-only disk gets its own error kind.

import Foundation
import Testing

@testable import LinkStore

@Suite struct StoreFileFaultTests {
    static func link(_ code: String) -> ShortLink {
        ShortLink(code: code, site: "fitconnect", target: "https://fitconnect.app/about", createdAt: Date(timeIntervalSince1970: 1_764_000_000))
    }

    @Test func aWriteAfterTheFileWasReplacedIsRefusedAndNothingGoesToTheOldFile() throws {
        let dir = try TempDir()
        let path = dir.path("links.db")
        let store = try LinkStore(path: path)
        try store.insert(Self.link("before"))
        // The replacement: another database renamed over the path (a restore).
        do {
            let other = try LinkStore(path: dir.path("restored.db"))
            try other.insert(Self.link("restored"))
        }  // closed: the file is complete
        #expect(rename(dir.path("restored.db"), path) == 0)

        #expect { try store.insert(Self.link("lost")) } throws: { ($0 as? LinkStoreError)?.kind == .replaced }
        // The store closed the old file: its next use, and a new store, write to the new one.
        try store.insert(Self.link("again"))
        let fresh = try LinkStore(writing: .sqlite(path: path))
        try fresh.insert(Self.link("after"))
        let codes = try fresh.links().map(\.code)
        #expect(codes == ["after", "again", "restored"])
        #expect(try !store.delete(site: "fitconnect", code: "before"))
    }

    @Test func aDeletedFileIsGoneAndNotRecreated() throws {
        let dir = try TempDir()
        let path = dir.path("links.db")
        let store = try LinkStore(path: path)
        try store.insert(Self.link("one"))
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }

        #expect { try store.insert(Self.link("two")) } throws: {
            let e = $0 as? LinkStoreError
            return e?.kind == .notFound && e?.description.contains("is gone (deleted or moved)") == true
        }
        #expect { try LinkStore(writing: .sqlite(path: path)) } throws: { ($0 as? LinkStoreError)?.kind == .notFound }
        // The kept store does not create it either.
        #expect { try store.insert(Self.link("three")) } throws: { ($0 as? LinkStoreError)?.kind == .notFound }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aReadOnlyFileIsReadImmutableAndRefusesWritesAsReadOnly() throws {
        let dir = try TempDir()
        let path = dir.path("links.db")
        try LinkStore(path: path).insert(Self.link("ro"))
        let reading = try LinkStore(reading: .sqlite(path: path))
        #expect(!reading.isReadOnly)
        let immutable = try SQLiteConnection(path: path, create: false, readOnly: true)
        var count: Int64 = 0
        try immutable.query("SELECT count(*) FROM links") { count = $0.integer(0) ?? 0 }
        #expect(count == 1)
        #expect { try immutable.exec("DELETE FROM links") } throws: { ($0 as? LinkStoreError)?.kind == .readOnly }
    }

    @Test(arguments: [("a b?c#d%e", "a b%3fc%23d%25e"), ("/var/lib/linkwell/linkwell.db", "/var/lib/linkwell/linkwell.db")])
    func uriPathsEscapeWhatAURIWouldRead(path: String, uri: String) {
        #expect(SQLiteConnection.uriPath(path) == uri)
    }

    @Test func aMissingDirectoryOrFileReportsWhyLinksCannotBeWritten() throws {
        let dir = try TempDir()
        #expect(StorageLocation.sqlite(path: dir.path("links.db")).writeProblem == nil)
        let path = dir.path("links.db")
        _ = try LinkStore(path: path)
        #expect(StorageLocation.sqlite(path: path).writeProblem == nil)
        #expect(StorageLocation.postgres(conninfo: "host=x", password: nil).writeProblem == nil)
    }
}
