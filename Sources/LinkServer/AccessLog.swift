#if canImport(Glibc)
import Glibc
#endif
import MicroHTTP
import Synchronization

/// The per-request log, buffered like nginx's `access_log … buffer=64k flush=1s`.
///
/// Each request thread formats its line straight into bytes (no Foundation, no `Date`, no
/// `String(format:)`, no per-field arrays) in the buffer of its own shard (one shard per thread,
/// up to `shardCount`). A full shard buffer (64 KB) is handed to the writer thread, which also
/// takes every non-empty buffer once a second, so a line waits at most about 1 s. Each `write(2)`
/// carries whole lines only, and writes to stdout take the lock `EventLog` takes, so lines never
/// interleave.
///
/// Bounded: when the writer is behind (a slow stdout or disk) and no spare buffer is free, the line
/// is dropped and counted (`dropped`, exported as `linkwell_access_log_dropped_lines_total`) —
/// a request never waits for the log. `flush()` (SIGTERM, SIGINT, SIGHUP) writes everything
/// buffered; `reopen()` (SIGUSR1) flushes and reopens the file, for logrotate.
public final class AccessLog: @unchecked Sendable {
    public enum Destination: Sendable, Equatable {
        case stdout
        case file(String)
    }

    public static let bufferSize = 64 * 1024
    public static let shardCount = 16
    /// Buffers that may wait for the writer beyond the shards' own (8 × 64 KB).
    public static let spareBuffers = 8

    public let format: EventLog.Format
    public let destination: Destination

    /// A pthread mutex (the state it guards holds raw buffers, which `Mutex` would not take).
    final class Lock: @unchecked Sendable {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        init() { pthread_mutex_init(mutex, nil) }
        func withLock<T>(_ body: () throws -> T) rethrows -> T {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body()
        }
    }

    private final class Shard: @unchecked Sendable {
        let lock = Lock()
        var buffer: UnsafeMutablePointer<UInt8>
        var count = 0
        var stamp = UnsafeMutablePointer<TimestampCache>.allocate(capacity: 1)
        init(_ buffer: UnsafeMutablePointer<UInt8>) {
            self.buffer = buffer
            stamp.initialize(to: TimestampCache())
        }
    }

    private let shards: [Shard]
    private let nextShard = Atomic<Int>(0)
    /// Guards `free`, `full`, `dropped`, `wake`, with `wakeup`.
    private let pendingLock = Lock()
    private var free: [UnsafeMutablePointer<UInt8>]
    private var full: [(UnsafeMutablePointer<UInt8>, Int)] = []
    private var droppedLines = 0
    private var wake = false
    private let wakeup = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Held while writing, so a flush from a signal and the writer's tick never overlap.
    private let writing = Lock()
    private var fd: Int32
    private var spare: UnsafeMutablePointer<UInt8>
    private let key = UnsafeMutablePointer<pthread_key_t>.allocate(capacity: 1)

    /// Opens the destination (a file is created 0644 and appended to) and starts the writer thread.
    public init(format: EventLog.Format, destination: Destination) throws(AccessLogError) {
        self.format = format
        self.destination = destination
        let fd: Int32
        switch destination {
        case .stdout: fd = 1
        case let .file(path): fd = try Self.open(path)
        }
        func buffer() -> UnsafeMutablePointer<UInt8> { .allocate(capacity: Self.bufferSize) }
        shards = (0..<Self.shardCount).map { _ in Shard(buffer()) }
        self.fd = fd
        spare = buffer()
        free = (0..<Self.spareBuffers).map { _ in buffer() }
        pthread_cond_init(wakeup, nil)
        pthread_key_create(key, nil)
        let unmanaged = Unmanaged.passRetained(self)
        var thread = pthread_t()
        pthread_create(&thread, nil, { arg in
            Unmanaged<AccessLog>.fromOpaque(arg!).takeUnretainedValue().runWriter()
            return nil
        }, unmanaged.toOpaque())
        pthread_detach(thread)
    }

