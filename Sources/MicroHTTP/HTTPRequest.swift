import CMicroHTTPD

/// One HTTP request, as the handler sees it.
///
/// A request read from a socket is only valid during `HTTPHandler.handle(_:)`: header and peer
/// lookups go to libmicrohttpd's connection, lazily, when asked. Do not keep it beyond the call
/// (it is deliberately not `Sendable`). For tests without a socket, use
/// `init(method:rawTarget:httpVersion:headers:peerAddress:)`.
public struct HTTPRequest {
    /// The method exactly as sent: `GET`, `HEAD`, `POST`, …
    public let method: String
    /// The request-target exactly as sent — path and query, not unescaped, not normalised:
    /// `/a%2Fb/c%20d?x=%26&y`.
    public let rawTarget: String
    /// `HTTP/1.1`, `HTTP/1.0`.
    public let httpVersion: String

    /// The request body, when the daemon collects bodies (`HTTPDaemonOptions.collectsRequestBodies`);
    /// else empty.
    public var body: [UInt8] { context?.body ?? fixedBody }
    /// True when the body was longer than `HTTPDaemonOptions.requestBodyLimit` (then `body` is
    /// empty): answer 413.
    public var bodyTooLarge: Bool { context?.bodyTooLarge ?? false }
    private let fixedBody: [UInt8]

    private let source: Source
    /// The daemon's per-request state, for `attach(_:)`; nil for a request built in a test.
    private let context: RequestContext?

    private enum Source {
        case connection(OpaquePointer)
        case fixed(headers: [(name: String, value: String)], peerAddress: String)
    }

    init(connection: OpaquePointer, method: String, rawTarget: String, httpVersion: String, context: RequestContext? = nil) {
        self.method = method
        self.rawTarget = rawTarget
        self.httpVersion = httpVersion
        self.source = .connection(connection)
        self.context = context
        self.fixedBody = []
    }

    /// Hands `value` to the daemon's completion hook (`HTTPRequestSummary.annotation`), which
    /// runs once the response is really sent — or has failed: log there, not in the handler,
    /// to report what happened.
    public func attach(_ value: any Sendable) {
        context?.annotation = value
    }

    /// An object of type `Note` for the daemon's completion hook (`HTTPRequestSummary.note`), to be
    /// filled by the handler: the one an earlier request on this thread filled, when of the same
    /// type and held by nobody else, else `make()`. Unlike `attach(_:)` it allocates nothing per
    /// request, and the hook reads it without a dynamic cast when its daemon fills only one type.
    /// Every field must be set again (it holds the previous request's values). Nil for a request
    /// built in a test.
    public func note<Note: AnyObject & Sendable>(_ make: () -> Note) -> Note? {
        guard let context else { return nil }
        context.noteAttached = true
        if isKnownUniquelyReferenced(&context.note), let existing = context.note,
           ObjectIdentifier(type(of: existing)) == ObjectIdentifier(Note.self) {
            return unsafeDowncast(existing, to: Note.self)
        }
        let made = make()
        context.note = made
        return made
    }

    /// Keeps `value` from `HTTPHandler.headReceived(_:)` for `HTTPHandler.handle(_:)` of the same
    /// request (`keptForHandler`), e.g. the result of an authentication made before the body.
    public func keepForHandler(_ value: any Sendable) {
        context?.handlerState = value
    }

    /// What `headReceived` kept with `keepForHandler(_:)`; nil when nothing was kept.
    public var keptForHandler: (any Sendable)? { context?.handlerState }

    /// The body limit in force for this request (`HTTPHeadDecision.readBody(limit:)`, else the
    /// daemon's); nil for a request built in a test.
    public var bodyLimit: Int? { context?.bodyLimit }

    /// A request that is not backed by a connection, for tests and for handlers called directly.
    public init(
        method: String = "GET",
        rawTarget: String,
        httpVersion: String = "HTTP/1.1",
        headers: [(name: String, value: String)] = [],
        peerAddress: String = "127.0.0.1",
        body: [UInt8] = []
    ) {
        self.method = method
        self.rawTarget = rawTarget
        self.httpVersion = httpVersion
        self.source = .fixed(headers: headers, peerAddress: peerAddress)
        self.context = nil
        self.fixedBody = body
    }

    /// The path part of `rawTarget` (before `?`), still percent-encoded.
    public var rawPath: Substring {
        guard let question = rawTarget.utf8.firstIndex(of: UInt8(ascii: "?")) else { return rawTarget[...] }
        return rawTarget[..<question]
    }

    /// The query part of `rawTarget` (after the first `?`), still percent-encoded; nil without `?`.
    public var rawQuery: Substring? {
        guard let question = rawTarget.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return rawTarget[rawTarget.index(after: question)...]
    }

    /// True for `HEAD` (libmicrohttpd sends the headers of the response, without its body).
    public var isHead: Bool { method == "HEAD" }

    /// The first value of the header `name`, compared case-insensitively; nil when absent.
    public func header(_ name: String) -> String? {
        switch source {
        case let .connection(connection):
            // MHD's lookup would find the empty `CookieDecoy` first.
            if name.utf8.count == 6 && name.lowercased() == "cookie" { return headerValues(name).first }
            guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name) else { return nil }
            return String(cString: value)
        case let .fixed(headers, _):
            return headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// The first value of a `KnownHeader`: from the head check's one pass over the header list
    /// (no lookup); for a request built in a test, looked up by name.
    public func header(_ known: KnownHeader) -> String? {
        if let context, context.headChecked { return context.knownHeader(known) }
        return header(known.name)
    }

    /// Lines of `Forwarded`, `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host`
    /// together: 0 when no proxy said anything about the request.
    public var forwardingHeaderLines: Int {
        if let context, context.headChecked { return context.forwardingHeaderLines }
        return headerCount(.forwarded) + headerCount(.xForwardedFor) + headerCount(.xForwardedProto) + headerCount(.xForwardedHost)
    }

    /// How many header lines carried `known` (0 when absent).
    public func headerCount(_ known: KnownHeader) -> Int {
        if let context, context.headChecked { return context.headView.lines(known) }
        return headerValues(known.name).count
    }

    /// Every value of the header `name`, in the order received (e.g. repeated `X-Forwarded-For`).
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// All request headers in the order received.
    public var headers: [(name: String, value: String)] {
        switch source {
        case let .connection(connection):
            var collected: [(name: String, value: String)] = []
            withUnsafeMutablePointer(to: &collected) { pointer in
                _ = MHD_get_connection_values(connection, .HEADER_KIND, HTTPRequest.collectHeader, pointer)
            }
            return collected
        case let .fixed(headers, _):
            return headers
        }
    }

    /// The client's IP address as text (`127.0.0.1`, `::1`); IPv4-mapped IPv6 shown as IPv4.
    /// Behind a reverse proxy this is the proxy.
    public var peerAddress: String {
        switch source {
        case let .connection(connection):
            // Formatted once when the connection opened (`ConnectionState`), not per request.
            if let known = context?.connection?.address { return known }
            guard let address = CMicroHTTPD_get_client_address(connection) else { return "" }
            return SocketAddress.text(of: address)
        case let .fixed(_, peerAddress):
            return peerAddress
        }
    }

    /// Appends one header to the `[(name, value)]` array behind `cls`.
    private static let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key, !CookieDecoy.isDecoy(key) else { return .YES }
        let headers = cls.assumingMemoryBound(to: [(name: String, value: String)].self)
        headers.pointee.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
        return .YES
    }
}
