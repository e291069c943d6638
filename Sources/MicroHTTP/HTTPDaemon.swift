import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: one MHD daemon per listen address, each with
/// `threads` internal polling threads (`poll`, not `epoll`) that call the handler.
///
/// Graceful shutdown: `quiesce()` (stop accepting; later responses close their connection),
/// wait until `inFlightRequests()` is 0 or a deadline passes, then `stop()` — or call
/// `shutdown(gracePeriod:)`, which does exactly that.
public final class HTTPDaemon: Sendable {
    /// The addresses actually bound, in the order given; port 0 replaced by the port the OS picked.
    public let boundAddresses: [ListenAddress]

    private let context: DaemonContext
    private let state: Locked<State>

    private struct State: ~Copyable {
        var daemons: [OpaquePointer]
        /// One per daemon that has a listen socket: accepts the whole backlog at once.
        var drainers: [BacklogDrainer] = []
        /// Listening sockets handed back by `MHD_quiesce_daemon`; closed by `stop()`.
        var quiescedSockets: [Int32] = []
    }

    /// Starts listening on every address in `options.listen`. When one address fails, the ones
    /// already started are stopped and the error names the address and the cause.
    ///
    /// - Parameter onRequestCompleted: called on a daemon thread after each request (also for
    ///   requests libmicrohttpd rejected itself); keep it short.
    public init(
        options: HTTPDaemonOptions,
        handler: any HTTPHandler,
        onRequestCompleted: (@Sendable (HTTPRequestSummary) -> Void)? = nil
    ) throws(HTTPDaemonError) {
        try options.validate()
        let context = DaemonContext(options: options, handler: handler, onRequestCompleted: onRequestCompleted)
        var daemons: [OpaquePointer] = []
        var bound: [ListenAddress] = []
        for address in options.listen {
            do {
                let daemon = try Self.start(address, options: options, context: context)
                daemons.append(daemon)
                var actual = address
                actual.port = CMicroHTTPD_get_bind_port(daemon)
                bound.append(actual)
            } catch {
                for daemon in daemons { MHD_stop_daemon(daemon) }
                throw error
            }
        }
        self.context = context
        self.boundAddresses = bound
        let drainers = daemons.compactMap(BacklogDrainer.init(daemon:))
        for drainer in drainers { drainer.start() }
        self.state = Locked(State(daemons: daemons, drainers: drainers))
        context.tracker.startWatchdog()
    }

    deinit {
        stop()
    }

    /// Stops accepting new connections on every address; the port is released at once, so
    /// new clients get "connection refused". Requests in flight are finished, and every
    /// response sent from now on carries `Connection: close`. Idempotent.
    public func quiesce() {
        context.quiescing.store(true, ordering: .releasing)
        state.withLock { state in
            for drainer in state.drainers { drainer.stop() }
            for daemon in state.daemons {
                let socket = MHD_quiesce_daemon(daemon)
                guard socket != MHD_INVALID_SOCKET else { continue }  // already quiesced
                // Stop listening now but keep the descriptor number allocated until the polling
                // threads have certainly dropped it (closed in `stop()`), so it cannot be reused
                // under them.
                _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
                state.quiescedSockets.append(socket)
            }
        }
    }

    /// Open connections over all addresses (including idle keep-alive ones).
    public func activeConnections() -> Int {
        context.tracker.openConnections
    }

    /// Connections open, refused and cut at the head deadline, for metrics and readiness.
    public func connectionStatistics() -> HTTPConnectionStatistics {
        context.tracker.statistics()
    }

    /// Requests whose head has been received and whose response is not finished yet. (A
    /// connection still sending its head is not one: shutting down does not wait for it.)
    public func inFlightRequests() -> Int {
        context.inFlight.load(ordering: .acquiring)
    }

    /// Closes every connection and joins the daemon threads. Requests still open end with
    /// `.shutdown`. Idempotent; also done on deinit.
    public func stop() {
        let (daemons, sockets, drainers) = state.withLock { state in
            defer { state.daemons = []; state.quiescedSockets = []; state.drainers = [] }
            return (state.daemons, state.quiescedSockets, state.drainers)
        }
        for drainer in drainers { drainer.stop() }
        context.tracker.stopWatchdog()
        for daemon in daemons { MHD_stop_daemon(daemon) }
        for socket in sockets { _ = close(socket) }
    }

