// Where a config's links live (its `storage` block), the password of a PostgreSQL database, and
// the change signals the server's link-index refresher waits on.

import Foundation
import LinkRouting
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The database a config names: a SQLite file or a PostgreSQL connection string.
public enum StorageLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    /// `password` came from `storage.passwordFile` or `LINKWELL_POSTGRES_PASSWORD` (nil: libpq's
    /// own `PGPASSWORD` / `~/.pgpass`, or none). It is never part of `description`.
    case postgres(conninfo: String, password: String?)

    /// The environment variable read for the PostgreSQL password when there is no password file.
    public static let passwordVariable = "LINKWELL_POSTGRES_PASSWORD"

    /// The location of `storage` for the config at `configPath`: `storage.postgres` when set,
    /// else the SQLite file (`storage.sqlite`, default `linkwell.db` beside the config file).
    /// Throws when the password file cannot be read.
    public static func of(
        storage: StorageSettings?, configPath: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LinkStoreError) -> StorageLocation {
        guard let conninfo = storage?.postgres else {
            return .sqlite(path: LinkStore.databasePath(storage: storage, configPath: configPath, environment: environment))
        }
        if let file = storage?.passwordFile {
            let path = resolve(file, configPath: configPath)
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw LinkStoreError(
                    .cannotOpen,
                    "cannot read storage.passwordFile \(path) (the PostgreSQL password). Check that it exists and is readable by this user (chmod 600, owned by the user running linkwell).")
            }
            let password = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return .postgres(conninfo: conninfo, password: password)
        }
        return .postgres(conninfo: conninfo, password: environment[passwordVariable].flatMap { $0.isEmpty ? nil : $0 })
    }

    static func resolve(_ file: String, configPath: String) -> String {
        if file.hasPrefix("/") { return file }
        let dir = (configPath as NSString).deletingLastPathComponent
        return dir.isEmpty ? file : (dir as NSString).appendingPathComponent(file)
    }

    /// The file, or the connection string without password.
    public var description: String {
        switch self {
        case let .sqlite(path): path
        case let .postgres(conninfo, _): PostgresConnection.redacted(conninfo)
        }
    }

    public var dialect: SQLDialect {
        switch self {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    /// False for a SQLite file that does not exist yet (`serve` does not create it; the first
    /// `linkwell links add` does). A PostgreSQL database always "exists": connecting tells.
    public var exists: Bool {
        switch self {
        case let .sqlite(path): FileManager.default.fileExists(atPath: path)
        case .postgres: true
        }
    }

    func connect(busyTimeoutMilliseconds: Int32 = 2000, create: Bool = true) throws(LinkStoreError) -> any DatabaseConnection {
        switch self {
        case let .sqlite(path):
            return try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, create: create)
        case let .postgres(conninfo, password):
            if case let .failure(error) = PostgresConnection.parseOrExplain(conninfo) { throw error }
            return try PostgresConnection(conninfo: conninfo, password: password)
        }
    }
}

extension LinkStore {
    /// The change counter the triggers of migration 6 bump on every write of `links` (by any
    /// process). Equal numbers: nothing changed in between.
    public func revision() throws(LinkStoreError) -> Int64 {
        try withDB { db throws(LinkStoreError) in
            var revision: Int64 = 0
            try db.query("SELECT revision FROM links_revision WHERE id = 1") { revision = $0.integer(0) ?? 0 }
            return revision
        }
    }
}

/// A connection that receives PostgreSQL's `NOTIFY linkwell_links` (sent by the trigger of
/// migration 6 when any instance commits a change to `links`). Used by one thread.
public final class LinkChangeListener: @unchecked Sendable {
    private let connection: PostgresConnection

    /// Connects to `location` (PostgreSQL only; nil for SQLite, which has no notifications) and
    /// LISTENs.
    public init?(_ location: StorageLocation) throws(LinkStoreError) {
        guard case .postgres = location, let db = try location.connect() as? PostgresConnection else { return nil }
        connection = db
        try connection.listen(LinkStore.postgresChannel)
    }

    /// Waits up to `milliseconds`; true when a change was notified. Throws when the connection
    /// is lost (make a new listener to reconnect).
    public func wait(milliseconds: Int32) throws(LinkStoreError) -> Bool {
        try connection.waitForNotifications(milliseconds: milliseconds) > 0
    }
}

extension StorageLocation {
    /// Why links cannot be written here, or nil: for a SQLite file, its volume is mounted
    /// read-only, or the file or its directory (SQLite writes its -wal and -shm files beside it)
    /// is not writable by this user. PostgreSQL: nil (the server says so at the write).
    public var writeProblem: String? {
        guard case let .sqlite(path) = self else { return nil }
        let dir = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let exists = FileManager.default.fileExists(atPath: path)
        for (file, what) in (exists ? [(path, "the file"), (dir, "its directory")] : [(dir, "its directory")]) where access(file, W_OK) != 0 {
            let reason = errno == EROFS ? "is on a read-only volume" : "is not writable by this user (\(String(cString: strerror(errno))))"
            return "\(what) \(file) \(reason)"
        }
        return nil
    }
}

/// One lock per SQLite file for the whole process: the server's users of a file (admin API,
/// click flush, link refresher) take turns, so the process never holds connections to two
/// different files at one path — an old one renamed away and its replacement — whose -wal and
/// -shm files (named by the path) SQLite would mix up.
public enum SQLiteFileGate {
    private static let locks = Mutex<[String: NSLock]>([:])

    /// Runs `body` holding the lock of `location`'s file (PostgreSQL: no lock).
    public static func withAccess<T, E: Error>(_ location: StorageLocation?, _ body: () throws(E) -> T) throws(E) -> T {
        guard case let .sqlite(path)? = location else { return try body() }
        let lock = locks.withLock { locks in
            if let l = locks[path] { return l }
            let l = NSLock()
            locks[path] = l
            return l
        }
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
