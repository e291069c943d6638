// Patching the index copy-on-write (LinkIndex+Patch.swift) and the change log it is fed from
// (LinkStore+Changes.swift, SQLite here; PostgreSQL in tests/live/test_links_patch.py).

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite struct LinkIndexPatchTests {
    static func link(_ code: String, site: String = "shop", target: String? = nil, disabled: Bool = false) -> ShortLink {
        ShortLink(code: code, site: site, target: target ?? "https://shop.example.com/item/\(code)", disabled: disabled)
    }

    static func contents(_ index: LinkIndex) -> [String: String] {
        var out: [String: String] = [:]
        index.forEach { out[$0.site + "/" + $0.code] = $0.target }
        return out
    }

    static func found(_ index: LinkIndex, _ site: String, _ code: String) -> String? {
        let table = index.storage
        guard let s = table.siteIndex[site], let p = table.find(site: s, code: Substring(code)) else { return nil }
        return table.records.link(at: p, site: site).target
    }

    @Test func insertUpdateDeleteAndDisable() {
        let before = LinkIndex(links: [Self.link("a"), Self.link("b"), Self.link("c")], table: nil)
        let after = before.patched(
            changed: [Self.link("new"), Self.link("b", target: "https://shop.example.com/b2"), Self.link("c", disabled: true),
                      Self.link("x", site: "blog")],
            removed: [(site: "shop", code: "a"), (site: "shop", code: "never")])
        #expect(Self.contents(after) == ["shop/new": "https://shop.example.com/item/new", "shop/b": "https://shop.example.com/b2",
                                         "blog/x": "https://shop.example.com/item/x"])
        #expect(after.count == 3)
        #expect(Self.found(after, "shop", "b") == "https://shop.example.com/b2")
        #expect(Self.found(after, "shop", "a") == nil && Self.found(after, "shop", "c") == nil)
        #expect(Self.found(after, "blog", "x") != nil)
        // The index serving meanwhile is untouched (copy-on-write).
        #expect(Self.contents(before) == ["shop/a": "https://shop.example.com/item/a", "shop/b": "https://shop.example.com/item/b",
                                          "shop/c": "https://shop.example.com/item/c"])
        #expect(after.generation > before.generation)
        // Re-enabling puts it back.
        #expect(Self.found(after.patched(changed: [Self.link("c")], removed: []), "shop", "c") != nil)
    }

    /// Thousands of random writes (growing the table, backward-shift deletes in long probe runs,
    /// compaction) give the same links as an index built from scratch, each found by lookup.
    @Test(arguments: [1, 2, 3]) func randomWritesMatchAFreshBuild(seed: UInt64) {
        var rng = SeededLCG(seed: seed)
        var model: [String: ShortLink] = [:]
        var index = LinkIndex.empty
        for round in 0..<300 {
            var changed: [ShortLink] = []
            var removed: [(site: String, code: String)] = []
            for _ in 0..<Int(rng.next() % 20) {
                let code = "c\(rng.next() % 3000)"
                switch rng.next() % 4 {
                case 0:
                    removed.append((site: "shop", code: code))
                    model[code] = nil
                    changed.removeAll { $0.code == code }
                default:
                    let link = Self.link(code, target: "https://shop.example.com/\(round)/\(code)", disabled: rng.next() % 10 == 0)
                    changed.removeAll { $0.code == code }
                    removed.removeAll { $0.code == code }
                    changed.append(link)
                    model[code] = link.disabled ? nil : link
                }
            }
            index = index.patched(changed: changed, removed: removed)
        }
        let expected = Dictionary(uniqueKeysWithValues: model.values.map { ("shop/" + $0.code, $0.target) })
        #expect(Self.contents(index) == expected)
        #expect(index.count == model.count)
        for code in (0..<3000).map({ "c\($0)" }) { #expect(Self.found(index, "shop", code) == model[code]?.target) }
        #expect(index.storage.dead <= max(1024, index.count) + 40)  // compacted along the way
    }

    // MARK: The change log (SQLite)

    @Test func theLogNamesEveryChangedLinkOnce() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("log.db"))
        try store.insertAll([Self.link("a"), Self.link("b"), Self.link("c")])
        let start = try store.revision()
        #expect(try store.changes(since: start).map { "\($0.revision) \($0.changed.count) \($0.removed.count)" } == "\(start) 0 0")
        try store.insert(Self.link("new"))
        try store.upsert(Self.link("b", target: "https://shop.example.com/b2"))
        try store.setDisabled(true, site: "shop", code: "c")
        try store.delete(site: "shop", code: "a")
        try store.upsert(Self.link("new", target: "https://shop.example.com/new2"))
        let changes = try #require(try store.changes(since: start))
        #expect(changes.revision == (try store.revision()))
        #expect(changes.changed.map { "\($0.code) \($0.target) \($0.disabled)" }.sorted() == [
            "b https://shop.example.com/b2 false", "c https://shop.example.com/item/c true", "new https://shop.example.com/new2 false",
        ])
        #expect(changes.removed.map(\.code) == ["a"])
        // Applied to the index read at `start`, it equals a full read now.
        let old = LinkIndex(links: [Self.link("a"), Self.link("b"), Self.link("c")], table: nil)
        let patched = old.patched(changed: changes.changed, removed: changes.removed)
        #expect(Self.contents(patched) == Self.contents(try store.loadIndex(table: nil).index))
        // Another connection's writes (the CLI while the server runs) are logged too.
        try SQLiteConnection(path: dir.path("log.db")).exec("DELETE FROM links WHERE code = 'b'")
        #expect(try store.changes(since: changes.revision)?.removed.map(\.code) == ["b"])
    }

    /// A reader further behind than the log keeps is told to read everything (nil), as is one
    /// on a database migrated before the log existed.
    @Test func aReaderBehindTheLogReadsEverything() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("behind.db"))
        let start = try store.revision()
        try store.insertAll((0...LinkStore.changeLogWindow).map { Self.link("k\($0)") })
        #expect(try store.changes(since: start) == nil)
        let recent = try store.revision() - 5
        #expect(try store.changes(since: recent)?.changed.count == 5)
        let old = try LinkStore(path: dir.path("v7.db"), upTo: 7)
        try old.insert(Self.link("a"))
        #expect(try old.changes(since: 0) == nil)
    }
}

