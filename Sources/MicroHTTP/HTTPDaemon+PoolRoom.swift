import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a response header block still fits in what a request left of its connection's
/// libmicrohttpd pool, and the reply written straight to the socket when it does not.
///
/// libmicrohttpd 0.9.75 writes the response header block into what is left of the pool once the
/// handler has answered: the pool also holds the head as received, a 64-byte record per header
/// line, per query argument and for the `CookieDecoy` (with its cookie record and 16-byte copy).
/// When the block does not fit, MHD closes the connection without sending a byte: a head of about
/// the pool's size (far over the head limit, which `RequestHeadCheck` refuses), or a 16 KB head of
/// ~200 lines answered with a long `Location`, got an empty reply. `fits` estimates the room (a
/// little low); when it is short, `answerDirectly` writes the reply itself — a few hundred bytes,
/// which the socket's empty send buffer takes whole — and the access handler returns `.NO`, so
/// that MHD closes the connection. A header block that would not fit after even a short head is
/// the handler's fault, not the client's: it is queued as it is, and MHD's failure to send it is
/// logged as a request that could not be sent.
enum PoolRoom {
    /// libmicrohttpd 0.9.75's `struct MHD_HTTP_Header`, rounded to its 16-byte alignment.
    static let recordBytes = 64
    /// What the estimate may miss: the rounding of the head, the byte MHD wants past the `Date`.
    static let marginBytes = 32
    /// What a short request takes of the pool: a 200-byte head, its few records and the decoy's.
    static let shortHeadBytes = 1024

    /// An upper bound of the header block libmicrohttpd writes for `headers`: its status line
    /// (≤ 46), `Date` (37), `Connection` (≤ 24), `Content-Length` (≤ 38) and the blank line, plus
    /// `name: value\r\n` for each header.
    static func headerBlockBytes(_ headers: [(String, String)]) -> Int {
        headers.reduce(160) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
    }

    /// True when a header block of `headerBytes` fits in the pool of `poolBytes` after this request.
    static func fits(headerBytes: Int, on connection: OpaquePointer, poolBytes: Int, rawTarget: String) -> Bool {
        let head = CMicroHTTPD_get_request_head_size(connection)
        // The head (rounded up), the decoy's cookie record and copy, the margin.
        let fixed = (head + 15) / 16 * 16 + recordBytes + 16 + marginBytes
        // A record stands for at least 2 bytes of the head (`a:` + LF, `&a`): when even that
        // many fit, there is no need to count them.
        if fixed + (head / 2 + 2) * recordBytes + headerBytes <= poolBytes { return true }
        var records = Int(MHD_get_connection_values(connection, .HEADER_KIND, nil, nil))  // the decoy included
        if rawTarget.utf8.contains(UInt8(ascii: "?")) {
            records += Int(MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil))
        }
        return fixed + records * recordBytes + headerBytes <= poolBytes
    }

    /// Writes `status` (a 4xx with `reason` as its text body, `Connection: close`) to socket `fd`
    /// and marks the thread so that MHD's line about the close that follows is not logged.
    /// Returns the body size sent (0 for `HEAD`).
    static func answerDirectly(status: Int, reason: String, extraHeaders: [(String, String)], isHead: Bool, fd: Int32) -> Int {
        let body = Array("\(HTTPStatus.reasonPhrase(status)): \(reason).\n".utf8)
        var head = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\nDate: \(httpDate())\r\nConnection: close\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nCache-Control: no-store\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + (isHead ? [] : body)
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n > 0 { sent += n; continue }
                if n < 0 && errno == EINTR { continue }
                break  // the peer is gone (or, impossibly for a few hundred bytes, the buffer is full)
            }
        }
        DirectReply.mark()
        return isHead ? 0 : body.count
    }

    /// The current time as an HTTP date: `Thu, 03 Dec 2026 08:13:57 GMT`.
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

/// Set on the connection's thread when the access handler has answered directly and returns `.NO`:
/// MHD then logs "Application reported internal error, closing connection", which would send an
/// engineer looking for a failure that did not happen.
enum DirectReply {
    static let closeLogPrefix = "Application reported internal error"
    private static let marked = ThreadWord()

    static func mark() {
        marked.set(1)
    }

    /// True when this thread answered directly since the last call (and clears the mark).
    static func take() -> Bool {
        marked.take() != 0
    }
}
