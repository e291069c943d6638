#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LinkRouting
import LinkStore
import MicroHTTP
import Synchronization

/// Click counting of the running server: the request path counts into a `ClickCounter` (memory
/// only); a background thread flushes the counts to the link database every
/// `storage.clicks.flushSeconds` in one transaction of upserts, and runs the hourly maintenance
/// (referrer trim, months, retention). `flush()` is also called at SIGHUP and SIGTERM, so a clean
/// stop loses nothing; a crash loses at most one interval.
///
/// A failed flush (a locked or unwritable database) keeps the counts in memory — merged with the
/// next interval's, still bounded by `maxKeys` — and is retried at the next interval; the failure
/// is logged once (`clicks_flush_failed`) and the recovery once (`clicks_flush_recovered`).
public final class ClickRecorder: Sendable {
    /// What the recorder needs from the config (re-read at every reload).
    public struct Settings: Sendable, Equatable {
        /// The link database (SQLite file or PostgreSQL); nil when the config's cannot be
        /// resolved (`locationProblem` says why; every flush fails with it).
        public var location: StorageLocation?
        public var locationProblem: String?
        public var enabled: Bool
        public var flushSeconds: Double
        public var retentionDays: Int
        public var referrersPerDay: Int
        public var maxKeys: Int
        public var metricsTopLinks: Int
        /// How long a flush waits for a database another process holds.
        public var busyTimeoutMilliseconds: Int32 = 2000

        public init(location: StorageLocation?, clicks: ClickSettings?) {
            let r = (clicks ?? ClickSettings()).resolved
            self.location = location
            enabled = r.enabled
            flushSeconds = r.flushSeconds
            retentionDays = r.retentionDays
            referrersPerDay = r.referrersPerDay
            maxKeys = r.maxKeys
            metricsTopLinks = r.metricsTopLinks
        }

        /// A SQLite file.
        public init(databasePath: String, clicks: ClickSettings?) {
            self.init(location: .sqlite(path: databasePath), clicks: clicks)
        }

        /// A snapshot's settings: `storage.clicks` and the config's link database.
        public init(snapshot: Snapshot, configPath: String) {
            let storage = snapshot.table.config.storage
            do throws(LinkStoreError) {
                self.init(location: try StorageLocation.of(storage: storage, configPath: configPath), clicks: storage?.clicks)
            } catch {
                self.init(location: nil, clicks: storage?.clicks)
                locationProblem = error.description
            }
        }

        /// Where the counts go, for logs (a PostgreSQL password left out).
        public var databaseName: String { location?.description ?? "(none)" }

