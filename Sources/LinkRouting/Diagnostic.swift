// One finding about a config: where (file and config path), what value, what is wrong, and the fix.
// Written for a tired on-call engineer: every message can be acted on without reading the code.

/// One finding about a config: where it is (file and config path), the value, what is wrong and
/// the fix. Its ``description`` is the text `linkwell validate` prints for it.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// How bad a finding is.
    public enum Severity: String, Sendable, Equatable, Codable {
        /// The config cannot be used as it is: `linkwell validate` exits 1 and `linkwell serve` starts nothing.
        case error
        /// The config works, but probably not as meant (an unknown key that is ignored, an exclusion that excludes nothing).
        case warning
    }

    /// Whether the finding stops the config from being used.
    public var severity: Severity
    /// The config file, when known.
    public var file: String?
    /// Where in the config, as a key path: `sites[0].routes[3].path`.
    public var path: String
    /// The offending value as written, when there is one.
    public var value: String?
    /// What is wrong, in one sentence (it usually names the route or app).
    public var message: String
    /// What to change to make the finding go away, when there is a clear fix.
    public var fix: String?
    /// For a syntax error: the 1-based line and column (in characters) and that line's text.
    public var position: SourcePosition?

    /// Creates a finding; `path` is the config path it concerns (`sites[0].ios[0].teamID`).
    public init(_ severity: Severity, file: String? = nil, at path: String, value: String? = nil, _ message: String, fix: String? = nil) {
        self.severity = severity
        self.file = file
        self.path = path
        self.value = value
        self.message = message
        self.fix = fix
    }

    /// The finding as `linkwell validate` prints it: `file: path: severity: message`, the value
    /// when the message does not already quote it, and the fix on an indented second line:
    ///
    /// ```
    /// config/linkwell.json5: sites[0].routes[0].path: error: route 'post': path '/post/{id' has an unclosed '{' at column 7
    ///     fix: close it: '/post/{id}'
    /// ```
    public var description: String {
        if let position {
            // `file:line:column: error: message`, the line and a caret under the column (as nginx -t, caddy and compilers).
            var s = "\(file ?? "(config)"):\(position.line):\(position.column): \(severity.rawValue): \(message)\n"
            let number = String(position.line)
            let gutter = String(repeating: " ", count: number.count)
            let caret = position.text.prefix(position.column - 1).map { $0 == "\t" ? "\t" : " " }.joined()
            s += "  \(number) | \(position.text)\n  \(gutter) | \(caret)^"
            if let fix { s += "\n    fix: \(fix)" }
            return s
        }
        var s = ""
        if let file { s += "\(file): " }
        s += "\(path): \(severity.rawValue): \(message)"
        if let value, !message.contains(value) { s += " (value: '\(value)')" }
        if let fix { s += "\n    fix: \(fix)" }
        return s
    }

    /// A copy of the finding with ``file`` set (for findings made before the file name was known).
    public func withFile(_ file: String) -> Diagnostic {
        var d = self
        d.file = file
        return d
    }
}

/// Where in the file a syntax error is: 1-based line and column (in characters), and the line.
public struct SourcePosition: Sendable, Equatable {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int
    /// The text of the line.
    public var text: String
}

extension Array where Element == Diagnostic {
    /// The findings of severity ``Diagnostic/Severity/error``, in order.
    public var errors: [Diagnostic] { filter { $0.severity == .error } }
    /// The findings of severity ``Diagnostic/Severity/warning``, in order.
    public var warnings: [Diagnostic] { filter { $0.severity == .warning } }
}

/// Findings that stop a config from loading or compiling, one per line when printed.
/// Thrown as ``ConfigLoader/Failure`` (the file cannot be read or decoded) and as
/// ``RouteTableError`` (the config does not compile).
public struct DiagnosticsError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, each with the file, the config path and a fix.
    public var diagnostics: [Diagnostic]
    /// Every diagnostic on its own line(s), ready to print to a terminal.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }

    /// Wraps findings, at least one of them an error.
    public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
}
