import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a new connection was closed as soon as it was accepted.
public enum ConnectionRefusal: String, Sendable, CaseIterable {
    /// `HTTPDaemonOptions.connectionLimit` connections were open.
    case connectionLimit = "connection_limit"
    /// `HTTPDaemonOptions.perIPConnectionLimit` connections from that address were open.
    case perAddressLimit = "per_address_limit"
}

/// Something the daemon did to connections, reported at most once a second per kind (the
/// watchdog sums them up), so an attack cannot flood the log.
public enum HTTPConnectionEvent: Sendable, Equatable {
    /// `count` new connections were refused since the last report; `addresses` are the
    /// client addresses involved (at most 5).
    case refused(ConnectionRefusal, count: Int, addresses: [String])
    /// `count` connections had not sent a complete request head within the deadline and were closed.
    case headDeadline(count: Int, addresses: [String])
}

/// The daemon's connection counters (all listen addresses together), for metrics and readiness.
public struct HTTPConnectionStatistics: Sendable, Equatable {
    /// Connections open now.
    public var open: Int
    /// `HTTPDaemonOptions.connectionLimit` × the number of listen addresses.
    public var limit: Int
    /// New connections refused since start, by reason.
    public var refused: [ConnectionRefusal: Int]
    /// Connections closed because their request head was not complete within the deadline.
    public var closedByHeadDeadline: Int
    /// True when at least 90 % of `limit` connections are open: a load balancer should send new
    /// clients elsewhere before they are refused.
    public var saturated: Bool { open * 10 >= limit * 9 }
}

/// One TCP connection, from libmicrohttpd's "started" to its "closed" notification (held in
/// MHD's `socket_context`). The daemon thread that owns the connection writes the atomics; the
/// watchdog reads them and owns the rest under the tracker's lock.
final class ConnectionState: @unchecked Sendable {
    // @unchecked: the `var`s are only touched with `ConnectionTracker.state` locked.
    let fd: Int32
    let address: String
    let acceptedNanos: UInt64
    /// True from "request head received" to "response finished".
    let busy = Atomic<Bool>(false)
    /// Requests started on this connection (URI log callback).
    let requests = Atomic<Int>(0)
    /// When the last response on this connection finished (0: none yet).
    let lastCompletionNanos = Atomic<UInt64>(0)

    var seenCompletionNanos: UInt64 = 0
    /// When the request head now arriving began (the accept time for a new connection); nil while
    /// a keep-alive connection sits idle between requests.
    var headStartNanos: UInt64?
    /// Set (once) by the watchdog when it closed the connection at the head deadline.
    let cut = Atomic<Bool>(false)
    /// Answered 400 on its first bytes (`FirstBytesCheck`): whatever libmicrohttpd does with the
    /// rest is not reported again.
    let answeredAtOnce = Atomic<Bool>(false)

    init(fd: Int32, address: String, acceptedNanos: UInt64) {
        self.fd = fd
        self.address = address
        self.acceptedNanos = acceptedNanos
        self.headStartNanos = acceptedNanos
    }
}

/// Counts connections per daemon and per client address, refuses new ones over the limits
/// (libmicrohttpd's accept-policy callback), and closes connections whose request head does not
/// arrive within the deadline (a watchdog thread: libmicrohttpd's own timeout restarts at every
/// byte, so a client sending one byte every few seconds would hold a connection forever).
final class ConnectionTracker: Sendable {
    struct State: ~Copyable {
        var connections: [ObjectIdentifier: ConnectionState] = [:]
        /// Connections admitted (reserved by `admit`, released by `closed`) in all and per address.
        /// Counted at admission, not at "started", so two polling threads accepting at once cannot
        /// both take the last place.
        var admitted = 0
        var perAddress: [String: Int] = [:]
        var refusedSinceReport: [ConnectionRefusal: (count: Int, addresses: [String])] = [:]
        var refusedTotal: [ConnectionRefusal: Int] = [:]
        var cutSinceReport: (count: Int, addresses: [String]) = (0, [])
        var cutTotal = 0
        var stopped = false
    }

    let state = Locked(State())
    let connectionLimit: Int
    let perAddressLimit: Int
    let exempt: [IPNetwork]
    let headDeadlineNanos: UInt64
    let onEvent: (@Sendable (HTTPConnectionEvent) -> Void)?

    init(options: HTTPDaemonOptions) {
        connectionLimit = options.connectionLimit * max(1, options.listen.count)
        perAddressLimit = options.perIPConnectionLimit
        exempt = options.perIPLimitExemptions
        headDeadlineNanos = UInt64(max(0, options.requestHeadTimeoutSeconds) * 1e9)
        onEvent = options.onConnectionEvent
    }

    // MARK: libmicrohttpd's callbacks (daemon threads)

    /// Accept policy: false refuses (MHD closes the socket at once).
    func admit(_ address: String) -> Bool {
        state.withLock { state in
            var refusal: ConnectionRefusal?
            if state.admitted >= connectionLimit {
                refusal = .connectionLimit
            } else if perAddressLimit > 0, state.perAddress[address, default: 0] >= perAddressLimit, !isExempt(address) {
                refusal = .perAddressLimit
            }
            guard let refusal else {
                state.admitted += 1
                state.perAddress[address, default: 0] += 1
                return true
            }
            state.refusedTotal[refusal, default: 0] += 1
            var pending = state.refusedSinceReport[refusal] ?? (0, [])
            pending.count += 1
            if pending.addresses.count < 5, !pending.addresses.contains(address) { pending.addresses.append(address) }
            state.refusedSinceReport[refusal] = pending
            return false
        }
    }