    static func open(_ path: String) throws(AccessLogError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AccessLogError(path: path, errno: errno) }
        return fd
    }

    /// Lines dropped because the writer was behind (every buffer full and waiting).
    public var dropped: Int { pendingLock.withLock { droppedLines } }

    /// Appends one line, formatted by `body` into at most `bound` bytes; drops it (counted) when
    /// the shard's buffer is full and no spare is free. A line longer than a buffer is written
    /// directly.
    @inline(__always)
    func append(bound: Int, _ body: (inout LineWriter) -> Void) {
        if bound > Self.bufferSize {
            var bytes = [UInt8](repeating: 0, count: bound)
            let n = bytes.withUnsafeMutableBufferPointer { b in
                var w = LineWriter(base: b.baseAddress!)
                body(&w)
                return w.count
            }
            writing.withLock { bytes.withUnsafeBufferPointer { Self.writeLines(fd, $0.baseAddress!, n) } }
            return
        }
        let s = shards[shardIndex()]
        s.lock.withLock {
            if s.count + bound > Self.bufferSize {
                let handed: Bool = pendingLock.withLock {
                    guard let fresh = free.popLast() else { droppedLines += 1; return false }
                    full.append((s.buffer, s.count))
                    s.buffer = fresh
                    s.count = 0
                    wake = true
                    pthread_cond_signal(wakeup)
                    return true
                }
                guard handed else { return }
            }
            var w = LineWriter(base: s.buffer + s.count)
            w.stamp = s.stamp
            body(&w)
            s.count += w.count
        }
    }

    /// The calling thread's shard: assigned round-robin at the thread's first line.
    private func shardIndex() -> Int {
        if let p = pthread_getspecific(key.pointee) { return Int(bitPattern: p) - 1 }
        let index = nextShard.add(1, ordering: .relaxed).oldValue % Self.shardCount
        pthread_setspecific(key.pointee, UnsafeRawPointer(bitPattern: index + 1))
        return index
    }

    /// Writes every line buffered so far (the queued full buffers, then each shard's), and returns
    /// when they are written.
    public func flush() {
        writing.withLock {
            let queued = pendingLock.withLock {
                let f = full
                full = []
                return f
            }
            for (buffer, count) in queued {
                Self.writeLines(fd, buffer, count)
                pendingLock.withLock { free.append(buffer) }
            }
            for s in shards {
                let count = s.lock.withLock { () -> Int in
                    guard s.count > 0 else { return 0 }
                    swap(&s.buffer, &spare)
                    let c = s.count
                    s.count = 0
                    return c
                }
                if count > 0 { Self.writeLines(fd, spare, count) }
            }
        }
    }

    /// Flushes, then reopens the file (a no-op for stdout): after logrotate moved it away, new
    /// lines go to a new file at the same path. Returns the error when the path cannot be opened
    /// (the old descriptor stays in use).
    @discardableResult
    public func reopen() -> AccessLogError? {
        flush()
        guard case let .file(path) = destination else { return nil }
        return writing.withLock { () -> AccessLogError? in
            do throws(AccessLogError) {
                let fresh = try Self.open(path)
                close(fd)
                fd = fresh
                return nil
            } catch {
                return error
            }
        }
    }

    private func runWriter() -> Never {
        while true {
            pendingLock.withLock {
                if !wake {
                    var deadline = timespec()
                    clock_gettime(CLOCK_REALTIME, &deadline)
                    deadline.tv_sec += 1
                    pthread_cond_timedwait(wakeup, pendingLock.mutex, &deadline)
                }
                wake = false
            }
            flush()
        }
    }

    /// Writes `count` bytes (whole lines) to `fd`, retrying short writes and EINTR; stdout takes
    /// the event log's lock, so an event line never lands inside a batch.
    static func writeLines(_ fd: Int32, _ base: UnsafePointer<UInt8>, _ count: Int) {
        func run() {
            var offset = 0
            while offset < count {
                let n = Glibc.write(fd, base + offset, count - offset)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
        if fd == 1 { EventLog.stdoutLock.withLock { _ in run() } } else { run() }
    }
}

public struct AccessLogError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let errno: Int32
    public var description: String {
        "cannot open the access log \(path) for appending: \(String(cString: strerror(errno))); check that its directory exists and is writable by this user, or use --access-log on (stdout)"
    }
}