    /// Requests whose handler has started and whose response is not finished.
    public func handlingRequests() -> Int {
        context.handling.load(ordering: .sequentiallyConsistent)
    }

    /// Handler calls running now (their response is not queued yet).
    public func runningHandlers() -> Int {
        context.inHandlerCall.load(ordering: .sequentiallyConsistent)
    }

    /// From now on no request is handed to the handler: one whose handler has not started is
    /// answered 503 with `Retry-After` and never handled. Requests already in the handler finish.
    /// Used at the end of a shutdown's grace period, so that a request is either handled and
    /// answered, or not handled at all — never handled and then cut. Idempotent.
    public func stopHandling() {
        context.handlingRequests.store(false, ordering: .sequentiallyConsistent)
    }

    /// What a shutdown did.
    public struct ShutdownResult: Sendable, Equatable {
        /// Every request finished within the grace period.
        public var drained: Bool
        /// Requests still open at the deadline (their handler had not run; nothing was done for them).
        public var cutRequests: Int
        /// Connections closed by `stop()` at the deadline (idle keep-alive and half-sent heads included).
        public var cutConnections: Int
        /// Requests whose handler had started by the deadline and whose response was not sent
        /// within `answerGrace` after the last handler returned (a client that does not read it).
        public var cutAnswers: Int
    }

    /// `quiesce()`, wait until no request is in flight or `gracePeriod` has passed, `stop()`.
    /// Idle keep-alive connections and connections still sending their head do not delay it
    /// (they are closed by `stop()`). `drained` is true when every request finished; otherwise
    /// the counts say what `stop()` cut at the deadline.
    @discardableResult
    public func shutdown(gracePeriod: Duration, answerGrace: Duration = .seconds(5)) -> ShutdownResult {
        Self.shutdown([self], gracePeriod: gracePeriod, answerGrace: answerGrace)
    }

    /// Shuts several daemons down together (the public and the admin listener), under one deadline:
    /// every daemon stops accepting at once; requests in flight finish until `gracePeriod` has
    /// passed. At the deadline no further request is handed to a handler (`stopHandling()`:
    /// those get 503 and are not handled); handler calls already running finish (however long
    /// they take: closing the connection under one would lose an answer to a write that was
    /// done — a second signal is the way out), their responses get `answerGrace` more to be sent,
    /// and then every connection is closed. So a request that changes something (an API write) is
    /// either done and answered, or not done.
    @discardableResult
    public static func shutdown(_ daemons: [HTTPDaemon], gracePeriod: Duration, answerGrace: Duration = .seconds(5)) -> ShutdownResult {
        for daemon in daemons { daemon.quiesce() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: gracePeriod)
        func inFlight() -> Int { daemons.reduce(0) { $0 + $1.inFlightRequests() } }
        var drained = inFlight() == 0
        while !drained && clock.now < deadline {
            usleep(5_000)
            drained = inFlight() == 0
        }
        var cutAnswers = 0
        if !drained {
            for daemon in daemons { daemon.stopHandling() }
            func handling() -> Int { daemons.reduce(0) { $0 + $1.handlingRequests() } }
            func running() -> Int { daemons.reduce(0) { $0 + $1.runningHandlers() } }
            while running() > 0 { usleep(5_000) }
            let answerDeadline = clock.now.advanced(by: answerGrace)
            while handling() > 0 && clock.now < answerDeadline { usleep(5_000) }
            cutAnswers = handling()
        }
        let cut = (inFlight(), daemons.reduce(0) { $0 + $1.activeConnections() })
        for daemon in daemons { daemon.stop() }
        return ShutdownResult(drained: drained, cutRequests: drained ? 0 : max(0, cut.0 - cutAnswers),
                              cutConnections: drained ? 0 : cut.1, cutAnswers: cutAnswers)
    }

    // MARK: - Starting one MHD daemon

