/// What the responder knows about a request: plain values, so a response can be computed (and
/// tested) without a socket.
public struct RequestFacts: Sendable, Equatable {
    public var method: String
    /// The request-target as sent (path and query, still percent-encoded).
    public var rawTarget: String
    public var host: String?
    /// The TCP peer (the proxy, behind one).
    public var peerAddress: String
    public var forwarded: [String]
    public var xForwardedFor: [String]
    public var xForwardedProto: [String]
    public var xForwardedHost: [String]
    public var ifNoneMatch: String?
    /// `User-Agent`, at most its first ``headerValueBytes`` bytes when read from a request.
    public var userAgent: String?
    /// `Accept-Language`, for the landing page's language; at most its first ``headerValueBytes``
    /// bytes when read from a request.
    public var acceptLanguage: String?

    /// How much of `User-Agent` and `Accept-Language` is read (the longest real ones are a few
    /// hundred bytes). Everything derived from them — and every cache keyed by them — sees the
    /// same capped value, so a client sending 8 KB headers costs no more than one sending 1 KiB.
    public static let headerValueBytes = 1024

    /// `value`, cut to its first `headerValueBytes` bytes (at a character boundary).
    public static func capped(_ value: String?) -> String? {
        value.map(cap)
    }

    /// `value`, cut to its first `headerValueBytes` bytes (at a character boundary).
    @inlinable
    public static func cap(_ value: String) -> String {
        value.utf8.count > headerValueBytes ? cut(value) : value
    }

    @usableFromInline
    static func cut(_ value: String) -> String {
        var end = value.utf8.index(value.utf8.startIndex, offsetBy: headerValueBytes)
        while end > value.startIndex, String.Index(end, within: value.unicodeScalars) == nil { end = value.utf8.index(before: end) }
        return String(value[..<end])
    }

    public init(
        method: String = "GET", rawTarget: String, host: String? = nil, peerAddress: String = "127.0.0.1",
        forwarded: [String] = [], xForwardedFor: [String] = [], xForwardedProto: [String] = [],
        xForwardedHost: [String] = [], ifNoneMatch: String? = nil, userAgent: String? = nil,
        acceptLanguage: String? = nil
    ) {
        self.method = method
        self.rawTarget = rawTarget
        self.host = host
        self.peerAddress = peerAddress
        self.forwarded = forwarded
        self.xForwardedFor = xForwardedFor
        self.xForwardedProto = xForwardedProto
        self.xForwardedHost = xForwardedHost
        self.ifNoneMatch = ifNoneMatch
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
    }

    /// Reads the facts from a live request: the known headers as the head check's one pass over
    /// the header list found them (`HTTPRequest.header(_: KnownHeader)`); the values of a header
    /// that may repeat are collected only when it did.
    public init(_ request: HTTPRequest) {
        // Each field stored once (no default stored first and replaced).
        method = request.method
        rawTarget = request.rawTarget
        peerAddress = request.peerAddress
        host = request.header(.host)
        userAgent = Self.capped(request.header(.userAgent))
        acceptLanguage = Self.capped(request.header(.acceptLanguage))
        ifNoneMatch = request.headerCount(.ifNoneMatch) > 1
            ? request.headerValues(KnownHeader.ifNoneMatch.name).joined(separator: ", ") : request.header(.ifNoneMatch)
        forwarded = Self.values(.forwarded, of: request)
        xForwardedFor = Self.values(.xForwardedFor, of: request)
        xForwardedProto = Self.values(.xForwardedProto, of: request)
        xForwardedHost = Self.values(.xForwardedHost, of: request)
    }

    /// Every value of `header`, in order: none without a lookup when it is absent, one without a
    /// walk of the list when it came once.
    private static func values(_ header: KnownHeader, of request: HTTPRequest) -> [String] {
        switch request.headerCount(header) {
        case 0: []
        case 1: request.header(header).map { [$0] } ?? []
        default: request.headerValues(header.name)
        }
    }

    /// The path part of `rawTarget` (before `?`).
    public var rawPath: Substring {
        guard let q = questionMark else { return rawTarget[...] }
        return rawTarget[..<q]
    }

    /// The query part of `rawTarget` (after the first `?`); nil without `?`.
    public var rawQuery: Substring? {
        guard let q = questionMark else { return nil }
        return rawTarget[rawTarget.utf8.index(after: q)...]
    }

    /// The first `?` of `rawTarget`, found over its contiguous bytes (a Character search, or an
    /// index walk over the UTF-8 view, costs more than the rest of an AASA request).
    private var questionMark: String.Index? {
        let offset = rawTarget.utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: UInt8(ascii: "?")) }
        guard let offset else { return rawTarget.utf8.firstIndex(of: UInt8(ascii: "?")) }
        return offset.map { rawTarget.utf8.index(rawTarget.utf8.startIndex, offsetBy: $0) }
    }
}