        /// Opens the link database. A missing SQLite file is created (and migrated) only when
        /// `mayCreate` (no database was ever read by this server: clicks before the first link);
        /// a file that disappeared while links serve from memory is an outage, never replaced by
        /// an empty one behind the operator's back.
        func openStore(mayCreate: Bool = true) throws(LinkStoreError) -> LinkStore {
            switch location {
            case let .sqlite(path)? where mayCreate && !FileManager.default.fileExists(atPath: path):
                return try LinkStore(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            case let location?: return try LinkStore(writing: location, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            case nil: throw LinkStoreError(.cannotOpen, locationProblem ?? "no link database is configured")
            }
        }

        /// Hosts held per key between two flushes: twice what a day keeps, so the daily trim
        /// has candidates to rank.
        var referrerSlots: Int { max(2 * referrersPerDay, 4) }
    }

    /// The result of one flush.
    public enum FlushResult: Sendable, Equatable {
        case nothing
        case written(clicks: Int, rows: Int)
        case failed(pendingClicks: Int)
        /// The store is read-only: the counts were dropped (and counted as dropped).
        case dropped(clicks: Int)
    }

    /// What the recorder learns from the rest of the server (`attach`).
    struct Hooks {
        /// Why links cannot be written now (a read-only store), or nil.
        var readOnly: @Sendable () -> String? = { nil }
        /// False once the server has read a database: a missing file is then an outage.
        var mayCreateDatabase: @Sendable () -> Bool = { true }
    }
    private let hooks = Locked(Hooks())
    private let droppedCount = Atomic<Int>(0)
    /// API token uses not yet written (name → Unix seconds of the last use).
    private let tokenUses = Locked<[String: Int]>([:])

    /// Connects the recorder to the server's view of the store.
    public func attach(readOnly: @escaping @Sendable () -> String?, mayCreateDatabase: @escaping @Sendable () -> Bool) {
        hooks.withLock { $0 = Hooks(readOnly: readOnly, mayCreateDatabase: mayCreateDatabase) }
    }

    /// A use of the API token `name`: its `last_used_at` is written with the next flush (a
    /// request never writes the database).
    public func recordTokenUse(name: String) {
        let now = clock()
        tokenUses.withLock { $0[name] = max($0[name] ?? 0, now) }
    }

    /// Clicks dropped because the store was read-only.
    public var droppedClicks: Int { droppedCount.load(ordering: .relaxed) }

    public let counter: ClickCounter
    /// App opens reported by the apps, written with the clicks.
    public let opens = AppOpenCounter()
    private let enabledFlag: Atomic<Bool>
    private let settings: Locked<Settings>
    private let log: EventLog?
    private let clock: @Sendable () -> Int
    private let state = Locked(FlushState())
    private let totals = Locked(MetricTotals())
    private let started = Atomic<Bool>(false)
    private let pendingCount = Atomic<Int>(0)

    struct FlushState {
        var pending: [ClickCounter.Key: ClickCounter.Entry] = [:]
        var failing = false
        var failedAttempts = 0
        var lastMaintenance: Int?
        /// Dropping clicks (a read-only store) since the last flush that wrote.
        var dropping = false
    }

    struct RouteKey: Hashable {
        var site: String
        var route: String
    }

    struct LinkKey: Hashable {
        var site: String
        var code: String
    }

    struct MetricTotals {
        /// Per site and route: clicks by ``ClickEvent/platformOutcome(_:)`` (one dictionary
        /// lookup per key, not one per combination: a flush of 100,000 keys adds them all).
        var routes: [RouteKey: [Int]] = [:]
        var links: [LinkKey: Int] = [:]
        var flushes = 0
        var failedFlushes = 0
        var pendingOverflow = 0

        mutating func add(_ key: ClickCounter.Key, _ entry: ClickCounter.Entry, maxLinks: Int) {
            let routeKey = RouteKey(site: key.site, route: key.route)
            let i = routes.index(forKey: routeKey) ?? {
                routes[routeKey] = Array(repeating: 0, count: ClickEvent.platformCount * ClickEvent.outcomeCount)
                return routes.index(forKey: routeKey)!
            }()
            for s in entry.slots {
                routes.values[i][ClickEvent.platformOutcome(Int(s >> 56))] += Int(s & ClickCounter.Entry.countMask)
            }
            guard !key.code.isEmpty else { return }
            var link = LinkKey(site: key.site, code: key.code)
            if links[link] == nil, links.count >= maxLinks { link.code = ClickCounter.overflowCode }
            links[link, default: 0] += entry.total
        }
    }

    /// `clock`: Unix seconds (tests set the day).
    public init(settings: Settings, log: EventLog?, clock: @escaping @Sendable () -> Int = { Int(time(nil)) }) {
        counter = ClickCounter(maxKeys: settings.maxKeys, referrerSlots: settings.referrerSlots)
        enabledFlag = Atomic(settings.enabled)
        self.settings = Locked(settings)
        self.log = log
        self.clock = clock
    }

    /// Whether clicks are counted (`storage.clicks.enabled`).
    public var enabled: Bool { enabledFlag.load(ordering: .relaxed) }

    public var currentSettings: Settings { settings.withLock { $0 } }

    /// New settings (a reload): the next flush writes to their `location`.
    public func configure(_ new: Settings) {
        settings.withLock { $0 = new }
        enabledFlag.store(new.enabled, ordering: .relaxed)
        counter.configure(maxKeys: new.maxKeys, referrerSlots: new.referrerSlots)
    }

    /// The request path: one click, with the request's `Referer` header (reduced to its host).
    @inline(__always)
    public func record(_ click: ClickEvent, referer: String?) {
        counter.record(click, referrer: ReferrerHost.of(referer), unixSeconds: clock())
    }

    /// Starts the flusher thread (once).
    public func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { [self] in
            while true {
                let seconds = currentSettings.flushSeconds
                usleep(UInt32(max(0.1, min(seconds, 3600)) * 1_000_000))
                flush()
            }
        }
    }

