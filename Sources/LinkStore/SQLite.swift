// The SQLite side of `DatabaseConnection` (Database.swift), over the C API (CSQLite): open, exec,
// prepared statements.
// Every failure becomes a `LinkStoreError` that names the database file.

import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What went wrong with the link database, worded for whoever has to fix it.
public struct LinkStoreError: Error, CustomStringConvertible, Equatable {
    /// The kind of failure, for code that reacts to it (the CLI's exit status, tests).
    public enum Kind: Sendable, Equatable {
        case cannotOpen, corrupt, locked, tooNew, constraint, notFound, invalid, other
        /// The database server cannot be reached (PostgreSQL down, connection lost).
        case unavailable
        /// The disk holding the database is full: nothing was written.
        case full
        /// The file or its volume cannot be written (a read-only mount, permissions).
        case readOnly
        /// The SQLite file at the path is another file than the one this connection opened (a
        /// restore or deploy script renamed one over it): open the path again and retry.
        case replaced
    }
    public var kind: Kind
    /// The whole message: the file, what happened and what to do.
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// One open SQLite connection. Not shared between threads (the store serialises its use).
final class SQLiteConnection: DatabaseConnection {
    let path: String
    var location: String { path }
    var dialect: SQLDialect { .sqlite }
    private var db: OpaquePointer?
    /// Prepared statements kept for the same SQL text (reset, not finalized, after each run):
    /// a batch of large multi-row upserts (the click flush) is parsed once, not per chunk.
    private var statements: [String: OpaquePointer] = [:]
    static let statementCacheSize = 16
    /// The pointer an empty text value is bound to (NULL would bind SQL NULL); never freed.
    nonisolated(unsafe) static let emptyText: UnsafePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// The file this connection opened (device, inode), to notice a file renamed over it or deleted.
    let opened: FileID?
    /// Opened read-only and immutable (a read-only mount): nothing can be written through it.
    let readOnly: Bool
    let busyTimeoutMilliseconds: Int32

    /// A file's identity on disk.
    public struct FileID: Equatable, Sendable {
        public var device: UInt64
        public var inode: UInt64
    }

    /// The identity of the file at `path` now (nil: there is none).
    public static func fileID(_ path: String) -> FileID? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Opens (creating when missing) `path`, sets the busy timeout and WAL mode, and checks that
    /// the file is a database at all.
    /// `create: false` fails with `.notFound` instead of creating a missing file (`serve`).
    /// `readOnly: true` opens an existing file read-only and immutable (no -wal or -shm is
    /// created: a read-only mount), for reading the links only.
    init(path: String, busyTimeoutMilliseconds: Int32 = 2000, create: Bool = true, readOnly: Bool = false) throws(LinkStoreError) {
        self.path = path
        self.readOnly = readOnly
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        var handle: OpaquePointer?
        // The identity before and after the open: equal, so the file opened is that one (a
        // rename in between is retried).
        var before = Self.fileID(path)
        var rc: Int32 = SQLITE_OK
        for _ in 0..<3 {
            if readOnly {
                rc = sqlite3_open_v2("file:" + Self.uriPath(path) + "?mode=ro&immutable=1", &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
            } else {
                rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX, nil)
            }
            let after = Self.fileID(path)
            if rc != SQLITE_OK || before == nil || after == before { before = after; break }
            sqlite3_close(handle)
            handle = nil
            before = after
        }
        opened = before
        db = handle
        guard rc == SQLITE_OK, handle != nil else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            db = nil
            if !create && !FileManager.default.fileExists(atPath: path) {
                throw LinkStoreError(
                    .notFound,
                    "the link database \(path) is gone (deleted or moved). Restore it from a backup, or run 'linkwell links add' to start a new one.")
            }
            throw LinkStoreError(
                .cannotOpen,
                "cannot open the link database \(path): \(message). Check that its directory exists and is writable by this user, or set storage.sqlite in the config to another path.")
        }
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        sqlite3_extended_result_codes(handle, 1)
        if readOnly {
            // The first read of the header: a file that is not a database fails here.
            try exec("SELECT count(*) FROM sqlite_master")
            return
        }
        // The -wal and -shm files stay when the last connection closes (checkpointed, not
        // deleted): a server opens a connection per use, and re-creating them each time would
        // make every read need free disk space.
        var persist: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        // …but emptied by the last connection's close: frames of this file left in a -wal that
        // a file renamed over this one would find are never read as its own.
        try exec("PRAGMA journal_size_limit=0")
        // The first read of the header: a file that is not a database fails here.
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA foreign_keys=ON")
    }

