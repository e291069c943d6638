// A route's path pattern, compiled from its text: `/post/{postId}`, `/{item}.html`,
// `/files/{rest*}`. The one definition that the parser, the builder and both generators read.

/// One `/`-separated piece of a compiled ``PathPattern``.
public enum PathSegment: Sendable, Equatable, Hashable {
    /// Matched against the URL's segment as sent (canonical percent-encoding, upper-case hex).
    case literal(String)
    /// One non-empty segment; `prefix`/`suffix` are literal text around the value in the same
    /// segment (canonical encoding). `oneOf` restricts the (decoded) value, compared as Swift
    /// compares strings (canonical equivalence).
    case param(name: String, prefix: String, suffix: String, oneOf: [String]?)
    /// The rest of the path: zero or more segments. Only last.
    case rest(name: String)
}

/// A route's path pattern, compiled: `/post/{postId}` is the literal `post` and the parameter `postId`.
///
/// ```swift
/// let pattern = try PathPattern(parsing: "/post/{postId}")
/// pattern.parameterNames   // ["postId"]
/// pattern.segments         // [.literal("post"), .param(name: "postId", prefix: "", suffix: "", oneOf: nil)]
/// ```
public struct PathPattern: Sendable, Equatable, Hashable {
    /// The pattern as written in the config (`/post/{postId}`).
    public var source: String
    /// The compiled segments, in order; empty for `/`.
    public var segments: [PathSegment]

    /// The names of the path parameters, in path order (a rest parameter included).
    public var parameterNames: [String] {
        segments.compactMap {
            switch $0 {
            case .literal: return nil
            case let .param(name, _, _, _): return name
            case let .rest(name): return name
            }
        }
    }

    /// True when the last segment is a rest parameter (`{path*}`, or `*` in an exclusion).
    public var hasRest: Bool {
        if case .rest = segments.last { return true }
        return false
    }
}

/// A path pattern that does not compile, with the column of the problem (1-based, in characters).
public struct PathPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pattern text that failed to compile.
    public var pattern: String
    /// The 1-based column (in characters) of the problem in ``pattern``.
    public var column: Int
    /// What is wrong (`has an unclosed '{'`).
    public var problem: String
    /// How to write the pattern instead.
    public var fix: String
    /// `path '/post/{id' has an unclosed '{' at column 7`.
    public var description: String { "path '\(pattern)' \(problem) at column \(column)" }
}