    /// Writes every count held (this interval's and any a failed flush kept) in one transaction,
    /// then runs the maintenance when an hour has passed since the last. `attempts`: how often to
    /// try before keeping the counts for the next flush (the last flush at SIGTERM tries more).
    @discardableResult
    public func flush(attempts: Int = 1) -> FlushResult {
        state.withLock { st in
            let s = currentSettings
            let drained = totals.withLock { t in
                let d = counter.drain()
                for (k, e) in d { t.add(k, e, maxLinks: s.maxKeys) }
                return d
            }
            mergePending(&st, drained, settings: s)
            let now = clock()
            let h = hooks.withLock { $0 }
            let readOnly = h.readOnly()
            let mayCreate = h.mayCreateDatabase()
            if readOnly == nil { flushTokenUses(settings: s) }
            flushAppOpens(settings: s, readOnly: readOnly, mayCreate: mayCreate)
            guard !st.pending.isEmpty else {
                maintain(&st, settings: s, now: now)
                return .nothing
            }
            let (rows, referrers, clicks) = Self.rows(st.pending)
            if let readOnly {
                // Nothing can be written: held counts would only grow; drop them, and say so.
                droppedCount.add(clicks, ordering: .relaxed)
                st.pending = [:]
                pendingCount.store(0, ordering: .relaxed)
                if !st.dropping {
                    st.dropping = true
                    log?.event("clicks_dropped", [
                        ("database", .string(s.databaseName)), ("clicks", .int(clicks)), ("reason", .string(readOnly)),
                        ("counting", .string("clicks are still counted in /metrics (linkwell_clicks_total) and dropped at every flush while the store is read-only (linkwell_clicks_dropped_total)")),
                        ("fix", .string("make the link database and its directory writable (or mount the volume read-write), or set storage.clicks.enabled: false to stop counting")),
                    ])
                }
                return .dropped(clicks: clicks)
            }
            st.dropping = false
            var lastError: LinkStoreError?
            for attempt in 1...max(1, attempts) {
                do throws(LinkStoreError) {
                    // Opened per flush (every few seconds): a file replaced or moved meanwhile is
                    // never written through an old descriptor.
                    try SQLiteFileGate.withAccess(s.location) { () throws(LinkStoreError) in
                        try s.openStore(mayCreate: mayCreate).addClicks(rows, referrers: referrers)
                    }
                    lastError = nil
                    break
                } catch {
                    lastError = error
                    if attempt < attempts { usleep(200_000) }
                }
            }
            if let lastError {
                st.failedAttempts += 1
                totals.withLock { $0.failedFlushes += 1 }
                pendingCount.store(clicks, ordering: .relaxed)
                if !st.failing {
                    st.failing = true
                    log?.event("clicks_flush_failed", [
                        ("database", .string(s.databaseName)), ("pending_clicks", .int(clicks)), ("message", .string(lastError.description)),
                        ("retry", .string("the counts stay in memory (at most storage.clicks.maxKeys keys) and are written at the next flush, every \(s.flushSeconds) s")),
                        ("fix", .string("if the database stays unwritable (a read-only config directory in a container), point storage.sqlite at a writable volume, or set storage.clicks.enabled: false to stop counting")),
                    ])
                }
                return .failed(pendingClicks: clicks)
            }
            if st.failing {
                log?.event("clicks_flush_recovered", [
                    ("database", .string(s.databaseName)), ("clicks", .int(clicks)), ("failed_attempts", .int(st.failedAttempts)),
                ])
            }
            st.failing = false
            st.failedAttempts = 0
            st.pending = [:]
            pendingCount.store(0, ordering: .relaxed)
            totals.withLock { $0.flushes += 1 }
            maintain(&st, settings: s, now: now)
            return .written(clicks: clicks, rows: rows.count + referrers.count)
        }
    }

