import Foundation
import Synchronization
import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

/// Counters for `/metrics` (Prometheus text format). Each thread counts its requests in its own
/// slot (no lock shared between request threads; a slot's lock is contended only while /metrics
/// sums the slots); reload counters are atomics.
public final class Metrics: Sendable {
    public static let durationBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    struct Key: Hashable {
        var site: String
        var kind: RequestKind
        var status: Int
    }

    struct State {
        var requests: [Key: Int] = [:]
        /// The key counted last and the dictionary's index of it: the next request of the same
        /// site, kind and status (the common case) is counted without hashing the site's name.
        var lastKey = Key(site: "", kind: .error, status: 0)
        /// nil: no last key (`lastKey` means nothing).
        var lastIndex: Dictionary<Key, Int>.Index?
        /// Requests of the last key not yet added to `requests` (one addition for a run of them);
        /// added (`settle`) before `requests` is read or another key counted.
        var pending = 0
        /// Requests whose response was not (completely) sent, by outcome.
        var unsent: [String: Int] = [:]
        var buckets = [Int](repeating: 0, count: Metrics.durationBuckets.count)
        var durationSum = 0.0
        var durationCount = 0

        mutating func settle() {
            guard pending > 0 else { return }
            if let i = lastIndex { requests.values[i] += pending }
            pending = 0
        }
    }

    /// One thread's counts (`State`), written by that thread only.
    final class Slot: Sendable {
        let state = Locked(State())
    }

    /// Every thread's slot, in the order the threads first counted (summed by `render`).
    private let slots = Locked<[Slot]>([])
    /// The pthread key of this instance's per-thread slot; nil when none was left (then every
    /// thread counts in `shared`).
    private let slotKey: pthread_key_t?
    private let shared = Slot()
    private let connectionSource = Locked<(@Sendable () -> HTTPConnectionStatistics)?>(nil)
    private let accessLogDroppedSource = Locked<(@Sendable () -> Int)?>(nil)
    private let reloadSuccesses = Atomic<Int>(0)
    private let reloadFailures = Atomic<Int>(0)
    /// Unix time in milliseconds of the last snapshot that loaded (0: none).
    private let lastSuccessMillis = Atomic<Int>(0)
    public let version: String
    /// The admin REST API's counters (APIMetrics.swift).
    public let api = APIMetrics()

    public init(version: String) {
        self.version = version
        var key = pthread_key_t()
        slotKey = pthread_key_create(&key, nil) == 0 ? key : nil
        slots.withLock { $0.append(shared) }
    }

    deinit {
        // glibc does not hand a deleted key's values to a later key of the same number.
        if let slotKey { pthread_key_delete(slotKey) }
    }

    /// This thread's slot, made on its first count (kept alive by `slots`).
    private func slot() -> Slot {
        guard let slotKey else { return shared }
        if let known = pthread_getspecific(slotKey) { return Unmanaged<Slot>.fromOpaque(known).takeUnretainedValue() }
        let slot = Slot()
        slots.withLock { $0.append(slot) }
        pthread_setspecific(slotKey, Unmanaged.passUnretained(slot).toOpaque())
        return slot
    }

    public func record(site: String?, kind: RequestKind, status: Int, seconds: Double) {
        let key = Key(site: site ?? "", kind: kind, status: status)
        var bucket = 0
        while bucket < Self.durationBuckets.count, seconds > Self.durationBuckets[bucket] { bucket += 1 }
        slot().state.withLock { s in
            // Field by field, in place: no optional key copied to compare.
            if s.lastIndex != nil, s.lastKey.status == key.status, s.lastKey.kind == key.kind, s.lastKey.site == key.site {
                s.pending += 1
            } else {
                s.settle()
                s.requests[key, default: 0] += 1
                s.lastKey = key
                s.lastIndex = s.requests.index(forKey: key)
            }
            if bucket < Self.durationBuckets.count { s.buckets[bucket] += 1 }
            s.durationSum += seconds
            s.durationCount += 1
        }
    }

    /// A request whose response could not be sent completely (`outcome`: error, timeout, …).
    public func recordUnsent(outcome: String) {
        slot().state.withLock { $0.unsent[outcome, default: 0] += 1 }
    }

    /// Every slot's counts added up.
    private func summed() -> State {
        var total = State()
        for slot in slots.withLock({ $0 }) {
            let s = slot.state.withLock { s in
                s.settle()
                return s
            }
            total.requests.merge(s.requests, uniquingKeysWith: +)
            total.unsent.merge(s.unsent, uniquingKeysWith: +)
            for i in total.buckets.indices { total.buckets[i] += s.buckets[i] }
            total.durationSum += s.durationSum
            total.durationCount += s.durationCount
        }
        return total
    }

    /// The public listener's connection counters (set once the daemon runs).
    public func attach(connectionStatistics: @escaping @Sendable () -> HTTPConnectionStatistics) {
        connectionSource.withLock { $0 = connectionStatistics }
    }

