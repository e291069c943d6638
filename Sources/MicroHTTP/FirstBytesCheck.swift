import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What libmicrohttpd 0.9.75 cannot refuse at once: bytes that can never become an HTTP request
/// but contain no line end yet — a TLS ClientHello sent to the plain-HTTP port, binary garbage, a
/// CR followed by something other than LF. libmicrohttpd waits for a line end until the head
/// deadline and then closes without a word; nginx answers 400 at once. This check looks at the
/// bytes a new connection has already received (`MSG_PEEK`, before libmicrohttpd reads them) and
/// answers those 400 itself.
///
/// The listening socket has `TCP_DEFER_ACCEPT` (`HTTPDaemonOptions.checksFirstBytes`), so a
/// connection is accepted once its first bytes have arrived — they are there to look at when
/// libmicrohttpd reports the new connection. Only what has arrived by then is checked; a bad byte
/// in a later segment is left to `RequestHeadCheck` and the head deadline.
enum FirstBytesCheck {
    /// Bytes looked at; a request line's method and the bytes around it fit many times over.
    static let peekBytes = 2048

    /// Why the bytes `fd` has received cannot begin an HTTP/1.x request; nil when they can (or
    /// nothing has arrived yet).
    static func problem(fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: peekBytes)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        guard count > 0 else { return nil }
        return problem(in: buffer[0..<count])
    }

    /// The rule on the bytes received so far (a prefix of the stream).
    static func problem(in bytes: ArraySlice<UInt8>) -> String? {
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A
        // Empty lines before the request line are allowed; then a method: token characters up to a space.
        var start = bytes.startIndex
        while start < bytes.endIndex, bytes[start] == cr || bytes[start] == lf { start += 1 }
        guard start < bytes.endIndex else { return nil }
        if bytes[start] == 0x16 {
            return "this is a TLS handshake, and this port speaks plain HTTP (use http://, or the HTTPS port of the proxy in front)"
        }
        for byte in bytes[start...] {
            if byte == 0x20 || byte == cr || byte == lf { break }  // a method alone on its line: libmicrohttpd answers it
            if !RequestHeadCheck.isTokenByte(byte) {
                return "the connection does not start with an HTTP request line (a method such as GET)"
            }
        }
        // In the head (up to its empty line; a body may hold any byte), a CR must be followed by LF
        // (RFC 9112 §2.2). A CR at the very end of what arrived may still get its LF.
        var lineStart = start
        var i = start
        while i < bytes.endIndex {
            switch bytes[i] {
            case cr:
                let next = bytes.index(after: i)
                if next < bytes.endIndex, bytes[next] != lf { return "a CR (carriage return) is not followed by LF" }
            case lf:
                let length = i - lineStart
                if length == 0 || (length == 1 && bytes[lineStart] == cr) { return nil }  // the end of the head
                lineStart = bytes.index(after: i)
            default:
                break
            }
            i = bytes.index(after: i)
        }
        return nil
    }

    /// Answers 400 on `fd` (after taking the bytes already received, so closing the socket does
    /// not reset the answer away) and ends the sending side; libmicrohttpd closes the connection
    /// when the client does.
    static func refuse(fd: Int32, reason: String) -> Int {
        var sink = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<4 where recv(fd, &sink, sink.count, Int32(MSG_DONTWAIT)) == sink.count {}
        let body = "Bad Request: \(reason).\n"
        let reply = Array(("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Cache-Control: no-store\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
        _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        _ = shutdown(fd, Int32(SHUT_WR))
        return body.utf8.count
    }

    /// Sets `TCP_DEFER_ACCEPT` on a listening socket: connections are accepted when their first
    /// bytes arrive (or after `seconds`, when the kernel hands them over anyway).
    static func deferAccept(listenSocket: Int32, seconds: Int) {
        var value = Int32(max(1, seconds))
        _ = setsockopt(listenSocket, Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