    /// A connection `admit` let in is set up (libmicrohttpd's "started" notification, on the
    /// same thread right after the accept policy).
    func started(_ connection: ConnectionState) {
        state.withLock { state in
            state.connections[ObjectIdentifier(connection)] = connection
        }
    }

    /// After this returns the watchdog never touches `connection.fd` again (MHD closes it next).
    func closed(_ connection: ConnectionState) {
        state.withLock { state in
            state.connections[ObjectIdentifier(connection)] = nil
            state.admitted = max(0, state.admitted - 1)
            let left = state.perAddress[connection.address, default: 1] - 1
            state.perAddress[connection.address] = left > 0 ? left : nil
        }
    }

    private func isExempt(_ address: String) -> Bool {
        guard !exempt.isEmpty, let ip = IPAddress(address) else { return false }
        return exempt.contains { $0.contains(ip) }
    }

    // MARK: Statistics

    var openConnections: Int { state.withLock { $0.connections.count } }

    func statistics() -> HTTPConnectionStatistics {
        state.withLock { state in
            HTTPConnectionStatistics(open: state.connections.count, limit: connectionLimit,
                                     refused: state.refusedTotal, closedByHeadDeadline: state.cutTotal)
        }
    }

    // MARK: The watchdog

    func startWatchdog() {
        let tick = headDeadlineNanos == 0 ? 1_000_000_000 : min(500_000_000, max(50_000_000, headDeadlineNanos / 4))
        var thread = pthread_t()
        let box = Unmanaged.passRetained(WatchdogBox(tracker: self, tickNanos: tick)).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<WatchdogBox>.fromOpaque(raw!).takeRetainedValue()
            box.tracker.runWatchdog(tickNanos: box.tickNanos)
            return nil
        }, box)
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<WatchdogBox>.fromOpaque(box).release()
        }
    }

    func stopWatchdog() {
        state.withLock { $0.stopped = true }
    }

    private func runWatchdog(tickNanos: UInt64) {
        while true {
            usleep(UInt32(tickNanos / 1000))
            let (stopped, events) = sweep(now: monotonicNanos())
            if stopped { return }
            for event in events { onEvent?(event) }
        }
    }

    /// One pass: cut connections past the head deadline; collect what to report.
    func sweep(now: UInt64) -> (stopped: Bool, events: [HTTPConnectionEvent]) {
        state.withLock { state in
            if state.stopped { return (true, []) }
            if headDeadlineNanos > 0 {
                for connection in state.connections.values where !connection.cut.load(ordering: .relaxed) {
                    if connection.busy.load(ordering: .acquiring) { continue }
                    let completed = connection.lastCompletionNanos.load(ordering: .acquiring)
                    if completed != connection.seenCompletionNanos {
                        // A response finished: the connection is idle until the client sends again.
                        connection.seenCompletionNanos = completed
                        connection.headStartNanos = nil
                    }
                    if connection.headStartNanos == nil, let received = Self.lastReceivedNanos(connection.fd, now: now),
                       received > connection.seenCompletionNanos &+ 20_000_000 {
                        connection.headStartNanos = received
                    }
                    guard let start = connection.headStartNanos, now > start, now - start > headDeadlineNanos else { continue }
                    // The fd stays valid: MHD closes it only after `closed` (under this lock) returned.
                    _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
                    connection.cut.store(true, ordering: .releasing)
                    state.cutTotal += 1
                    state.cutSinceReport.count += 1
                    if state.cutSinceReport.addresses.count < 5, !state.cutSinceReport.addresses.contains(connection.address) {
                        state.cutSinceReport.addresses.append(connection.address)
                    }
                }
            }
            // Re-count from the connections that exist: an admission libmicrohttpd could not
            // complete (no memory for the connection) never gets a "closed" to release it.
            state.admitted = state.connections.count
            var perAddress: [String: Int] = [:]
            for connection in state.connections.values { perAddress[connection.address, default: 0] += 1 }
            state.perAddress = perAddress
            var events: [HTTPConnectionEvent] = []
            for reason in ConnectionRefusal.allCases {
                if let pending = state.refusedSinceReport[reason], pending.count > 0 {
                    events.append(.refused(reason, count: pending.count, addresses: pending.addresses))
                }
            }
            state.refusedSinceReport = [:]
            if state.cutSinceReport.count > 0 {
                events.append(.headDeadline(count: state.cutSinceReport.count, addresses: state.cutSinceReport.addresses))
                state.cutSinceReport = (0, [])
            }
            return (false, events)
        }
    }

    /// When the kernel last received data on `fd` (TCP_INFO), on the monotonic clock.
    static func lastReceivedNanos(_ fd: Int32, now: UInt64) -> UInt64? {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return nil }
        let ago = UInt64(info.tcpi_last_data_recv) * 1_000_000
        return ago < now ? now - ago : nil
    }
}

private final class WatchdogBox {
    let tracker: ConnectionTracker
    let tickNanos: UInt64
    init(tracker: ConnectionTracker, tickNanos: UInt64) {
        self.tracker = tracker
        self.tickNanos = tickNanos
    }
}
