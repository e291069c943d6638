import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every libmicrohttpd callback of one `HTTPDaemon` reaches through its `void *` argument.
/// Owned by the `HTTPDaemon`, which outlives its MHD daemons (passed unretained).
final class DaemonContext: @unchecked Sendable {
    // @unchecked: `cLogger` is written once in init and only read by libmicrohttpd afterwards.
    let handler: any HTTPHandler
    let onRequestCompleted: (@Sendable (HTTPRequestSummary) -> Void)?
    let logger: (@Sendable (String) -> Void)?
    let summaryHeaders: [String]
    let requestBodyLimit: Int
    let collectsRequestBodies: Bool
    let checksFirstBytes: Bool
    let headLimits: RequestHeadLimits
    /// libmicrohttpd's pool per connection (`HTTPDaemonOptions.effectiveConnectionMemoryLimit`).
    let poolBytes: Int
    let tracker: ConnectionTracker
    /// Requests whose head is complete and whose response is not finished.
    let inFlight = Atomic<Int>(0)
    let quiescing = Atomic<Bool>(false)
    /// False once a stopping daemon's grace period has passed: a request whose handler has not
    /// started by then is answered 503 and never handled (`enterHandler`).
    let handlingRequests = Atomic<Bool>(true)
    /// Requests whose handler has started (`enterHandler`) and whose response is not finished.
    let handling = Atomic<Int>(0)
    /// Handler calls running now (a subset of `handling`: their response is not even queued).
    let inHandlerCall = Atomic<Int>(0)
    /// Lines logged while a daemon is starting, to explain a failure; nil when not capturing.
    private let startupLog = Locked<[String]?>(nil)
    /// The C side of the log route: `MHDCallbacks.log` plus this context.
    let cLogger: UnsafeMutablePointer<CMicroHTTPD_Logger>

    init(options: HTTPDaemonOptions, handler: any HTTPHandler, onRequestCompleted: (@Sendable (HTTPRequestSummary) -> Void)?) {
        self.handler = handler
        self.onRequestCompleted = onRequestCompleted
        self.logger = options.logger
        self.summaryHeaders = options.summaryHeaders
        self.requestBodyLimit = options.requestBodyLimit
        self.collectsRequestBodies = options.collectsRequestBodies
        self.checksFirstBytes = options.checksFirstBytes
        self.headLimits = options.headLimits
        self.poolBytes = options.effectiveConnectionMemoryLimit
        self.tracker = ConnectionTracker(options: options)
        self.cLogger = .allocate(capacity: 1)
        self.cLogger.initialize(to: CMicroHTTPD_Logger(sink: MHDCallbacks.log, context: nil))
        self.cLogger.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        cLogger.deallocate()
    }

    /// Called before the handler runs a request: false once the daemon stopped handling requests
    /// (then nothing is handled). A true answer is balanced in the completion callback. The
    /// count goes up before the flag is read and `HTTPDaemon.stopHandling` sets the flag before it
    /// reads the count, so a handler either is counted or never runs.
    func enterHandler(_ request: RequestContext) -> Bool {
        handling.add(1, ordering: .sequentiallyConsistent)
        guard handlingRequests.load(ordering: .sequentiallyConsistent) else {
            handling.subtract(1, ordering: .sequentiallyConsistent)
            return false
        }
        request.enteredHandler = true
        return true
    }

    func beginCapturingLog() {
        startupLog.withLock { $0 = [] }
    }

    func endCapturingLog() -> [String] {
        startupLog.withLock { log in
            defer { log = nil }
            return log ?? []
        }
    }

