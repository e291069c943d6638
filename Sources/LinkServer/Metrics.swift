import Foundation
import Synchronization
import MicroHTTP

/// Counters for `/metrics` (Prometheus text format). One short critical section per request;
/// reload counters are atomics.
public final class Metrics: Sendable {
    public static let durationBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    struct Key: Hashable {
        var site: String
        var kind: RequestKind
        var status: Int
    }

    struct State {
        var requests: [Key: Int] = [:]
        /// Requests whose response was not (completely) sent, by outcome.
        var unsent: [String: Int] = [:]
        var buckets = [Int](repeating: 0, count: Metrics.durationBuckets.count)
        var durationSum = 0.0
        var durationCount = 0
    }

    private let state = Locked(State())
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
    }

    public func record(site: String?, kind: RequestKind, status: Int, seconds: Double) {
        let key = Key(site: site ?? "", kind: kind, status: status)
        let bucket = Self.durationBuckets.firstIndex { seconds <= $0 }
        state.withLock { s in
            s.requests[key, default: 0] += 1
            if let bucket { s.buckets[bucket] += 1 }
            s.durationSum += seconds
            s.durationCount += 1
        }
    }

    /// A request whose response could not be sent completely (`outcome`: error, timeout, …).
    public func recordUnsent(outcome: String) {
        state.withLock { $0.unsent[outcome, default: 0] += 1 }
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
        let s = state.withLock { $0 }
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
