// AASA patterns: `*` (zero or more characters, `/` included), `?` (exactly one), `?*` (one or
// more, which is simply `?` followed by `*`), `$(name)` substitution variables, and no escapes.
//
// A pattern is compiled once into a small nondeterministic automaton and run over the URL text
// by keeping the set of live states (Thompson's simulation), so matching costs
// O(text length × pattern states) whatever the pattern: `*a*a*a*a*a*b` against a long string of
// `a`s is as cheap as any other pattern, with no backtracking.

/// Counts the work of matching, so tests can prove it stays linear in the URL without measuring
/// time: one step per character a pattern compares and per automaton edge it tries. The matcher
/// itself counts with `NoMatchSteps`, which compiles to nothing.
protocol MatchStepCounter {
    mutating func add(_ steps: Int)
}

struct NoMatchSteps: MatchStepCounter {
    // One stored byte, so each counter has its own stack address: every instance of an empty
    // struct shares one address, and ThreadSanitizer reported the concurrent inout accesses of
    // two threads' counters there as a Swift access race.
    private var unused: UInt8 = 0
    @inline(__always) mutating func add(_ steps: Int) {}
}

/// The counter tests read (`AppleMatcher.decisions(for:counting:)`).
struct MatchSteps: MatchStepCounter {
    private(set) var total = 0
    mutating func add(_ steps: Int) { total += steps }
}

extension AppleMatcher {
    /// One compiled pattern of a component key (`/`, `?`, `#`, a query item) or of a legacy path.
    struct Pattern: Sendable {
        /// Which URL text the pattern is compared with: as the browser sent it (percent-encoded) or decoded.
        let percentEncoded: Bool
        /// When false, the pattern was folded to lower case and is compared with folded text.
        let caseSensitive: Bool
        private let automaton: Automaton
        /// Every scalar of a pattern without wildcards or variables; compared directly.
        private let literal: [Unicode.Scalar]?
        /// True for `*`: anything matches.
        private let matchesEverything: Bool
        /// A pattern of one-character steps and `*` only (`nil` stands for `*`), as most are:
        /// matched by the greedy wildcard walk, which is exact for them and allocates nothing.
        private let wildcardSteps: [Automaton.Step?]?

        /// - Parameters:
        ///   - isPath: apply the observed path rules: the leading `/` is optional and a run of
        ///     leading slashes collapses, a run of trailing `/` is insignificant, and `…/*` also matches `…`.
        ///   - decodesEscapes: `%XX` sequences in the pattern are decoded to literal characters
        ///     (query-item patterns, whose URL values are always compared decoded).
        init(
            _ source: String, isPath: Bool, caseSensitive: Bool, percentEncoded: Bool, decodesEscapes: Bool,
            variables: Variables, warnings: inout [String]
        ) {
            self.percentEncoded = percentEncoded
            self.caseSensitive = caseSensitive
            var tokens = Pattern.tokenize(Pattern.units(of: source, decodesEscapes: decodesEscapes), variables: variables)
            var optionalTrailingSlashStar = false
            if isPath {
                Pattern.normalizePath(&tokens)
                optionalTrailingSlashStar =
                    tokens.count >= 2 && tokens[tokens.count - 2] == .literal("/") && tokens[tokens.count - 1] == .star
            }
            for case let .undefined(name) in tokens {
                warnings.append(
                    "pattern \"\(source)\" uses $(\(name)), which is neither a built-in variable nor defined in "
                        + "applinks.substitutionVariables; the pattern matches nothing")
            }
            if percentEncoded, !decodesEscapes,
                tokens.contains(where: { if case let .literal(c) = $0 { return c.value <= 0x20 || c.value >= 0x7F } else { return false } })
            {
                warnings.append(
                    "pattern \"\(source)\" holds a space, a control or a non-ASCII character, which a percent-encoded "
                        + "URL never contains; write it percent-encoded (upper-case hex) or set \"percentEncoded\": false")
            }
            automaton = Automaton(tokens: tokens, caseSensitive: caseSensitive, optionalTrailingSlashStar: optionalTrailingSlashStar)
            if !optionalTrailingSlashStar, tokens.allSatisfy({ if case .literal = $0 { return true } else { return false } }) {
                literal = tokens.compactMap { token -> Unicode.Scalar? in
                    guard case let .literal(c) = token else { return nil }
                    return caseSensitive ? c : Pattern.fold(c)
                }
            } else {
                literal = nil
            }
            matchesEverything = !tokens.isEmpty && tokens.allSatisfy { $0 == .star }
            wildcardSteps =
                optionalTrailingSlashStar
                ? nil
                : tokens.reduce(into: [Automaton.Step?]?.some([])) { steps, token in
                    switch token {
                    case let .literal(c): steps?.append(.scalar(caseSensitive ? c : Pattern.fold(c)))
                    case .any: steps?.append(.any)
                    case let .charClass(k): steps?.append(.charClass(k, caseInsensitive: !caseSensitive))
                    case .star: steps?.append(nil)
                    case .oneOf, .undefined: steps = nil
                    }
                }
        }

