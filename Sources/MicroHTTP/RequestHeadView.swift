import CMicroHTTPD

/// The request headers a handler commonly reads, by name, without a lookup of its own.
public enum KnownHeader: Int, CaseIterable, Sendable {
    case host, userAgent, acceptLanguage, ifNoneMatch, forwarded, xForwardedFor, xForwardedProto, xForwardedHost, referer

    /// The header's name as usually written.
    public var name: String {
        switch self {
        case .host: "Host"
        case .userAgent: "User-Agent"
        case .acceptLanguage: "Accept-Language"
        case .ifNoneMatch: "If-None-Match"
        case .forwarded: "Forwarded"
        case .xForwardedFor: "X-Forwarded-For"
        case .xForwardedProto: "X-Forwarded-Proto"
        case .xForwardedHost: "X-Forwarded-Host"
        case .referer: "Referer"
        }
    }

    /// The header for a name of `bytes` (compared case-insensitively); nil for any other name.
    @inline(__always)
    static func named(_ bytes: UnsafeRawBufferPointer) -> KnownHeader? {
        switch bytes.count {
        case 4: RequestHeadCheck.equalsIgnoringCase(bytes, "host") ? .host : nil
        case 7: RequestHeadCheck.equalsIgnoringCase(bytes, "referer") ? .referer : nil
        case 9: RequestHeadCheck.equalsIgnoringCase(bytes, "forwarded") ? .forwarded : nil
        case 10: RequestHeadCheck.equalsIgnoringCase(bytes, "user-agent") ? .userAgent : nil
        case 13: RequestHeadCheck.equalsIgnoringCase(bytes, "if-none-match") ? .ifNoneMatch : nil
        case 15:
            RequestHeadCheck.equalsIgnoringCase(bytes, "accept-language") ? .acceptLanguage
                : RequestHeadCheck.equalsIgnoringCase(bytes, "x-forwarded-for") ? .xForwardedFor : nil
        case 16: RequestHeadCheck.equalsIgnoringCase(bytes, "x-forwarded-host") ? .xForwardedHost : nil
        case 17: RequestHeadCheck.equalsIgnoringCase(bytes, "x-forwarded-proto") ? .xForwardedProto : nil
        default: nil
        }
    }
}

/// What the strict head check's one pass over libmicrohttpd's header list found of the
/// `KnownHeader`s: each one's first value, as a pointer into libmicrohttpd's copy of the head
/// (valid until the request ends), and how many lines carried it. No copy, no `String`: the
/// handler makes a `String` only of what it reads.
struct RequestHeadView {
    struct Slot {
        var value: UnsafePointer<CChar>?
        var count = 0
        var lines = 0
    }

    var slots = InlineArray<9, Slot>(repeating: Slot())

    @inline(__always)
    mutating func note(_ header: KnownHeader, value: UnsafePointer<CChar>?, count: Int) {
        if slots[header.rawValue].lines == 0 {
            slots[header.rawValue].value = value
            slots[header.rawValue].count = count
        }
        slots[header.rawValue].lines += 1
    }

    /// The first value's bytes; empty for a header sent without a value, nil when absent.
    @inline(__always)
    func first(_ header: KnownHeader) -> UnsafeRawBufferPointer? {
        let slot = slots[header.rawValue]
        guard slot.lines > 0 else { return nil }
        guard let value = slot.value else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: value, count: slot.count)
    }

    @inline(__always)
    func lines(_ header: KnownHeader) -> Int {
        slots[header.rawValue].lines
    }
}
