// The short-link store: a SQLite file (WAL mode, busy timeout) or a PostgreSQL database, its
// schema brought up to date by numbered migrations recorded in `schema_migrations`. Nothing here
// runs on the request path: the server reads all links once per change into an in-memory index.

import Foundation
import LinkRouting
import Synchronization

/// Short links in a SQLite or PostgreSQL database. Safe to share between threads (calls are serialised).
public final class LinkStore: Sendable {
    /// Where the links are: the database file, or the PostgreSQL connection string without password.
    public let path: String
    /// Which engine holds them.
    public let dialect: SQLDialect
    private let connection: Mutex<ConnectionBox>

    /// The schema, one migration per version, applied in order inside a transaction each.
    /// Never edit a released migration: append a new one.
    static let migrations: [(version: Int, name: String, sql: String)] = [
        (
            1, "links",
            """
            CREATE TABLE links (
                site TEXT NOT NULL,
                code TEXT NOT NULL,
                target TEXT NOT NULL,
                disabled INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (site, code)
            ) WITHOUT ROWID;
            """
        ),
        (
            2, "link overrides",
            """
            ALTER TABLE links ADD COLUMN preview_title TEXT;
            ALTER TABLE links ADD COLUMN preview_description TEXT;
            ALTER TABLE links ADD COLUMN preview_image TEXT;
            ALTER TABLE links ADD COLUMN ios_fallback TEXT;
            ALTER TABLE links ADD COLUMN android_fallback TEXT;
            ALTER TABLE links ADD COLUMN desktop_fallback TEXT;
            ALTER TABLE links ADD COLUMN forced_redirect INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE links ADD COLUMN expires_at INTEGER;
            """
        ),
        (
            3, "api tokens",
            // Bearer tokens of the admin API (APIToken.swift): the SHA-256 of the token, never the token.
            """
            CREATE TABLE api_tokens (
                name TEXT NOT NULL,
                hash TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT,
                revoked BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (name)
            );
            CREATE UNIQUE INDEX api_tokens_hash ON api_tokens (hash);
            """
        ),
        (4, "click counts", LinkStore.clickSchema),
        FDLParameters.migration,
        (
            // A counter every change of `links` bumps (triggers, so every writer counts): the
            // server polls it to pick up links written by other processes (PostgreSQL: see
            // `postgresMigrations`, which also NOTIFYs).
            6, "links revision",
            """
            CREATE TABLE links_revision (id BIGINT NOT NULL PRIMARY KEY, revision BIGINT NOT NULL);
            INSERT INTO links_revision (id, revision) VALUES (1, 0);
            CREATE TRIGGER links_revision_insert AFTER INSERT ON links
                BEGIN UPDATE links_revision SET revision = revision + 1 WHERE id = 1; END;
            CREATE TRIGGER links_revision_update AFTER UPDATE ON links
                BEGIN UPDATE links_revision SET revision = revision + 1 WHERE id = 1; END;
            CREATE TRIGGER links_revision_delete AFTER DELETE ON links
                BEGIN UPDATE links_revision SET revision = revision + 1 WHERE id = 1; END;
            """
        ),
        (7, "click tables keyed by their primary key", LinkStore.clickTablesWithoutRowid),
        // The links change log (LinkStore+Changes.swift): the refresher reads only what changed.
        LinkStore.changeLogMigration,
        // App-open counts per link, route and day (AppOpenStore.swift).
        LinkStore.appOpenMigration,
        // Token scopes and the audit log (AuditLog.swift).
        LinkStore.auditMigration,
        // The console's sessions (ConsoleSessionStore.swift).
        LinkStore.consoleSessionMigration,
        // The console's list: by creation time, by recent clicks, searched (LinkStore+Console.swift).
        (LinkStore.linkListVersion, "links list indexes", LinkStore.linkListIndex),
    ]

    /// The schema version this build writes.
    /// (The highest number: migrations merged from several branches need not be in order.)
    public static var currentVersion: Int { migrations.map(\.version).max()! }

    /// A migration's text for `dialect`: the portable text, unless PostgreSQL needs its own.
    static func sql(of migration: (version: Int, name: String, sql: String), for dialect: SQLDialect) -> String {
        dialect == .postgres ? postgresMigrations[migration.version] ?? migration.sql : migration.sql
    }

    /// The variable that names the SQLite file when the config has no `storage.sqlite`: for a
    /// config on a read-only mount (systemd's `ProtectSystem=strict` with `StateDirectory=`).
    public static let databaseVariable = "LINKWELL_DATABASE"

