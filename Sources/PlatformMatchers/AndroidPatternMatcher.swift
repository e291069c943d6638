// android.os.PatternMatcher, reproduced: the matcher Android uses for intent-filter paths and for
// Dynamic App Link rules (UriRelativeFilter). Everything works on UTF-16 code units, exactly as
// Java's `String.charAt` does, so `?` matches one UTF-16 unit and nothing is Unicode-normalised.
//
// Also here: DalComponentParser.parseMatchingExpression, which turns a DAL expression such as
// `/u/?*/profile` into a PatternMatcher type and pattern. Android 15 and Android 16 differ there.

/// Why a pattern cannot be built (Android throws `IllegalArgumentException`).
public struct AndroidPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the pattern cannot be built, naming the part that is wrong.
    public var message: String
    /// Creates the error with its message.
    public init(_ message: String) { self.message = message }
    /// The same text as ``message``.
    public var description: String { message }
}

/// One `android.os.PatternMatcher`: a pattern and how to read it.
///
/// Android matches intent-filter paths (`android:pathPattern`) and Dynamic App Link rules with
/// this class, whose globs differ from shell globs (`.*` never backtracks); this port keeps its
/// quirks so a rule can be checked before it ships.
///
/// ```swift
/// let glob = try AndroidPatternMatcher(pattern: "/post/.*", kind: .simpleGlob)
/// glob.matches("/post/42")   // true
/// glob.matches("/user/42")   // false
/// try AndroidPatternMatcher.dynamicAppLinkPattern(for: "/post/*").kind   // .prefix ("/post/")
/// ```
public struct AndroidPatternMatcher: Sendable, Equatable, CustomStringConvertible {
    /// The `PatternMatcher.PATTERN_*` constants (raw values are Android's).
    public enum Kind: Int, Sendable, Equatable, CaseIterable {
        /// `PATTERN_LITERAL`: the whole input equals the pattern.
        case literal = 0
        /// `PATTERN_PREFIX`: the input starts with the pattern.
        case prefix = 1
        /// `PATTERN_SIMPLE_GLOB`: `.` any unit, `x*` zero or more `x`, `.*` skips to the next
        /// occurrence of the character after it (no backtracking), `\` escapes — except that an
        /// escaped `.` still matches any unit unless it directly follows `.*`.
        case simpleGlob = 2
        /// `PATTERN_ADVANCED_GLOB`: `.`, `[set]`, `[^set]`, `*`, `+`, `{n,m}`; greedy, no backtracking.
        case advancedGlob = 3
        /// `PATTERN_SUFFIX`: the input ends with the pattern.
        case suffix = 4

        var name: String {
            switch self {
            case .literal: return "LITERAL"
            case .prefix: return "PREFIX"
            case .simpleGlob: return "GLOB"
            case .advancedGlob: return "ADVANCED_GLOB"
            case .suffix: return "SUFFIX"
            }
        }
    }

    /// How ``pattern`` is read.
    public let kind: Kind
    /// The pattern text, as Android's `PatternMatcher.getPath()` returns it.
    public let pattern: String
    let units: [UInt16]
    /// The parsed token stream of an advanced glob (Android's `mParsedPattern`).
    let parsed: [Int32]?
    /// Set when Android's `PatternMatcher` constructor throws for this pattern (an advanced glob
    /// it rejects: `/c++/.+`, "modifier must follow a token"). A Dynamic App Link rule keeps the
    /// pattern as text and builds the matcher each time it is used, so the exception comes when a
    /// URL reaches the rule (``DynamicAppLinkRules/decide(url:)``), not when the file is read.
    public let rejection: AndroidPatternError?

    /// Builds a matcher. Only `.advancedGlob` can fail (Android checks its syntax up front).
    public init(pattern: String, kind: Kind) throws(AndroidPatternError) {
        self.kind = kind
        self.pattern = pattern
        self.units = Array(pattern.utf16)
        self.parsed = kind == .advancedGlob ? try AdvancedGlob.parse(units) : nil
        self.rejection = nil
    }

    /// A matcher whose construction may fail later: ``rejection`` holds what Android throws.
    init(deferring units: [UInt16], kind: Kind) {
        self.kind = kind
        self.units = units
        self.pattern = String(decoding: units, as: UTF16.self)
        if kind == .advancedGlob {
            do {
                self.parsed = try AdvancedGlob.parse(units)
                self.rejection = nil
            } catch {
                self.parsed = nil
                self.rejection = error
            }
        } else {
            self.parsed = nil
            self.rejection = nil
        }
    }