extension PathPattern {
    /// Compiles `text`. With `allowTrailingStar` (exclusions), a final `/*` means "any rest".
    public init(parsing text: String, params: [String: ParamConfig] = [:], allowTrailingStar: Bool = false) throws(PathPatternError) {
        source = text
        let chars = Array(text)
        func fail(_ column: Int, _ problem: String, _ fix: String) -> PathPatternError {
            PathPatternError(pattern: text, column: column, problem: problem, fix: fix)
        }
        guard chars.first == "/" else {
            throw fail(1, "does not start with '/'", "write it as '/\(text)'")
        }
        var segments: [PathSegment] = []
        var seen = Set<String>()
        // Split into segments, remembering each segment's start column.
        var body = chars
        if body.count > 1, body.last == "/" { body.removeLast() }  // a trailing slash is insignificant
        if body.count == 1 {  // "/"
            self.segments = []
            return
        }
        var starts: [Int] = []
        var pieces: [[Character]] = []
        var current: [Character] = []
        var currentStart = 2
        for (i, c) in body.enumerated().dropFirst() {
            if c == "/" {
                pieces.append(current)
                starts.append(currentStart)
                current = []
                currentStart = i + 2
            } else {
                current.append(c)
            }
        }
        pieces.append(current)
        starts.append(currentStart)

        for (index, piece) in pieces.enumerated() {
            let column = starts[index]
            let isLast = index == pieces.count - 1
            if piece.isEmpty {
                throw fail(column, "has an empty segment ('//')", "remove the extra '/'")
            }
            if allowTrailingStar, isLast, piece == ["*"] {
                segments.append(.rest(name: "*"))
                continue
            }
            guard let open = piece.firstIndex(of: "{") else {
                if let close = piece.firstIndex(of: "}") {
                    throw fail(column + close, "has a '}' without a matching '{'", "remove it or add the '{'")
                }
                if let star = piece.firstIndex(where: { $0 == "*" || $0 == "?" }) {
                    throw fail(
                        column + star,
                        "has a literal '\(piece[star])', which AASA and Android read as a wildcard",
                        allowTrailingStar ? "use a parameter such as '{name}', or a final '/*'" : "use a parameter such as '{name}' for a variable segment"
                    )
                }
                if let dollar = Self.substitutionOffset(piece) {
                    throw fail(
                        column + dollar,
                        "has a literal '$(', which an apple-app-site-association reads as a substitution variable (AASA has no escape for it)",
                        "rename the path so it does not contain '$(' (for instance '/lang-en/…'), or make that part a parameter")
                }
                segments.append(.literal(PercentEncoding.canonicalPathLiteral(String(piece))))
                continue
            }
            guard let close = piece[open...].firstIndex(of: "}") else {
                throw fail(column + open, "has an unclosed '{'", "close it: '\(String(chars))}'")
            }
            if piece[(open + 1)...].dropFirst(close - open).contains("{") {
                let second = piece[(close + 1)...].firstIndex(of: "{")!
                throw fail(column + second, "has a second parameter in one segment", "put each parameter in its own segment")
            }
            if piece[(close + 1)...].contains("}") {
                let extra = piece[(close + 1)...].firstIndex(of: "}")!
                throw fail(column + extra, "has a '}' without a matching '{'", "remove it")
            }
            var name = String(piece[(open + 1)..<close])
            var isRest = false
            if name.hasSuffix("*") {
                name.removeLast()
                isRest = true
            }
            guard let firstChar = name.first, firstChar == "_" || firstChar.isASCII && firstChar.isLetter,
                name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
            else {
                throw fail(
                    column + open + 1, "has an invalid parameter name '\(name)'",
                    "use letters, digits and '_', starting with a letter, e.g. '{postId}'")
            }
            if seen.contains(name) {
                throw fail(column + open + 1, "uses the parameter '\(name)' twice", "give each parameter its own name")
            }
            seen.insert(name)
            let prefix = String(piece[..<open])
            let suffix = String(piece[(close + 1)...])
            for (offset, c) in (prefix + suffix).enumerated() where c == "*" || c == "?" {
                throw fail(column + offset, "has a literal '\(c)', which AASA and Android read as a wildcard", "remove it")
            }
            for (text, offset) in [(prefix, 0), (suffix, close + 1)] {
                if let dollar = Self.substitutionOffset(Array(text)) {
                    throw fail(
                        column + offset + dollar,
                        "has a literal '$(', which an apple-app-site-association reads as a substitution variable (AASA has no escape for it)",
                        "rename the path so it does not contain '$('")
                }
            }
            if isRest {
                guard isLast else {
                    throw fail(column + open, "has the rest parameter '{\(name)*}' before the end", "a '{name*}' parameter must be the last segment")
                }
                guard prefix.isEmpty, suffix.isEmpty else {
                    throw fail(column + open, "has text around the rest parameter '{\(name)*}'", "make '{\(name)*}' a whole segment")
                }
                segments.append(.rest(name: name))
            } else {
                let oneOf = params[name]?.oneOf
                segments.append(
                    .param(
                        name: name, prefix: PercentEncoding.canonicalPathLiteral(prefix),
                        suffix: PercentEncoding.canonicalPathLiteral(suffix), oneOf: oneOf))
            }
        }
        self.segments = segments
    }

    /// Where `$(` starts in a literal (also when written `%24(` or `$%28`), or nil. AASA reads
    /// `$(name)` as a substitution variable and has no escape, so no such literal can be claimed.
    static func substitutionOffset(_ piece: [Character]) -> Int? {
        let decoded = Array(PercentEncoding.decode(String(piece)))
        guard let at = decoded.indices.first(where: { decoded[$0] == "$" && $0 + 1 < decoded.count && decoded[$0 + 1] == "(" }) else { return nil }
        // The column in the text as written: count characters up to the same decoded position.
        var written = 0
        var seen = 0
        while written < piece.count && seen < at {
            written += piece[written] == "%" && written + 2 < piece.count ? 3 : 1
            seen += 1
        }
        return written
    }
}