    /// The database file a config uses: `storage.sqlite` relative to the config file's
    /// directory (absolute paths as they are), else `$LINKWELL_DATABASE` (the same rules), else
    /// `linkwell.db` beside the config file — or in ``dataDirectory`` when the config's directory
    /// is not writable (a read-only config mount), that directory exists and no `linkwell.db`
    /// is beside the config already.
    public static func databasePath(
        storage: StorageSettings?, configPath: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        dataDirectory: String = LinkStore.dataDirectory
    ) -> String {
        databaseChoice(storage: storage, configPath: configPath, environment: environment, dataDirectory: dataDirectory).path
    }

    /// The data directory of the container image (a declared volume) and of packages: where the
    /// link database goes when the config sits on a read-only mount and names no file.
    public static let dataDirectory = "/var/lib/linkwell"

    /// ``databasePath`` and, when it is in the data directory because the config's directory is
    /// not writable, a sentence saying so (logged by `serve` at start).
    public static func databaseChoice(
        storage: StorageSettings?, configPath: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        dataDirectory: String = LinkStore.dataDirectory, isWritable: (String) -> Bool = { access($0, W_OK) == 0 }
    ) -> (path: String, defaulted: String?) {
        let dir = (configPath as NSString).deletingLastPathComponent
        func resolved(_ file: String) -> String {
            if file.hasPrefix("/") { return file }
            return dir.isEmpty ? file : (dir as NSString).appendingPathComponent(file)
        }
        if let file = storage?.sqlite ?? environment[databaseVariable].flatMap({ $0.isEmpty ? nil : $0 }) { return (resolved(file), nil) }
        let beside = resolved("linkwell.db")
        var isDirectory: ObjCBool = false
        guard !FileManager.default.fileExists(atPath: beside), !isWritable(dir.isEmpty ? "." : dir),
              FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory), isDirectory.boolValue else { return (beside, nil) }
        let path = (dataDirectory as NSString).appendingPathComponent("linkwell.db")
        return (path, "the config's directory \(dir.isEmpty ? "." : dir) is not writable by this user (a read-only mount), so the link database is \(path), in the data directory \(dataDirectory) (the container image's volume); set storage.sqlite to choose another file")
    }

    /// Opens the SQLite file `path` (creating it when missing) and migrates it to ``currentVersion``.
    /// `upTo` stops at an older version (tests of the migrations).
    public convenience init(path: String, upTo version: Int? = nil, busyTimeoutMilliseconds: Int32 = 2000) throws(LinkStoreError) {
        try self.init(connection: try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds), upTo: version)
    }

    /// Opens the database at `location` and migrates it to ``currentVersion`` (`upTo`: an older one).
    public convenience init(_ location: StorageLocation, upTo version: Int? = nil) throws(LinkStoreError) {
        try self.init(connection: try location.connect(), upTo: version)
    }

    /// Opens an existing, already migrated database to read it (the server's link refresher):
    /// a missing SQLite file is `.notFound` instead of being created, and nothing is migrated.
    /// `busyTimeoutMilliseconds`: how long SQLite waits for a lock before `.locked`.
    /// A SQLite file that exists but cannot be opened for writing (a read-only mount, where
    /// SQLite cannot create its -shm file) is opened read-only and immutable instead.
    public convenience init(reading location: StorageLocation, busyTimeoutMilliseconds: Int32 = 250) throws(LinkStoreError) {
        let db: any DatabaseConnection
        do throws(LinkStoreError) {
            db = try location.connect(busyTimeoutMilliseconds: busyTimeoutMilliseconds, create: false)
        } catch where [.cannotOpen, .readOnly].contains(error.kind) {
            guard case let .sqlite(path) = location, let readOnly = try? SQLiteConnection(path: path, create: false, readOnly: true) else { throw error }
            db = readOnly
        }
        try self.init(connection: db, upTo: nil, migrating: false)
    }

    /// Opens an existing database to change it (the server's admin API and click flush): a
    /// missing SQLite file is `.notFound` — never created behind the operator's back — and an
    /// older schema is migrated.
    public convenience init(writing location: StorageLocation, busyTimeoutMilliseconds: Int32 = 2000) throws(LinkStoreError) {
        try self.init(connection: try location.connect(busyTimeoutMilliseconds: busyTimeoutMilliseconds, create: false), upTo: nil)
    }

    /// True when the connection was opened read-only (``init(reading:busyTimeoutMilliseconds:)``
    /// on a read-only volume).
    public var isReadOnly: Bool { (try? withDB { db throws(LinkStoreError) in (db as? SQLiteConnection)?.readOnly ?? false }) ?? false }

    init(connection db: any DatabaseConnection, upTo version: Int?, migrating: Bool = true) throws(LinkStoreError) {
        path = db.location
        dialect = db.dialect
        if migrating { try LinkStore.migrate(db, upTo: version ?? LinkStore.currentVersion) }
        var reopen: (@Sendable () throws(LinkStoreError) -> any DatabaseConnection)?
        if let sqlite = db as? SQLiteConnection, !sqlite.readOnly {
            // A file replaced or deleted under a kept store: the connection is closed, and the
            // next use opens the file at the path (never creating one), migrated like this one.
            let (path, timeout) = (sqlite.path, sqlite.busyTimeoutMilliseconds)
            reopen = { () throws(LinkStoreError) -> any DatabaseConnection in
                let db = try SQLiteConnection(path: path, busyTimeoutMilliseconds: timeout, create: false)
                if migrating { try LinkStore.migrate(db, upTo: version ?? LinkStore.currentVersion) }
                return db
            }
        }
        connection = Mutex(ConnectionBox(db: db, reopen: reopen))
    }

    /// The versions recorded in `schema_migrations`, in order.
    public func appliedVersions() throws(LinkStoreError) -> [Int] {
        try withDB { db throws(LinkStoreError) in try LinkStore.appliedVersions(db) }
    }

    static func appliedVersions(_ db: any DatabaseConnection) throws(LinkStoreError) -> [Int] {
        var versions: [Int] = []
        try db.query("SELECT version FROM schema_migrations ORDER BY version") { row in versions.append(Int(row.integer(0) ?? 0)) }
        return versions
    }

    static func migrate(_ db: any DatabaseConnection, upTo target: Int) throws(LinkStoreError) {
        // Several instances may start at once on one PostgreSQL database: one migrates, the
        // others wait here and then find nothing left to do.
        if db.dialect == .postgres { try db.exec("SELECT pg_advisory_lock(\(migrationLockKey))") }
        defer { if db.dialect == .postgres { try? db.exec("SELECT pg_advisory_unlock(\(migrationLockKey))") } }
        try db.exec(
            db.dialect == .postgres
                ? "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
                : "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)")
        let applied = Set(try appliedVersions(db))
        if let newest = applied.max(), newest > currentVersion {
            throw LinkStoreError(
                .tooNew,
                "the link database \(db.location) has schema version \(newest), newer than this linkwell knows (\(currentVersion)). Run the newer linkwell that wrote it, or restore a backup taken before the upgrade.")
        }
        for m in migrations.sorted(by: { $0.version < $1.version }) where m.version <= target && !applied.contains(m.version) {
            try db.transaction { () throws(LinkStoreError) in
                // Another process (a second 'linkwell links' on the same SQLite file) may have
                // applied it since the read above; the transaction holds the write lock now.
                var done = false
                try db.query("SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(Int64(m.version))]) { _ in done = true }
                if done { return }
                try db.exec(sql(of: m, for: db.dialect))
                try db.query(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.integer(Int64(m.version)), .text(m.name), .date(Date())])
            }
        }
    }

    /// The `pg_advisory_lock` key the migrations hold (any constant; "lw" in ASCII).
    static let migrationLockKey = 0x6C77

    func withDB<T>(_ body: (any DatabaseConnection) throws(LinkStoreError) -> T) throws(LinkStoreError) -> T {
        let result: Result<T, LinkStoreError> = connection.withLock { box in
            do throws(LinkStoreError) {
                if box.db == nil, let reopen = box.reopen { box.db = try reopen() }
                guard let db = box.db else { throw LinkStoreError(.notFound, "the link database \(path) is gone (deleted or moved). Restore it from a backup.") }
                return .success(try body(db))
            } catch {
                // Never keep writing to a file that is no longer the one at the path.
                // A file corrupted or unreadable now may be restored in place: read it afresh then.
                if [.replaced, .notFound, .corrupt, .cannotOpen].contains(error.kind), box.reopen != nil { box.db = nil }  // see SQLiteConnection.deinit
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Links

    static let columns =
        "site, code, target, preview_title, preview_description, preview_image, ios_fallback, android_fallback, desktop_fallback, forced_redirect, expires_at, disabled, created_at, updated_at, "
        + FDLParameters.columns.joined(separator: ", ")
    static let placeholders = Array(repeating: "?", count: 14 + FDLParameters.columns.count).joined(separator: ", ")

    static func values(_ l: ShortLink) -> [SQLValue] {
        [
            .text(l.site), .text(l.code), .text(l.target), .text(l.previewTitle), .text(l.previewDescription), .text(l.previewImage),
            .text(l.iosFallback), .text(l.androidFallback), .text(l.desktopFallback), .bool(l.forcedRedirect), .date(l.expiresAt),
            .bool(l.disabled), .date(l.createdAt), .date(l.updatedAt),
        ] + (l.fdl ?? FDLParameters()).values
    }

    static func link(_ r: SQLRow) -> ShortLink {
        ShortLink(
            code: r.text(1) ?? "", site: r.text(0) ?? "", target: r.text(2) ?? "",
            previewTitle: r.text(3), previewDescription: r.text(4), previewImage: r.text(5),
            iosFallback: r.text(6), androidFallback: r.text(7), desktopFallback: r.text(8),
            forcedRedirect: r.bool(9), expiresAt: r.date(10), disabled: r.bool(11),
            createdAt: r.date(12) ?? Date(timeIntervalSince1970: 0), updatedAt: r.date(13),
            fdl: FDLParameters.read(r, from: 14))
    }

    private static let fdlUpdates = FDLParameters.columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// Adds a new link; fails with `.constraint` when the site already has this code.
    public func insert(_ link: ShortLink) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in
            do throws(LinkStoreError) {
                try db.transaction { () throws(LinkStoreError) in
                    try db.query(
                        "INSERT INTO links (\(LinkStore.columns)) VALUES (\(LinkStore.placeholders))", LinkStore.values(link))
                }
            } catch where error.kind == .constraint {
                throw LinkStoreError(
                    .constraint, "site '\(link.site)' already has a short link '\(link.code)'; pick another code, or let linkwell generate one.")
            }
        }
    }

    /// Adds the link, or replaces the one with its site and code (keeping its creation time).
    public func upsert(_ link: ShortLink) throws(LinkStoreError) {
        try upsert([link])
    }

    /// The link with this code on `site`, or nil.
    public func link(site: String, code: String) throws(LinkStoreError) -> ShortLink? {
        try withDB { db throws(LinkStoreError) in
            var found: ShortLink?
            try db.query("SELECT \(LinkStore.columns) FROM links WHERE site = ? AND code = ?", [.text(site), .text(code)]) { found = LinkStore.link($0) }
            return found
        }
    }

    /// Every link (of `site` when given), ordered by site and code.
    public func links(site: String? = nil) throws(LinkStoreError) -> [ShortLink] {
        try withDB { db throws(LinkStoreError) in
            var out: [ShortLink] = []
            if let site {
                try db.query("SELECT \(LinkStore.columns) FROM links WHERE site = ? ORDER BY code", [.text(site)]) { out.append(LinkStore.link($0)) }
            } else {
                try db.query("SELECT \(LinkStore.columns) FROM links ORDER BY site, code") { out.append(LinkStore.link($0)) }
            }
            return out
        }
    }

    /// Sets `disabled` (and `updated_at`); false when there is no such link.
    @discardableResult
    public func setDisabled(_ disabled: Bool, site: String, code: String, now: Date = Date()) throws(LinkStoreError) -> Bool {
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                try db.query(
                    "UPDATE links SET disabled = ?, updated_at = ? WHERE site = ? AND code = ?", [.bool(disabled), .date(now), .text(site), .text(code)])
                return db.changes > 0
            }
        }
    }

    /// Adds or replaces `links` (as ``upsert(_:)``) in one transaction: all or none.
    public func upsert(_ links: [ShortLink]) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                for link in links {
                    try db.query(
                        """
                        INSERT INTO links (\(LinkStore.columns)) VALUES (\(LinkStore.placeholders))
                        ON CONFLICT (site, code) DO UPDATE SET target = excluded.target, preview_title = excluded.preview_title,
                          preview_description = excluded.preview_description, preview_image = excluded.preview_image,
                          ios_fallback = excluded.ios_fallback, android_fallback = excluded.android_fallback,
                          desktop_fallback = excluded.desktop_fallback, forced_redirect = excluded.forced_redirect,
                          expires_at = excluded.expires_at, disabled = excluded.disabled, updated_at = excluded.updated_at,
                          \(LinkStore.fdlUpdates)
                        """, LinkStore.values(link))
                }
            }
        }
    }

    /// Deletes the link; false when there is no such link.
    @discardableResult
    public func delete(site: String, code: String) throws(LinkStoreError) -> Bool {
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                try db.query("DELETE FROM links WHERE site = ? AND code = ?", [.text(site), .text(code)])
                return db.changes > 0
            }
        }
    }
}

/// The connection inside the store's mutex (a class, so the Mutex holds a reference).
struct ConnectionBox: @unchecked Sendable {
    /// nil after the file was replaced or deleted, until the next use reopens it.
    var db: (any DatabaseConnection)?
    let reopen: (@Sendable () throws(LinkStoreError) -> any DatabaseConnection)?
}
