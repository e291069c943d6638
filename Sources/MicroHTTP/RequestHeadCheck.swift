import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a request head was refused before the handler saw it: the status to answer and a
/// sentence for the body (the connection is closed after it).
public struct RequestHeadRejection: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var extraHeaders: [(String, String)] = []

    public static func == (a: Self, b: Self) -> Bool { a.status == b.status && a.reason == b.reason }
}

/// The RFC 9112 checks libmicrohttpd 0.9.75 does not make, run on the parsed head when the
/// access handler is first called — before any body byte is read, so a refused request never
/// reaches MHD's body parser. Everything here is at least as strict as nginx 1.22 on the same bytes
/// (`tests/live/test_hostile_http.py` compares them case by case).
public struct RequestHeadLimits: Sendable, Equatable {
    /// Request line plus header lines, in bytes (431 beyond).
    public var headBytes: Int
    /// One request line or one header line, in bytes (414 for the request line, 431 for a header).
    public var lineBytes: Int
    /// Methods the handler answers; others get 405 at once. nil = any method.
    public var allowedMethods: [String]?
    /// Methods answered on one path only, besides `allowedMethods` (path → methods), compared
    /// with the target's path as sent (`/.well-known/linkwell/opens` → `["POST"]`). The daemon
    /// collects such a request's body (`HTTPHandler.headReceived` sets its limit).
    public var pathMethods: [String: [String]] = [:]
    /// When true a `GET` or `HEAD` request that announces a body (`Content-Length` > 0 or
    /// `Transfer-Encoding`) is refused with 400: nothing here reads it, and an unread body would
    /// be taken as the next request.
    public var refuseBodiesOnGetAndHead: Bool

    public init(headBytes: Int = 16 * 1024, lineBytes: Int = 8 * 1024, allowedMethods: [String]? = nil, refuseBodiesOnGetAndHead: Bool = true) {
        self.headBytes = headBytes
        self.lineBytes = lineBytes
        self.allowedMethods = allowedMethods
        self.refuseBodiesOnGetAndHead = refuseBodiesOnGetAndHead
    }
}

extension RequestHeadLimits {
    /// True when `method` is not one of `allowedMethods` but `pathMethods` allows it on the
    /// path of `rawTarget` (the query is not part of the path).
    public func allowsOnPath(_ method: String, rawTarget: String) -> Bool {
        guard !pathMethods.isEmpty else { return false }
        let path = rawTarget.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? rawTarget
        return pathMethods[path]?.contains(method) == true
    }

    /// True for a method only `pathMethods` allows (the head check let it through on its path).
    public func isPathMethod(_ method: String) -> Bool {
        guard !pathMethods.isEmpty, let allowed = allowedMethods else { return false }
        return !allowed.contains(method)
    }
}

/// What the header iteration collects: counts and values of the framing headers, and the first
/// problem found.
struct HeadScan {
    /// The `KnownHeader`s found (`Host` among them), for the checks and then for the handler.
    var view = RequestHeadView()
    var contentLengths: [[UInt8]] = []
    var transferEncodings: [[UInt8]] = []
    var lineLimit = 0
    var problem: RequestHeadRejection?
    /// End of the previous header's value in MHD's buffer (nil before the first header).
    var previousEnd: UnsafeRawPointer?
}

