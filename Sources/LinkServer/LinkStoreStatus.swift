// What the server knows about its link store, for /readyz, /metrics and the writers: whether links
// can be written (read-write), only served from memory (read-only: a read-only volume or
// unwritable file), or not read at all right now (unavailable: deleted, corrupted, locked,
// PostgreSQL down — the last good index keeps serving). The link refresher sets it at every
// check; the admin API refuses link writes while it is read-only, and the click flush drops (and
// counts) what it cannot write.

import Foundation
import LinkStore
import MicroHTTP

public final class LinkStoreStatus: Sendable {
    public enum Mode: String, Sendable {
        case readWrite = "read-write"
        case readOnly = "read-only"
        case unavailable
    }

    /// Why a link write was refused, for `linkwell_link_writes_refused_total`.
    public enum Refusal: String, Sendable, CaseIterable {
        case readOnly = "read_only", unavailable, full, locked
    }

    struct State {
        var storage = ""
        /// Why links cannot be written (nil: they can).
        var readOnly: String?
        /// The error of the last failed check (nil: the last check read the store).
        var outage: String?
        var refused: [Refusal: Int] = [:]
        var fullReads: [FullRead: Int] = [:]
        var patches = 0
    }

    /// Why the link refresher read every link instead of only the changed ones, for
    /// `linkwell_links_full_reads_total`: only at start, after an outage, or when the change
    /// log cannot say what changed.
    public enum FullRead: String, Sendable, CaseIterable {
        /// The first read of the links (start-up).
        case start
        /// The store could not be read for a while; it is read whole once it can again.
        case outage
        /// The config's `storage` names another database.
        case storageChanged = "storage_changed"
        /// Another SQLite file was put at the path (a restored backup).
        case fileReplaced = "file_replaced"
        /// The change log no longer reaches back to the index's revision (more changes than
        /// it keeps, a truncate, or a database without one).
        case changeLog = "change_log"
        /// Asked for by the caller.
        case forced
    }

    private let state = Locked(State())

    public init() {}

    public var mode: Mode {
        state.withLock { s in s.outage != nil ? .unavailable : s.readOnly != nil ? .readOnly : .readWrite }
    }

    /// Why links cannot be written now, or nil.
    public var readOnlyReason: String? { state.withLock { $0.readOnly } }

    /// Sets the storage and whether it can be written; returns true when that changed.
    @discardableResult
    func set(storage: String, readOnly: String?) -> Bool {
        state.withLock { s in
            let changed = (s.readOnly == nil) != (readOnly == nil)
            s.storage = storage
            s.readOnly = readOnly
            return changed
        }
    }

    func set(outage: String?) {
        state.withLock { $0.outage = outage }
    }

    func record(fullRead: FullRead) {
        state.withLock { $0.fullReads[fullRead, default: 0] += 1 }
    }

    func recordPatch() {
        state.withLock { $0.patches += 1 }
    }

    /// Full reads of the links so far, by reason, and refreshes that read only the changed links.
    public var refreshCounts: (fullReads: [FullRead: Int], patches: Int) {
        state.withLock { ($0.fullReads, $0.patches) }
    }

    public func record(refused: Refusal) {
        state.withLock { $0.refused[refused, default: 0] += 1 }
    }

    /// The `links:` line of `/readyz` (served links count from `served`).
    public func readyLine(served: Int) -> String {
        let s = state.withLock { $0 }
        let links = served == 1 ? "1 short link" : "\(served) short links"
        if let outage = s.outage {
            return "links: unavailable: \(outage) Serving the last good index (\(links)) from memory.\n"
        }
        if let readOnly = s.readOnly {
            return "links: read-only: \(readOnly). Serving \(links) from memory; link writes are answered 503 and clicks are dropped (counted in linkwell_clicks_dropped_total).\n"
        }
        return "links: read-write (\(links) served)\n"
    }

    /// The exposition lines.
    public func metricsText(served: Int) -> String {
        let s = state.withLock { $0 }
        let mode = s.outage != nil ? Mode.unavailable : s.readOnly != nil ? .readOnly : .readWrite
        var out = "# HELP linkwell_links_store_state The link store's state: read-write, read-only (links serve from memory, writes answer 503) or unavailable (the last good index serves).\n"
        out += "# TYPE linkwell_links_store_state gauge\n"
        for m in [Mode.readWrite, .readOnly, .unavailable] {
            out += "linkwell_links_store_state{state=\"\(m.rawValue)\"} \(m == mode ? 1 : 0)\n"
        }
        out += "# HELP linkwell_links_served Short links in the index being served.\n"
        out += "# TYPE linkwell_links_served gauge\n"
        out += "linkwell_links_served \(served)\n"
        out += "# HELP linkwell_link_writes_refused_total Admin API writes refused because the link store could not take them, by reason.\n"
        out += "# TYPE linkwell_link_writes_refused_total counter\n"
        for r in Refusal.allCases {
            out += "linkwell_link_writes_refused_total{reason=\"\(r.rawValue)\"} \(s.refused[r] ?? 0)\n"
        }
        out += "# HELP linkwell_links_full_reads_total Times the server read every stored link (at start, after an outage, or when the change log could not say what changed), by reason.\n"
        out += "# TYPE linkwell_links_full_reads_total counter\n"
        for r in FullRead.allCases {
            out += "linkwell_links_full_reads_total{reason=\"\(r.rawValue)\"} \(s.fullReads[r] ?? 0)\n"
        }
        out += "# HELP linkwell_links_patches_total Link refreshes that read only the links changed since the last one.\n"
        out += "# TYPE linkwell_links_patches_total counter\n"
        out += "linkwell_links_patches_total \(s.patches)\n"
        return out
    }
}
