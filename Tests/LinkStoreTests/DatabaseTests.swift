// The storage abstraction on SQLite: `?` → `$n` for libpq, the PostgreSQL texts of the
// migrations (same schema as SQLite's), the change counter of migration 6, and the `storage`
// block's checks. PostgreSQL itself is exercised by tests/live/test_postgres.py (a real server).

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite struct DatabaseTests {
    @Test(arguments: [
        ("SELECT 1", "SELECT 1", 0),
        ("INSERT INTO t (a, b) VALUES (?, ?)", "INSERT INTO t (a, b) VALUES ($1, $2)", 2),
        ("WHERE a = ? AND b = '?' AND c = ?", "WHERE a = $1 AND b = '?' AND c = $2", 2),
        ("WHERE a = 'it''s ?' AND b = ?", "WHERE a = 'it''s ?' AND b = $1", 1),
        (#"SELECT "odd?name" FROM t WHERE x = ?"#, #"SELECT "odd?name" FROM t WHERE x = $1"#, 1),
        ("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2", 2),
        ("SELECT /* ? */ ?", "SELECT /* ? */ $1", 1),
        ("SELECT $$ ? $$, ?", "SELECT $$ ? $$, $1", 1),
        ("SELECT $fn$ it's ? $fn$, ?", "SELECT $fn$ it's ? $fn$, $1", 1),
        ("SELECT $1, ?", "SELECT $1, $1", 1),
        ("SELECT 'unterminated ?", "SELECT 'unterminated ?", 0),
        ("SELECT é, ?", "SELECT é, $1", 1),
        ("?,?,?,?,?,?,?,?,?,?,?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11", 11),
    ])
    func placeholdersBecomeNumbered(sql: String, expected: String, count: Int) {
        let (translated, n) = SQLTranslation.postgresPlaceholders(sql)
        #expect(translated == expected)
        #expect(n == count)
    }

    /// v1 and v2 on PostgreSQL: the SQLite texts without `WITHOUT ROWID` and with BIGINT for
    /// INTEGER; both rewrites must find what they rewrite, and leave nothing of it.
    @Test(arguments: [(1, 1, 3), (2, 0, 2)])
    func postgresMigrationRewritesStorageDetails(version: Int, withoutRowid: Int, integers: Int) throws {
        let sqlite = try #require(LinkStore.migrations.first { $0.version == version }).sql
        let postgres = try #require(LinkStore.postgresMigrations[version])
        #expect(sqlite.components(separatedBy: ") WITHOUT ROWID;").count - 1 == withoutRowid)
        #expect(sqlite.components(separatedBy: " INTEGER").count - 1 == integers)
        #expect(!postgres.contains("ROWID") && !postgres.contains("INTEGER"))
        #expect(postgres.components(separatedBy: " BIGINT").count - 1 == integers)
        #expect(postgres.count == sqlite.count - withoutRowid * " WITHOUT ROWID".count + integers * (" BIGINT".count - " INTEGER".count))
    }

    @Test func migrationsHaveUniqueVersionsAndTheNewestIsCurrent() {
        let versions = LinkStore.migrations.map(\.version)
        #expect(Set(versions).count == versions.count)
        #expect(LinkStore.currentVersion == versions.max())
        #expect(LinkStore.postgresMigrations.keys.allSatisfy(Set(versions).contains))
        // New migrations write portable SQL: nothing SQLite-only after v2, unless the migration
        // has its own PostgreSQL text (v6's triggers, v7's storage layout).
        for m in LinkStore.migrations where m.version > 2 && LinkStore.postgresMigrations[m.version] == nil {
            for word in ["WITHOUT ROWID", "AUTOINCREMENT", "INSERT OR REPLACE"] {
                #expect(!m.sql.uppercased().contains(word), "migration \(m.version) uses \(word)")
            }
        }
    }

    @Test func everyWriteOfLinksBumpsTheRevision() throws {
        let dir = try TempDir()
        let path = dir.path("rev.db")
        let store = try LinkStore(path: path)
        let start = try store.revision()
        try store.insert(LinkStoreTests.fullLink())
        let afterInsert = try store.revision()
        #expect(afterInsert > start)
        try store.setDisabled(true, site: "fitconnect", code: "abc123")
        let afterUpdate = try store.revision()
        #expect(afterUpdate > afterInsert)
        // Another connection (another process: the CLI while the server runs) is seen too.
        try SQLiteConnection(path: path).exec("DELETE FROM links")
        #expect(try store.revision() > afterUpdate)
        let settled = try store.revision()
        #expect(try store.revision() == settled)  // reading does not bump it
    }

    @Test func aVersionTwoFileGetsTheCounterAndKeepsItsLinks() throws {
        let dir = try TempDir()
        let path = dir.path("v2.db")
        _ = try LinkStore(path: path, upTo: 2)
        // Written with the v2 columns only (a v2 file has no later ones).
        try SQLiteConnection(path: path).query(
            "INSERT INTO links (site, code, target, preview_title, forced_redirect, disabled, created_at, updated_at) VALUES ('fitconnect', 'abc123', 'https://fitconnect.app/workout/42', 'Leg day', 1, 0, 1764000000, 1764000000)")
        let store = try LinkStore(path: path)
        let kept = ShortLink(code: "abc123", site: "fitconnect", target: "https://fitconnect.app/workout/42", previewTitle: "Leg day",
                             forcedRedirect: true, createdAt: Date(timeIntervalSince1970: 1_764_000_000))
        #expect(try store.links() == [kept])
        let before = try store.revision()
        try store.delete(site: "fitconnect", code: "abc123")
        #expect(try store.revision() == before + 1)
    }

    /// Migration 7 rebuilds the click tables `WITHOUT ROWID`: a version-6 file keeps every count.
    @Test func aVersionSixFileKeepsItsClickCounts() throws {
        let dir = try TempDir()
        let path = dir.path("v6.db")
        let old = try LinkStore(path: path, upTo: 6)
        try old.addClicks([ClickStoreTests.row(20261130, 3), ClickStoreTests.row(20261201, 5, p: .android, o: .store, inApp: true)],
                          referrers: [ClickStoreTests.ref(20261201, "t.co", 4), ClickStoreTests.ref(20261201, "", 1)])
        try old.maintainClicks(today: 20270301, retentionDays: 30, referrersPerDay: 10)  // both days into months
        try old.addClicks([ClickStoreTests.row(20270301, 2, crawler: true)], referrers: [ClickStoreTests.ref(20270301, "mail.google.com", 2)])
        let before = try old.clickReport(ClickQuery())
        #expect(before.total == 10)

        let store = try LinkStore(path: path)
        #expect(try store.clickReport(ClickQuery()) == before)
        var layouts: [String: String] = [:]
        try SQLiteConnection(path: path).query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'click%'", []) { r in
            layouts[r.text(0) ?? ""] = r.text(1) ?? ""
        }
        let perLink = ["click_referrers_daily", "click_referrers_monthly", "clicks_daily", "clicks_monthly"]
        // Migration 11 adds the per-site tables beside them (ClickRollups.swift), filled from them.
        #expect(layouts.keys.sorted() == (perLink + ["click_referrers_site_daily", "click_referrers_site_monthly", "clicks_site_daily",
                                                     "clicks_site_monthly", "clicks_top_daily"]).sorted())
        #expect(perLink.allSatisfy { layouts[$0]?.hasSuffix("WITHOUT ROWID") == true })
        // Counts still add up on the new tables.
        try store.addClicks([ClickStoreTests.row(20270301, 1, crawler: true)], referrers: [ClickStoreTests.ref(20270301, "mail.google.com", 1)])
        let after = try store.clickReport(ClickQuery())
        #expect(after.total == 11 && after.crawlers == 3)
        // "" is the stored row of the v6 file (1) plus the clicks in no referrer row (3).
        #expect(after.referrers == [.init(name: "", clicks: 4), .init(name: "t.co", clicks: 4), .init(name: "mail.google.com", clicks: 3)])
    }

    /// Text values are bound from one buffer without SQLite's copy: empty, non-ASCII and long
    /// values next to integers and NULLs come back as written.
    @Test func boundTextComesBackByteForByte() throws {
        let dir = try TempDir()
        let db = try SQLiteConnection(path: dir.path("t.db"))
        try db.exec("CREATE TABLE t (i BIGINT, a TEXT, b TEXT, c TEXT)")
        let long = String(repeating: "ü✓x", count: 5_000)
        let rows: [[SQLValue]] = [
            [.integer(1), .text(""), .text("é"), .null],
            [.integer(2), .text(long), .text(""), .text("a\tb")],
            [.integer(3), .null, .text("日本語のリンク"), .text("")],
        ]
        for r in rows { try db.query("INSERT INTO t (i, a, b, c) VALUES (?, ?, ?, ?)", r) }
        var read: [[SQLValue]] = []
        try db.query("SELECT i, a, b, c FROM t WHERE i >= ? ORDER BY i", [.integer(1)]) { r in
            read.append([.integer(r.integer(0) ?? -1)] + (1...3).map { r.isNull(Int32($0)) ? .null : .text(r.text(Int32($0)) ?? "?") })
        }
        #expect(read == rows)
        // Bound as parameters of a query too (the arena is per call).
        var found = 0
        try db.query("SELECT count(*) FROM t WHERE a = ? OR b = ? OR c = ?", [.text(long), .text("日本語のリンク"), .text("no")]) { r in
            found = Int(r.integer(0) ?? 0)
        }
        #expect(found == 2)
    }

    @Test func migrationAppliedMeanwhileIsNotAppliedTwice() throws {
        let dir = try TempDir()
        let path = dir.path("race.db")
        let db = try SQLiteConnection(path: path)
        try LinkStore.migrate(db, upTo: LinkStore.currentVersion)
        // As if a second process read the applied list before the first finished: migrate sees
        // every version done inside its transaction and skips it.
        try LinkStore.migrate(db, upTo: LinkStore.currentVersion)
        #expect(try LinkStore.appliedVersions(db) == LinkStore.migrations.map(\.version).sorted())
    }

    @Test(arguments: [
        ("postgresql://linkwell@127.0.0.1:5433/linkwell", "postgresql://linkwell@127.0.0.1:5433/linkwell"),
        ("postgresql://linkwell:s3cret@db.internal/links", "postgresql://linkwell@db.internal/links"),
        ("host=/run/postgresql dbname=links user=lw", "postgresql://lw@/run/postgresql/links"),
        ("host=::1 port=5432 dbname=x password=hunter2", "postgresql://[::1]:5432/x"),
        ("postgresql://", "postgresql://localhost"),
        ("not a = conn'", "(an unreadable PostgreSQL connection string)"),
    ])
    func connectionStringsAreShownWithoutPassword(conninfo: String, shown: String) {
        #expect(PostgresConnection.redacted(conninfo) == shown)
        #expect(!StorageLocation.postgres(conninfo: conninfo, password: "pw").description.contains("s3cret"))
    }

    @Test func passwordComesFromTheFileThenTheEnvironment() throws {
        let dir = try TempDir()
        try "s3cret\nignored\n".write(toFile: dir.path("pg.pass"), atomically: true, encoding: .utf8)
        let config = dir.path("linkwell.json5")
        let withFile = StorageSettings(postgres: "postgresql://lw@127.0.0.1/lw", passwordFile: "pg.pass")
        #expect(try StorageLocation.of(storage: withFile, configPath: config, environment: ["LINKWELL_POSTGRES_PASSWORD": "env"])
            == .postgres(conninfo: "postgresql://lw@127.0.0.1/lw", password: "s3cret"))
        let noFile = StorageSettings(postgres: "postgresql://lw@127.0.0.1/lw")
        #expect(try StorageLocation.of(storage: noFile, configPath: config, environment: ["LINKWELL_POSTGRES_PASSWORD": "env"])
            == .postgres(conninfo: "postgresql://lw@127.0.0.1/lw", password: "env"))
        #expect(try StorageLocation.of(storage: noFile, configPath: config, environment: [:]) == .postgres(conninfo: "postgresql://lw@127.0.0.1/lw", password: nil))
        #expect(try StorageLocation.of(storage: nil, configPath: config, environment: [:]) == .sqlite(path: dir.path("linkwell.db")))
        let missing = StorageSettings(postgres: "postgresql://lw@127.0.0.1/lw", passwordFile: "nope.pass")
        let error = #expect(throws: LinkStoreError.self) { try StorageLocation.of(storage: missing, configPath: config, environment: [:]) }
        #expect(error?.description.contains("cannot read storage.passwordFile \(dir.path("nope.pass"))") == true)
    }

    @Test(arguments: [
        (#"{ sqlite: "a.db", postgres: "postgresql://lw@h/lw" }"#, "storage has both sqlite and postgres"),
        (#"{ passwordFile: "pw" }"#, "storage.passwordFile is only read for PostgreSQL"),
        (#"{ postgres: "" }"#, "storage.postgres is empty"),
        (#"{ postgres: "links-db" }"#, "storage.postgres 'links-db' is not a libpq connection string"),
        (#"{ postgres: "postgresql://lw:hunter2@h/lw" }"#, "storage.postgres holds a password (user:password@…)"),
        (#"{ postgres: "postgresql://lw@h/lw?password=hunter2" }"#, "storage.postgres holds a password (password=…)"),
        (#"{ postgres: "host=h password=hunter2" }"#, "storage.postgres holds a password (password=…)"),
        (#"{ postgres: "postgresql://lw@127.0.0.1:5433/lw" }"#, nil),
        (#"{ postgres: "host=127.0.0.1 dbname=lw", passwordFile: "pw" }"#, nil),
    ] as [(String, String?)])
    func storageBlockIsChecked(block: String, error: String?) throws {
        let text = #"{ storage: \#(block), sites: [{ domains: ["a.example"], routes: [] }] }"#
        let (config, _) = try ConfigLoader.decode(Data(text.utf8), file: "c.json5")
        let errors = config.validate().filter { $0.severity == .error && $0.path.hasPrefix("storage") }
        if let error {
            #expect(errors.count == 1)
            #expect(errors.first?.message.contains(error) == true, "\(errors)")
            #expect(errors.allSatisfy { !$0.description.contains("hunter2") })
        } else {
            #expect(errors.isEmpty, "\(errors)")
        }
    }
}
