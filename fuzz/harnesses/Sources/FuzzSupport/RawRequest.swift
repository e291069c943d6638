// Raw request bytes → the facts the responder reads, split the way a lenient HTTP/1.1 parser
// would (CRLF or bare LF line ends, `name: value` headers, repeated headers collected). Only for
// the fuzz harness of the pure responder: the real server gets its facts from libmicrohttpd.
import MicroHTTP

public func requestFacts(fromRaw bytes: [UInt8], peerAddress: String) -> RequestFacts? {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
        var line = bytes[start..<i]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.isEmpty && !lines.isEmpty { break }  // end of the head
        lines.append(line)
        start = i + 1
    }
    if start < bytes.count, lines.isEmpty { lines.append(bytes[start...]) }
    guard let requestLine = lines.first else { return nil }
    let parts = requestLine.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2 else { return nil }
    var facts = RequestFacts(method: text(parts[0]), rawTarget: text(parts[1]), peerAddress: peerAddress)
    var ifNoneMatch: [String] = []
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
        let name = text(line[..<colon]).lowercased()
        let value = text(line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 })
        switch name {
        case "host": if facts.host == nil { facts.host = value }
        case "user-agent": if facts.userAgent == nil { facts.userAgent = value }
        case "if-none-match": ifNoneMatch.append(value)
        case "forwarded": facts.forwarded.append(value)
        case "x-forwarded-for": facts.xForwardedFor.append(value)
        case "x-forwarded-proto": facts.xForwardedProto.append(value)
        case "x-forwarded-host": facts.xForwardedHost.append(value)
        default: break
        }
    }
    if !ifNoneMatch.isEmpty { facts.ifNoneMatch = ifNoneMatch.joined(separator: ", ") }
    return facts
}

/// RFC 9110 `tchar`, built once (not per response).
private let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

/// A response header that would split the response or break the head: CR, LF or NUL in a value,
/// or a name that is not an RFC 9110 token. Nil when every header is well-formed.
public func malformedHeader(_ headers: [(String, String)]) -> String? {
    for (name, value) in headers {
        if name.isEmpty || !name.utf8.allSatisfy(tchar.contains) { return "header name \(name.debugDescription)" }
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) { return "\(name): \(value.debugDescription)" }
    }
    return nil
}