enum RequestHeadCheck {
    /// - Parameters:
    ///   - url, version: MHD's pointers into its copy of the request line (both in the same buffer).
    ///   - rawTarget: the target as the URI log callback copied it.
    static func check(
        connection: OpaquePointer, limits: RequestHeadLimits, method: String, rawTarget: String,
        url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, view: inout RequestHeadView
    ) -> RequestHeadRejection? {
        // The version is read on MHD's bytes: no `String` of it.
        let versionBytes = version.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        // Request line.
        if method.utf8.count + rawTarget.utf8.count + versionBytes.count + 4 > limits.lineBytes {
            return RequestHeadRejection(status: 414, reason: "the request line is longer than \(limits.lineBytes) bytes")
        }
        if method.isEmpty || !allBytes(of: method, isTokenByte) {
            return RequestHeadRejection(status: 400, reason: "the method is not a token")
        }
        if rawTarget.isEmpty || !allBytes(of: rawTarget, { $0 > 0x20 && $0 != 0x7F }) {
            return RequestHeadRejection(status: 400, reason: "the request-target has a space, a control character or DEL")
        }
        // MHD cuts the target at a NUL byte. Its copy of the line keeps the target and the
        // version in one buffer: more bytes between them than the target we saw means the
        // target went on past a NUL (or had more spaces than one before the version).
        if let url, let version, startsWith(versionBytes, "HTTP/") {
            let gap = UnsafeRawPointer(version) - UnsafeRawPointer(url)
            if gap != rawTarget.utf8.count + 1 && gap > 0 && gap < 1 << 20 {
                return RequestHeadRejection(status: 400, reason: "the request line has a NUL byte or stray spaces")
            }
        }
        if let problem = pathEscapeProblem(rawTarget) {
            return RequestHeadRejection(status: 400, reason: problem)
        }
        let headSize = CMicroHTTPD_get_request_head_size(connection)
        if headSize > limits.headBytes {
            return RequestHeadRejection(status: 431, reason: "the request head is \(headSize) bytes, more than \(limits.headBytes)")
        }

        // Header lines.
        var scan = HeadScan()
        scan.lineLimit = limits.lineBytes
        _ = withUnsafeMutablePointer(to: &scan) { pointer in
            MHD_get_connection_values_n(connection, .HEADER_KIND, scanHeader, pointer)
        }
        if let problem = scan.problem { return problem }
        // After the last value only line ends may follow up to the end of the head.
        if let url, let end = scan.previousEnd {
            let headEnd = UnsafeRawPointer(url) - (method.utf8.count + 1) + headSize
            if headEnd > end, !RequestHeadCheck.onlyBytes(from: end, to: headEnd, in: lineEndsAndSpace) {
                return RequestHeadRejection(status: 400, reason: "a header line has a NUL byte")
            }
        }

        let isHTTP11 = versionBytes.count == 8 && startsWith(versionBytes, "HTTP/1.1")
        let hostCount = scan.view.lines(.host)
        if hostCount > 1 {
            return RequestHeadRejection(status: 400, reason: "the request has more than one Host header")
        }
        if isHTTP11 && hostCount == 0 {
            return RequestHeadRejection(status: 400, reason: "an HTTP/1.1 request needs a Host header")
        }
        if hostCount == 1, let host = scan.view.first(.host), !isValidHost(host) {
            return RequestHeadRejection(status: 400, reason: "the Host header is not a host name or address with an optional port")
        }
        if !scan.transferEncodings.isEmpty {
            if !scan.contentLengths.isEmpty {
                return RequestHeadRejection(status: 400, reason: "the request has both Content-Length and Transfer-Encoding")
            }
            if !isHTTP11 {
                return RequestHeadRejection(status: 400, reason: "Transfer-Encoding is not allowed before HTTP/1.1")
            }
            if scan.transferEncodings.count > 1 || lowercased(trimmed(scan.transferEncodings[0])) != Array("chunked".utf8) {
                return RequestHeadRejection(status: 501, reason: "the only transfer coding understood is a single 'chunked'")
            }
        }
        if scan.contentLengths.count > 1 {
            return RequestHeadRejection(status: 400, reason: "the request has more than one Content-Length header")
        }
        var contentLength = 0
        if let value = scan.contentLengths.first {
            let digits = trimmed(value)
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return RequestHeadRejection(status: 400, reason: "Content-Length is not a number")
            }
            contentLength = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        if let allowed = limits.allowedMethods, !allowed.contains(method), !limits.allowsOnPath(method, rawTarget: rawTarget) {
            return RequestHeadRejection(status: 405, reason: "the method \(method) is not allowed here",
                                        extraHeaders: [("Allow", allowed.joined(separator: ", "))])
        }
        if limits.refuseBodiesOnGetAndHead, method == "GET" || method == "HEAD",
           contentLength > 0 || !scan.transferEncodings.isEmpty {
            return RequestHeadRejection(status: 400, reason: "a \(method) request carries no body")
        }
        view = scan.view
        return nil
    }