/// `2025-05-01T12:34:56` of the current second, formatted once per second per shard.
struct TimestampCache {
    var second = Int.min
    var text: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 19 bytes used

    mutating func write(seconds: Int, into out: UnsafeMutablePointer<UInt8>) {
        if seconds != second {
            second = seconds
            var t = time_t(seconds)
            var tm = Glibc.tm()
            gmtime_r(&t, &tm)
            withUnsafeMutableBytes(of: &text) { raw in
                let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                func put(_ v: Int32, _ at: Int, _ digits: Int) {
                    var v = v
                    for i in stride(from: digits - 1, through: 0, by: -1) {
                        p[at + i] = UInt8(48 + v % 10)
                        v /= 10
                    }
                }
                put(tm.tm_year + 1900, 0, 4); p[4] = 0x2D
                put(tm.tm_mon + 1, 5, 2); p[7] = 0x2D
                put(tm.tm_mday, 8, 2); p[10] = 0x54
                put(tm.tm_hour, 11, 2); p[13] = 0x3A
                put(tm.tm_min, 14, 2); p[16] = 0x3A
                put(tm.tm_sec, 17, 2)
            }
        }
        withUnsafeBytes(of: &text) { raw in
            out.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 19)
        }
    }
}

/// Formats one log line into preallocated bytes; the caller guarantees room (`bound`).
struct LineWriter {
    let base: UnsafeMutablePointer<UInt8>
    var count = 0
    var stamp: UnsafeMutablePointer<TimestampCache>? = nil

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func byte(_ b: UInt8) {
        base[count] = b
        count += 1
    }

    mutating func ascii(_ s: StaticString) {
        base.advanced(by: count).update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        count += s.utf8CodeUnitCount
    }

    mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { u in
            base.advanced(by: count).update(from: u.baseAddress!, count: u.count)
            count += u.count
        }
    }

    mutating func int(_ v: Int) {
        // A status, a byte count: most have at most three digits.
        if v >= 0 && v < 1000 {
            if v >= 100 { byte(UInt8(48 + v / 100)) }
            if v >= 10 { byte(UInt8(48 + v / 10 % 10)) }
            byte(UInt8(48 + v % 10))
            return
        }
        var magnitude = v.magnitude
        if v < 0 { byte(0x2D) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                n += 1
            } while magnitude > 0
            for i in stride(from: n - 1, through: 0, by: -1) { byte(d[i]) }
        }
    }

    /// `nanos / 1e6` as `String(format: "%.3f")` prints it: rounded to the microsecond, a tie
    /// decided by the double's exact value (as glibc's printf does), an exact tie to even.
    mutating func milliseconds(nanos: Int) {
        var micros = nanos / 1000
        let rest = nanos % 1000
        if rest > 500 {
            micros += 1
        } else if rest == 500 {
            let above = fmaSign(Double(nanos) / 1e6, nanos)
            if above > 0 || (above == 0 && micros % 2 == 1) { micros += 1 }
        }
        int(micros / 1000)
        byte(0x2E)
        let f = micros % 1000
        byte(UInt8(48 + f / 100)); byte(UInt8(48 + f / 10 % 10)); byte(UInt8(48 + f % 10))
    }

    /// The sign of `d · 10⁶ − nanos`, exactly (one rounding, by a fused multiply-add).
    private func fmaSign(_ d: Double, _ nanos: Int) -> Int {
        let e = (-Double(nanos)).addingProduct(d, 1e6)
        return e > 0 ? 1 : (e < 0 ? -1 : 0)
    }

    /// `2025-05-01T12:34:56.789Z` for the given time (the date part cached per shard and second).
    mutating func timestamp(seconds: Int, nanos: Int) {
        if let stamp {
            stamp.pointee.write(seconds: seconds, into: base + count)
        } else {
            var local = TimestampCache()
            local.write(seconds: seconds, into: base + count)
        }
        count += 19
        byte(0x2E)
        let ms = nanos / 1_000_000
        byte(UInt8(48 + ms / 100)); byte(UInt8(48 + ms / 10 % 10)); byte(UInt8(48 + ms % 10))
        byte(0x5A)
    }

    private static let hex: StaticString = "0123456789abcdef"

    private mutating func unicodeEscape(_ v: UInt32) {
        ascii("\\u")
        let h = Self.hex.utf8Start
        byte(h[Int(v >> 12 & 0xF)]); byte(h[Int(v >> 8 & 0xF)]); byte(h[Int(v >> 4 & 0xF)]); byte(h[Int(v & 0xF)])
    }

    /// A JSON string literal with `EventLog.jsonString`'s escaping: `"`, `\`, the C0 controls
    /// (`\n \r \t \b \f` by name), DEL, C1 and U+2028/U+2029 as `\u` escapes. At most 6 bytes
    /// per input byte plus 2.
    mutating func jsonString(_ s: String) {
        byte(0x22)
        let escaped = Self.escaped
        let to = base + count
        if let copied = s.utf8.withContiguousStorageIfAvailable({ u -> Bool in
            // Most values (a path, an address, a route's name) need no escape: copied as they
            // are scanned, in one pass; the first byte to escape hands the value to the loop below.
            for i in 0..<u.count {
                let b = u[i]
                if escaped.contains(b) { return false }
                to[i] = b
            }
            return true
        }), copied {
            count += s.utf8.count
            byte(0x22)
            return
        }
        var s = s
        s.withUTF8 { u in
            var i = 0
            let n = u.count
            while i < n {
                let b = u[i]
                switch b {
                case 0x22: ascii("\\\"")
                case 0x5C: ascii("\\\\")
                case 0x0A: ascii("\\n")
                case 0x0D: ascii("\\r")
                case 0x09: ascii("\\t")
                case 0x08: ascii("\\b")
                case 0x0C: ascii("\\f")
                case 0..<0x20, 0x7F: unicodeEscape(UInt32(b))
                case 0xC2 where i + 1 < n && (0x80...0x9F).contains(u[i + 1]):
                    unicodeEscape(UInt32(u[i + 1]))
                    i += 1
                case 0xE2 where i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                    unicodeEscape(u[i + 2] == 0xA8 ? 0x2028 : 0x2029)
                    i += 2
                default: byte(b)
                }
                i += 1
            }
        }
        byte(0x22)
    }

    /// The bytes `jsonString` may write otherwise than as themselves: `"`, `\`, the C0 controls,
    /// DEL, and the lead bytes of C1 controls (0xC2) and of U+2028/U+2029 (0xE2).
    static let escaped = ByteSet { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }

    /// A text-format value: raw, or a JSON string when empty or holding a space, `"`, `=` or a control.
    mutating func textString(_ s: String) {
        var s = s
        let quote = s.withUTF8 { u -> Bool in
            if u.isEmpty { return true }
            var i = 0
            while i < u.count {
                let b = u[i]
                if b <= 0x20 || b == 0x22 || b == 0x3D || b == 0x7F { return true }
                if b == 0xC2, i + 1 < u.count, (0x80...0x9F).contains(u[i + 1]) { return true }
                if b == 0xE2, i + 2 < u.count, u[i + 1] == 0x80, u[i + 2] == 0xA8 || u[i + 2] == 0xA9 { return true }
                i += 1
            }
            return false
        }
        if quote { jsonString(s) } else { raw(s) }
    }
}

/// The fields of one `request` line, in the order they are printed; nil fields are left out.
public struct RequestLogLine: Sendable {
    public var site: String?
    public var method: String
    public var path: String
    public var status: Int
    public var intendedStatus: Int?
    public var outcome: String?
    public var bytes: Int
    public var durationNanos: Int
    public var client: String
    public var scheme: String?
    public var route: String?
    public var kind: String
    public var rejectedBy: String?
    /// `request` (the public listener) or `admin_request`.
    public var event: Event = .request
    /// The name of the API token that authenticated an admin request (never the token itself).
    public var token: String?

    public enum Event: String, Sendable {
        case request
        case adminRequest = "admin_request"
    }

