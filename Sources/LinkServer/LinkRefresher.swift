// Keeps the served link index (LinkIndexCell) up to date without a reload and without the
// request path ever waiting on the database:
// - a write in this process (the admin API, an import run inside serve) calls
//   `ServerRuntime.linksChanged()`, which refreshes at once, before it returns;
// - writes by other processes (the CLI) or other instances are seen by a thread that checks the
//   store's change counter (`links_revision`, bumped by triggers on every write) every 500 ms on
//   SQLite, and on PostgreSQL wakes on `NOTIFY linkwell_links` (a listening connection,
//   reconnected when lost) with a check every second as the fallback.
// When the counter moved, only the links changed since the index's revision are read (the
// store's change log, LinkStore+Changes.swift) and patched into a copy of the index
// (LinkIndex.patched), which is swapped in. Every link is read (LinkStore.loadIndex) only at
// start, after an outage, when the storage or the SQLite file changed, or when the log no longer
// reaches back that far (`linkwell_links_full_reads_total` counts them by reason). A check that fails — a corrupted or locked SQLite file, PostgreSQL down — is logged
// once per outage (`links_refresh_failed`, with the fix), the last good index keeps serving, and
// the end of the outage is logged (`links_refresh_recovered`).

import Foundation
import LinkRouting
import LinkStore
import MicroHTTP

public final class LinkRefresher: Sendable {
    /// The index being served.
    public let cell: LinkIndexCell
    private let log: EventLog
    private let configPath: String
    /// How often the store's change counter is read: SQLite (no notifications) and PostgreSQL
    /// (the fallback when a notification is lost).
    public static let sqliteInterval: Duration = .milliseconds(500)
    public static let postgresInterval: Duration = .seconds(1)

    private struct State {
        var settings: StorageSettings?
        var location: StorageLocation?
        /// PostgreSQL: the connection kept between checks (SQLite opens the file each check, so a
        /// replaced or corrupted file is noticed).
        var store: LinkStore?
        /// SQLite: the file (device, inode) the index was read from.
        var file: FileID?
        /// Since when checks fail, and the message logged.
        var outage: (since: ContinuousClock.Instant, message: String)?
    }
    private let state = Locked(State())
    private let searchIndexWarned = Locked(false)

    struct FileID: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// What /readyz and /metrics say about the store (set at every check).
    public let status: LinkStoreStatus

    public init(cell: LinkIndexCell, log: EventLog, configPath: String, status: LinkStoreStatus = LinkStoreStatus()) {
        self.cell = cell
        self.status = status
        self.log = log
        self.configPath = configPath
        // The index the server started with was read whole (ServerRuntime.loadSnapshot).
        if cell.current.revision != nil { status.record(fullRead: .start) }
    }

    /// Starts the checking thread; `storage` gives the storage settings of the config serving now.
    public func start(storage: @escaping @Sendable () -> StorageSettings?) {
        Thread.detachNewThread { [self] in
            var listener: LinkChangeListener?
            var listenerFor: StorageLocation?
            while true {
                let settings = storage()
                let location = try? StorageLocation.of(storage: settings, configPath: configPath)
                guard case .postgres? = location else {
                    listener = nil
                    Thread.sleep(forTimeInterval: Self.interval(Self.sqliteInterval))
                    check(storage: settings, reason: "changed")
                    continue
                }
                if listenerFor != location { listener = nil }
                if listener == nil, let location {
                    // Failures show in the check below (same server); retried next round.
                    listener = try? LinkChangeListener(location)
                    listenerFor = location
                }
                var notified = false
                if let l = listener {
                    do throws(LinkStoreError) {
                        notified = try l.wait(milliseconds: Int32(Self.interval(Self.postgresInterval) * 1000))
                    } catch {
                        listener = nil
                    }
                } else {
                    Thread.sleep(forTimeInterval: Self.interval(Self.postgresInterval))
                }
                check(storage: settings, reason: notified ? "notified" : "changed")
            }
        }
    }