    /// Called for every header line: name must be a token, value free of control bytes
    /// (HTAB allowed), line within the limit; collects the framing headers.
    static let scanHeader: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key, !CookieDecoy.isDecoy(key) else { return .YES }
        let scan = cls.assumingMemoryBound(to: HeadScan.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let body = value.map { UnsafeRawBufferPointer(start: $0, count: valueSize) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if keySize + valueSize + 4 > scan.pointee.lineLimit {
            scan.pointee.problem = RequestHeadRejection(status: 431, reason: "a header line is longer than \(scan.pointee.lineLimit) bytes")
            return .NO
        }
        if keySize == 0 || !allIn(name, tokenBytes) {
            scan.pointee.problem = RequestHeadRejection(status: 400, reason: "a header name is not a token (a space before the colon, or a control byte?)")
            return .NO
        }
        // One pass over the value; a refused byte is then told apart: a NUL (MHD's C string
        // stops early) first, as the checks always read.
        if !allIn(body, valueBytes) {
            let reason = memchr(body.baseAddress!, 0, body.count) != nil
                ? "a header value has a NUL byte" : "a header value has a control byte (a folded line?)"
            scan.pointee.problem = RequestHeadRejection(status: 400, reason: reason)
            return .NO
        }
        // MHD parses the head in place, one header after the other, and stops a value at a NUL
        // byte (or rewrites a folded line). Between the end of one value and the next name only
        // line ends, whitespace and the NULs MHD wrote may lie; and between a name and its value
        // only the colon and whitespace. Anything else was hidden from the iteration.
        let keyStart = UnsafeRawPointer(key)
        if let previous = scan.pointee.previousEnd,
           keyStart < previous || !onlyBytes(from: previous, to: keyStart, in: lineEndsAndSpace) {
            scan.pointee.problem = RequestHeadRejection(status: 400, reason: "a header line has a NUL byte or is folded (obs-fold)")
            return .NO
        }
        if let value {
            let valueStart = UnsafeRawPointer(value)
            if valueStart < keyStart + keySize || !onlyBytes(from: keyStart + keySize, to: valueStart, in: colonAndSpace) {
                scan.pointee.problem = RequestHeadRejection(status: 400, reason: "a header line has a NUL byte or is folded (obs-fold)")
                return .NO
            }
            scan.pointee.previousEnd = valueStart + valueSize
        } else {
            scan.pointee.previousEnd = keyStart + keySize
        }
        if let known = KnownHeader.named(name) {
            scan.pointee.view.note(known, value: value, count: valueSize)
            return .YES
        }
        switch keySize {
        case 14 where equalsIgnoringCase(name, "content-length"):
            scan.pointee.contentLengths.append(Array(body))
        case 17 where equalsIgnoringCase(name, "transfer-encoding"):
            scan.pointee.transferEncodings.append(Array(body))
        default:
            break
        }
        return .YES
    }

    /// True when every UTF-8 byte of `text` passes `test`: a loop over the string's contiguous
    /// storage (what a string read from a request has), not an index walk over its UTF-8 view.
    @inline(__always)
    static func allBytes(of text: String, _ test: (UInt8) -> Bool) -> Bool {
        let verdict = text.utf8.withContiguousStorageIfAvailable { bytes in
            for b in bytes where !test(b) { return false }
            return true
        }
        return verdict ?? text.utf8.allSatisfy(test)
    }

    /// The bytes below 64 allowed between two header lines (the NULs MHD wrote, CR, LF, SP, HTAB)
    /// and between a name and its value (NUL, `:`, SP, HTAB), as bit masks: no array per check.
    static let lineEndsAndSpace: UInt64 = mask([0, 0x0D, 0x0A, 0x20, 0x09])
    static let colonAndSpace: UInt64 = mask([0, 0x3A, 0x20, 0x09])

    static func mask(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 | 1 << UInt64($1) }
    }