    func log(_ line: String) {
        startupLog.withLock { log in log?.append(line) }
        // Refusals and connections closed mid-head are counted and reported once a second by the
        // tracker, not once per connection (an attacker would otherwise write the log).
        if line.hasPrefix("Connection rejected by application") || line.hasPrefix("Connection socket is closed when reading request") {
            return
        }
        // The access handler answered on the socket itself and asked MHD to close (`PoolRoom`).
        if line.hasPrefix(DirectReply.closeLogPrefix) && DirectReply.take() { return }
        // MHD is about to send an error reply of its own, on this thread, for the connection it is
        // processing; remember the status for its "closed" notification (see `MHDOwnReply`).
        if line.hasPrefix(MHDOwnReply.logPrefix), let status = Int(line.dropFirst(MHDOwnReply.logPrefix.count).prefix(3)) {
            MHDOwnReply.remember(status)
        }
        logger?(line)
    }
}

/// The status of an error reply libmicrohttpd sends before any request context exists (a request
/// line too long for its pool: 414; an unsupported version: 505; a garbled line: 400): no
/// completion callback reports those, and at the "closed" notification MHD no longer tells the
/// status. Its log line names it, on the thread that handles the connection, just before the
/// connection is closed; this thread-local carries it from there to the notification.
enum MHDOwnReply {
    static let logPrefix = "Error processing request (HTTP response code is "
    private static let status = ThreadWord()

    static func remember(_ status: Int) {
        self.status.set(status)
    }

    /// The remembered status (0: none), cleared.
    static func take() -> Int {
        status.take()
    }
}

/// One integer per thread (a pthread key), 0 until set: carries a fact from one libmicrohttpd
/// callback to the next on the thread that handles the connection.
struct ThreadWord: @unchecked Sendable {
    // @unchecked: a pthread key, created once and never changed.
    private let key: pthread_key_t

    init(destructor: (@convention(c) (UnsafeMutableRawPointer?) -> Void)? = nil) {
        var key = pthread_key_t()
        pthread_key_create(&key, destructor)
        self.key = key
    }

    /// The value (0: none), left in place.
    func peek() -> Int {
        Int(bitPattern: pthread_getspecific(key))
    }

    func set(_ value: Int) {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: value))
    }

    /// The value (0: none), cleared.
    func take() -> Int {
        let value = Int(bitPattern: pthread_getspecific(key))
        if value != 0 { pthread_setspecific(key, nil) }
        return value
    }
}

/// Per-request state, created when the request line arrives (URI log callback), stored in
/// libmicrohttpd's `*con_cls`, released in the completion callback. A finished context nobody
/// else holds is kept as its thread's spare and reused by the next request on that thread
/// (`take`, `recycle`): no allocation per request, and the target and header `String`s of the
/// previous request are reused when the new one sent the same bytes.
final class RequestContext {
    private(set) var rawTarget: String
    private(set) var startNanos: UInt64
    private(set) var connection: ConnectionState?
    /// False until the access handler's first call (headers received) has returned.
    var headersReceived = false
    var method = ""
    var httpVersion = ""
    var status = 0
    var bodyBytes = 0
    var uploadedBytes = 0
    /// The body, when the daemon collects bodies (`HTTPDaemonOptions.collectsRequestBodies`).
    var body: [UInt8] = []
    /// The body is (or is announced) longer than `bodyLimit`; `body` stays empty.
    var bodyTooLarge = false
    /// The most body bytes kept for this request (`HTTPHeadDecision.readBody(limit:)`).
    var bodyLimit = 0
    /// The handler has run (or is running) for this request: `DaemonContext.handling` counts it.
    var enteredHandler = false
    /// What `HTTPHandler.headReceived` kept for `handle` (`HTTPRequest.keepForHandler`).
    var handlerState: (any Sendable)? { didSet { holdsExtras = true } }
    /// `handlerState`, `rejection` or `annotation` was set: `recycle` clears them.
    var holdsExtras = false
    var summaryHeaders: [(name: String, value: String)] = []
    /// Set when the head was refused before the handler ran (`RequestHeadCheck`).
    var rejection: RequestHeadRejection? { didSet { holdsExtras = true } }
    /// The known headers the head check found (meaningful once `headChecked`). Not an optional:
    /// each lookup reads one slot in place instead of copying the whole view out.
    var headView = RequestHeadView()
    /// The head check passed and filled `headView`.
    var headChecked = false
    /// What the handler attached for the completion hook (`HTTPRequest.attach`).
    var annotation: (any Sendable)? { didSet { holdsExtras = true } }
    /// The handler's note object (`HTTPRequest.note(_:)`); kept across reuses of this context so
    /// that the next request fills the same object. Reported only when `noteAttached`.
    var note: (any AnyObject & Sendable)?
    var noteAttached = false
    /// The last `String` made of each `KnownHeader`'s value (`HTTPRequest.header(_: KnownHeader)`),
    /// returned again while the bytes are the same.
    var knownValues = InlineArray<9, String?>(repeating: nil)
    /// The reply was written to the socket by `PoolRoom.answerDirectly` (MHD then closed the
    /// connection, reporting an error that is not one).
    var answeredDirectly = false
    /// The last method and version `String`s made on this context (kept across reuses, unlike
    /// `method` and `httpVersion`): the next request with the same bytes gets them again.
    var lastMethod = ""
    var lastVersion = ""

