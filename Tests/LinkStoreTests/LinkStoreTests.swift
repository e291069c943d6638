// The SQLite store: migrations from an empty file and from version 1, every field through a
// round trip, the write operations, and the errors for a corrupted, locked or too-new file.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

/// A fresh directory per test, removed afterwards.
final class TempDir {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("linkstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite struct LinkStoreTests {
    static let created = Date(timeIntervalSince1970: 1_764_000_000)

    static func fullLink() -> ShortLink {
        ShortLink(
            code: "abc123", site: "fitconnect", target: "https://fitconnect.app/workout/42",
            previewTitle: "Leg day", previewDescription: "45 minutes, no equipment", previewImage: "https://fitconnect.app/img/legs.png",
            iosFallback: "https://apps.apple.com/app/id1", androidFallback: "https://play.google.com/store/apps/details?id=app.fit",
            desktopFallback: "https://fitconnect.app/web/workout/42", forcedRedirect: true,
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000.7), disabled: false, createdAt: created.addingTimeInterval(0.4))
    }

    @Test func emptyFileGetsEveryMigrationOnce() throws {
        let dir = try TempDir()
        let path = dir.path("links.db")
        #expect(try LinkStore(path: path).appliedVersions() == LinkStore.migrations.map(\.version))
        // Reopening applies nothing again (a second INSERT into schema_migrations would fail).
        #expect(try LinkStore(path: path).appliedVersions() == LinkStore.migrations.map(\.version).sorted())
        #expect(FileManager.default.fileExists(atPath: path + "-wal") || FileManager.default.fileExists(atPath: path))
    }

    @Test func journalIsWAL() throws {
        let dir = try TempDir()
        let db = try SQLiteConnection(path: dir.path("w.db"))
        var mode: String?
        try db.query("PRAGMA journal_mode") { mode = $0.text(0) }
        #expect(mode == "wal")
    }

    @Test func versionOneIsMigratedKeepingItsLinks() throws {
        let dir = try TempDir()
        let path = dir.path("v1.db")
        let v1 = try LinkStore(path: path, upTo: 1)
        #expect(try v1.appliedVersions() == [1])
        let db = try SQLiteConnection(path: path)
        try db.query(
            "INSERT INTO links (site, code, target, disabled, created_at, updated_at) VALUES ('fitconnect', 'old1', 'https://fitconnect.app/x', 1, 1700000000, 1700000001)")
        let store = try LinkStore(path: path)
        #expect(try store.appliedVersions() == LinkStore.migrations.map(\.version).sorted())
        let link = try #require(try store.link(site: "fitconnect", code: "old1"))
        #expect(link.target == "https://fitconnect.app/x")
        #expect(link.disabled)
        #expect(link.forcedRedirect == false && link.expiresAt == nil && link.previewTitle == nil)
        #expect(link.updatedAt == Date(timeIntervalSince1970: 1_700_000_001))
    }