    private static func start(
        _ address: ListenAddress,
        options: HTTPDaemonOptions,
        context: DaemonContext
    ) throws(HTTPDaemonError) -> OpaquePointer {
        let socketAddress = try address.socketAddress()

        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ITC.rawValue  // MHD_quiesce_daemon needs it with internal threads
            | MHD_USE_ERROR_LOG.rawValue  // routed to DaemonContext.log, never to stderr
        if address.isIPv6 {
            flags |= address.dualStack ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue
        }

        let contextPointer = Unmanaged.passUnretained(context).toOpaque()
        var items: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: options.effectiveConnectionMemoryLimit, ptr_value: nil),
            // libmicrohttpd 0.9.75 starts the read buffer at half the pool and grows it in place
            // (it is the pool's first block) by an eighth of what is free when a head fills it;
            // this is the free space it wants before each read (1 KiB, MHD's default).
            MHD_OptionItem(option: .CONNECTION_MEMORY_INCREMENT, value: 1024, ptr_value: nil),
            // The limits are the tracker's (accept policy): it refuses at once and counts. MHD's
            // own limit is set well above them so MHD never stops polling the listen socket,
            // which would leave new clients waiting in the backlog instead of being refused.
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: options.connectionLimit * 2 + 64, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: options.connectionTimeoutSeconds, ptr_value: nil),
            // 0, deliberately: at 1, libmicrohttpd 0.9.75 refuses a missing Host or a space in the
            // target by closing the connection without a reply; `RequestHeadCheck` refuses the
            // same (and more) with a well-formed 400.
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 0, ptr_value: nil),
            .callback(.NOTIFY_CONNECTION, MHDCallbacks.connectionNotified, argument: contextPointer),
            .callback(.URI_LOG_CALLBACK, MHDCallbacks.requestStarted, argument: contextPointer),
            .callback(.NOTIFY_COMPLETED, MHDCallbacks.requestCompleted, argument: contextPointer),
            .callback(.UNESCAPE_CALLBACK, MHDCallbacks.keepEscaped, argument: nil),
        ]
        if options.threads > 1 {
            items.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: options.threads, ptr_value: nil))
        }
        if let backlog = options.listenBacklog {
            items.append(MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: backlog, ptr_value: nil))
        }
        if options.reusePort {
            items.append(MHD_OptionItem(option: .LISTENING_ADDRESS_REUSE, value: 1, ptr_value: nil))
        }

        context.beginCapturingLog()
        let daemon = socketAddress.withSockaddrPointer { sockaddrPointer, _ -> OpaquePointer? in
            items.append(MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(mutating: sockaddrPointer)))
            items.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return items.withUnsafeMutableBufferPointer { buffer in
                CMicroHTTPD_start_daemon(
                    flags, MHDCallbacks.acceptPolicy, contextPointer, MHDCallbacks.access, contextPointer, context.cLogger,
                    buffer.baseAddress)
            }
        }
        let messages = context.endCapturingLog()
        if let daemon {
            if options.checksFirstBytes {
                let listenSocket = CMicroHTTPD_get_listen_fd(daemon)
                if listenSocket >= 0 {
                    FirstBytesCheck.deferAccept(listenSocket: listenSocket, seconds: Int(max(1, options.requestHeadTimeoutSeconds.rounded(.up))))
                }
            }
            return daemon
        }

        // libmicrohttpd does not report errno; bind a probe socket the same way to learn the cause.
        let code = probeBind(socketAddress, dualStack: address.dualStack)
        let cause: String
        if code != 0 {
            cause = HTTPDaemonError.bindCause(errno: code, address: address)
        } else if let last = messages.last {
            cause = "libmicrohttpd could not start: \(last)"
        } else {
            cause = "libmicrohttpd could not start (no further detail)"
        }
        throw .cannotListen(address, cause: cause)
    }

    /// Binds (and closes) a socket like libmicrohttpd does; returns errno, or 0 when it would bind.
    private static func probeBind(_ address: SocketAddress, dualStack: Bool) -> Int32 {
        let socket = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return errno }
        defer { _ = close(socket) }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 {
            var v6Only: Int32 = dualStack ? 0 : 1
            _ = setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6Only, socklen_t(MemoryLayout<Int32>.size))
        }
        let result = address.withSockaddrPointer { bind(socket, $0, $1) }
        return result == 0 ? 0 : errno
    }
}

extension MHD_OptionItem {
    /// A callback option. It takes two pointers, so the function goes in `value` as an intptr_t
    /// (the MHD_OPTION_ARRAY rule) and the argument MHD passes it in `ptr_value`.
    static func callback<Function>(_ option: MHD_OPTION, _ function: Function, argument: UnsafeMutableRawPointer?) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: unsafeBitCast(function, to: Int.self), ptr_value: argument)
    }
}