    /// The clicks a failed flush keeps (0 when the last flush worked).
    public var pendingClicks: Int { pendingCount.load(ordering: .relaxed) }

    private func mergePending(_ st: inout FlushState, _ drained: [ClickCounter.Key: ClickCounter.Entry], settings s: Settings) {
        if st.pending.isEmpty {
            st.pending = drained
            return
        }
        for (k, e) in drained {
            var key = k
            if st.pending[key] == nil, !key.code.isEmpty, st.pending.count >= s.maxKeys {
                key.code = ClickCounter.overflowCode
                totals.withLock { $0.pendingOverflow += e.total }
            }
            if let i = st.pending.index(forKey: key) { st.pending.values[i].merge(e, referrerSlots: s.referrerSlots) } else { st.pending[key] = e }
        }
    }

    /// Writes the app opens held (dropped while the store is read-only, kept for the next flush
    /// when the write fails).
    private func flushAppOpens(settings s: Settings, readOnly: String?, mayCreate: Bool) {
        let rows = opens.drain()
        guard !rows.isEmpty, readOnly == nil else { return }
        do throws(LinkStoreError) {
            try SQLiteFileGate.withAccess(s.location) { () throws(LinkStoreError) in
                try s.openStore(mayCreate: mayCreate).addAppOpens(rows)
            }
        } catch {
            opens.restore(rows)
        }
    }

    /// Writes the API token uses held (never creating a database); kept for the next flush
    /// when that fails.
    private func flushTokenUses(settings s: Settings) {
        let uses = tokenUses.withLock { u in
            let all = u
            u = [:]
            return all
        }
        guard !uses.isEmpty else { return }
        do throws(LinkStoreError) {
            try SQLiteFileGate.withAccess(s.location) { () throws(LinkStoreError) in
                try s.openStore(mayCreate: false).recordTokenUse(uses.mapValues { Date(timeIntervalSince1970: TimeInterval($0)) })
            }
        } catch {
            tokenUses.withLock { u in for (name, t) in uses { u[name] = max(u[name] ?? 0, t) } }
        }
    }

    private func maintain(_ st: inout FlushState, settings s: Settings, now: Int) {
        if let last = st.lastMaintenance, now - last < 3600, now >= last { return }
        guard s.location?.exists == true, hooks.withLock({ $0.readOnly })() == nil else { return }
        do throws(LinkStoreError) {
            try SQLiteFileGate.withAccess(s.location) { () throws(LinkStoreError) in
                try s.openStore(mayCreate: false).maintainClicks(today: ClickDay.of(unixSeconds: now), retentionDays: s.retentionDays, referrersPerDay: s.referrersPerDay)
            }
            st.lastMaintenance = now
        } catch {
            log?.event("clicks_maintenance_failed", [("database", .string(s.databaseName)), ("message", .string(error.description))])
            st.lastMaintenance = now  // once an hour at most
        }
    }

    /// The database rows of a set of keys.
    static func rows(_ entries: [ClickCounter.Key: ClickCounter.Entry]) -> ([ClickCountRow], [ReferrerCountRow], Int) {
        var rows: [ClickCountRow] = []
        var referrers: [ReferrerCountRow] = []
        var clicks = 0
        rows.reserveCapacity(entries.count)
        referrers.reserveCapacity(entries.count)
        // In primary-key order (site, code, route, day): each B-tree page is visited once, not once per row at random.
        let ordered = entries.sorted { a, b in
            let x = a.key, y = b.key
            if x.site != y.site { return x.site < y.site }
            if x.code != y.code { return x.code < y.code }
            if x.route != y.route { return x.route < y.route }
            return x.day < y.day
        }
        for (k, e) in ordered {
            var row = ClickCountRow(day: k.day, site: k.site, code: k.code, route: k.route)
            for s in e.slots {
                let count = Int(s & ClickCounter.Entry.countMask)
                row.add(slot: Int(s >> 56), count: count)
                clicks += count
            }
            rows.append(row)
            // Clicks without a referrer get no row: the report counts them as the key's clicks
            // not in any referrer row (the most common referrer — QR codes, apps, e-mail — and a
            // fifth of the rows a flush wrote).
            for r in e.referrers where r.host != ReferrerHost.none {
                referrers.append(ReferrerCountRow(day: k.day, site: k.site, code: k.code, route: k.route, referrer: r.host, count: r.count))
            }
        }
        return (rows, referrers, clicks)
    }