    init(rawTarget: String, startNanos: UInt64, connection: ConnectionState?) {
        self.rawTarget = rawTarget
        self.startNanos = startNanos
        self.connection = connection
    }

    /// This thread's spare context, or a new one, for a request whose target is the C string `uri`.
    static func take(uri: UnsafePointer<CChar>?, startNanos: UInt64, connection: ConnectionState?) -> RequestContext {
        let word = spare.take()
        guard word != 0, let pointer = UnsafeMutableRawPointer(bitPattern: word) else {
            return RequestContext(rawTarget: uri.map { String(cString: $0) } ?? "", startNanos: startNanos, connection: connection)
        }
        let request = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
        if let uri {
            if !Self.same(request.rawTarget, uri, count: strlen(uri)) { request.rawTarget = String(cString: uri) }
        } else {
            request.rawTarget = ""
        }
        request.startNanos = startNanos
        request.connection = connection
        return request
    }

    /// Keeps a finished context as this thread's spare when nothing else holds it and the thread
    /// has none; what it held for its request is released now.
    static func recycle(_ request: consuming RequestContext) {
        var request = request
        guard isKnownUniquelyReferenced(&request), spare.peek() == 0 else { return }
        request.connection = nil
        request.headersReceived = false
        request.method = ""
        request.httpVersion = ""
        request.status = 0
        request.bodyBytes = 0
        request.uploadedBytes = 0
        if !request.body.isEmpty { request.body = [] }
        request.bodyTooLarge = false
        request.bodyLimit = 0
        request.enteredHandler = false
        if !request.summaryHeaders.isEmpty { request.summaryHeaders = [] }
        request.headChecked = false
        if request.holdsExtras {
            // Existential and optional-struct stores cost ~100 instructions each: only when set.
            request.handlerState = nil
            request.rejection = nil
            request.annotation = nil
            request.holdsExtras = false
        }
        request.noteAttached = false
        request.answeredDirectly = false
        spare.set(Int(bitPattern: Unmanaged.passRetained(request).toOpaque()))
    }

    /// The first value of `header` (nil when absent), its slot read in place.
    func knownHeader(_ header: KnownHeader) -> String? {
        let slot = headView.slots[header.rawValue]
        guard slot.lines > 0 else { return nil }
        return knownValue(header, UnsafeRawBufferPointer(start: slot.value, count: slot.value == nil ? 0 : slot.count))
    }

    /// `HTTPRequest.forwardingHeaderLines`, from the view's slots.
    var forwardingHeaderLines: Int {
        headView.slots[KnownHeader.forwarded.rawValue].lines + headView.slots[KnownHeader.xForwardedFor.rawValue].lines
            + headView.slots[KnownHeader.xForwardedProto.rawValue].lines + headView.slots[KnownHeader.xForwardedHost.rawValue].lines
    }

    /// The value of `header` as a `String`: the previous one when the bytes are the same.
    func knownValue(_ header: KnownHeader, _ bytes: UnsafeRawBufferPointer) -> String {
        if let previous = knownValues[header.rawValue], let base = bytes.baseAddress,
           Self.same(previous, base.assumingMemoryBound(to: CChar.self), count: bytes.count) {
            return previous
        }
        let value = String(decoding: bytes, as: UTF8.self)
        knownValues[header.rawValue] = value
        return value
    }

