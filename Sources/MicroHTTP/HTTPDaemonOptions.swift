import Foundation

/// How the HTTP daemon listens and what it allows. Independent of any Linkwell configuration.
public struct HTTPDaemonOptions: Sendable {
    /// Each address gets its own libmicrohttpd daemon (and its own `threads` polling threads).
    public var listen: [ListenAddress]
    /// Polling threads per listen address; each runs the handler for its connections.
    /// Default: the active core count. More threads than cores costs CPU per request.
    public var threads: Int
    /// Open connections allowed per listen address (beyond it, new connections are closed at once).
    public var connectionLimit: Int
    /// Open connections allowed from one client IP per listen address; 0 = no limit.
    /// Behind a reverse proxy every connection comes from the proxy: leave it 0 there.
    public var perIPConnectionLimit: Int
    /// An idle or stalled connection is closed after this many seconds; 0 = never.
    public var connectionTimeoutSeconds: Int
    /// Memory per connection for reading the request and writing response headers.
    /// Measured with libmicrohttpd 0.9.75 at the 8 KiB default: a request line plus headers of
    /// about 7.7 KB fit, but MHD copies the `Cookie` header to parse it, so cookies count twice
    /// (about 3.8 KB of cookies fit; 16 KiB takes about 7.9 KB). Larger requests get
    /// `431 Request Header Fields Too Large` (`414 URI Too Long` for a long target) from
    /// libmicrohttpd — except when the cookie copy is what overflows, which MHD answers by
    /// closing the connection — and the daemon carries on. Memory grows with it: ~13 MB RSS at 1000
    /// connections with 8 KiB, ~37 MB with 32 KiB.
    public var connectionMemoryLimit: Int
    /// Bytes of request body drained (and discarded) before the connection is dropped.
    public var requestBodyLimit: Int
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

    public init(
        listen: [ListenAddress],
        threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        connectionLimit: Int = 1000,
        perIPConnectionLimit: Int = 0,
        connectionTimeoutSeconds: Int = 30,
        connectionMemoryLimit: Int = 8 * 1024,
        requestBodyLimit: Int = 1 << 20,
        listenBacklog: Int? = nil,
        reusePort: Bool = false,
        summaryHeaders: [String] = [],
        logger: (@Sendable (String) -> Void)? = nil
    ) {
        self.listen = listen
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionMemoryLimit = connectionMemoryLimit
        self.requestBodyLimit = requestBodyLimit
        self.listenBacklog = listenBacklog
        self.reusePort = reusePort
        self.summaryHeaders = summaryHeaders
        self.logger = logger
    }

    func validate() throws(HTTPDaemonError) {
        if listen.isEmpty { throw .invalidOption("no listen address; give at least one, e.g. 127.0.0.1:8080") }
        if threads < 1 { throw .invalidOption("threads is \(threads); it must be at least 1") }
        if connectionLimit < 1 { throw .invalidOption("connectionLimit is \(connectionLimit); it must be at least 1") }
        if perIPConnectionLimit < 0 { throw .invalidOption("perIPConnectionLimit is \(perIPConnectionLimit); use 0 for no limit") }
        if connectionTimeoutSeconds < 0 { throw .invalidOption("connectionTimeoutSeconds is \(connectionTimeoutSeconds); use 0 for no timeout") }
        if connectionMemoryLimit < 4096 {
            throw .invalidOption("connectionMemoryLimit is \(connectionMemoryLimit) bytes; it must be at least 4096 (default 8192)")
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
}
