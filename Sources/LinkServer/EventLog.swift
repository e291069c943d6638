import LinkRouting
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import LinkwellJSON
import MicroHTTP
#endif

/// One line per request and per event on stdout: JSON (default) or text for humans.
/// Each line is one `write(2)`, so lines from several threads never interleave.
public struct EventLog: Sendable {
    public enum Format: String, Sendable { case json, text }

    public enum Value: Sendable {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case strings([String])
    }

    public let format: Format
    public let fileDescriptor: Int32

    public init(format: Format, fileDescriptor: Int32 = 1) {
        self.format = format
        self.fileDescriptor = fileDescriptor
    }

    /// Writes `{"time":…,"event":name, fields…}` (or `time event k=v …`).
    public func event(_ name: String, _ fields: [(String, Value?)]) {
        write(Self.line(format: format, time: Self.timestamp(), name, fields))
    }

    /// Held for every write to stdout (here and by `AccessLog`'s writer), so lines never interleave.
    public static let stdoutLock = Locked<Void>(())

    /// One formatted line (newline included).
    public static func line(format: Format, time: String, _ name: String, _ fields: [(String, Value?)]) -> String {
        let all: [(String, Value?)] = [("time", .string(time)), ("event", .string(name))] + fields
        let line: String
        switch format {
        case .json:
            line = "{" + all.compactMap { k, v in v.map { "\"\(k)\":\(Self.json($0))" } }.joined(separator: ",") + "}\n"
        case .text:
            line = all.compactMap { k, v -> String? in
                guard let v else { return nil }
                if k == "time" || k == "event" { return Self.text(v) }
                return "\(k)=\(Self.text(v))"
            }.joined(separator: " ") + "\n"
        }
        return line
    }

    public func write(_ line: String) {
        var line = line
        line.withUTF8 { AccessLog.writeLines(fileDescriptor, $0.baseAddress!, $0.count) }
    }

    /// `2025-05-01T12:34:56.789Z`
    public static func timestamp(_ date: Date = Date()) -> String {
        let t = date.timeIntervalSince1970
        var seconds = time_t(t.rounded(.down))
        let millis = Int((t - t.rounded(.down)) * 1000)
        var tm = Glibc.tm()
        gmtime_r(&seconds, &tm)
        func pad(_ v: Int32, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1, 2))-\(pad(tm.tm_mday, 2))T\(pad(tm.tm_hour, 2)):\(pad(tm.tm_min, 2)):\(pad(tm.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    static func json(_ v: Value) -> String {
        switch v {
        case let .string(s): return jsonString(s)
        case let .int(i): return String(i)
        case let .double(d): return d.isFinite ? String(format: "%.3f", d) : "null"
        case let .bool(b): return b ? "true" : "false"
        case let .strings(a): return "[" + a.map(jsonString).joined(separator: ",") + "]"
        }
    }

    static func text(_ v: Value) -> String {
        switch v {
        case let .string(s): return s.isEmpty || s.unicodeScalars.contains(where: needsQuoting) ? jsonString(s) : s
        case let .int(i): return String(i)
        case let .double(d): return String(format: "%.3f", d)
        case let .bool(b): return b ? "true" : "false"
        case let .strings(a): return a.joined(separator: ",")
        }
    }

    /// A JSON string literal (the escaping of the generated association files), with DEL, the
    /// C1 controls (U+0080–U+009F: U+009B is a terminal's CSI) and the line separators escaped
    /// too, so a request path can never drive the terminal that shows the log.
    static func jsonString(_ s: String) -> String {
        let literal = JSONValue.string(s).serialized(.compact)
        guard literal.unicodeScalars.contains(where: isInvisibleControl) else { return literal }
        var out = String.UnicodeScalarView()
        for scalar in literal.unicodeScalars {
            if isInvisibleControl(scalar) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: "\\u\(String(repeating: "0", count: 4 - hex.count))\(hex)".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// DEL, C1 controls, U+2028/U+2029 (JSON allows them raw; terminals and JavaScript do not).
    static func isInvisibleControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// A text-format value that must be written as a JSON string: empty, spaces, `"`, `=`, controls.
    static func needsQuoting(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar == "\"" || scalar == "=" || isInvisibleControl(scalar)
    }
}
