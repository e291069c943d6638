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
    public var userAgent: String?

    public init(
        method: String = "GET", rawTarget: String, host: String? = nil, peerAddress: String = "127.0.0.1",
        forwarded: [String] = [], xForwardedFor: [String] = [], xForwardedProto: [String] = [],
        xForwardedHost: [String] = [], ifNoneMatch: String? = nil, userAgent: String? = nil
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
    }

    /// Reads the facts from a live request (one pass over the headers).
    public init(_ request: HTTPRequest) {
        self.init(method: request.method, rawTarget: request.rawTarget, peerAddress: request.peerAddress)
        for (name, value) in request.headers {
            switch name.lowercased() {
            case "host": if host == nil { host = value }
            case "forwarded": forwarded.append(value)
            case "x-forwarded-for": xForwardedFor.append(value)
            case "x-forwarded-proto": xForwardedProto.append(value)
            case "x-forwarded-host": xForwardedHost.append(value)
            case "if-none-match": ifNoneMatch = ifNoneMatch.map { $0 + ", " + value } ?? value
            case "user-agent": if userAgent == nil { userAgent = value }
            default: break
            }
        }
    }

    /// The path part of `rawTarget` (before `?`).
    public var rawPath: Substring {
        guard let q = rawTarget.firstIndex(of: "?") else { return rawTarget[...] }
        return rawTarget[..<q]
    }

    /// The query part of `rawTarget` (after the first `?`); nil without `?`.
    public var rawQuery: Substring? {
        guard let q = rawTarget.firstIndex(of: "?") else { return nil }
        return rawTarget[rawTarget.index(after: q)...]
    }
}