    /// The buffered access log's count of dropped lines (set when the log is buffered).
    public func attach(accessLogDropped: @escaping @Sendable () -> Int) {
        accessLogDroppedSource.withLock { $0 = accessLogDropped }
    }

    public func connectionStatistics() -> HTTPConnectionStatistics? {
        connectionSource.withLock { $0 }?()
    }

    public func recordReload(success: Bool, at date: Date = Date()) {
        if success {
            reloadSuccesses.add(1, ordering: .relaxed)
            lastSuccessMillis.store(Int(date.timeIntervalSince1970 * 1000), ordering: .relaxed)
        } else {
            reloadFailures.add(1, ordering: .relaxed)
        }
    }

    /// The initial load counts as the first successful load (for the timestamp), not as a reload.
    public func recordInitialLoad(at date: Date = Date()) {
        lastSuccessMillis.store(Int(date.timeIntervalSince1970 * 1000), ordering: .relaxed)
    }

    /// The exposition text.
    public func render() -> String {
        let s = summed()
        var out = ""
        out += "# HELP linkwell_requests_total Requests answered, by site, kind and status.\n"
        out += "# TYPE linkwell_requests_total counter\n"
        for (key, count) in s.requests.sorted(by: { ($0.key.site, $0.key.kind.rawValue, $0.key.status) < ($1.key.site, $1.key.kind.rawValue, $1.key.status) }) {
            out += "linkwell_requests_total{site=\"\(Self.label(key.site))\",kind=\"\(key.kind.rawValue)\",status=\"\(key.status)\"} \(count)\n"
        }
        out += "# HELP linkwell_requests_unsent_total Requests whose response was not completely sent, by outcome.\n"
        out += "# TYPE linkwell_requests_unsent_total counter\n"
        for (outcome, count) in s.unsent.sorted(by: { $0.key < $1.key }) {
            out += "linkwell_requests_unsent_total{outcome=\"\(Self.label(outcome))\"} \(count)\n"
        }
        if let c = connectionStatistics() {
            out += "# HELP linkwell_connections_open Connections open on the public listener.\n"
            out += "# TYPE linkwell_connections_open gauge\n"
            out += "linkwell_connections_open \(c.open)\n"
            out += "# HELP linkwell_connections_limit Connections the public listener accepts (server.connectionLimit × listen addresses).\n"
            out += "# TYPE linkwell_connections_limit gauge\n"
            out += "linkwell_connections_limit \(c.limit)\n"
            out += "# HELP linkwell_connections_refused_total New connections closed at once, by reason.\n"
            out += "# TYPE linkwell_connections_refused_total counter\n"
            for reason in ConnectionRefusal.allCases {
                out += "linkwell_connections_refused_total{reason=\"\(reason.rawValue)\"} \(c.refused[reason] ?? 0)\n"
            }
            out += "# HELP linkwell_connections_closed_total Connections closed by the server, by reason.\n"
            out += "# TYPE linkwell_connections_closed_total counter\n"
            out += "linkwell_connections_closed_total{reason=\"request_head_deadline\"} \(c.closedByHeadDeadline)\n"
        }
        if let dropped = accessLogDroppedSource.withLock({ $0 })?() {
            out += "# HELP linkwell_access_log_dropped_lines_total Request log lines dropped because the log writer was behind (a slow stdout or disk); requests never wait for the log.\n"
            out += "# TYPE linkwell_access_log_dropped_lines_total counter\n"
            out += "linkwell_access_log_dropped_lines_total \(dropped)\n"
        }
        out += "# HELP linkwell_request_duration_seconds Time to compute a response.\n"
        out += "# TYPE linkwell_request_duration_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in Self.durationBuckets.enumerated() {
            cumulative += s.buckets[i]
            out += "linkwell_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "linkwell_request_duration_seconds_bucket{le=\"+Inf\"} \(s.durationCount)\n"
        out += "linkwell_request_duration_seconds_sum \(s.durationSum)\n"
        out += "linkwell_request_duration_seconds_count \(s.durationCount)\n"
        out += "# HELP linkwell_reloads_total Configuration reloads, by result.\n"
        out += "# TYPE linkwell_reloads_total counter\n"
        out += "linkwell_reloads_total{result=\"success\"} \(reloadSuccesses.load(ordering: .relaxed))\n"
        out += "linkwell_reloads_total{result=\"failure\"} \(reloadFailures.load(ordering: .relaxed))\n"
        out += "# HELP linkwell_config_last_reload_success_timestamp_seconds When the serving configuration was loaded.\n"
        out += "# TYPE linkwell_config_last_reload_success_timestamp_seconds gauge\n"
        out += "linkwell_config_last_reload_success_timestamp_seconds \(Double(lastSuccessMillis.load(ordering: .relaxed)) / 1000)\n"
        out += api.render()
        out += "# HELP linkwell_build_info The running version.\n"
        out += "# TYPE linkwell_build_info gauge\n"
        out += "linkwell_build_info{version=\"\(Self.label(version))\"} 1\n"
        return out
    }

    static func label(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
