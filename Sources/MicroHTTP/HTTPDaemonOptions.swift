import Foundation

/// How the HTTP daemon listens and what it allows. Independent of any Linkwell configuration.
public struct HTTPDaemonOptions: Sendable {
    /// Each address gets its own libmicrohttpd daemon (and its own `threads` polling threads).
    public var listen: [ListenAddress]
    /// Polling threads per listen address; each runs the handler for its connections.
    /// Default: the active core count. More threads than cores costs CPU per request.
    public var threads: Int
    /// Open connections allowed per listen address. Beyond it a new connection is accepted and
    /// closed at once (and counted), never left waiting in the listen queue.
    public var connectionLimit: Int
    /// Open connections allowed from one client IP (over all listen addresses); 0 = no limit.
    /// Addresses in `perIPLimitExemptions` (a reverse proxy, which carries many clients) are exempt.
    public var perIPConnectionLimit: Int
    /// Client networks the per-IP limit does not apply to.
    public var perIPLimitExemptions: [IPNetwork]
    /// An idle or stalled connection is closed after this many seconds without a byte; 0 = never.
    public var connectionTimeoutSeconds: Int
    /// The whole request head (request line and headers) must arrive within this many seconds of
    /// the connection opening, or of its first byte on a keep-alive connection; otherwise the
    /// connection is closed. 0 = no deadline. libmicrohttpd's own timeout restarts at every byte.
    public var requestHeadTimeoutSeconds: Double
    /// Size limits and method/body rules checked on every request head before the handler.
    public var headLimits: RequestHeadLimits
    /// Memory per connection (libmicrohttpd's pool) for reading the request head and writing the
    /// response headers: the head, a 64-byte record per header line and query argument, and the
    /// response header block (a long `Location`) all come out of it. nil = sized for `headLimits`
    /// (see `effectiveConnectionMemoryLimit`). libmicrohttpd zeroes the whole pool on every request,
    /// and a pool over 32 KiB is `mmap`ed and `munmap`ed per connection, so a bigger pool costs CPU
    /// per request as well as RSS.
    public var connectionMemoryLimit: Int?
    /// Receives the connection events (refusals, head-deadline closes), summed up once a second.
    public var onConnectionEvent: (@Sendable (HTTPConnectionEvent) -> Void)?
    /// Bytes of request body drained (and discarded) before the connection is dropped; with
    /// `collectsRequestBodies`, the largest body handed to the handler.
    public var requestBodyLimit: Int
    /// Keep request bodies (up to `requestBodyLimit`) for the handler (`HTTPRequest.body`). A larger
    /// body reaches the handler as `HTTPRequest.bodyTooLarge` (answer 413): drained when it is at most
    /// 4 × the limit, else answered before it is read (and the connection closed). Off: bodies are
    /// discarded, as `requestBodyLimit` says.
    public var collectsRequestBodies: Bool
    /// Pending-connection queue length (`listen` backlog); nil = the system default.
    public var listenBacklog: Int?
    /// Set `SO_REUSEPORT` so several processes can share the port. Off by default: then binding a
    /// busy port fails loudly instead of silently splitting traffic with another process.
    /// (`SO_REUSEADDR` is always set, so a restart never waits for TIME_WAIT.)
    public var reusePort: Bool
    /// Request headers copied into `HTTPRequestSummary.headers` for the completion hook
    /// (e.g. `User-Agent`, `Referer` for an access log). Empty = no header lookups.
    public var summaryHeaders: [String]
    /// Receives libmicrohttpd's own diagnostics (one line each). nil = dropped.
    public var logger: (@Sendable (String) -> Void)?
    /// Answer 400 at once to a connection whose first bytes cannot start an HTTP request (a TLS
    /// handshake on the plain port, binary, a CR without LF) instead of waiting for the head
    /// deadline (`FirstBytesCheck`); sets `TCP_DEFER_ACCEPT` on the listening socket, so a
    /// connection is accepted when its first bytes arrive.
    public var checksFirstBytes: Bool = true

    public init(
        listen: [ListenAddress],
        threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        connectionLimit: Int = 1000,
        perIPConnectionLimit: Int = 0,
        perIPLimitExemptions: [IPNetwork] = [],
        connectionTimeoutSeconds: Int = 30,
        requestHeadTimeoutSeconds: Double = 10,
        headLimits: RequestHeadLimits = RequestHeadLimits(),
        connectionMemoryLimit: Int? = nil,
        requestBodyLimit: Int = 1 << 20,
        listenBacklog: Int? = nil,
        reusePort: Bool = false,
        collectsRequestBodies: Bool = false,
        summaryHeaders: [String] = [],
        logger: (@Sendable (String) -> Void)? = nil,
        onConnectionEvent: (@Sendable (HTTPConnectionEvent) -> Void)? = nil
    ) {
        self.listen = listen
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.perIPLimitExemptions = perIPLimitExemptions
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.requestHeadTimeoutSeconds = requestHeadTimeoutSeconds
        self.headLimits = headLimits
        self.connectionMemoryLimit = connectionMemoryLimit
        self.requestBodyLimit = requestBodyLimit
        self.listenBacklog = listenBacklog
        self.reusePort = reusePort
        self.collectsRequestBodies = collectsRequestBodies
        self.summaryHeaders = summaryHeaders
        self.logger = logger
        self.onConnectionEvent = onConnectionEvent
    }