    /// The C string `cString` as a `String`: `previous` itself when its bytes are the same, else a
    /// new one, kept in `previous`.
    static func string(_ cString: UnsafePointer<CChar>, reusing previous: inout String) -> String {
        if !same(previous, cString, count: strlen(cString)) { previous = String(cString: cString) }
        return previous
    }

    /// True when `string`'s UTF-8 is exactly the `count` bytes at `bytes`.
    private static func same(_ string: String, _ bytes: UnsafePointer<CChar>, count: Int) -> Bool {
        guard string.utf8.count == count else { return false }
        return string.utf8.withContiguousStorageIfAvailable { own in
            count == 0 || memcmp(own.baseAddress!, bytes, count) == 0
        } ?? false
    }

    /// One spare context per thread (a retained pointer; released when the thread ends).
    private static let spare = ThreadWord(destructor: { pointer in
        if let pointer { Unmanaged<RequestContext>.fromOpaque(pointer).release() }
    })
}

/// An empty `Cookie` header put in front of the request's headers as soon as its request line is
/// read, so that libmicrohttpd 0.9.75 never copies and splits the client's real `Cookie` line.
///
/// After the last header line MHD looks up the first `Cookie` header, copies its value into the
/// connection's pool and adds a 64-byte record per cookie: an 8 KB line of 45-byte cookies costs
/// 8 KB + 9.6 KB on top of the head, more than the head itself. When that does not fit, MHD queues
/// its own 431, ignores the failure, and builds the 431's header block a second time (a reply with
/// two status lines). Finding this empty decoy first, MHD parses nothing: 80 bytes whatever the
/// client sends, and a 16 KB head with an 8 KB `Cookie` line fits a 32 KiB pool. The real header
/// stays where it was; every reader here skips the decoy (`isDecoy`), so `HTTPRequest.header("Cookie")`
/// still returns what the client sent. Only MHD's cookie table (`MHD_COOKIE_KIND`) is empty.
enum CookieDecoy {
    /// Immortal C strings: MHD keeps the pointers until the request ends. The name's address is
    /// how a reader recognises the decoy.
    private struct Strings: @unchecked Sendable {
        let name: UnsafePointer<CChar>
        let value: UnsafePointer<CChar>
    }
    private static let strings = Strings(name: UnsafePointer(strdup("Cookie")!), value: UnsafePointer(strdup("")!))

    /// Adds the decoy; called from the URI log callback, before MHD reads any header line.
    static func install(on connection: OpaquePointer) {
        _ = MHD_set_connection_value_n(connection, .HEADER_KIND, strings.name, 6, strings.value, 0)
    }

    /// True for the decoy's name pointer, as MHD hands it to an iterator.
    @inline(__always)
    static func isDecoy(_ key: UnsafePointer<CChar>?) -> Bool {
        key == strings.name
    }
}