    /// `PatternMatcher{GLOB: /post/.*}`, in the form of Android's `toString()`.
    public var description: String { "PatternMatcher{\(kind.name): \(pattern)}" }

    /// Whether `input` matches, as Android's `PatternMatcher.match(str)` decides (on UTF-16 units,
    /// nothing normalised).
    public func matches(_ input: String) -> Bool {
        matches(units: Array(input.utf16))
    }

    /// `PatternMatcher.matchPattern` on UTF-16 units (``matches(_:)`` without converting the
    /// input again, for callers that match one input against many patterns); `nil` (Java `null`)
    /// never matches.
    public func matches(units input: [UInt16]?) -> Bool {
        guard let input, rejection == nil else { return false }
        switch kind {
        case .literal: return input == units
        case .prefix: return input.starts(with: units)
        case .simpleGlob: return Self.matchGlobPattern(units, input)
        case .advancedGlob: return AdvancedGlob.match(parsed ?? [], input)
        case .suffix: return input.count >= units.count && Array(input.suffix(units.count)) == units
        }
    }

    /// `PatternMatcher.matchGlobPattern` (PATTERN_SIMPLE_GLOB), exactly.
    public static func matchSimpleGlob(pattern: String, input: String) -> Bool {
        matchGlobPattern(Array(pattern.utf16), Array(input.utf16))
    }

    /// `PatternMatcher.matchAdvancedPattern` (PATTERN_ADVANCED_GLOB), exactly.
    public static func matchAdvancedGlob(pattern: String, input: String) throws(AndroidPatternError) -> Bool {
        AdvancedGlob.match(try AdvancedGlob.parse(Array(pattern.utf16)), Array(input.utf16))
    }

    // MARK: Simple glob

    /// A line-for-line port of the Java loop, so its quirks survive: `.*` consumes up to the first
    /// occurrence of the next pattern character (never backtracks), `x*` consumes only `x`, a
    /// `.` right after `.*` is compared literally, and a trailing `.*` matches the empty rest.
    static func matchGlobPattern(_ pattern: [UInt16], _ match: [UInt16]) -> Bool {
        let np = pattern.count
        if np <= 0 { return match.count <= 0 }
        let nm = match.count
        var ip = 0
        var im = 0
        func at(_ i: Int) -> UInt16 { i < np ? pattern[i] : 0 }
        var nextChar = pattern[0]
        while ip < np && im < nm {
            var c = nextChar
            ip += 1
            nextChar = at(ip)
            let escaped = c == Unit.backslash
            if escaped {
                c = nextChar
                ip += 1
                nextChar = at(ip)
            }
            if nextChar == Unit.star {
                if !escaped && c == Unit.dot {
                    if ip >= np - 1 {
                        // `.*` at the end of the pattern matches whatever is left.
                        return true
                    }
                    ip += 1
                    nextChar = pattern[ip]
                    if nextChar == Unit.backslash {
                        ip += 1
                        nextChar = at(ip)
                    }
                    // Skip to the first occurrence of the character after `.*`.
                    repeat {
                        if match[im] == nextChar { break }
                        im += 1
                    } while im < nm
                    if im == nm { return false }
                    ip += 1
                    nextChar = at(ip)
                    im += 1
                } else {
                    // `x*`: consume only characters equal to x.
                    repeat {
                        if match[im] != c { break }
                        im += 1
                    } while im < nm
                    ip += 1
                    nextChar = at(ip)
                }
            } else {
                if c != Unit.dot && match[im] != c { return false }
                im += 1
            }
        }
        if ip >= np && im >= nm { return true }
        // The input is used up but the pattern still ends in `.*`.
        if ip == np - 2 && pattern[ip] == Unit.dot && pattern[ip + 1] == Unit.star { return true }
        return false
    }

    // MARK: Dynamic App Link expressions (DalComponentParser)