    /// True when every byte in `from..<to` is in `allowed` (a mask of bytes below 64; at most
    /// 64 KiB apart, else false).
    static func onlyBytes(from: UnsafeRawPointer, to: UnsafeRawPointer, in allowed: UInt64) -> Bool {
        let count = to - from
        guard count >= 0, count < 1 << 16 else { return false }
        return UnsafeRawBufferPointer(start: from, count: count).allSatisfy { $0 < 64 && allowed & (1 << UInt64($0)) != 0 }
    }

    /// RFC 9110 tchar.
    @inline(__always)
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// `isValidHost` on the head view's bytes: one table lookup per byte.
    static func isValidHost(_ host: UnsafeRawBufferPointer) -> Bool {
        var count = host.count
        while count > 0 && host[count - 1] == 0x20 { count -= 1 }
        guard count > 0, host[0] != UInt8(ascii: ".") else { return false }
        return allIn(UnsafeRawBufferPointer(rebasing: host[0..<count]), hostBytes)
    }

    /// A reg-name or IP literal with an optional port: no userinfo, path, tabs or controls
    /// (trailing spaces are optional whitespace).
    static func isValidHost<Bytes: BidirectionalCollection<UInt8>>(_ host: Bytes) -> Bool {
        var value = host[...]
        while value.last == 0x20 { value = value.dropLast() }
        guard !value.isEmpty, value.first != UInt8(ascii: ".") else { return false }
        return value.allSatisfy(isHostByte)
    }

    /// A byte a Host value may hold: a reg-name's, an IP literal's or a port's.
    static func isHostByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "["),
             UInt8(ascii: "]"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    /// What nginx refuses in the path part of a target too: a `%` not followed by two hex
    /// digits, and `%00`. (The query is not decoded here, so it is not checked.)
    static func pathEscapeProblem(_ target: String) -> String? {
        // Read in place (a target read from a request is contiguous UTF-8 already).
        if let found = target.utf8.withContiguousStorageIfAvailable({ pathEscapeProblem(bytes: $0) }) { return found }
        var target = target
        return target.withUTF8 { pathEscapeProblem(bytes: $0) }
    }

    static func pathEscapeProblem(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        // The path ends at the first `?`; each `%` in it is found with `memchr`, not byte by byte.
        let end = memchr(base, Int32(UInt8(ascii: "?")), bytes.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? bytes.count
        var i = 0
        while i < end {
            guard let percent = memchr(base + i, Int32(UInt8(ascii: "%")), end - i) else { return nil }
            i = UnsafeRawPointer(percent) - UnsafeRawPointer(base)
            guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                return "the path has a '%' that is not followed by two hex digits"
            }
            if high == 0 && low == 0 { return "the request-target has %00 in its path" }
            i += 3
        }
        return nil
    }

    /// RFC 9110 tchar (`isTokenByte`).
    static let tokenBytes = ByteSet(isTokenByte)
    /// What a header value may hold: anything but the C0 controls other than HTAB, and DEL.
    static let valueBytes = ByteSet { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F }
    /// What a Host value may hold (`isValidHost`).
    static let hostBytes = ByteSet(isHostByte)

    /// True when every byte of `bytes` is in `set`.
    @inline(__always)
    static func allIn(_ bytes: UnsafeRawBufferPointer, _ set: ByteSet) -> Bool {
        let set = set
        for b in bytes where !set.contains(b) { return false }
        return true
    }

    /// True when `bytes` starts with the ASCII `prefix`.
    @inline(__always)
    static func startsWith(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        return bytes.count >= n && memcmp(bytes.baseAddress!, prefix.utf8Start, n) == 0
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount)
        for i in 0..<bytes.count where bytes[i] | 0x20 != expected[i] | 0x20 { return false }
        return true
    }

    static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var slice = bytes[...]
        while let f = slice.first, f == 0x20 || f == 0x09 { slice = slice.dropFirst() }
        while let l = slice.last, l == 0x20 || l == 0x09 { slice = slice.dropLast() }
        return slice
    }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }
}