extension LinkChanges: Equatable {
    public static func == (a: LinkChanges, b: LinkChanges) -> Bool {
        a.revision == b.revision && a.changed == b.changed && a.removed.map { $0.site + "/" + $0.code } == b.removed.map { $0.site + "/" + $0.code }
    }
}

/// A small deterministic generator for the property tests (Knuth's MMIX LCG, high bits).
struct SeededLCG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}

/// Where the SQLite file goes when the config names none: beside the config, or in the data
/// directory when the config's directory cannot be written (a read-only config mount).
@Suite struct DataDirectoryDefaultTests {
    @Test func aReadOnlyConfigDirectoryPutsTheDatabaseInTheDataDirectory() throws {
        let dir = try TempDir()
        let etc = dir.path("etc")
        let data = dir.path("data")
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        let config = etc + "/linkwell.json5"
        // Writable config directory: beside the config, nothing said.
        var choice = LinkStore.databaseChoice(storage: nil, configPath: config, environment: [:], dataDirectory: data)
        #expect(choice.path == etc + "/linkwell.db" && choice.defaulted == nil)
        // The check is `access(W_OK)`, which root passes whatever the mode: stand in for a read-only mount.
        let readOnly: (String) -> Bool = { $0 != etc }
        // Read-only, but no data directory: still beside the config (serve then says it is read-only).
        choice = LinkStore.databaseChoice(storage: nil, configPath: config, environment: [:], dataDirectory: data, isWritable: readOnly)
        #expect(choice.path == etc + "/linkwell.db" && choice.defaulted == nil)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        choice = LinkStore.databaseChoice(storage: nil, configPath: config, environment: [:], dataDirectory: data, isWritable: readOnly)
        #expect(choice.path == data + "/linkwell.db")
        #expect(choice.defaulted?.contains("\(etc) is not writable") == true)
        // A database already beside the config stays in use.
        FileManager.default.createFile(atPath: etc + "/linkwell.db", contents: Data())
        #expect(LinkStore.databaseChoice(storage: nil, configPath: config, environment: [:], dataDirectory: data, isWritable: readOnly).path == etc + "/linkwell.db")
        // A named file, or the variable, always wins.
        #expect(LinkStore.databaseChoice(storage: StorageSettings(sqlite: "x.db"), configPath: config, environment: [:], dataDirectory: data, isWritable: readOnly).path == etc + "/x.db")
        #expect(LinkStore.databaseChoice(storage: nil, configPath: config, environment: ["LINKWELL_DATABASE": "/srv/l.db"], dataDirectory: data, isWritable: readOnly).path == "/srv/l.db")
    }
}