    /// `parseMatchingExpression`: how StatementService turns a DAL matching expression (`*` any run,
    /// `?` one character, everything else literal) into a PatternMatcher.
    ///
    /// Only an empty expression throws here. An Android 15 advanced glob that PatternMatcher
    /// rejects (`/c++/?*` is `/c++/.+`: a `+` with no token before it) is returned with
    /// ``rejection`` set: Android throws when a URL first reaches that rule.
    ///
    /// - Android 16: no wildcard → LITERAL (the expression as is); a single trailing `*` → PREFIX;
    ///   otherwise SIMPLE_GLOB with `*`→`.*`, `?`→`.`, `.`→`\.`, `\`→`\\`. So `?*` is `..*`
    ///   (and, through a PatternMatcher quirk, a `.` not right after a `*` still matches anything).
    /// - Android 15: `?*` becomes `.+` and makes the whole pattern an ADVANCED_GLOB (greedy, no
    ///   backtracking: `/u/?*/profile` never matches); a backslash is not escaped. A `.` is
    ///   escaped with a backslash but does not count as a wildcard, so an expression with a `.`
    ///   and no wildcard is a LITERAL that keeps the backslash and never matches (the AOSP test
    ///   DalComponentParserTest reads `foo.bar` so), and `foo.*` is such a PREFIX.
    public static func dynamicAppLinkPattern(
        for expression: String, generation: AndroidParserGeneration = .android16
    ) throws(AndroidPatternError) -> AndroidPatternMatcher {
        let e = Array(expression.utf16)
        if e.isEmpty { throw AndroidPatternError("a matching expression cannot be an empty string") }
        switch generation {
        case .android16: return try android16Pattern(e)
        case .android15: return try android15Pattern(e)
        }
    }

    private static func android16Pattern(_ e: [UInt16]) throws(AndroidPatternError) -> AndroidPatternMatcher {
        let wildcards = e.filter { $0 == Unit.question || $0 == Unit.star }.count
        if wildcards == 0 { return AndroidPatternMatcher(deferring: e, kind: .literal) }
        if wildcards == 1 && e.last == Unit.star {
            return AndroidPatternMatcher(deferring: Array(e.dropLast()), kind: .prefix)
        }
        var p: [UInt16] = []
        for c in e {
            switch c {
            case Unit.star: p += [Unit.dot, Unit.star]
            case Unit.question: p.append(Unit.dot)
            case Unit.dot: p += [Unit.backslash, Unit.dot]
            case Unit.backslash: p += [Unit.backslash, Unit.backslash]
            default: p.append(c)
            }
        }
        return AndroidPatternMatcher(deferring: p, kind: .simpleGlob)
    }

    private static func android15Pattern(_ e: [UInt16]) throws(AndroidPatternError) -> AndroidPatternMatcher {
        var count = 0
        let isAdvanced = e.indices.contains { $0 + 1 < e.count && e[$0] == Unit.question && e[$0 + 1] == Unit.star }
        var p: [UInt16] = []
        for c in e {
            switch c {
            case Unit.star:
                // `this.endsWith('.') && !this.endsWith("\\.")`
                let endsWithDot = p.last == Unit.dot
                let endsWithEscapedDot = p.count >= 2 && p[p.count - 2] == Unit.backslash && p[p.count - 1] == Unit.dot
                if endsWithDot && !endsWithEscapedDot {
                    p.append(Unit.plus)
                } else {
                    count += 1
                    p += [Unit.dot, Unit.star]
                }
            case Unit.question:
                count += 1
                p.append(Unit.dot)
            case Unit.dot:
                p += [Unit.backslash, Unit.dot]
            case Unit.openBracket, Unit.closeBracket, Unit.openBrace, Unit.closeBrace:
                if isAdvanced { p.append(Unit.backslash) }
                p.append(c)
            default:
                p.append(c)
            }
        }
        if count == 0 { return AndroidPatternMatcher(deferring: p, kind: .literal) }
        if count == 1 && p.count >= 2 && p[p.count - 2] == Unit.dot && p[p.count - 1] == Unit.star {
            return AndroidPatternMatcher(deferring: Array(p.dropLast(2)), kind: .prefix)
        }
        if isAdvanced { return AndroidPatternMatcher(deferring: p, kind: .advancedGlob) }
        return AndroidPatternMatcher(deferring: p, kind: .simpleGlob)
    }
}

/// UTF-16 code units the matchers care about.
enum Unit {
    static let tab: UInt16 = 0x09
    static let newline: UInt16 = 0x0A
    static let formFeed: UInt16 = 0x0C
    static let carriageReturn: UInt16 = 0x0D
    static let space: UInt16 = 0x20
    static let quote: UInt16 = 0x22
    static let hash: UInt16 = 0x23
    static let percent: UInt16 = 0x25
    static let ampersand: UInt16 = 0x26
    static let apostrophe: UInt16 = 0x27
    static let star: UInt16 = 0x2A
    static let plus: UInt16 = 0x2B
    static let comma: UInt16 = 0x2C
    static let minus: UInt16 = 0x2D
    static let dot: UInt16 = 0x2E
    static let slash: UInt16 = 0x2F
    static let zero: UInt16 = 0x30
    static let nine: UInt16 = 0x39
    static let colon: UInt16 = 0x3A
    static let semicolon: UInt16 = 0x3B
    static let equals: UInt16 = 0x3D
    static let question: UInt16 = 0x3F
    static let openBracket: UInt16 = 0x5B
    static let backslash: UInt16 = 0x5C
    static let closeBracket: UInt16 = 0x5D
    static let caret: UInt16 = 0x5E
    static let openBrace: UInt16 = 0x7B
    static let closeBrace: UInt16 = 0x7D
}