    // MARK: /metrics

    /// The click series for `/metrics`: everything counted since the server started (flushed or not).
    public func metricsText() -> String {
        let s = currentSettings
        let (t, pending) = totals.withLock { t -> (MetricTotals, Int) in
            var copy = t
            var held = 0
            counter.forEach { k, e in
                copy.add(k, e, maxLinks: s.maxKeys)
                held += e.total
            }
            return (copy, held)
        }
        let unwritten = pending + pendingClicks
        var out = ""
        out += "# HELP linkwell_clicks_total Clicks (route pages, short links, not-found; GET only) by site, route, platform and outcome since the server started.\n"
        out += "# TYPE linkwell_clicks_total counter\n"
        // In (site, route, platform, outcome) order; combinations never seen are left out.
        for (k, counts) in t.routes.sorted(by: { ($0.key.site, $0.key.route) < ($1.key.site, $1.key.route) }) {
            for (po, n) in counts.enumerated() where n > 0 {
                let platform = ClickPlatform(rawValue: po / ClickEvent.outcomeCount)!, outcome = ClickOutcome(rawValue: po % ClickEvent.outcomeCount)!
                out += "linkwell_clicks_total{site=\"\(Metrics.label(k.site))\",route=\"\(Metrics.label(k.route))\",platform=\"\(platform.name)\",outcome=\"\(outcome.name)\"} \(n)\n"
            }
        }
        out += "# HELP linkwell_link_clicks_total Clicks of the storage.clicks.metricsTopLinks most clicked short links since the server started (the set can change; 'linkwell stats' has every link).\n"
        out += "# TYPE linkwell_link_clicks_total counter\n"
        let top = t.links.sorted { ($0.value, $1.key.site, $1.key.code) > ($1.value, $0.key.site, $0.key.code) }.prefix(s.metricsTopLinks)
        for (k, n) in top.sorted(by: { ($0.key.site, $0.key.code) < ($1.key.site, $1.key.code) }) {
            out += "linkwell_link_clicks_total{site=\"\(Metrics.label(k.site))\",link=\"\(Metrics.label(k.code))\"} \(n)\n"
        }
        out += "# HELP linkwell_clicks_overflow_total Clicks counted under their route's link (other) because storage.clicks.maxKeys keys were held in memory.\n"
        out += "# TYPE linkwell_clicks_overflow_total counter\n"
        out += "linkwell_clicks_overflow_total \(counter.overflowed + t.pendingOverflow)\n"
        out += "# HELP linkwell_clicks_flushes_total Flushes of the click counts to the database, by result (a failed one keeps the counts for the next).\n"
        out += "# TYPE linkwell_clicks_flushes_total counter\n"
        out += "linkwell_clicks_flushes_total{result=\"success\"} \(t.flushes)\n"
        out += "linkwell_clicks_flushes_total{result=\"failure\"} \(t.failedFlushes)\n"
        out += "# HELP linkwell_clicks_dropped_total Clicks counted but never written because the link store was read-only.\n"
        out += "# TYPE linkwell_clicks_dropped_total counter\n"
        out += "linkwell_clicks_dropped_total \(droppedClicks)\n"
        out += "# HELP linkwell_clicks_unwritten Clicks counted but not yet in the database (written at the next flush).\n"
        out += "# TYPE linkwell_clicks_unwritten gauge\n"
        out += "linkwell_clicks_unwritten \(unwritten)\n"
        return out + opens.metricsText()
    }
}