        /// Whether the whole of `text` matches. `text` must already be folded when the pattern is
        /// case-insensitive (`TextVariants` and `QueryValue` hold both forms).
        /// The same for a string's scalars, without copying them when the wildcard walk applies.
        func matches(_ text: String.UnicodeScalarView) -> Bool {
            var steps = NoMatchSteps()
            if let wildcardSteps, literal == nil, !matchesEverything { return Pattern.wildcardMatch(wildcardSteps, text, counting: &steps) }
            return matches(Array(text), counting: &steps)
        }

        func matches(_ text: [Unicode.Scalar], counting steps: inout some MatchStepCounter) -> Bool {
            if matchesEverything {
                steps.add(1)
                return true
            }
            if let literal {
                steps.add(min(literal.count, text.count) + 1)
                return literal == text
            }
            if let wildcardSteps { return Pattern.wildcardMatch(wildcardSteps, text, counting: &steps) }
            return automaton.matches(text, counting: &steps)
        }

        /// Whole-text match of one-character steps and `*` (`nil`): advance on a match, and on a
        /// mismatch let the last `*` take one more character. Exact when every other step takes
        /// exactly one character; O(text × steps) at worst, with no allocation.
        static func wildcardMatch<Text: Collection>(
            _ steps: [Automaton.Step?], _ text: Text, counting work: inout some MatchStepCounter
        ) -> Bool where Text.Element == Unicode.Scalar {
            var p = 0
            var t = text.startIndex
            var star = -1
            var starText = text.startIndex
            while t != text.endIndex {
                work.add(1)
                if p < steps.count, let step = steps[p], step.accepts(text[t]) {
                    p += 1
                    t = text.index(after: t)
                } else if p < steps.count, steps[p] == nil {
                    star = p
                    starText = t
                    p += 1
                } else if star >= 0 {
                    p = star + 1
                    starText = text.index(after: starText)
                    t = starText
                } else {
                    return false
                }
            }
            while p < steps.count, steps[p] == nil { p += 1 }
            return p == steps.count
        }

        // MARK: Folding

        /// Simple case folding to lower case, one scalar to one scalar (ASCII first, fast).
        @inline(__always)
        static func fold(_ c: Unicode.Scalar) -> Unicode.Scalar {
            let v = c.value
            if v < 0x80 {
                return v >= 0x41 && v <= 0x5A ? Unicode.Scalar(UInt8(v + 0x20)) : c
            }
            let mapped = c.properties.lowercaseMapping.unicodeScalars
            if mapped.count == 1, let first = mapped.first { return first }
            return c
        }

        static func fold(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
            text.map { fold($0) }
        }

        // MARK: Tokens

        /// The single-character classes among the built-in variables.
        enum CharClass: String, Sendable, CaseIterable {
            case alpha, upper, lower, alnum, digit, xdigit

            func contains(_ c: Unicode.Scalar) -> Bool {
                let v = c.value
                let upper = v >= 0x41 && v <= 0x5A
                let lower = v >= 0x61 && v <= 0x7A
                let digit = v >= 0x30 && v <= 0x39
                switch self {
                case .alpha: return upper || lower
                case .upper: return upper
                case .lower: return lower
                case .alnum: return upper || lower || digit
                case .digit: return digit
                case .xdigit: return digit || (v >= 0x41 && v <= 0x46) || (v >= 0x61 && v <= 0x66)
                }
            }

            /// Membership for folded (lower-case) text: `$(upper)` then accepts `a` as well.
            func contains(_ c: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
                if contains(c) { return true }
                guard caseInsensitive, c.value >= 0x61, c.value <= 0x7A else { return false }
                return contains(Unicode.Scalar(UInt8(c.value - 0x20)))
            }
        }

        enum Token: Sendable, Equatable {
            case literal(Unicode.Scalar)
            /// `?`
            case any
            /// `*`
            case star
            /// `$(alpha)` and the other one-character built-ins.
            case charClass(CharClass)
            /// A variable that stands for any one of these strings (`$(region)`, `$(lang)`, custom ones).
            case oneOf([[Unicode.Scalar]])
            /// `$(name)` with no such variable: the pattern can match nothing.
            case undefined(String)
        }