/// PATTERN_ADVANCED_GLOB: `parseAndVerifyAdvancedPattern` and `matchAdvancedPattern`.
enum AdvancedGlob {
    // Parsed placeholders (negative; characters are stored as their non-negative UTF-16 value).
    static let setStart: Int32 = -1
    static let inverseSetStart: Int32 = -2
    static let setStop: Int32 = -3
    static let any: Int32 = -4
    static let rangeStart: Int32 = -5
    static let rangeStop: Int32 = -6
    static let zeroOrMore: Int32 = -7
    static let oneOrMore: Int32 = -8
    static let maxStorage = 2048

    static func isModifier(_ t: Int32) -> Bool {
        t == oneOrMore || t == zeroOrMore || t == rangeStop || t == rangeStart
    }

    static func parse(_ pattern: [UInt16]) throws(AndroidPatternError) -> [Int32] {
        var out: [Int32] = []
        var ip = 0
        let lp = pattern.count
        var inSet = false
        var inRange = false
        var inCharClass = false
        while ip < lp {
            if out.count > maxStorage - 3 { throw AndroidPatternError("pattern is too large") }
            var c = pattern[ip]
            var addToParsedPattern = false
            switch c {
            case Unit.openBracket:
                if inSet {
                    addToParsedPattern = true
                } else {
                    guard ip + 1 < lp else {
                        // Java reads charAt(ip + 1) and throws StringIndexOutOfBoundsException.
                        throw AndroidPatternError("'[' at the end of the pattern")
                    }
                    if pattern[ip + 1] == Unit.caret {
                        out.append(inverseSetStart)
                        ip += 1
                    } else {
                        out.append(setStart)
                    }
                    ip += 1
                    inSet = true
                    continue
                }
            case Unit.closeBracket:
                if !inSet {
                    addToParsedPattern = true
                } else {
                    let last = out[out.count - 1]
                    if last == setStart || last == inverseSetStart {
                        throw AndroidPatternError("you must define characters in a set")
                    }
                    out.append(setStop)
                    inSet = false
                    inCharClass = false
                }
            case Unit.openBrace:
                if !inSet {
                    if out.isEmpty || isModifier(out[out.count - 1]) {
                        throw AndroidPatternError("modifier must follow a token")
                    }
                    out.append(rangeStart)
                    ip += 1
                    inRange = true
                }
            case Unit.closeBrace:
                if inRange {
                    out.append(rangeStop)
                    inRange = false
                }
            case Unit.star, Unit.plus:
                if !inSet {
                    if out.isEmpty || isModifier(out[out.count - 1]) {
                        throw AndroidPatternError("modifier must follow a token")
                    }
                    out.append(c == Unit.star ? zeroOrMore : oneOrMore)
                }
            case Unit.dot:
                if !inSet { out.append(any) }
            case Unit.backslash:
                if ip + 1 >= lp { throw AndroidPatternError("escape found at end of pattern") }
                ip += 1
                c = pattern[ip]
                addToParsedPattern = true
            default:
                addToParsedPattern = true
            }
            if inSet {
                if inCharClass {
                    out.append(Int32(c))
                    inCharClass = false
                } else if ip + 2 < lp && pattern[ip + 1] == Unit.minus && pattern[ip + 2] != Unit.closeBracket {
                    inCharClass = true
                    out.append(Int32(c))
                    ip += 1
                } else {
                    out.append(Int32(c))
                    out.append(Int32(c))
                }
            } else if inRange {
                guard let end = pattern[ip...].firstIndex(of: Unit.closeBrace) else {
                    throw AndroidPatternError("range not ended with '}'")
                }
                let range = Array(pattern[ip..<end])
                let (minimum, maximum): (Int32, Int32)
                if let comma = range.firstIndex(of: Unit.comma) {
                    guard let lo = javaParseInt(Array(range[..<comma]), radix: 10) else {
                        throw AndroidPatternError("range number format incorrect")
                    }
                    if comma == range.count - 1 {
                        (minimum, maximum) = (lo, Int32.max)
                    } else {
                        guard let hi = javaParseInt(Array(range[(comma + 1)...]), radix: 10) else {
                            throw AndroidPatternError("range number format incorrect")
                        }
                        (minimum, maximum) = (lo, hi)
                    }
                } else {
                    guard let n = javaParseInt(range, radix: 10) else {
                        throw AndroidPatternError("range number format incorrect")
                    }
                    (minimum, maximum) = (n, n)
                }
                if minimum > maximum {
                    throw AndroidPatternError("range quantifier minimum is greater than maximum")
                }
                out.append(minimum)
                out.append(maximum)
                ip = end
                continue
            } else if addToParsedPattern {
                out.append(Int32(c))
            }
            ip += 1
        }
        if inSet { throw AndroidPatternError("set was not terminated") }
        return out
    }