    /// `path` for a `file:` URI: `%`, `?` and `#` percent-encoded.
    static func uriPath(_ path: String) -> String {
        var out = ""
        for c in path.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "?": out += "%3f"
            case "#": out += "%23"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Throws when the file at `path` is no longer the one this connection writes to: deleted
    /// or moved (`.notFound`), or another file renamed over it (`.replaced`). `committed`: the
    /// check after a commit (the change went to the old file).
    func checkFile(committed: Bool) throws(LinkStoreError) {
        guard let opened else { return }
        guard let now = Self.fileID(path) else {
            throw LinkStoreError(
                .notFound,
                "the link database \(path) is gone (deleted or moved) \(committed ? "while this change was written, so it is not kept" : "since it was opened; nothing was written"). The short links in memory keep serving, and linkwell does not create an empty file in its place. Restore the file (or move it back), then send the change again.")
        }
        guard now == opened else {
            throw LinkStoreError(
                .replaced,
                committed
                    ? "the link database \(path) was replaced by another file (a restore or a deploy script renamed one over it) while this change was written, so it went to the old file and is not kept. Send it again: it will be written to the new file."
                    : "the link database \(path) was replaced by another file (a restore or a deploy script renamed one over it) since it was opened; nothing was written. Open it again and retry.")
        }
    }

    /// Before closing a connection whose file was replaced or deleted: its changes are moved
    /// into that (old) file and the -wal at the path emptied, so the file now at the path never
    /// reads them as its own.
    func abandon() {
        try? exec("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// SQLite: `BEGIN IMMEDIATE` (the write lock up front, so a busy database fails at BEGIN
    /// instead of half way); the file checked once the lock is held and again after the commit,
    /// so a change written to a file that was replaced or deleted meanwhile is never reported
    /// as stored.
    func transaction<T>(_ body: () throws(LinkStoreError) -> T) throws(LinkStoreError) -> T {
        try exec("BEGIN IMMEDIATE")
        let value: T
        do {
            try checkFile(committed: false)
            value = try body()
            try exec("COMMIT")
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
        try checkFile(committed: true)
        return value
    }

    deinit {
        for stmt in statements.values { sqlite3_finalize(stmt) }
        // SQLite does not checkpoint a file that was moved or deleted when it closes: do it, so
        // no frame of it is left in the -wal at the path.
        if !readOnly, let opened, Self.fileID(path) != opened {
            statements = [:]
            abandon()
        }
        sqlite3_close_v2(db)
    }

    /// Runs statements that return no rows.
    func exec(_ sql: String) throws(LinkStoreError) {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errmsg)
        let message = errmsg.map { String(cString: $0) }
        sqlite3_free(errmsg)
        if rc != SQLITE_OK && rc != SQLITE_ROW { throw error(rc, message: message) }
    }

    /// Prepares, binds and runs `sql`, calling `row` for every result row.
    func query(_ sql: String, _ bindings: [SQLValue], row: (SQLRow) throws(LinkStoreError) -> Void) throws(LinkStoreError) {
        let stmt: OpaquePointer
        let cached: Bool
        if let s = statements[sql] {
            stmt = s
            cached = true
        } else {
            var prepared: OpaquePointer?
            let prc = sqlite3_prepare_v2(db, sql, -1, &prepared, nil)
            guard prc == SQLITE_OK, let prepared else { throw error(prc, message: nil) }
            stmt = prepared
            cached = statements.count < Self.statementCacheSize
            if cached { statements[sql] = stmt }
        }
        defer {
            if cached {
                sqlite3_reset(stmt)
                sqlite3_clear_bindings(stmt)
            } else {
                sqlite3_finalize(stmt)
            }
        }
        // Every text value is copied once into one buffer, bound without a copy of SQLite's own
        // (SQLITE_STATIC) and kept alive until the statement has run: a click flush binds
        // hundreds of thousands of values, and a malloc + copy per value was a third of its time.
        var arena: [UInt8] = []
        var textBytes = 0
        for case let .text(v) in bindings { textBytes += v.utf8.count }
        arena.reserveCapacity(textBytes)
        for case let .text(v) in bindings { arena.append(contentsOf: v.utf8) }
        try arena.withUnsafeBufferPointer { (buffer) throws(LinkStoreError) in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            var offset = 0
            for (i, value) in bindings.enumerated() {
                let index = Int32(i + 1)
                let brc: Int32
                switch value {
                case .null: brc = sqlite3_bind_null(stmt, index)
                case let .integer(v): brc = sqlite3_bind_int64(stmt, index, v)
                case let .text(v):
                    let length = v.utf8.count
                    // An empty text still needs a non-null pointer (NULL would bind SQL NULL).
                    brc = linkwell_sqlite3_bind_text_static(stmt, index, length == 0 ? SQLiteConnection.emptyText : base! + offset, Int32(length))
                    offset += length
                }
                guard brc == SQLITE_OK else { throw error(brc, message: nil) }
            }
            while true {
                let rc = sqlite3_step(stmt)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw error(rc, message: nil) }
                try row(SQLRow(source: .sqlite(stmt)))
            }
            // Reset here, while the buffer the bindings point into is still alive.
            sqlite3_reset(stmt)
        }
    }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    var changes: Int { Int(sqlite3_changes(db)) }

    func error(_ rc: Int32, message: String?) -> LinkStoreError {
        let text = message ?? db.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(rc)"
        let errno = db.map { sqlite3_system_errno($0) } ?? 0
        if rc & 0xFF == SQLITE_FULL || (rc & 0xFF == SQLITE_IOERR && errno == ENOSPC) {
            let dir = (path as NSString).deletingLastPathComponent
            return LinkStoreError(
                .full,
                "the disk holding the link database \(path) is full (\(text)): nothing was written, and the short links served stay as they are. Free space on that volume ('df -h \(dir.isEmpty ? "." : dir)'), or move storage.sqlite to a larger one; then send the change again.")
        }
        if rc & 0xFF == SQLITE_READONLY || (rc & 0xFF == SQLITE_IOERR && errno == EROFS) {
            return LinkStoreError(
                .readOnly,
                "the link database \(path) cannot be written (\(text)): its volume is mounted read-only, or the file or its directory is not writable by this user. Nothing was written; the short links keep serving from memory. Make the file and its directory writable (or remount the volume read-write) to change links.")
        }
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return LinkStoreError(
                .locked,
                "the link database \(path) is locked by another process (\(text)). Another 'linkwell' may be writing a large change, or a tool such as 'sqlite3' holds a transaction open: close it and try again.")
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return LinkStoreError(
                .corrupt,
                "the link database \(path) is not a valid SQLite database (\(text)). Restore it from a backup, or move it away (e.g. 'mv \(path) \(path).broken') to start an empty one, or point storage.sqlite in the config at the right file.")
        case SQLITE_CONSTRAINT:
            return LinkStoreError(.constraint, "the link database \(path) refused the change: \(text)")
        case SQLITE_CANTOPEN, SQLITE_PERM:
            return LinkStoreError(
                .cannotOpen,
                "cannot write the link database \(path) (\(text)). Check that the file and its directory are writable by this user.")
        default:
            return LinkStoreError(.other, "the link database \(path) failed: \(text) (SQLite code \(rc))")
        }
    }
}

extension SQLiteConnection {
    static func columnText(_ stmt: OpaquePointer, _ i: Int32) -> String? {
        guard sqlite3_column_type(stmt, i) != SQLITE_NULL, let p = sqlite3_column_text(stmt, i) else { return nil }
        return String(cString: p)
    }

    static func columnIsNull(_ stmt: OpaquePointer, _ i: Int32) -> Bool {
        sqlite3_column_type(stmt, i) == SQLITE_NULL
    }

    static func columnInteger(_ stmt: OpaquePointer, _ i: Int32) -> Int64? {
        sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : sqlite3_column_int64(stmt, i)
    }
}
