// Counters of the admin REST API for /metrics: requests by method and status, and refused
// credentials by reason (a spike of `invalid` is someone guessing, of `revoked` a forgotten client).

import MicroHTTP

public final class APIMetrics: Sendable {
    /// Why a request was refused with 401.
    public enum AuthFailure: String, Sendable, CaseIterable {
        /// No `Authorization: Bearer …` header.
        case missing
        /// A token no stored hash matches.
        case invalid
        /// A token revoked with `linkwell tokens revoke`.
        case revoked
    }

    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]

    private struct State {
        var requests: [String: [Int: Int]] = [:]
        var authFailures: [AuthFailure: Int] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// One API request answered with `status` (an unknown method counts as `other`).
    public func record(method: String, status: Int) {
        let m = Self.methods.contains(method) ? method : "other"
        state.withLock { $0.requests[m, default: [:]][status, default: 0] += 1 }
    }

    public func record(authFailure: AuthFailure) {
        state.withLock { $0.authFailures[authFailure, default: 0] += 1 }
    }

    /// Requests answered with `status` (all methods), for tests.
    public func requests(status: Int) -> Int {
        state.withLock { $0.requests.values.reduce(0) { $0 + ($1[status] ?? 0) } }
    }

    /// The exposition lines.
    public func render() -> String {
        let s = state.withLock { $0 }
        var out = "# HELP linkwell_api_requests_total Admin API requests (/api/v1/…), by method and status.\n"
        out += "# TYPE linkwell_api_requests_total counter\n"
        for (method, statuses) in s.requests.sorted(by: { $0.key < $1.key }) {
            for (status, count) in statuses.sorted(by: { $0.key < $1.key }) {
                out += "linkwell_api_requests_total{method=\"\(method)\",status=\"\(status)\"} \(count)\n"
            }
        }
        out += "# HELP linkwell_api_auth_failures_total Admin API requests refused with 401, by reason (missing, invalid or revoked token).\n"
        out += "# TYPE linkwell_api_auth_failures_total counter\n"
        for reason in AuthFailure.allCases {
            out += "linkwell_api_auth_failures_total{reason=\"\(reason.rawValue)\"} \(s.authFailures[reason] ?? 0)\n"
        }
        return out
    }
}