    static func match(_ parsed: [Int32], _ match: [UInt16]) -> Bool {
        var ip = 0
        var im = 0
        let lp = parsed.count
        let lm = match.count
        var setStartIndex = 0
        var setEndIndex = 0
        enum TokenType { case literal, any, set, inverseSet }
        while ip < lp {
            let token = parsed[ip]
            let type: TokenType
            switch token {
            case any:
                type = .any
                ip += 1
            case setStart, inverseSetStart:
                type = token == setStart ? .set : .inverseSet
                setStartIndex = ip + 1
                ip += 1
                while ip < lp && parsed[ip] != setStop { ip += 1 }
                setEndIndex = ip - 1
                ip += 1
            default:
                setStartIndex = ip
                type = .literal
                ip += 1
            }
            var minimum: Int32 = 1
            var maximum: Int32 = 1
            if ip < lp {
                switch parsed[ip] {
                case zeroOrMore:
                    (minimum, maximum) = (0, Int32.max)
                    ip += 1
                case oneOrMore:
                    (minimum, maximum) = (1, Int32.max)
                    ip += 1
                case rangeStart:
                    minimum = ip + 1 < lp ? parsed[ip + 1] : 0
                    maximum = ip + 2 < lp ? parsed[ip + 2] : 0
                    ip += 4
                default:
                    break
                }
            }
            if minimum > maximum { return false }
            func matchOne(_ at: Int) -> Bool {
                if at >= lm { return false }
                let c = Int32(match[at])
                switch type {
                case .any:
                    return true
                case .set, .inverseSet:
                    var inSet = false
                    var i = setStartIndex
                    while i < setEndIndex {
                        if c >= parsed[i] && c <= parsed[i + 1] {
                            inSet = true
                            break
                        }
                        i += 2
                    }
                    return type == .set ? inSet : !inSet
                case .literal:
                    return c == parsed[setStartIndex]
                }
            }
            var matched: Int32 = 0
            while matched < maximum && matchOne(im + Int(matched)) { matched += 1 }
            if matched < minimum { return false }
            im += Int(matched)
        }
        return ip >= lp && im >= lm
    }
}

/// `Integer.parseInt(s, radix)`: an optional sign, then at least one digit; `nil` where Java throws.
/// Digits are Java's `Character.digit`: ASCII, other Unicode decimal digits, full-width Latin letters.
func javaParseInt<C: Collection>(_ s: C, radix: Int) -> Int32? where C.Element == UInt16 {
    var units = Array(s)
    guard !units.isEmpty else { return nil }
    var negative = false
    if units[0] == Unit.minus || units[0] == Unit.plus {
        negative = units[0] == Unit.minus
        units.removeFirst()
        guard !units.isEmpty else { return nil }
    }
    var value: Int64 = 0
    for u in units {
        guard let d = javaDigit(u, radix: radix) else { return nil }
        value = value * Int64(radix) + Int64(d)
        if value > Int64(Int32.max) + 1 { return nil }
    }
    if negative { value = -value }
    guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else { return nil }
    return Int32(value)
}

private func javaDigit(_ u: UInt16, radix: Int) -> Int? {
    let v: Int?
    switch u {
    case 0x30...0x39: v = Int(u - 0x30)
    case 0x41...0x5A: v = Int(u - 0x41) + 10
    case 0x61...0x7A: v = Int(u - 0x61) + 10
    case 0xFF21...0xFF3A: v = Int(u - 0xFF21) + 10
    case 0xFF41...0xFF5A: v = Int(u - 0xFF41) + 10
    default:
        if let scalar = Unicode.Scalar(UInt32(u)), scalar.properties.numericType == .decimal,
            let n = scalar.properties.numericValue
        {
            v = Int(n)
        } else {
            v = nil
        }
    }
    guard let v, v < radix else { return nil }
    return v
}