    public init(site: String?, method: String, path: String, status: Int, intendedStatus: Int?, outcome: String?, bytes: Int,
                durationNanos: Int, client: String, scheme: String?, route: String?, kind: String, rejectedBy: String?) {
        self.site = site; self.method = method; self.path = path; self.status = status; self.intendedStatus = intendedStatus
        self.outcome = outcome; self.bytes = bytes; self.durationNanos = durationNanos; self.client = client
        self.scheme = scheme; self.route = route; self.kind = kind; self.rejectedBy = rejectedBy
    }

    /// The fields as `EventLog.event` takes them (the reference formatter).
    public var fields: [(String, EventLog.Value?)] {
        [("site", site.map { .string($0) }), ("method", .string(method)), ("path", .string(path)),
         ("status", .int(status)), ("intended_status", intendedStatus.map { .int($0) }), ("outcome", outcome.map { .string($0) }),
         ("bytes", .int(bytes)), ("duration_ms", .double(Double(durationNanos) / 1e6)),
         ("client", .string(client)), ("scheme", scheme.map { .string($0) }),
         ("route", route.map { .string($0) }), ("kind", .string(kind)), ("rejected_by", rejectedBy.map { .string($0) }),
         ("token", token.map { .string($0) })]
    }

    /// Room the line can take at most: 6 bytes per string byte (`\u00XX`) plus the fixed parts.
    var bound: Int {
        func s(_ v: String?) -> Int { v.map { $0.utf8.count * 6 + 2 } ?? 0 }
        return 420 + s(site) + s(method) + s(path) + s(outcome) + s(client) + s(scheme) + s(route) + s(kind) + s(rejectedBy) + s(token)
    }

    /// Writes the line as `EventLog.line(format:…, "request", fields)` would, byte for byte.
    func write(_ format: EventLog.Format, seconds: Int, nanos: Int, into w: inout LineWriter) {
        let json = format == .json
        if json {
            w.ascii("{\"time\":\""); w.timestamp(seconds: seconds, nanos: nanos)
            w.ascii(event == .request ? "\",\"event\":\"request\"" : "\",\"event\":\"admin_request\"")
        } else {
            w.timestamp(seconds: seconds, nanos: nanos); w.ascii(event == .request ? " request" : " admin_request")
        }
        // Each key is one literal per format (`,"site":` and ` site=`): one copy, not three.
        func str(_ jsonKey: StaticString, _ textKey: StaticString, _ v: String?) {
            guard let v else { return }
            if json { w.ascii(jsonKey); w.jsonString(v) } else { w.ascii(textKey); w.textString(v) }
        }
        func num(_ jsonKey: StaticString, _ textKey: StaticString, _ v: Int?) {
            guard let v else { return }
            w.ascii(json ? jsonKey : textKey); w.int(v)
        }
        str(",\"site\":", " site=", site); str(",\"method\":", " method=", method); str(",\"path\":", " path=", path)
        num(",\"status\":", " status=", status); num(",\"intended_status\":", " intended_status=", intendedStatus)
        str(",\"outcome\":", " outcome=", outcome)
        num(",\"bytes\":", " bytes=", bytes); w.ascii(json ? ",\"duration_ms\":" : " duration_ms="); w.milliseconds(nanos: durationNanos)
        str(",\"client\":", " client=", client); str(",\"scheme\":", " scheme=", scheme); str(",\"route\":", " route=", route)
        str(",\"kind\":", " kind=", kind); str(",\"rejected_by\":", " rejected_by=", rejectedBy); str(",\"token\":", " token=", token)
        w.ascii(json ? "}\n" : "\n")
    }
}

extension AccessLog {
    /// Buffers one request line (dropped and counted when the writer is behind).
    public func record(_ line: RequestLogLine) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        append(bound: line.bound) { w in line.write(format, seconds: Int(now.tv_sec), nanos: Int(now.tv_nsec), into: &w) }
    }

    /// The line `record` would buffer at the given time (for tests).
    public static func formatted(_ line: RequestLogLine, format: EventLog.Format, seconds: Int, nanos: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: line.bound)
        let n = bytes.withUnsafeMutableBufferPointer { b in
            var w = LineWriter(base: b.baseAddress!)
            line.write(format, seconds: seconds, nanos: nanos, into: &w)
            return w.count
        }
        return Array(bytes.prefix(n))
    }
}