/// The C callbacks handed to libmicrohttpd. They capture nothing and reach their state
/// through the `void *` argument; they are `static let`s outside `main.swift`, so they are
/// not main-actor isolated and may run on libmicrohttpd's threads.
enum MHDCallbacks {
    /// `MHD_OPTION_URI_LOG_CALLBACK`: the request line has been read. Copies the target exactly
    /// as sent (MHD splits and unescapes its own copy later) and returns the per-request
    /// context, which MHD stores in `*con_cls`.
    static let requestStarted: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        cls, uri, connection in
        guard cls != nil else { return nil }
        let request = RequestContext.take(uri: uri, startNanos: monotonicNanos(), connection: connection.flatMap(connectionState))
        request.connection?.requests.add(1, ordering: .relaxed)
        if let connection { CookieDecoy.install(on: connection) }
        return Unmanaged.passRetained(request).toOpaque()
    }

    /// The tracker's state of a connection (MHD's `socket_context`).
    static func connectionState(_ connection: OpaquePointer) -> ConnectionState? {
        guard let context = CMicroHTTPD_get_socket_context(connection) else { return nil }
        return Unmanaged<ConnectionState>.fromOpaque(context).takeUnretainedValue()
    }

    /// Accept policy: the tracker's connection limits. Refused sockets are closed by MHD at once.
    static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
        guard let cls, let address else { return .YES }
        let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
        return daemon.tracker.admit(SocketAddress.text(of: address)) ? .YES : .NO
    }

    /// `MHD_OPTION_NOTIFY_CONNECTION`: a connection opened or closed.
    static let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls, let connection, let socketContext else { return }
        let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            let address = CMicroHTTPD_get_client_address(connection).map { SocketAddress.text(of: $0) } ?? ""
            let state = ConnectionState(fd: CMicroHTTPD_get_connection_fd(connection), address: address, acceptedNanos: monotonicNanos())
            daemon.tracker.started(state)
            socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
            // Bytes that cannot start a request: 400 now (libmicrohttpd would wait for a line end).
            if daemon.checksFirstBytes, let reason = FirstBytesCheck.problem(fd: state.fd) {
                state.answeredAtOnce.store(true, ordering: .relaxed)
                let bodyBytes = FirstBytesCheck.refuse(fd: state.fd, reason: reason)
                daemon.onRequestCompleted?(HTTPRequestSummary(
                    method: "", rawTarget: "", httpVersion: "", peerAddress: address, status: 400, bodyBytes: bodyBytes,
                    durationNanos: monotonicNanos() &- state.acceptedNanos, outcome: .completed, headers: [],
                    headComplete: false, rejectedBy: .headCheck, annotation: nil))
            }
        case .CONNECTION_NOTIFY_CLOSED:
            guard let pointer = socketContext.pointee else { return }
            socketContext.pointee = nil
            let state = Unmanaged<ConnectionState>.fromOpaque(pointer).takeRetainedValue()
            daemon.tracker.closed(state)
            // A reply MHD sent on its own before any request context existed (414 for a request
            // line that does not fit, 505, 400 for a garbled one): no completion callback reports it.
            let status = state.requests.load(ordering: .relaxed) == 0 ? MHDOwnReply.take() : 0
            if status != 0, !state.answeredAtOnce.load(ordering: .relaxed), let hook = daemon.onRequestCompleted {
                hook(HTTPRequestSummary(
                    method: "", rawTarget: "", httpVersion: "", peerAddress: state.address, status: status, bodyBytes: 0,
                    durationNanos: monotonicNanos() &- state.acceptedNanos, outcome: .completed, headers: [],
                    headComplete: false, rejectedBy: .libmicrohttpd, annotation: nil))
            }
        default:
            break
        }
    }

    /// `MHD_OPTION_UNESCAPE_CALLBACK`: leave MHD's copy of the URL and arguments as sent (the
    /// handler reads `rawTarget`; skipping MHD's decoding also saves the work).
    static let keepEscaped: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = {
        _, _, string in
        guard let string else { return 0 }
        return strlen(string)
    }

    /// The access handler. First call (headers received): return YES without queueing — queueing
    /// now would make MHD close the connection after the reply. Calls with upload data: drain it.
    /// Last call (`*upload_data_size == 0`): run the Swift handler and queue its response.
    static let access: MHD_AccessHandlerCallback = {
        cls, connection, url, method, version, uploadData, uploadDataSize, conCls in
        guard let cls, let connection, let conCls, let uploadDataSize else { return .NO }
        let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()

        let request: RequestContext
        if let existing = conCls.pointee {
            request = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        } else {
            // Only if MHD skipped the URI log callback; fall back to its (unescaped-free) URL.
            request = RequestContext(rawTarget: url.map { String(cString: $0) } ?? "", startNanos: monotonicNanos(),
                                     connection: connectionState(connection))
            conCls.pointee = Unmanaged.passRetained(request).toOpaque()
        }

        if !request.headersReceived {
            request.headersReceived = true
            // Through locals: an `inout` to a class's property is a dynamic exclusivity check.
            var lastMethod = request.lastMethod, lastVersion = request.lastVersion
            request.method = method.map { RequestContext.string($0, reusing: &lastMethod) } ?? ""
            request.httpVersion = version.map { RequestContext.string($0, reusing: &lastVersion) } ?? ""
            request.lastMethod = lastMethod
            request.lastVersion = lastVersion
            request.connection?.busy.store(true, ordering: .releasing)
            daemon.inFlight.add(1, ordering: .relaxed)
            var view = RequestHeadView()
            if let rejection = RequestHeadCheck.check(
                connection: connection, limits: daemon.headLimits, method: request.method, rawTarget: request.rawTarget,
                url: url, version: version, view: &view) {
                // Answered now, before any body byte is read; MHD closes the connection after it.
                request.rejection = rejection
                request.status = rejection.status
                let body = Array("\(HTTPStatus.reasonPhrase(rejection.status)): \(rejection.reason).\n".utf8)
                request.bodyBytes = request.method == "HEAD" ? 0 : body.count
                let headers = [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")] + rejection.extraHeaders
                if !PoolRoom.fits(headerBytes: PoolRoom.headerBlockBytes(headers), on: connection, poolBytes: daemon.poolBytes,
                                  rawTarget: request.rawTarget) {
                    return answerDirectly(rejection, for: request, on: connection)
                }
                return body.withUnsafeBytes { bytes in
                    queueCopy(status: rejection.status, headers: headers, body: bytes, closing: true, on: connection)
                }
            }
            request.headView = view
            request.headChecked = true
            request.bodyLimit = daemon.requestBodyLimit
            guard daemon.collectsRequestBodies || daemon.headLimits.isPathMethod(request.method) else { return .YES }
            // Before any body byte: the handler may refuse now (a missing token) or set this
            // request's own body limit.
            let headRequest = HTTPRequest(
                connection: connection, method: request.method, rawTarget: request.rawTarget, httpVersion: request.httpVersion,
                context: request)
            switch daemon.handler.headReceived(headRequest) {
            case let .answer(response):
                return queue(response, on: connection, for: request, closing: true, poolBytes: daemon.poolBytes)
            case let .readBody(limit):
                if let limit { request.bodyLimit = max(0, limit) }
            }
            if let announced = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
               let length = Int(String(cString: announced)), length > request.bodyLimit {
                request.bodyTooLarge = true
                // Too much to drain, or a client waiting for "100 Continue": answer now, unread.
                if length > 4 * request.bodyLimit || MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect") != nil {
                    return runHandler(daemon, request, on: connection, closing: true)
                }
            }
            return .YES
        }
        if uploadDataSize.pointee != 0 {
            request.uploadedBytes += uploadDataSize.pointee
            if daemon.collectsRequestBodies || daemon.headLimits.isPathMethod(request.method) {
                if request.uploadedBytes > request.bodyLimit {
                    request.bodyTooLarge = true
                    request.body = []
                } else if let data = uploadData {
                    data.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                        request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadDataSize.pointee))
                    }
                }
                uploadDataSize.pointee = 0
                return request.uploadedBytes > 4 * request.bodyLimit ? .NO : .YES
            }
            uploadDataSize.pointee = 0
            return request.uploadedBytes > daemon.requestBodyLimit ? .NO : .YES
        }
        return runHandler(daemon, request, on: connection, closing: daemon.quiescing.load(ordering: .relaxed))
    }

    /// Runs the Swift handler for a request and queues its response — unless the daemon has
    /// stopped handling requests (shutdown past its grace period): then 503, and nothing is handled.
    private static func runHandler(_ daemon: DaemonContext, _ request: RequestContext, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
        guard daemon.enterHandler(request) else {
            request.status = 503
            let body = Array("Service Unavailable: the server is shutting down; this request was not processed. Send it again.\n".utf8)
            request.bodyBytes = request.method == "HEAD" ? 0 : body.count
            let headers = [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store"), ("Retry-After", "1")]
            return body.withUnsafeBytes { bytes in queueCopy(status: 503, headers: headers, body: bytes, closing: true, on: connection) }
        }
        let httpRequest = HTTPRequest(
            connection: connection, method: request.method, rawTarget: request.rawTarget, httpVersion: request.httpVersion,
            context: request)
        if daemon.onRequestCompleted != nil && !daemon.summaryHeaders.isEmpty {
            request.summaryHeaders = daemon.summaryHeaders.compactMap { name in
                httpRequest.header(name).map { (name: name, value: $0) }
            }
        }
        daemon.inHandlerCall.add(1, ordering: .sequentiallyConsistent)
        let response = daemon.handler.handle(httpRequest)
        let queued = queue(response, on: connection, for: request, closing: closing || daemon.quiescing.load(ordering: .relaxed), poolBytes: daemon.poolBytes)
        daemon.inHandlerCall.subtract(1, ordering: .sequentiallyConsistent)
        return queued
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: the response is sent (or the request failed). Reports the
    /// request to the completion hook and frees its context.
    static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, termination in
        guard let cls, let conCls, let pointer = conCls.pointee else { return }
        conCls.pointee = nil
        let request = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
        let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
        let now = monotonicNanos()
        if let hook = daemon.onRequestCompleted {
            // MHD's own replies (431 for a head over the pool, 413, …) have no status of ours.
            let remembered = MHDOwnReply.take()
            var mhdStatus = request.status == 0 ? connection.map { Int(CMicroHTTPD_get_http_status($0)) } ?? 0 : 0
            if request.status == 0 && mhdStatus == 0 { mhdStatus = remembered }
            let peer = request.connection?.address
                ?? connection.flatMap { CMicroHTTPD_get_client_address($0) }.map { SocketAddress.text(of: $0) } ?? ""
            var outcome = HTTPRequestSummary.Outcome(termination)
            if outcome != .completed, request.connection?.cut.load(ordering: .acquiring) == true { outcome = .headDeadline }
            // MHD sends its own error reply, then closes "with error": the reply went out.
            if mhdStatus != 0 && outcome == .error { outcome = .completed }
            // The handler's reply did not fit the pool; a 431 was written directly, then MHD closed.
            if request.answeredDirectly && outcome == .error { outcome = .completed }
            hook(HTTPRequestSummary(
                method: request.method,
                rawTarget: request.rawTarget,
                httpVersion: request.httpVersion,
                peerAddress: peer,
                status: request.status != 0 ? request.status : mhdStatus,
                bodyBytes: request.bodyBytes,
                durationNanos: now &- request.startNanos,
                outcome: outcome,
                headers: request.summaryHeaders,
                headComplete: request.headersReceived,
                rejectedBy: request.rejection != nil ? .headCheck : (mhdStatus != 0 ? .libmicrohttpd : nil),
                annotation: request.annotation,
                note: request.noteAttached ? request.note : nil))
        }
        if request.enteredHandler {
            daemon.handling.subtract(1, ordering: .sequentiallyConsistent)
        }
        if request.headersReceived {
            daemon.inFlight.subtract(1, ordering: .releasing)
            request.connection?.lastCompletionNanos.store(now, ordering: .releasing)
            request.connection?.busy.store(false, ordering: .releasing)
        }
        RequestContext.recycle(request)
    }

    /// `MHD_OPTION_EXTERNAL_LOGGER` sink (formatted by the C shim).
    static let log: CMicroHTTPD_LogSink = { cls, message in
        guard let cls, let message else { return }
        let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
        var line = String(cString: message)
        while let last = line.last, last.isNewline || last == " " { line.removeLast() }
        daemon.log(line)
    }

    // MARK: -

    private static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, for request: RequestContext, closing: Bool, poolBytes: Int
    ) -> MHD_Result {
        let isHead = request.method == "HEAD"
        let headerBytes: Int
        if case let .prepared(prepared) = response {
            headerBytes = prepared.headerBlockBytes
        } else {
            headerBytes = PoolRoom.headerBlockBytes(response.headers)
        }
        // The client's head is to blame only when a short head would have left room; a header
        // block larger than the pool is the handler's, and MHD's failure to send it is logged as such.
        if headerBytes <= poolBytes - PoolRoom.shortHeadBytes,
           !PoolRoom.fits(headerBytes: headerBytes, on: connection, poolBytes: poolBytes, rawTarget: request.rawTarget) {
            let rejection = RequestHeadRejection(
                status: 431,
                reason: "the request head leaves too little of the \(poolBytes) bytes of memory per connection for the \(headerBytes)-byte header block of the \(response.status) response; send fewer or shorter header lines")
            return answerDirectly(rejection, for: request, on: connection)
        }
        switch response {
        case let .prepared(prepared):
            request.status = prepared.status
            request.bodyBytes = isHead ? 0 : prepared.bodyCount
            if !closing {
                return MHD_queue_response(connection, UInt32(prepared.status), prepared.response)
            }
            // Draining: the shared response must not change, so send a copy that closes.
            return prepared.withBodyBytes { body in
                queueCopy(status: prepared.status, headers: prepared.headers, body: body, closing: true, on: connection)
            }
        case let .dynamic(status, headers, body):
            guard (100...999).contains(status) else { return .NO }
            request.status = status
            request.bodyBytes = isHead ? 0 : body.count
            return body.withUnsafeBytes { bytes in
                queueCopy(status: status, headers: headers, body: bytes, closing: closing, on: connection)
            }
        case let .spans(status, headers, body):
            guard (100...999).contains(status), let made = body.makeResponse() else { return .NO }
            request.status = status
            request.bodyBytes = isHead ? 0 : body.count
            return queueMade(made, status: status, headers: headers, closing: closing, on: connection)
        }
    }

    /// `PoolRoom.answerDirectly`, recorded for the completion hook; `.NO` has MHD close the connection.
    private static func answerDirectly(_ rejection: RequestHeadRejection, for request: RequestContext, on connection: OpaquePointer) -> MHD_Result {
        let fd = request.connection?.fd ?? CMicroHTTPD_get_connection_fd(connection)
        request.status = rejection.status
        request.answeredDirectly = true
        request.bodyBytes = PoolRoom.answerDirectly(
            status: rejection.status, reason: rejection.reason, extraHeaders: rejection.extraHeaders, isHead: request.method == "HEAD", fd: fd)
        return .NO
    }

    private static func queueCopy(
        status: Int, headers: [(String, String)], body: UnsafeRawBufferPointer, closing: Bool, on connection: OpaquePointer
    ) -> MHD_Result {
        guard let response = MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY) else {
            return .NO
        }
        return queueMade(response, status: status, headers: headers, closing: closing, on: connection)
    }

    /// Adds `headers` (and `Connection: close` when `closing`) to a response made for this
    /// request, queues it and drops this function's reference to it.
    private static func queueMade(
        _ response: OpaquePointer, status: Int, headers: [(String, String)], closing: Bool, on connection: OpaquePointer
    ) -> MHD_Result {
        defer { MHD_destroy_response(response) }
        for (name, value) in headers {
            // withCString lends a native string's own NUL-terminated storage (no C copy made).
            _ = name.withCString { n in value.withCString { v in MHD_add_response_header(response, n, v) } }
        }
        if closing {
            _ = MHD_add_response_header(response, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(status), response)
    }
}

extension HTTPRequestSummary.Outcome {
    init(_ termination: MHD_RequestTerminationCode) {
        switch termination {
        case .REQUEST_TERMINATED_COMPLETED_OK: self = .completed
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: self = .timeout
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: self = .shutdown
        case .REQUEST_TERMINATED_READ_ERROR, .REQUEST_TERMINATED_CLIENT_ABORT: self = .clientAbort
        case .REQUEST_TERMINATED_WITH_ERROR: self = .error
        default: self = .error
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds.
@inline(__always)
func monotonicNanos() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
