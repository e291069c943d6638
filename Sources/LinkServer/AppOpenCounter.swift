#if canImport(Glibc)
import Glibc
#endif
import LinkStore
import MicroHTTP

/// App opens reported by the apps (`AppOpenBeacon`), counted in memory per link (or route) and
/// UTC day, and written with the clicks (`ClickRecorder.flush`): a handful per second at most, so
/// one lock and one dictionary. At most `maxKeys` keys are held; beyond it a new link counts
/// under the code `(other)` of its route, as the clicks do. A failed write keeps the counts for
/// the next flush.
public final class AppOpenCounter: Sendable {
    struct Key: Hashable {
        var site: String
        var code: String
        var route: String
        var day: Int
    }

    struct Counts {
        var firstOpens = 0
        var reopens = 0
    }

    struct State {
        /// Not yet written.
        var pending: [Key: Counts] = [:]
        /// Since the server started, for `/metrics`: per site, route and kind.
        var totals: [MetricKey: Int] = [:]
        /// Beacons refused (not counted) since the server started, by reason.
        var refused: [String: Int] = [:]
    }

    struct MetricKey: Hashable, Comparable {
        var site: String
        var route: String
        var kind: String
        static func < (a: Self, b: Self) -> Bool { (a.site, a.route, a.kind) < (b.site, b.route, b.kind) }
    }

    private let state = Locked(State())
    private let maxKeys: Int

    /// Keys held between two flushes by default.
    public static let defaultMaxKeys = 100_000

    public init(maxKeys: Int = AppOpenCounter.defaultMaxKeys) {
        self.maxKeys = maxKeys
    }

    /// One open of the link `code` (or the route, code "") of `site`, on the UTC day of `unixSeconds`.
    public func record(site: String, code: String, route: String, kind: AppOpenKind, unixSeconds: Int) {
        var key = Key(site: site, code: code, route: route, day: ClickDay.of(unixSeconds: unixSeconds))
        state.withLock { s in
            if s.pending[key] == nil, s.pending.count >= maxKeys, !key.code.isEmpty { key.code = ClickCounter.overflowCode }
            switch kind {
            case .firstOpen: s.pending[key, default: Counts()].firstOpens += 1
            case .reopen: s.pending[key, default: Counts()].reopens += 1
            }
            s.totals[MetricKey(site: site, route: route, kind: kind.rawValue), default: 0] += 1
        }
    }

    /// A beacon refused and not counted (`reason`: rate_limited, invalid, unknown_link, …).
    func recordRefused(_ reason: String) {
        state.withLock { $0.refused[reason, default: 0] += 1 }
    }

    /// The counts not yet written, as rows; the caller writes them, then calls `restore` if that failed.
    func drain() -> [AppOpenRow] {
        let pending = state.withLock { s in
            let p = s.pending
            s.pending = [:]
            return p
        }
        return pending.map { k, c in
            AppOpenRow(day: k.day, site: k.site, code: k.code, route: k.route, firstOpens: c.firstOpens, reopens: c.reopens)
        }.sorted { ($0.site, $0.code, $0.route, $0.day) < ($1.site, $1.code, $1.route, $1.day) }
    }

    /// Puts rows a failed write could not keep back into the pending counts.
    func restore(_ rows: [AppOpenRow]) {
        state.withLock { s in
            for r in rows {
                let key = Key(site: r.site, code: r.code, route: r.route, day: r.day)
                s.pending[key, default: Counts()].firstOpens += r.firstOpens
                s.pending[key, default: Counts()].reopens += r.reopens
            }
        }
    }

    /// Opens counted but not yet written.
    var unwritten: Int {
        state.withLock { s in s.pending.values.reduce(0) { $0 + $1.firstOpens + $1.reopens } }
    }

    /// `/metrics`: every open counted since the server started, by site, route and kind.
    func metricsText() -> String {
        let (totals, refused, unwritten) = state.withLock { s in
            (s.totals, s.refused, s.pending.values.reduce(0) { $0 + $1.firstOpens + $1.reopens })
        }
        var out = "# HELP linkwell_app_opens_total Links that opened the app, as the apps reported them (POST /.well-known/linkwell/opens), by site, route and kind (first_open: the first launch after an install; reopen), since the server started.\n"
        out += "# TYPE linkwell_app_opens_total counter\n"
        for (k, n) in totals.sorted(by: { $0.key < $1.key }) {
            out += "linkwell_app_opens_total{site=\"\(Metrics.label(k.site))\",route=\"\(Metrics.label(k.route))\",kind=\"\(k.kind)\"} \(n)\n"
        }
        out += "# HELP linkwell_app_open_beacons_refused_total App-open beacons answered 4xx and not counted, by reason.\n"
        out += "# TYPE linkwell_app_open_beacons_refused_total counter\n"
        for (reason, n) in refused.sorted(by: { $0.key < $1.key }) {
            out += "linkwell_app_open_beacons_refused_total{reason=\"\(reason)\"} \(n)\n"
        }
        out += "# HELP linkwell_app_opens_unwritten App opens counted but not yet in the database (written with the clicks).\n"
        out += "# TYPE linkwell_app_opens_unwritten gauge\n"
        out += "linkwell_app_opens_unwritten \(unwritten)\n"
        return out
    }
}