    /// The pool size used: `connectionMemoryLimit`, else the head budget plus 4 KiB for MHD's
    /// records of the head (64 bytes per header line or query argument) plus 8 KiB of response
    /// headers (a 7 KB `Location` fits) — 28 KiB for 16 KB heads. The two reserves are shared: a
    /// small response leaves room for ~190 header lines. libmicrohttpd 0.9.75 `malloc`s a pool of at
    /// most 32 KiB (a bigger one is its own `mmap` per connection), and every keep-alive connection
    /// keeps its whole pool resident. MHD does not copy the `Cookie` line (see `CookieDecoy`).
    /// Measured with libmicrohttpd 0.9.75, see docs/reference/limits.md.
    public var effectiveConnectionMemoryLimit: Int {
        connectionMemoryLimit ?? (headLimits.headBytes + Self.headRecordBytes + Self.responseHeaderBytes)
    }

    /// Pool room for MHD's per-line records of one request head (64 bytes each).
    public static let headRecordBytes = 4 * 1024
    /// Pool room for the response header block.
    public static let responseHeaderBytes = 8 * 1024

    func validate() throws(HTTPDaemonError) {
        if listen.isEmpty { throw .invalidOption("no listen address; give at least one, e.g. 127.0.0.1:8080") }
        if threads < 1 { throw .invalidOption("threads is \(threads); it must be at least 1") }
        if connectionLimit < 1 { throw .invalidOption("connectionLimit is \(connectionLimit); it must be at least 1") }
        if perIPConnectionLimit < 0 { throw .invalidOption("perIPConnectionLimit is \(perIPConnectionLimit); use 0 for no limit") }
        if connectionTimeoutSeconds < 0 { throw .invalidOption("connectionTimeoutSeconds is \(connectionTimeoutSeconds); use 0 for no timeout") }
        if effectiveConnectionMemoryLimit < 4096 {
            throw .invalidOption("connectionMemoryLimit is \(effectiveConnectionMemoryLimit) bytes; it must be at least 4096")
        }
        if requestHeadTimeoutSeconds < 0 || !requestHeadTimeoutSeconds.isFinite {
            throw .invalidOption("requestHeadTimeoutSeconds is \(requestHeadTimeoutSeconds); use 0 for no deadline")
        }
        if headLimits.lineBytes < 256 || headLimits.headBytes < headLimits.lineBytes {
            throw .invalidOption("head limits are \(headLimits.headBytes) bytes in all, \(headLimits.lineBytes) per line; a line needs at least 256 and the head at least one line")
        }
        if requestBodyLimit < 0 { throw .invalidOption("requestBodyLimit is \(requestBodyLimit); it must be 0 or more") }
        if let listenBacklog, listenBacklog < 1 { throw .invalidOption("listenBacklog is \(listenBacklog); it must be at least 1") }
    }
}

/// One finished request, for access logs and metrics (`HTTPDaemon`'s completion hook).
public struct HTTPRequestSummary: Sendable {
    /// How the request ended.
    public enum Outcome: Sendable, Equatable {
        /// The whole response was sent.
        case completed
        /// Protocol or application error (including the 4xx libmicrohttpd sends on its own).
        case error
        /// The connection timed out.
        case timeout
        /// The daemon stopped while the request was open.
        case shutdown
        /// The client's connection failed or it closed it before the response was sent.
        case clientAbort
        /// The request head did not arrive within `requestHeadTimeoutSeconds`; the connection was closed.
        case headDeadline
    }

    /// Who answered a request the handler never saw.
    public enum Rejecter: Sendable, Equatable {
        /// `RequestHeadCheck` (the RFC 9112 checks and the limits of `HTTPDaemonOptions.headLimits`).
        case headCheck
        /// libmicrohttpd itself (a head over its memory pool, an unsupported version, …).
        case libmicrohttpd
    }

    /// Empty when libmicrohttpd rejected the request before the handler saw it.
    public var method: String
    public var rawTarget: String
    public var httpVersion: String
    public var peerAddress: String
    /// The status sent (also for libmicrohttpd's own replies such as 431); 0 when none was sent.
    public var status: Int
    /// Size of the response body queued (0 for `HEAD`); not necessarily all delivered when `outcome` is not `.completed`.
    public var bodyBytes: Int
    /// From the request line being read to the last byte handed to the kernel.
    public var durationNanos: UInt64
    public var outcome: Outcome
    /// Values of `HTTPDaemonOptions.summaryHeaders` the request carried.
    public var headers: [(name: String, value: String)]
    /// False when the connection ended before the whole head arrived (nothing was answered).
    public var headComplete: Bool = true
    /// Set when the handler never saw the request because it was refused first.
    public var rejectedBy: Rejecter? = nil
    /// What the handler attached with `HTTPRequest.attach(_:)`.
    public var annotation: (any Sendable)? = nil
    /// The object the handler filled with `HTTPRequest.note(_:)`; nil when it filled none.
    public var note: (any AnyObject & Sendable)? = nil
}