        /// The variables a document defines, over the built-ins.
        struct Variables: Sendable {
            var custom: [String: [String]] = [:]

            func token(named name: String) -> Token? {
                if let values = custom[name] { return .oneOf(values.map { Array($0.unicodeScalars) }) }
                if let charClass = CharClass(rawValue: name) { return .charClass(charClass) }
                return Variables.builtInLists[name]
            }

            /// The built-ins that stand for a list of codes rather than one character class.
            static let builtInLists: [String: Token] = [
                "region": Token.oneOf(AppleSubstitutionVariables.regionCodes.map { Array($0.unicodeScalars) }),
                "lang": Token.oneOf(AppleSubstitutionVariables.languageCodes.map { Array($0.unicodeScalars) }),
            ]
        }

        /// A pattern character, and whether it came from a decoded `%XX` escape (then it is never a wildcard).
        struct Unit {
            var scalar: Unicode.Scalar
            var escaped: Bool
        }

        static func units(of source: String, decodesEscapes: Bool) -> [Unit] {
            guard decodesEscapes, source.utf8.contains(UInt8(ascii: "%")) else {
                return source.unicodeScalars.map { Unit(scalar: $0, escaped: false) }
            }
            var units: [Unit] = []
            var plain: [UInt8] = []
            var escaped: [UInt8] = []
            func flushPlain() {
                units += String(decoding: plain, as: UTF8.self).unicodeScalars.map { Unit(scalar: $0, escaped: false) }
                plain.removeAll()
            }
            func flushEscaped() {
                units += String(decoding: escaped, as: UTF8.self).unicodeScalars.map { Unit(scalar: $0, escaped: true) }
                escaped.removeAll()
            }
            let bytes = Array(source.utf8)
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
                    let high = PercentCoding.hexValue(bytes[i + 1]), let low = PercentCoding.hexValue(bytes[i + 2])
                {
                    flushPlain()
                    escaped.append(high << 4 | low)
                    i += 3
                } else {
                    flushEscaped()
                    plain.append(bytes[i])
                    i += 1
                }
            }
            flushPlain()
            flushEscaped()
            return units
        }

        static func tokenize(_ units: [Unit], variables: Variables) -> [Token] {
            var tokens: [Token] = []
            var i = 0
            while i < units.count {
                let unit = units[i]
                i += 1
                if unit.escaped {
                    tokens.append(.literal(unit.scalar))
                    continue
                }
                switch unit.scalar {
                case "*":
                    // `**` means the same as `*`; keep one so the automaton stays small.
                    if tokens.last != .star { tokens.append(.star) }
                case "?":
                    tokens.append(.any)
                case "$" where i < units.count && units[i].scalar == "(" && !units[i].escaped:
                    // `$(name)`; without a closing `)` the `$` is an ordinary character.
                    var j = i + 1
                    while j < units.count, units[j].escaped || units[j].scalar != ")" { j += 1 }
                    guard j < units.count, j > i + 1 else {
                        tokens.append(.literal("$"))
                        continue
                    }
                    var name = ""
                    name.unicodeScalars.append(contentsOf: units[(i + 1)..<j].map(\.scalar))
                    tokens.append(variables.token(named: name) ?? .undefined(name))
                    i = j + 1
                default:
                    tokens.append(.literal(unit.scalar))
                }
            }
            return tokens
        }

        /// The path rules observed with `swcutil`: `abc` ≡ `/abc`, `//abc` ≡ `/abc`, `/buy/` ≡ `/buy`.
        /// A pattern that starts with a wildcard is left alone (`*/edit` matches `/edit`); an empty
        /// pattern is `/`.
        static func normalizePath(_ tokens: inout [Token]) {
            guard let first = tokens.first else {
                tokens = [.literal("/")]
                return
            }
            switch first {
            case .literal("/"):
                var extra = 0
                while extra + 1 < tokens.count, tokens[extra + 1] == .literal("/") { extra += 1 }
                tokens.removeSubrange(1..<(1 + extra))
            case .literal, .charClass, .oneOf, .undefined:
                tokens.insert(.literal("/"), at: 0)
            case .any, .star:
                break
            }
            while tokens.count > 1, tokens.last == .literal("/") { tokens.removeLast() }
        }
    }
}

// MARK: - The automaton

extension AppleMatcher.Pattern {
    /// A Thompson automaton: consuming edges, epsilon moves folded into per-state closures.
    struct Automaton: Sendable {
        enum Step: Sendable {
            case scalar(Unicode.Scalar)
            case any
            case charClass(CharClass, caseInsensitive: Bool)