    @Test func everyFieldSurvivesARoundTrip() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("r.db"))
        let link = Self.fullLink()
        try store.insert(link)
        #expect(try store.link(site: "fitconnect", code: "abc123") == link)
        #expect(try LinkStore(path: dir.path("r.db")).links() == [link])
        #expect(try store.link(site: "other", code: "abc123") == nil)
    }

    @Test func duplicateCodeOnOneSiteIsRefusedButNotAcrossSites() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("d.db"))
        try store.insert(Self.fullLink())
        var other = Self.fullLink()
        other.site = "coffeebreak"
        try store.insert(other)
        let error = #expect(throws: LinkStoreError.self) { try store.insert(Self.fullLink()) }
        #expect(error?.kind == .constraint)
        #expect(error?.description.contains("site 'fitconnect' already has a short link 'abc123'") == true)
        #expect(try store.links().map(\.site) == ["coffeebreak", "fitconnect"])
        #expect(try store.links(site: "coffeebreak").count == 1)
    }

    @Test func upsertDisableDelete() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("u.db"))
        try store.insert(Self.fullLink())
        var changed = Self.fullLink()
        changed.target = "https://fitconnect.app/workout/43"
        changed.createdAt = Date(timeIntervalSince1970: 1_900_000_000)
        try store.upsert(changed)
        let stored = try #require(try store.link(site: "fitconnect", code: "abc123"))
        #expect(stored.target == changed.target)
        #expect(stored.createdAt == Self.fullLink().createdAt)  // creation time kept
        #expect(try store.setDisabled(true, site: "fitconnect", code: "abc123"))
        #expect(try store.link(site: "fitconnect", code: "abc123")?.disabled == true)
        #expect(try store.setDisabled(true, site: "fitconnect", code: "nope") == false)
        #expect(try store.delete(site: "fitconnect", code: "abc123"))
        #expect(try store.delete(site: "fitconnect", code: "abc123") == false)
        #expect(try store.links().isEmpty)
    }

    @Test(arguments: [
        (Date(timeIntervalSince1970: 100), false, Date(timeIntervalSince1970: 99), true),
        (Date(timeIntervalSince1970: 100), false, Date(timeIntervalSince1970: 100), false),
        (Date(timeIntervalSince1970: 100), true, Date(timeIntervalSince1970: 99), false),
    ])
    func liveness(expires: Date, disabled: Bool, now: Date, live: Bool) {
        let link = ShortLink(code: "x", site: "s", target: "t", expiresAt: expires, disabled: disabled)
        #expect(link.isLive(at: now) == live)
    }

    @Test func corruptedFileNamesTheFileAndTheFix() throws {
        let dir = try TempDir()
        let path = dir.path("broken.db")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: LinkStoreError.self) { try LinkStore(path: path) }
        #expect(error?.kind == .corrupt)
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("mv \(path) \(path).broken") == true)
    }

    @Test func lockedDatabaseSaysWhoToClose() throws {
        let dir = try TempDir()
        let path = dir.path("locked.db")
        let store = try LinkStore(path: path, busyTimeoutMilliseconds: 1)
        let other = try SQLiteConnection(path: path)
        try other.exec("BEGIN IMMEDIATE")
        let error = #expect(throws: LinkStoreError.self) { try store.insert(Self.fullLink()) }
        try other.exec("ROLLBACK")
        #expect(error?.kind == .locked)
        #expect(error?.description.contains("\(path) is locked by another process") == true)
        try store.insert(Self.fullLink())  // free again
    }

    @Test func newerSchemaIsRefused() throws {
        let dir = try TempDir()
        let path = dir.path("new.db")
        _ = try LinkStore(path: path)
        try SQLiteConnection(path: path).exec("INSERT INTO schema_migrations VALUES (99, 'future', 0)")
        let error = #expect(throws: LinkStoreError.self) { try LinkStore(path: path) }
        #expect(error?.kind == .tooNew)
        #expect(error?.description.contains("schema version 99") == true)
    }

    @Test func missingDirectoryCannotBeOpened() throws {
        let dir = try TempDir()
        let path = dir.path("no/such/dir/links.db")
        let error = #expect(throws: LinkStoreError.self) { try LinkStore(path: path) }
        #expect(error?.kind == .cannotOpen)
        #expect(error?.description.contains(path) == true)
    }

    @Test(arguments: [
        (nil as String?, "/etc/lw/linkwell.json5", "/etc/lw/linkwell.db"),
        ("data/links.db", "/etc/lw/linkwell.json5", "/etc/lw/data/links.db"),
        ("/var/lib/linkwell/l.db", "/etc/lw/linkwell.json5", "/var/lib/linkwell/l.db"),
        (nil, "linkwell.json5", "linkwell.db"),
        ("x.db", "config/linkwell.json5", "config/x.db"),
    ])
    func databasePathIsRelativeToTheConfigFile(sqlite: String?, config: String, expected: String) {
        #expect(LinkStore.databasePath(storage: sqlite.map { StorageSettings(sqlite: $0) }, configPath: config, environment: [:]) == expected)
    }

    /// `LINKWELL_DATABASE` (the systemd unit's state directory) stands in for a missing
    /// `storage.sqlite`, and never overrides one the config names.
    @Test(arguments: [
        (nil as String?, "/var/lib/linkwell/linkwell.db", "/var/lib/linkwell/linkwell.db"),
        (nil, "", "/etc/lw/linkwell.db"),
        (nil, "state/links.db", "/etc/lw/state/links.db"),
        ("data/links.db", "/var/lib/linkwell/linkwell.db", "/etc/lw/data/links.db"),
    ])
    func databaseVariableStandsInForAMissingSqliteKey(sqlite: String?, variable: String, expected: String) throws {
        let location = try StorageLocation.of(
            storage: sqlite.map { StorageSettings(sqlite: $0) }, configPath: "/etc/lw/linkwell.json5",
            environment: [LinkStore.databaseVariable: variable])
        #expect(location == .sqlite(path: expected))
    }

    @Test func storageBlockIsRead() throws {
        let text = #"{ storage: { sqlite: "data/links.db" }, sites: [{ domains: ["a.example"], routes: [] }] }"#
        let (config, warnings) = try ConfigLoader.decode(Data(text.utf8), file: "c.json5")
        #expect(config.storage == StorageSettings(sqlite: "data/links.db"))
        #expect(warnings.isEmpty)
        let typo = #"{ storage: { sqlit: "x" }, sites: [{ domains: ["a.example"], routes: [] }] }"#
        #expect(try ConfigLoader.decode(Data(typo.utf8), file: "c.json5").warnings.map { "\($0.path) \($0.message)" } == ["storage.sqlit unknown key 'sqlit' is ignored"])
    }
}
