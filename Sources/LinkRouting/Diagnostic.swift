// One finding about a config: where (file and config path), what value, what is wrong, and the fix.
// Written for a tired on-call engineer: every message can be acted on without reading the code.

public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Equatable, Codable {
        case error, warning
    }

    public var severity: Severity
    /// The config file, when known.
    public var file: String?
    /// `sites[0].routes[3].path`.
    public var path: String
    /// The offending value as written, when there is one.
    public var value: String?
    public var message: String
    public var fix: String?

    public init(_ severity: Severity, file: String? = nil, at path: String, value: String? = nil, _ message: String, fix: String? = nil) {
        self.severity = severity
        self.file = file
        self.path = path
        self.value = value
        self.message = message
        self.fix = fix
    }

    /// `config/linkwell.json5: sites[0].routes[3].path: error: route 'post': … — fix: …`
    public var description: String {
        var s = ""
        if let file { s += "\(file): " }
        s += "\(path): \(severity.rawValue): \(message)"
        if let value, !message.contains(value) { s += " (value: '\(value)')" }
        if let fix { s += "\n    fix: \(fix)" }
        return s
    }

    public func withFile(_ file: String) -> Diagnostic {
        var d = self
        d.file = file
        return d
    }
}

extension Array where Element == Diagnostic {
    public var errors: [Diagnostic] { filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { filter { $0.severity == .warning } }
}