            @inline(__always)
            func accepts(_ c: Unicode.Scalar) -> Bool {
                switch self {
                case let .scalar(s): return s == c
                case .any: return true
                case let .charClass(k, ci): return k.contains(c, caseInsensitive: ci)
                }
            }
        }

        struct Edge: Sendable {
            var step: Step
            var target: Int
        }

        private var edges: [[Edge]] = [[]]
        private var epsilons: [[Int]] = [[]]
        private var closures: [[Int]] = []
        private var accepting: [Bool] = [false]
        private var dead = false

        init(tokens: [Token], caseSensitive: Bool, optionalTrailingSlashStar: Bool) {
            var current = 0
            var beforeTrailingSlash: Int?
            for (index, token) in tokens.enumerated() {
                if optionalTrailingSlashStar, index == tokens.count - 2 { beforeTrailingSlash = current }
                switch token {
                case let .literal(c):
                    current = addEdge(from: current, .scalar(caseSensitive ? c : AppleMatcher.Pattern.fold(c)))
                case .any:
                    current = addEdge(from: current, .any)
                case let .charClass(k):
                    current = addEdge(from: current, .charClass(k, caseInsensitive: !caseSensitive))
                case .star:
                    edges[current].append(Edge(step: .any, target: current))
                case let .oneOf(strings):
                    // A trie of the alternatives, its leaves joined by epsilon moves.
                    let join = newState()
                    var children: [Int: [Unicode.Scalar: Int]] = [:]
                    for string in strings {
                        var node = current
                        for raw in string {
                            let c = caseSensitive ? raw : AppleMatcher.Pattern.fold(raw)
                            if let next = children[node]?[c] {
                                node = next
                            } else {
                                let next = addEdge(from: node, .scalar(c))
                                children[node, default: [:]][c] = next
                                node = next
                            }
                        }
                        epsilons[node].append(join)
                    }
                    current = join
                case .undefined:
                    dead = true
                }
            }
            accepting[current] = true
            if let beforeTrailingSlash {
                // `/buy/*` also matches `/buy`: accept right before the final `/`, without the `*`.
                let end = newState()
                accepting[end] = true
                epsilons[beforeTrailingSlash].append(end)
            }
            closures = (0..<edges.count).map { closure(of: $0) }
        }

        private mutating func newState() -> Int {
            edges.append([])
            epsilons.append([])
            accepting.append(false)
            return edges.count - 1
        }

        private mutating func addEdge(from state: Int, _ step: Step) -> Int {
            let next = newState()
            edges[state].append(Edge(step: step, target: next))
            return next
        }

        private func closure(of state: Int) -> [Int] {
            var seen: Set<Int> = [state]
            var result = [state]
            var stack = [state]
            while let s = stack.popLast() {
                for t in epsilons[s] where seen.insert(t).inserted {
                    result.append(t)
                    stack.append(t)
                }
            }
            return result
        }

        func matches(_ text: [Unicode.Scalar], counting work: inout some MatchStepCounter) -> Bool {
            if dead { return false }
            // `mark[s] == generation` when state s is already in the set for this step.
            var mark = [Int](repeating: -1, count: edges.count)
            var current: [Int] = []
            var next: [Int] = []
            current.reserveCapacity(edges.count)
            next.reserveCapacity(edges.count)
            for s in closures[0] {
                mark[s] = 0
                current.append(s)
            }
            var generation = 0
            for c in text {
                generation += 1
                next.removeAll(keepingCapacity: true)
                for s in current {
                    work.add(edges[s].count)
                    for edge in edges[s] where edge.step.accepts(c) {
                        for t in closures[edge.target] where mark[t] != generation {
                            mark[t] = generation
                            next.append(t)
                        }
                    }
                }
                if next.isEmpty { return false }
                swap(&current, &next)
            }
            return current.contains { accepting[$0] }
        }
    }
}

extension AppleMatcher {
    /// One AASA pattern (`*`, `?`, `$(…)` built-ins) compared with a whole string, the way the
    /// matcher compares a component's text: case-sensitive, no path rules (a trailing `/` counts).
    public struct Glob: Sendable {
        private let pattern: Pattern

        /// Compiles `source`; `AppleMatcher.Glob("/post/*/?*").matches("/post/a/b")` is true.
        /// An undefined `$(name)` makes a glob that matches nothing.
        public init(_ source: String) {
            var ignored: [String] = []
            pattern = Pattern(
                source, isPath: false, caseSensitive: true, percentEncoded: true, decodesEscapes: false,
                variables: Pattern.Variables(), warnings: &ignored)
        }

        /// Whether the whole of `text` matches, compared as written (no decoding, no path rules).
        public func matches(_ text: String) -> Bool {
            pattern.matches(text.unicodeScalars)
        }
    }
}