    /// Seconds to the millisecond, for the log.
    static func rounded(_ d: Duration) -> Double { (interval(d) * 1000).rounded() / 1000 }

    static func interval(_ d: Duration) -> TimeInterval {
        TimeInterval(d.components.seconds) + TimeInterval(d.components.attoseconds) / 1e18
    }

    /// Reads the change counter and, when it moved (or `force`, or the storage settings
    /// changed), all links, and swaps the new index in. Serialised; returns when done: false
    /// when the store could not be read (the last good index stays).
    @discardableResult
    public func check(storage settings: StorageSettings?, reason: String, force: Bool = false) -> Bool {
        state.withLock { s in
            let location: StorageLocation
            do throws(LinkStoreError) {
                if s.location == nil || s.settings != settings {
                    s.location = try StorageLocation.of(storage: settings, configPath: configPath)
                    s.settings = settings
                    s.store = nil
                    noteDefaultDatabase(settings)
                }
                location = s.location!
            } catch {
                failed(&s, storage: configPath, error)
                return false
            }
            let served = cell.current
            let moved = served.source != location
            SQLiteFileGate.withAccess(location) {
                read(&s, location: location, served: served, moved: moved, reason: reason, force: force)
            }
            return s.outage == nil
        }
    }

    /// Writes this process stored and answered 2xx, when the store could not be read back
    /// right after (deleted or locked a moment later): applied to the index in memory, so an
    /// acknowledged link is served like the others. The next check that reads the store
    /// replaces this index with the store's.
    public func apply(changed: [ShortLink], removed: [(site: String, code: String)]) {
        state.withLock { s in
            let served = cell.current
            let index = served.index.patched(changed: changed, removed: removed)
            cell.set(LinkIndexCell.State(index: index, revision: served.revision, source: served.source))
            log.event("links_applied_in_memory", [
                ("changed", .int(changed.count)), ("removed", .int(removed.count)), ("links", .int(index.count)),
                ("reason", .string("the link database could not be read after this process wrote to it (see links_refresh_failed); the written links are served from memory until it can")),
            ])
        }
    }

    private func read(_ s: inout State, location: StorageLocation, served: LinkIndexCell.State, moved: Bool, reason: String, force: Bool) {
        var readOnly = location.writeProblem
        defer { noteWritable(location: location, readOnly: readOnly) }
        if case let .sqlite(path) = location, !FileManager.default.fileExists(atPath: path), served.revision == nil || moved {
            // No database yet (`serve` does not create one): nothing to serve, nothing wrong.
            if moved { cell.set(LinkIndexCell.State(index: .empty, source: location)) }
            recovered(&s)
            return
        }
        do throws(LinkStoreError) {
            let store: LinkStore
            var file: FileID?
            if case let .sqlite(path) = location {
                store = try LinkStore(reading: location)
                file = Self.fileID(path)
                if readOnly == nil, store.isReadOnly { readOnly = "the file \(path) can only be opened read-only" }
            } else if let kept = s.store {
                store = kept
            } else {
                store = try LinkStore(reading: location)
                s.store = store
                noteSearchIndex(store, storage: location.description)
            }
            let revision = try store.revision()
            // After an outage the file may be another one (a restored backup, a new file)
            // with the same counter: read it again whatever the number says.
            let sameFile = file == nil || s.file == nil || file == s.file
            if !force, !moved, s.outage == nil, revision == served.revision, sameFile {
                if s.file == nil { s.file = file }
                recovered(&s)
                return
            }
            let start = ContinuousClock.now
            if !force, !moved, s.outage == nil, sameFile, let from = served.revision,
               revision > from, let changes = try store.changes(since: from, through: revision) {
                let index = served.index.patched(changed: changes.changed, removed: changes.removed)
                cell.set(LinkIndexCell.State(index: index, revision: changes.revision, source: location))
                if s.file == nil { s.file = file }
                status.recordPatch()
                recovered(&s)
                log.event("links_refreshed", [
                    ("reason", .string(reason)), ("storage", .string(location.description)), ("read", .string("changed links")),
                    ("changed", .int(changes.changed.count)), ("removed", .int(changes.removed.count)),
                    ("links", .int(index.count)), ("revision", .int(Int(changes.revision))), ("seconds", .double(Self.rounded(ContinuousClock.now - start))),
                ])
                return
            }
            let fullRead: LinkStoreStatus.FullRead =
                served.revision == nil ? .start : moved ? .storageChanged : s.outage != nil ? .outage : force ? .forced : !sameFile ? .fileReplaced : .changeLog
            let (index, readAt) = try store.loadIndex(table: nil)
            cell.set(LinkIndexCell.State(index: index, revision: readAt, source: location))
            s.file = file
            status.record(fullRead: fullRead)
            recovered(&s)
            log.event("links_refreshed", [
                ("reason", .string(moved ? "storage changed" : reason)), ("storage", .string(location.description)),
                ("read", .string("all links (\(fullRead.rawValue))")),
                ("links", .int(index.count)), ("revision", .int(Int(readAt))), ("seconds", .double(Self.rounded(ContinuousClock.now - start))),
            ])
        } catch {
            if case .postgres = location, error.kind != .unavailable { s.store = nil }
            failed(&s, storage: location.description, error)
        }
    }

