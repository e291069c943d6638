/// What a handler answers.
public enum HTTPResponse: Sendable {
    /// A response built once (e.g. per configuration snapshot) and reused across requests and threads.
    case prepared(PreparedResponse)
    /// A response built for this request; the body is copied into libmicrohttpd once.
    /// `Content-Length` and `Date` are added by libmicrohttpd.
    case dynamic(status: Int, headers: [(String, String)], body: [UInt8])
    /// A response built for this request from byte ranges sent in place (`SpanBody`): shared
    /// constant bytes by reference, only this request's own bytes written.
    case spans(status: Int, headers: [(String, String)], body: SpanBody)

    /// The status code this response is sent with.
    public var status: Int {
        switch self {
        case let .prepared(prepared): prepared.status
        case let .dynamic(status, _, _): status
        case let .spans(status, _, _): status
        }
    }

    /// The response headers (without those libmicrohttpd adds: `Content-Length`, `Date`, `Connection`).
    public var headers: [(String, String)] {
        switch self {
        case let .prepared(prepared): prepared.headers
        case let .dynamic(_, headers, _): headers
        case let .spans(_, headers, _): headers
        }
    }

    /// The response body (for a `HEAD` request libmicrohttpd sends only its length).
    public var body: [UInt8] {
        switch self {
        case let .prepared(prepared): prepared.body
        case let .dynamic(_, _, body): body
        case let .spans(_, _, body): body.bytes
        }
    }

    /// The first value of response header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.0, name) }?.1
    }

    /// Header names equal ignoring ASCII case (names are tokens: ASCII), compared on their bytes
    /// without making lowercased copies.
    static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        @inline(__always) func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return a.utf8.elementsEqual(b.utf8) { lower($0) == lower($1) }
    }
}

/// Answers every request. Called on libmicrohttpd's threads, concurrently: keep it a pure
/// function of immutable state and the request.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse

    /// Called once the head of a request has arrived and before any byte of its body is read, on
    /// a daemon that collects bodies (`HTTPDaemonOptions.collectsRequestBodies`): the place to
    /// refuse a request (authentication, a body too large for this endpoint) without reading what
    /// the client uploads. What is learnt here can be kept for `handle` with
    /// `HTTPRequest.keepForHandler(_:)`. The default reads the body up to the daemon's limit.
    func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision
}

extension HTTPHandler {
    public func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision { .readBody(limit: nil) }
}

/// What to do with a request once its head has arrived (`HTTPHandler.headReceived(_:)`).
public enum HTTPHeadDecision: Sendable {
    /// Read the body, at most `limit` bytes (nil: `HTTPDaemonOptions.requestBodyLimit`); a longer
    /// one reaches `handle` as `HTTPRequest.bodyTooLarge`.
    case readBody(limit: Int?)
    /// Send this response now, without reading the body; the connection is closed after it.
    case answer(HTTPResponse)
}