    /// PostgreSQL: warns once when the console's link search has no trigram index (pg_trgm
    /// missing and not creatable by this role), with the fix.
    private func noteSearchIndex(_ store: LinkStore, storage: String) {
        guard let why = try? store.searchIndexMissing(), !searchIndexWarned.withLock({ w in defer { w = true }; return w }) else { return }
        log.event("links_search_unindexed", [("storage", .string(storage)), ("reason", .string(why))])
    }

    /// Logs where the SQLite file is when it defaulted to the data directory (a read-only config mount).
    private func noteDefaultDatabase(_ settings: StorageSettings?) {
        guard settings?.postgres == nil, let why = LinkStore.databaseChoice(storage: settings, configPath: configPath).defaulted else { return }
        log.event("links_database_in_data_directory", [
            ("storage", .string(LinkStore.databasePath(storage: settings, configPath: configPath))), ("reason", .string(why)),
        ])
    }

    /// Records whether links can be written; logs when that changes (and at the first check,
    /// when they cannot).
    private func noteWritable(location: StorageLocation, readOnly: String?) {
        guard status.set(storage: location.description, readOnly: readOnly) else { return }
        if let readOnly {
            log.event("links_read_only", [
                ("storage", .string(location.description)), ("reason", .string(readOnly)), ("links", .int(cell.index.count)),
                ("serving", .string("the short links in memory, the association files and route pages as usual")),
                ("writes", .string("the admin API answers link writes 503; clicks are counted and dropped (linkwell_clicks_dropped_total)")),
                ("fix", .string("make the file and its directory writable by this user (in the container image: user 10001, e.g. 'chown -R 10001:10001' the volume's directory), or mount the volume read-write; linkwell notices within a second")),
            ])
        } else {
            log.event("links_writable", [("storage", .string(location.description))])
        }
    }

    private func failed(_ s: inout State, storage: String, _ error: LinkStoreError) {
        status.set(outage: error.description)
        guard s.outage == nil else { return }  // once per outage
        s.outage = (ContinuousClock.now, error.description)
        log.event("links_refresh_failed", [
            ("storage", .string(storage)), ("error", .string(error.description)),
            ("serving", .string("the last good index (\(cell.index.count == 1 ? "1 link" : "\(cell.index.count) links")); checking again every \(s.location?.dialect == .postgres ? "second" : "half second")")),
        ])
    }

    private func recovered(_ s: inout State) {
        status.set(outage: nil)
        guard let outage = s.outage else { return }
        s.outage = nil
        let seconds = LinkRefresher.interval(ContinuousClock.now - outage.since)
        log.event("links_refresh_recovered", [
            ("storage", .string(s.location?.description ?? configPath)), ("outage_seconds", .double((seconds * 10).rounded() / 10)),
        ])
    }

    static func fileID(_ path: String) -> FileID? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }
}
