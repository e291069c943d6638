// From compiled routes to platform components. Both generators read this plan, so the AASA
// components and Android's dynamic-app-link components come from one derivation.
//
// A route parameter is one non-empty path segment, but both platforms' wildcards can cross
// `/`. The plan therefore puts, before each claim, the exclusions that keep deeper paths out
// (`/post/*/?*` before `/post/?*`), and orders entries so those exclusions never block another
// route. The invariant check (InvariantCheck.swift) proves the result with the matchers.

import Foundation
import LinkRouting
import LinkwellJSON
import PlatformMatchers

/// One platform component, before serialisation.
public struct PlannedComponent: Sendable, Equatable {
    public var path: String
    /// Query name → pattern.
    public var query: [(String, String)]
    public var fragment: String?
    public var exclude: Bool
    public var comment: String?
    /// Which config entry produced it.
    public var entryIndex: Int
    /// False for an Apple component compared with the decoded path (`"percentEncoded": false`):
    /// the components of a route with a `oneOf` parameter, whose values the parser compares
    /// decoded (`%61rduino` is `arduino`).
    public var percentEncoded: Bool = true
    /// An Android guard that keeps a route's last parameter from being empty (`/c/*/*/` before
    /// `/c/*/*/*`): the same expression as the trailing-slash claim of a route one segment
    /// shorter (`/c/{top}/{sub}`), which it must not block (see ``ComponentPlan/yieldEmptyValueGuards(_:)``).
    var guardsEmptyLastValue = false
    /// An exclusion that keeps a route's parameters to one non-empty segment each.
    var isGuard = false

    public static func == (a: PlannedComponent, b: PlannedComponent) -> Bool {
        a.path == b.path && a.query.elementsEqual(b.query, by: ==) && a.fragment == b.fragment && a.exclude == b.exclude
            && a.comment == b.comment && a.entryIndex == b.entryIndex && a.percentEncoded == b.percentEncoded
    }

    /// Writes the component as an object of the association file, its keys in byte order
    /// (`#`, `/`, `?`, `comment`, `exclude`, `percentEncoded`).
    public func write(to w: inout JSONPrettyWriter, includeComment: Bool) {
        w.beginObject()
        if let fragment {
            w.key("#")
            w.string(fragment)
        }
        w.key("/")
        w.string(path)
        if !query.isEmpty {
            w.key("?")
            w.beginObject()
            for (name, pattern) in JSONPrettyWriter.sortedByUTF8(query, key: \.0) {
                w.key(name)
                w.string(pattern)
            }
            w.endObject()
        }
        if includeComment, let comment {
            w.key("comment")
            w.string(comment)
        }
        if exclude {
            w.key("exclude")
            w.bool(true)
        }
        if !percentEncoded {
            w.key("percentEncoded")
            w.bool(false)
        }
        w.endObject()
    }
}

public enum Platform: String, Sendable, CaseIterable {
    case apple, android
}

public struct ComponentPlan: Sendable {
    /// Substitution variables the Apple patterns use (name → values, decoded: the components
    /// that use them compare the decoded path), sorted by name.
    public var substitutionVariables: [(String, [String])]

    let site: CompiledSite
    let variableNames: [String: String]  // "entryIndex/param" → variable name
    /// Each entry's samples and guards, made once for every emission order of the plan.
    let prepared: PreparedEntries

    public init(site: CompiledSite) {
        GenerationCounter.record(.componentPlan, site: site)
        self.site = site
        self.prepared = PreparedEntries(site.entries)
        var names: [String: String] = [:]
        var vars: [(String, [String])] = []
        for entry in site.entries {
            for seg in entry.pattern.segments {
                guard case let .param(name, _, _, oneOf?) = seg else { continue }
                // The parser compares a value as Swift compares strings (canonical equivalence);
                // iOS compares Unicode scalars, so list the composed and decomposed spellings.
                let encoded = ComponentPlan.unicodeSpellings(oneOf)
                if let existing = vars.first(where: { $0.1 == encoded }) {
                    names["\(entry.index)/\(name)"] = existing.0
                    continue
                }
                var candidate = name
                var n = 2
                while vars.contains(where: { $0.0 == candidate }) || AppleSubstitutionVariables.builtInNames.contains(candidate) {
                    candidate = "\(name)_\(n)"
                    n += 1
                }
                vars.append((candidate, encoded))
                names["\(entry.index)/\(name)"] = candidate
            }
        }
        self.substitutionVariables = vars.sorted { $0.0 < $1.0 }
        self.variableNames = names
    }

    /// Entries that apply to one app, in emission order.
    public func orderedEntries(appliesTo includes: (CompiledEntry) -> Bool) -> [CompiledEntry] {
        orderedPositions(appliesTo: includes).map { site.entries[$0] }
    }

    /// The positions in the site's `entries` of the entries that apply to one app, in emission
    /// order (``orderedEntries(appliesTo:)`` without copying an entry).
    func orderedPositions(appliesTo includes: (CompiledEntry) -> Bool) -> [Int] {
        var chosen: [Int] = []
        chosen.reserveCapacity(site.entries.count)
        for k in site.entries.indices where includes(site.entries[k]) { chosen.append(k) }
        return ComponentPlan.emissionOrder(chosen, prepared: prepared)
    }

    /// Components for one app on one platform.
    ///
    /// A route of other apps that comes first in the config takes its links from this app's
    /// later routes (the parser gives `/files/42/shared/x` to `/files/{owner}/shared/{rest*}`'s
    /// apps only): its components come before the first such route as exclusions for this app.
    public func components(for platform: Platform, appliesTo includes: (CompiledEntry) -> Bool) -> [PlannedComponent] {
        let mine = orderedPositions(appliesTo: includes)
        let entries = site.entries
        var foreign: [Int: [Int]] = [:]  // this app's entry → other apps' earlier routes that overlap it (positions)
        for k in entries.indices where entries[k].isRoute && !includes(entries[k]) {
            let index = entries[k].index
            if let s = mine.first(where: { entries[$0].index > index && prepared.overlap(k, $0) }) { foreign[s, default: []].append(k) }
        }
        // A link domain claims every path no route takes, as a short link (`shortLinks.openApp`).
        let wholeDomain = site.config.shortLinks?.claimsWholeDomain == true
        var planned: [PlannedComponent] = []
        for position in mine {
            let entry = entries[position]
            for k in foreign[position] ?? [] {
                let f = entries[k]
                // (On Android a claim's '*' stays in its segment, and a guard placed without the
                // claims it precedes would exclude this app's links: the claims alone.)
                planned += components(for: f, platform: platform).filter { wholeDomain || platform == .apple || !$0.isGuard }.map { c in
                    var excluded = c
                    if wholeDomain && c.isGuard {
                        // What the other apps' route does not take is a short link, for every app.
                        excluded.isGuard = false
                        excluded.exclude = false
                        excluded.comment = "not \(f.label)'s: a short link"
                        return excluded
                    }
                    if !c.exclude {
                        excluded.exclude = true
                        excluded.comment = "\(f.label) opens only its own apps"
                    }
                    return excluded
                }
            }
            planned += components(for: entry, platform: platform)
        }
        if wholeDomain {
            // A link domain claims every path its routes do not take (as short links): a guard
            // that keeps a route's value to one segment would only keep those paths out.
            return planned.filter { !$0.isGuard }
        }
        switch platform {
        case .android: return ComponentPlan.yieldEmptyValueGuards(planned)
        case .apple: return yieldGuardsToRestRoutes(planned, positions: mine)
        }
    }

    /// iOS: a guard keeps a value to one segment (`/files/*/?*/shared/*` before
    /// `/files/?*/shared/*`), and so also blocks another route's links
    /// (`/files/a/b/shared/A1` is `/files/{owner}/{rest*}`'s). Where a later route of the same
    /// app is such a rest route — literals, one plain parameter, then `{rest*}`, no required
    /// query — and the guard spells the same leading literals, that route accepts every link the
    /// guard matches except those with an empty parameter: the guard becomes that route's claim,
    /// after that route's own guards.
    /// `positions`: the app's entries, as positions in the site's `entries`, in emission order.
    func yieldGuardsToRestRoutes(_ components: [PlannedComponent], positions: [Int]) -> [PlannedComponent] {
        guard components.contains(where: \.isGuard) else { return components }
        var restRoutes: [(prefix: String, entry: CompiledEntry)] = []
        for p in positions where site.entries[p].pattern.hasRest && site.entries[p].isRoute && site.entries[p].requiredQuery.isEmpty {
            let e = site.entries[p]
            let segs = e.pattern.segments
            guard segs.count >= 2, case .param(_, "", "", nil) = segs[segs.count - 2] else { continue }
            var literals: [String] = []
            for seg in segs.dropLast(2) {
                guard case let .literal(l) = seg else { break }
                literals.append(l)
            }
            guard literals.count == segs.count - 2 else { continue }
            restRoutes.append(("/" + literals.map { $0 + "/" }.joined(), e))
        }
        guard !restRoutes.isEmpty else { return components }
        var lastClaim: [Int: Int] = [:]  // entry index → position of its last claim
        for (k, c) in components.enumerated() where !c.exclude { lastClaim[c.entryIndex] = k }
        var out: [PlannedComponent] = []
        for (k, c) in components.enumerated() {
            guard c.isGuard, c.percentEncoded,
                let rest = restRoutes.first(where: { r in
                    r.entry.index != c.entryIndex && c.path.hasPrefix(r.prefix) && c.path.count > r.prefix.count
                        && (lastClaim[r.entry.index] ?? -1) > k
                })
            else {
                out.append(c)
                continue
            }
            let own = self.components(for: rest.entry, platform: .apple)
            out += own.filter(\.isGuard)
            if var claim = own.first(where: { !$0.exclude }) {
                claim.path = c.path
                out.append(claim)
            }
        }
        return out
    }

    /// Nested routes on Android: the guard that keeps the last parameter of `/c/{top}/{sub}` from
    /// being empty is `/c/*/`, word for word the trailing-slash claim of `/c/{top}` — whose link
    /// `/c/a/` the parser gives to `top`. Where a route of the same app claims that expression
    /// (with no query), the guard claims it too, for that route: the links it matches with an
    /// empty earlier value were already excluded by the guards before it, and the rest are that
    /// route's. (iOS needs none of this: its guards only keep a value to one segment.)
    static func yieldEmptyValueGuards(_ components: [PlannedComponent]) -> [PlannedComponent] {
        guard components.contains(where: \.guardsEmptyLastValue) else { return components }
        var trailingClaims: [[UInt8]: PlannedComponent] = [:]
        for c in components where !c.exclude && c.query.isEmpty && c.fragment == nil && c.path.hasSuffix("/") {
            trailingClaims[Array(c.path.utf8)] = trailingClaims[Array(c.path.utf8)] ?? c
        }
        return components.map { c in
            guard c.guardsEmptyLastValue, let claim = trailingClaims[Array(c.path.utf8)], claim.entryIndex != c.entryIndex else { return c }
            return claim
        }
    }

    /// A stable topological order: config order, except that an entry whose URLs a route's
    /// guard exclusions would block moves ahead of that route when the two never match the same URL.
    /// `chosen` and the result are positions in the plan's entries (`prepared.entries`), `chosen`
    /// in config order. Which entries must precede which is worked out once for the whole site
    /// (``PreparedEntries/overlapsBefore`` and ``PreparedEntries/blockers``); an order keeps the
    /// pairs whose two entries it holds.
    static func emissionOrder(_ chosen: [Int], prepared: PreparedEntries) -> [Int] {
        let n = chosen.count
        var slot = [Int](repeating: -1, count: prepared.entries.count)  // position → index in `chosen`
        for (i, p) in chosen.enumerated() { slot[p] = i }
        var after = Array(repeating: [Int](), count: n)  // after[i]: entries that must follow i
        var indegree = Array(repeating: 0, count: n)
        var edges = Set<Int>()
        func edge(_ from: Int, _ to: Int) {
            if edges.insert(from &* 1_000_003 &+ to).inserted {
                after[from].append(to)
                indegree[to] += 1
            }
        }
        for j in 0..<n {
            for p in prepared.overlapsBefore[chosen[j]] where slot[p] >= 0 { edge(slot[p], j) }
        }
        for r in 0..<n {
            for p in prepared.blockers[chosen[r]] where slot[p] >= 0 { edge(slot[p], r) }
        }
        // Kahn's algorithm, always taking the earliest ready entry; a cycle falls back to
        // config order (the invariant check then reports what differs).
        var ready = MinHeap()
        for i in 0..<n where indegree[i] == 0 { ready.push(i) }
        var emitted = Array(repeating: false, count: n)
        var order: [Int] = []
        order.reserveCapacity(n)
        var nextUnemitted = 0
        while order.count < n {
            let i: Int
            if let r = ready.pop() {
                if emitted[r] { continue }
                i = r
            } else {
                while emitted[nextUnemitted] { nextUnemitted += 1 }
                i = nextUnemitted
            }
            emitted[i] = true
            order.append(chosen[i])
            for j in after[i] {
                indegree[j] -= 1
                if indegree[j] == 0 && !emitted[j] { ready.push(j) }
            }
        }
        return order
    }

    /// The Apple guard exclusions of a pattern: for each single-segment parameter, the same
    /// pattern with that parameter spanning two or more segments — except where the extra
    /// segments would belong to a rest parameter anyway (`/u/{user}/{path*}`).
    static func guardGlobs(_ pattern: PathPattern) -> [String] {
        var globs: [String] = []
        for (i, seg) in pattern.segments.enumerated() {
            guard case let .param(_, prefix, _, _) = seg else { continue }
            if restAbsorbsExtraSegments(pattern.segments, after: i) {
                // No guard for extra segments, but one for an empty value, when nothing before it
                // can cross '/' (after a '?*', `*//*` would also block a rest holding '//').
                if pattern.segments[..<i].allSatisfy({ if case .literal = $0 { return true } else { return false } }) {
                    let before = pattern.segments[..<i].map { appleGlobPiece($0, variable: nil) }
                    globs.append("/" + (before + [prefix, "*"]).joined(separator: "/"))
                }
                continue
            }
            var parts = pattern.segments.map { appleGlobPiece($0, variable: nil) }
            if case let .param(_, prefix, suffix, _) = seg { parts[i] = "\(prefix)*/?*\(suffix)" }
            globs.append("/" + parts.joined(separator: "/"))
        }
        return globs
    }

    /// True when segments a parameter at `i` might take beyond its own would be accepted by the
    /// parser anyway: it has no suffix and only plain parameters, then a rest parameter, follow
    /// (`/u/{user}/{path*}`: `/u/ann/docs/a.txt` is user `ann`, path `docs/a.txt`).
    static func restAbsorbsExtraSegments(_ segments: [PathSegment], after i: Int) -> Bool {
        guard case .rest = segments.last, i < segments.count - 1 else { return false }
        guard case let .param(_, _, suffix, _) = segments[i], suffix.isEmpty else { return false }
        for seg in segments[(i + 1)..<(segments.count - 1)] {
            guard case let .param(_, prefix, suffix, nil) = seg, prefix.isEmpty, suffix.isEmpty else { return false }
        }
        return true
    }

    static func appleGlobPiece(_ seg: PathSegment, variable: String?) -> String {
        switch seg {
        case let .literal(l): return l
        case let .param(_, prefix, suffix, _): return prefix + (variable.map { "$(\($0))" } ?? "?*") + suffix
        case .rest: return "*"
        }
    }

    /// The components one entry contributes, guards first. A component that requires a query
    /// name with non-ASCII letters is repeated for each Unicode spelling of the name (composed,
    /// decomposed): the parser compares names by canonical equivalence, both platforms by code point.
    public func components(for entry: CompiledEntry, platform: Platform) -> [PlannedComponent] {
        let planned = plainComponents(for: entry, platform: platform)
        guard entry.requiredQuery.contains(where: { !$0.allSatisfy(\.isASCII) }) else { return planned }
        return planned.flatMap { c -> [PlannedComponent] in
            var combos: [[(String, String)]] = [[]]
            for (name, pattern) in c.query {
                combos = combos.flatMap { combo in ComponentPlan.unicodeSpellings([name]).map { combo + [($0, pattern)] } }
            }
            return combos.map { query in
                var spelled = c
                spelled.query = query
                return spelled
            }
        }
    }

    func plainComponents(for entry: CompiledEntry, platform: Platform) -> [PlannedComponent] {
        let comment: String
        var queryPatterns: [(String, String)] = entry.requiredQuery.map { ($0, "?*") }
        var fragment: String? = nil
        let exclude: Bool
        switch entry.kind {
        case let .route(r):
            comment = r.comment.map { "route '\(r.name)': \($0)" } ?? "route '\(r.name)'"
            exclude = false
        case let .exclusion(e):
            comment = e.comment.map { "exclusion: \($0)" } ?? "exclusion '\(e.exclude)'"
            fragment = e.fragment
            queryPatterns = []
            exclude = true
        }
        func make(_ path: String, exclude: Bool, comment: String?) -> PlannedComponent {
            PlannedComponent(path: path, query: queryPatterns, fragment: fragment, exclude: exclude, comment: comment, entryIndex: entry.index)
        }
        let segs = entry.pattern.segments
        switch platform {
        case .apple:
            // A route with a `oneOf` parameter is compared decoded on iOS too, as the parser
            // compares its values: its patterns are written decoded, `"percentEncoded": false`.
            let decoded = segs.contains { if case .param(_, _, _, _?) = $0 { return true } else { return false } }
            func written(_ pattern: String) -> String { decoded ? PercentEncoding.decode(pattern) : pattern }
            var out: [PlannedComponent] = []
            if !exclude {
                for g in ComponentPlan.guardGlobs(entry.pattern) {
                    var c = make(written(g), exclude: true, comment: "keeps '\(entry.pattern.source)' to one segment per parameter")
                    c.query = []
                    c.isGuard = true
                    c.percentEncoded = !decoded
                    out.append(c)
                }
            }
            let parts = segs.map { seg -> String in
                if case let .param(name, _, _, oneOf) = seg, oneOf != nil {
                    return ComponentPlan.appleGlobPiece(seg, variable: variableNames["\(entry.index)/\(name)"])
                }
                return ComponentPlan.appleGlobPiece(seg, variable: nil)
            }
            var claim = make(written("/" + parts.joined(separator: "/")), exclude: exclude, comment: comment)
            claim.percentEncoded = !decoded
            out.append(claim)
            // A browser sends `|`, `^`, `[` and `]` raw, the builder encoded, and iOS compares
            // the path as sent: each component also in the raw spelling.
            return out.flatMap { c -> [PlannedComponent] in
                // (Without a '%' there is nothing to replace: no Foundation search.)
                guard c.percentEncoded, c.path.utf8.contains(UInt8(ascii: "%")) else { return [c] }
                var raw = c
                for (escape, char) in [("%7C", "|"), ("%5E", "^"), ("%5B", "["), ("%5D", "]")] {
                    raw.path = raw.path.replacingOccurrences(of: escape, with: char)
                }
                return raw.path == c.path ? [c] : [c, raw]
            }
        case .android:
            return prepared.androidPaths(entry).map { path in
                var c = make(path.expression, exclude: exclude || path.isGuard, comment: path.isGuard ? "keeps '\(entry.pattern.source)' to one segment per parameter" : comment)
                if path.isGuard { c.query = [] }
                c.guardsEmptyLastValue = path.emptyLast
                c.isGuard = path.isGuard
                return c
            }
        }
    }

    /// One Android `/` expression of an entry, in emission order.
    struct AndroidPath: Equatable {
        var expression: String
        /// An exclusion that keeps a parameter to one non-empty segment.
        var isGuard: Bool
        /// The guard that keeps the last parameter from being empty.
        var emptyLast = false
    }

    /// The Android `/` expressions of an entry: guards (exclusions) first where they must
    /// precede a claim, then the claims. Every expression means the same to Android 15's and
    /// Android 16's DalComponentParser:
    ///
    /// - a free parameter is `*`, never `?*` followed by more text (Android 15 turns `?*` into a
    ///   greedy advanced-glob `.+` that never matches when anything follows it); only a sole
    ///   parameter at the very end is written `?*` (`/post/?*`);
    /// - PatternMatcher's `*` stops at the first occurrence of the character after it, so a
    ///   parameter followed by `/` stays in its segment; one followed by a suffix (`/item-*.html`)
    ///   or at the end can cross `/`, and gets a guard with the value spanning two segments;
    /// - `*` matches the empty string, so each parameter gets an empty-value guard.
    ///
    /// `oneOf` parameters are spelled out, one set of expressions per combination (Android has no
    /// substitution variables), each value in its composed and decomposed Unicode spelling (the
    /// parser compares values by canonical equivalence, Android code unit by code unit).
    ///
    /// Literal text is written for both parsers' readings: a decoded `?`, `*` or `\` has no
    /// escape in a matching expression, so each is written `?` (any one character, a platform
    /// limit `validate` names); and an expression whose literal text holds a `+` never uses `?*`,
    /// which would make it an Android 15 advanced glob where `+` is a quantifier (`/c++/.+` is
    /// rejected by PatternMatcher, `/a+b/.+` never matches `/a+b/42`).
    static func androidPaths(for entry: CompiledEntry) -> [AndroidPath] {
        asciiAndroidPaths(for: entry) ?? androidPathsByCharacter(for: entry)
    }

    /// ``androidPaths(for:)`` written on bytes, for an entry whose decoded literal text and
    /// `oneOf` values are all ASCII (nil for any other): there every character is one byte, so
    /// the same expressions as ``androidPathsByCharacter(for:)`` without building a `String` per
    /// piece and combination.
    static func asciiAndroidPaths(for entry: CompiledEntry) -> [AndroidPath]? {
        enum Piece {
            case fixed([UInt8])
            case free(prefix: [UInt8], suffix: [UInt8])
        }
        let segs = entry.pattern.segments
        let fixedSegs = entry.pattern.hasRest ? Array(segs.dropLast()) : segs
        func ascii(_ text: String) -> [UInt8]? {
            let bytes = Array(text.utf8)
            return bytes.allSatisfy { $0 < 0x80 } ? bytes : nil
        }
        func text(_ encoded: String) -> [UInt8]? {
            ascii(encoded).flatMap { bytes in
                guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
                return ascii(androidLiteral(PercentEncoding.decode(encoded)))
            }.map(asciiAndroidLiteral)
        }
        var combos: [[Piece]] = [[]]
        for seg in fixedSegs {
            switch seg {
            case let .literal(l):
                guard let t = text(l) else { return nil }
                for k in combos.indices { combos[k].append(.fixed(t)) }
            case let .param(_, prefix, suffix, oneOf?):
                guard let p = text(prefix), let s = text(suffix) else { return nil }
                var values: [[UInt8]] = []
                for value in oneOf {
                    guard let v = ascii(value) else { return nil }
                    // (An ASCII value is its own composed and decomposed spelling.)
                    if !values.contains(v) { values.append(v) }
                }
                combos = combos.flatMap { c in values.map { c + [.fixed(p + asciiAndroidLiteral($0) + s)] } }
            case let .param(_, prefix, suffix, nil):
                guard let p = text(prefix), let s = text(suffix) else { return nil }
                for k in combos.indices { combos[k].append(.free(prefix: p, suffix: s)) }
            case .rest:
                break
            }
        }
        let star: [UInt8] = [UInt8(ascii: "*")]
        let spanning: [UInt8] = Array("*/*".utf8)
        let slash = UInt8(ascii: "/")
        var out: [AndroidPath] = []
        // (Guards and claims apart: the same expression may be both.)
        var seen: [Set<[UInt8]>] = [[], []]
        func add(_ written: [UInt8], guard isGuard: Bool, emptyLast: Bool = false) {
            let expression = asciiAndroid15SafeDots(written)
            let guarded = isGuard && entry.isRoute
            if seen[guarded ? 1 : 0].insert(expression).inserted {
                out.append(AndroidPath(expression: String(decoding: expression, as: UTF8.self), isGuard: guarded, emptyLast: emptyLast && guarded))
            }
        }
        for pieces in combos {
            /// The expression with the free piece at `at` written `value` (the others `*`).
            func render(_ at: Int = -1, _ value: [UInt8] = star, then tail: String = "") -> [UInt8] {
                var bytes: [UInt8] = [slash]
                for (i, piece) in pieces.enumerated() {
                    if i > 0 { bytes.append(slash) }
                    switch piece {
                    case let .fixed(text): bytes += text
                    case let .free(prefix, suffix):
                        bytes += prefix
                        bytes += i == at ? value : star
                        bytes += suffix
                    }
                }
                bytes += tail.utf8
                return bytes
            }
            func suffix(_ i: Int) -> [UInt8] {
                if case let .free(_, s) = pieces[i] { return s }
                return []
            }
            let free = pieces.indices.filter { if case .free = pieces[$0] { return true } else { return false } }
            let last = pieces.count - 1
            let guards = entry.isRoute
            if entry.pattern.hasRest {
                // `/files/*` does not match `/files` on Android; Apple's does: claim both.
                let parent = render()
                if guards {
                    for i in free {
                        add(render(i, []), guard: true)
                        add(render(i, [], then: "/*"), guard: true)
                    }
                    for i in free where !suffix(i).isEmpty && !restAbsorbsExtraSegments(fixedSegs + [segs.last!], after: i) {
                        add(render(i, spanning), guard: true)
                        add(render(i, spanning, then: "/*"), guard: true)
                    }
                }
                add(parent, guard: false)
                add(parent == [slash] ? [slash] + star : parent + [slash] + star, guard: false)
                continue
            }
            if free.isEmpty {
                let path = render()
                // A trailing slash is insignificant to the parser (and to iOS), not to Android.
                add(path + [slash], guard: false)
                add(path, guard: false)
                continue
            }
            // A parameter that ends the path can take deeper paths; alone, it may be `?*`.
            let openAtEnd = free.contains(last) && suffix(last).isEmpty
            let hasPlus = pieces.contains { piece in
                switch piece {
                case let .fixed(t): return t.contains(UInt8(ascii: "+"))
                case let .free(p, s): return p.contains(UInt8(ascii: "+")) || s.contains(UInt8(ascii: "+"))
                }
            }
            let solePlus = openAtEnd && free.count == 1 && !hasPlus
            if guards {
                for i in free {
                    add(render(i, [], then: "/"), guard: true)
                    if !(solePlus && i == last) { add(render(i, []), guard: true, emptyLast: i == last && suffix(i).isEmpty) }
                }
                for i in free where !suffix(i).isEmpty {
                    add(render(i, spanning), guard: true)
                    add(render(i, spanning, then: "/"), guard: true)
                }
            }
            add(render(then: "/"), guard: false)
            // (After the trailing-slash claim, which it would block.)
            if guards && openAtEnd { add(render(last, spanning), guard: true) }
            add(solePlus ? render(last, Array("?*".utf8)) : render(), guard: false)
        }
        return out
    }

    /// ``androidLiteral(_:)`` of ASCII text.
    static func asciiAndroidLiteral(_ text: [UInt8]) -> [UInt8] {
        guard text.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "\\") }) else { return text }
        return text.map { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "\\") ? UInt8(ascii: "?") : $0 }
    }

    /// ``android15SafeDots(_:)`` of an ASCII expression.
    static func asciiAndroid15SafeDots(_ expression: [UInt8]) -> [UInt8] {
        guard expression.contains(UInt8(ascii: ".")) else { return expression }
        let wildcards = expression.reduce(0) { $0 + ($1 == UInt8(ascii: "*") || $1 == UInt8(ascii: "?") ? 1 : 0) }
        guard wildcards == 0 || (wildcards == 1 && expression.last == UInt8(ascii: "*")) else { return expression }
        return expression.map { $0 == UInt8(ascii: ".") ? UInt8(ascii: "?") : $0 }
    }

    /// ``androidPaths(for:)`` on `String`s, character by character: the way for entries with
    /// non-ASCII text, and the reference ``asciiAndroidPaths(for:)`` is tested against.
    static func androidPathsByCharacter(for entry: CompiledEntry) -> [AndroidPath] {
        enum Piece {
            case fixed(String)
            case free(prefix: String, suffix: String)
        }
        let segs = entry.pattern.segments
        let fixedSegs = entry.pattern.hasRest ? Array(segs.dropLast()) : segs
        func text(_ encoded: String) -> String { androidLiteral(PercentEncoding.decode(encoded)) }
        var combos: [[Piece]] = [[]]
        for seg in fixedSegs {
            switch seg {
            case let .literal(l):
                combos = combos.map { $0 + [.fixed(text(l))] }
            case let .param(_, prefix, suffix, oneOf?):
                let values = unicodeSpellings(oneOf)
                combos = combos.flatMap { c in
                    values.map { c + [.fixed(text(prefix) + androidLiteral($0) + text(suffix))] }
                }
            case let .param(_, prefix, suffix, nil):
                combos = combos.map { $0 + [.free(prefix: text(prefix), suffix: text(suffix))] }
            case .rest:
                break
            }
        }
        var out: [AndroidPath] = []
        // (By bytes: `String` equality would merge a value's composed and decomposed spellings.)
        var seen = Set<[UInt8]>()
        func add(_ written: String, guard isGuard: Bool, emptyLast: Bool = false) {
            let expression = android15SafeDots(written)
            let p = AndroidPath(expression: expression, isGuard: isGuard && entry.isRoute, emptyLast: emptyLast && isGuard && entry.isRoute)
            if seen.insert(Array("\(p.isGuard) \(expression)".utf8)).inserted { out.append(p) }
        }
        for pieces in combos {
            func render(_ values: [Int: String] = [:]) -> String {
                "/" + pieces.enumerated().map { i, piece -> String in
                    switch piece {
                    case let .fixed(text): return text
                    case let .free(prefix, suffix): return prefix + (values[i] ?? "*") + suffix
                    }
                }.joined(separator: "/")
            }
            func suffix(_ i: Int) -> String {
                if case let .free(_, s) = pieces[i] { return s }
                return ""
            }
            let free = pieces.indices.filter { if case .free = pieces[$0] { return true } else { return false } }
            let last = pieces.count - 1
            let guards = entry.isRoute
            if entry.pattern.hasRest {
                // `/files/*` does not match `/files` on Android; Apple's does: claim both.
                let parent = render()
                if guards {
                    for i in free {
                        add(render([i: ""]), guard: true)
                        add(render([i: ""]) + "/*", guard: true)
                    }
                    for i in free where !suffix(i).isEmpty && !restAbsorbsExtraSegments(fixedSegs + [segs.last!], after: i) {
                        add(render([i: "*/*"]), guard: true)
                        add(render([i: "*/*"]) + "/*", guard: true)
                    }
                }
                add(parent, guard: false)
                add(parent == "/" ? "/*" : parent + "/*", guard: false)
                continue
            }
            if free.isEmpty {
                let path = render()
                // A trailing slash is insignificant to the parser (and to iOS), not to Android.
                add(path == "/" ? "//" : path + "/", guard: false)
                add(path, guard: false)
                continue
            }
            // A parameter that ends the path can take deeper paths; alone, it may be `?*`.
            let openAtEnd = free.contains(last) && suffix(last).isEmpty
            let hasPlus = pieces.contains { piece in
                switch piece {
                case let .fixed(t): return t.contains("+")
                case let .free(p, s): return p.contains("+") || s.contains("+")
                }
            }
            let solePlus = openAtEnd && free.count == 1 && !hasPlus
            if guards {
                for i in free {
                    add(render([i: ""]) + "/", guard: true)
                    if !(solePlus && i == last) { add(render([i: ""]), guard: true, emptyLast: i == last && suffix(i).isEmpty) }
                }
                for i in free where !suffix(i).isEmpty {
                    add(render([i: "*/*"]), guard: true)
                    add(render([i: "*/*"]) + "/", guard: true)
                }
            }
            add(render() + "/", guard: false)
            // (After the trailing-slash claim, which it would block.)
            if guards && openAtEnd { add(render([last: "*/*"]), guard: true) }
            add(solePlus ? render([last: "?*"]) : render(), guard: false)
        }
        return out
    }

    /// Literal text as a matching expression can hold it: `?`, `*` and `\` have no escape that
    /// both Android parsers read the same (Android 16 doubles a `\`, Android 15 keeps it as an
    /// escape), so each is written `?`, which matches any one character on both.
    static func androidLiteral(_ text: String) -> String {
        guard text.contains(where: { $0 == "?" || $0 == "*" || $0 == "\\" }) else { return text }
        return String(text.map { $0 == "*" || $0 == "\\" ? "?" : $0 })
    }

    /// Each value, then its composed and decomposed spellings where they differ (by Unicode scalars).
    static func unicodeSpellings(_ values: [String]) -> [String] {
        var spellings: [String] = []
        for value in values {
            if value.utf8.allSatisfy({ $0 < 0x80 }) {
                // (ASCII text is its own composed and decomposed spelling.)
                if !spellings.contains(where: { $0.unicodeScalars.elementsEqual(value.unicodeScalars) }) { spellings.append(value) }
                continue
            }
            for spelling in [value, value.precomposedStringWithCanonicalMapping, value.decomposedStringWithCanonicalMapping]
            where !spellings.contains(where: { $0.unicodeScalars.elementsEqual(spelling.unicodeScalars) }) {
                spellings.append(spelling)
            }
        }
        return spellings
    }

    /// Android 15's parser escapes a `.` to `\.` without counting it as a wildcard, so an
    /// expression with a `.` that it reads as a LITERAL (no wildcard) or a PREFIX (one trailing
    /// `*`) keeps the backslash and never matches (`/arduino.html` is the literal
    /// `/arduino\.html`). Such an expression is written with `?` for each `.`: a simple glob on
    /// both parsers, where the `.` of PatternMatcher matches any character (a platform limit
    /// `validate` names), instead of a rule that is dead on Android 15.
    static func android15SafeDots(_ expression: String) -> String {
        guard expression.contains(".") else { return expression }
        let wildcards = expression.filter { $0 == "*" || $0 == "?" }.count
        guard wildcards == 0 || (wildcards == 1 && expression.hasSuffix("*")) else { return expression }
        return String(expression.map { $0 == "." ? "?" : $0 })
    }

    /// The exclusions an entry's components put before its claims, per platform, as matchers
    /// over a path (encoded for Apple, decoded for Android); used to order entries.
    static func guardMatchers(_ entry: CompiledEntry, androidPaths paths: [AndroidPath]? = nil) -> GuardMatchers {
        var android: [AndroidPatternMatcher] = []
        var emptyLast: [Int: [UInt8]] = [:]
        for path in paths ?? androidPaths(for: entry) where path.isGuard {
            for generation in AndroidParserGeneration.allCases {
                guard let m = try? AndroidPatternMatcher.dynamicAppLinkPattern(for: path.expression, generation: generation) else { continue }
                android.append(m)
                if path.emptyLast { emptyLast[android.count - 1] = Array(path.expression.utf8) }
            }
        }
        return GuardMatchers(apple: guardGlobs(entry.pattern).map(AppleMatcher.Glob.init), android: android, emptyLastExpressions: emptyLast)
    }
}

/// A sample path of an entry, as the Apple globs read it (encoded) and as Android's matchers
/// read it (decoded, UTF-16 units).
struct SamplePath: Sendable {
    let encoded: String
    let decodedUTF16: [UInt16]

    init(_ encoded: String) {
        self.encoded = encoded
        decodedUTF16 = Array(PercentEncoding.decode(encoded).utf16)
    }
}

/// An entry's guard exclusions as matchers (``ComponentPlan/guardMatchers(_:)``).
struct GuardMatchers: Sendable {
    let apple: [AppleMatcher.Glob]
    let android: [AndroidPatternMatcher]
    /// The expressions of the Android matchers that guard an empty last value, by index.
    var emptyLastExpressions: [Int: [UInt8]] = [:]

    /// Without the empty-last-value guards whose expression is one of `claims`.
    func yielding(to claims: Set<[UInt8]>) -> GuardMatchers {
        let yielded = emptyLastExpressions.filter { claims.contains($0.value) }.keys
        guard !yielded.isEmpty else { return self }
        return GuardMatchers(apple: apple, android: android.indices.filter { !yielded.contains($0) }.map { android[$0] })
    }

    var isEmpty: Bool { apple.isEmpty && android.isEmpty }

    /// Whether one of the guards keeps `sample` out.
    func matches(_ sample: SamplePath) -> Bool {
        for i in apple.indices where apple[i].matches(sample.encoded) { return true }
        for i in android.indices where android[i].matches(units: sample.decodedUTF16) { return true }
        return false
    }
}

/// Each entry's sample paths, Android expressions and guard matchers, made once per plan (the
/// AASA and assetlinks orders of a site, each app group's, and the Android components read them).
/// Entries are named by their position in the site's `entries`.
final class PreparedEntries: Sendable {
    private struct Prepared: Sendable {
        var samples: [SamplePath]
        var androidPaths: [ComponentPlan.AndroidPath]
        /// ``PreparedEntries/guardEnds(_:androidPaths:)`` of a route (nil for an exclusion).
        var guardEnds: GuardEnds?
    }

    /// What every guard of a route starts and ends with (``PreparedEntries/guardEnds(_:androidPaths:)``).
    typealias GuardEnds = (prefix: [UInt8], tails: [[UInt8]]?)

    /// The site's entries, in config order.
    let entries: [CompiledEntry]
    /// By position in ``entries``.
    private let prepared: [Prepared]
    /// Position in ``entries`` by entry index (position in the site's `routes`).
    private let positions: [Int: Int]
    /// Each entry's ``PatternShape``, by position.
    private let shapes: [PatternShape]
    /// By position: the positions of the earlier entries that overlap it (some path matches both).
    let overlapsBefore: [[Int]]
    /// By position: for a route, the positions of the entries with a sample path its guard
    /// exclusions match (and that never match the same path as it): each must come before it.
    let blockers: [[Int]]

    init(_ entries: [CompiledEntry]) {
        self.entries = entries
        var prepared: [Prepared] = []
        prepared.reserveCapacity(entries.count)
        var positions: [Int: Int] = [:]
        positions.reserveCapacity(entries.count)
        for (k, entry) in entries.enumerated() {
            let androidPaths = ComponentPlan.androidPaths(for: entry)
            prepared.append(
                Prepared(
                    samples: RouteTable.acceptedSamplePaths(for: entry, variants: 2).map(SamplePath.init),
                    androidPaths: androidPaths,
                    guardEnds: entry.isRoute ? PreparedEntries.guardEnds(entry, androidPaths: androidPaths) : nil))
            positions[entry.index] = k
        }
        self.prepared = prepared
        self.positions = positions
        let shapes = entries.map { PatternShape($0.pattern) }
        self.shapes = shapes
        (overlapsBefore, blockers) = PreparedEntries.relations(entries, prepared: prepared, shapes: shapes)
    }

    /// Which entries of the site must precede which, in any emission order: for each entry, the
    /// earlier entries that overlap it, and for each route, the entries its guards would block.
    private static func relations(_ entries: [CompiledEntry], prepared: [Prepared], shapes: [PatternShape]) -> (overlapsBefore: [[Int]], blockers: [[Int]]) {
        let n = entries.count
        func overlap(_ a: Int, _ b: Int) -> Bool {
            shapes[a].mayOverlap(shapes[b]) && entries[a].pattern.overlaps(entries[b].pattern)
        }
        // Entries can only interact (overlap, or one's samples match the other's guard globs)
        // when their leading literal segments agree wherever both have one: a guard glob spells
        // the route's leading literals exactly, and an entry's samples spell its own. Index the
        // entries in a trie of leading literals; an entry's neighbours are the entries on its
        // node's ancestors (shorter literal prefixes, down to the root: first segment not a
        // literal) and in its node's subtree.
        var trieChildren: [[String: Int]] = [[:]]
        var trieParent: [Int] = [-1]
        var trieEntries: [[Int]] = [[]]
        var nodeOf = Array(repeating: 0, count: n)
        for i in 0..<n {
            var node = 0
            for seg in entries[i].pattern.segments {
                guard case let .literal(l) = seg else { break }
                if let next = trieChildren[node][l] {
                    node = next
                } else {
                    trieChildren.append([:])
                    trieParent.append(node)
                    trieEntries.append([])
                    trieChildren[node][l] = trieChildren.count - 1
                    node = trieChildren.count - 1
                }
            }
            trieEntries[node].append(i)
            nodeOf[i] = node
        }
        var subtreeCache: [Int: [Int]] = [:]
        func subtree(_ node: Int) -> [Int] {
            if let cached = subtreeCache[node] { return cached }
            var out = trieEntries[node]
            var stack = Array(trieChildren[node].values)
            while let m = stack.popLast() {
                out += trieEntries[m]
                stack += trieChildren[m].values
            }
            subtreeCache[node] = out
            return out
        }
        func neighbours(_ i: Int) -> [Int] {
            let node = nodeOf[i]
            var out = subtree(node)
            var up = trieParent[node]
            while up >= 0 {
                out += trieEntries[up]
                up = trieParent[up]
            }
            return out
        }
        var overlapsBefore = Array(repeating: [Int](), count: n)
        for j in 0..<n {
            for i in neighbours(j) where i < j && overlap(i, j) { overlapsBefore[j].append(i) }
        }
        var blockers = Array(repeating: [Int](), count: n)
        for r in 0..<n {
            // Every guard of `r` starts with its leading literal path and ends with a literal
            // tail: a sample that does not fit cannot match one, and most entries then need no
            // guard matchers at all.
            guard let ends = prepared[r].guardEnds else { continue }
            var runs: [[[UInt8]]]? = nil  // (made for the first entry that fits the ends)
            let others = neighbours(r).filter { y in
                guard y != r && anySample(prepared[y].samples, fits: ends) else { return false }
                if runs == nil { runs = guardRuns(entries[r], androidPaths: prepared[r].androidPaths) }
                return anySample(prepared[y].samples, holdsRunsOf: runs ?? []) && !overlap(y, r)
            }
            guard !others.isEmpty else { continue }
            let guards = ComponentPlan.guardMatchers(entries[r], androidPaths: prepared[r].androidPaths)
            guard !guards.isEmpty else { continue }
            // (An empty-last-value guard that word for word is a trailing-slash claim of `y` gives
            // way to it: `yieldEmptyValueGuards`.)
            for y in others {
                let yielded = guards.emptyLastExpressions.isEmpty ? guards : guards.yielding(to: trailingClaims(entries[y], prepared[y].androidPaths))
                if prepared[y].samples.contains(where: yielded.matches) { blockers[r].append(y) }
            }
        }
        return (overlapsBefore, blockers)
    }

    /// Bytes both platforms' matchers read literally, in encoded and decoded paths alike.
    static func isPlain(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
            || b == UInt8(ascii: "~") || b == UInt8(ascii: "@")
    }

    /// Whether the entries at positions `a` and `b` can match the same path (``PathPattern/overlaps(_:)``).
    /// (Two patterns whose first segments are different literals, or of different lengths
    /// without a rest parameter, never overlap: that is checked first, on ``PatternShape``s.)
    func overlap(_ a: Int, _ b: Int) -> Bool {
        shapes[a].mayOverlap(shapes[b]) && entries[a].pattern.overlaps(entries[b].pattern)
    }

    /// What every guard of `entry` (whose Android expressions are `androidPaths`) on both
    /// platforms starts and ends with, read literally by both: the leading literal segments of
    /// plain bytes (``isPlain(_:)``) each with its `/`, then the plain prefix of the parameter
    /// that follows (`/shop/c1/items/` for `/shop/c1/items/{id}`, `/@` for `/@{handle}`); and the
    /// plain tail of each guard (`/help` for `/*/?*/help`), nil when a guard ends in a wildcard.
    /// A sample that does not fit cannot match a guard.
    static func guardEnds(_ entry: CompiledEntry, androidPaths: [ComponentPlan.AndroidPath]) -> GuardEnds {
        var prefix: [UInt8] = [UInt8(ascii: "/")]
        for seg in entry.pattern.segments {
            if case let .param(_, p, _, _) = seg {
                prefix += p.utf8.prefix(while: PreparedEntries.isPlain)
                break
            }
            guard case let .literal(l) = seg, !l.isEmpty, l.utf8.allSatisfy(PreparedEntries.isPlain) else { break }
            prefix += l.utf8
            prefix.append(UInt8(ascii: "/"))
        }
        var tails: [[UInt8]] = []
        for guardText in ComponentPlan.guardGlobs(entry.pattern) + androidPaths.filter(\.isGuard).map(\.expression) {
            let tail = Array(guardText.utf8.reversed().prefix(while: { PreparedEntries.isPlain($0) || $0 == UInt8(ascii: "/") }).reversed())
            if tail.isEmpty { return (prefix, nil) }
            tails.append(tail)
        }
        return (prefix, tails)
    }

    /// The literal runs of each guard of `entry` (whose Android expressions are `androidPaths`),
    /// Apple's and Android's: the stretches of plain bytes (``isPlain(_:)``) and `/` between
    /// wildcards and other characters, which both platforms' matchers read literally and in
    /// order (`/s0/`, `/docs/` for `/s0/*/?*/docs/?*`). A path a guard matches holds its runs
    /// in that order.
    static func guardRuns(_ entry: CompiledEntry, androidPaths: [ComponentPlan.AndroidPath]) -> [[[UInt8]]] {
        (ComponentPlan.guardGlobs(entry.pattern) + androidPaths.filter(\.isGuard).map(\.expression)).map { text in
            var runs: [[UInt8]] = []
            var run: [UInt8] = []
            for b in text.utf8 {
                if PreparedEntries.isPlain(b) || b == UInt8(ascii: "/") {
                    run.append(b)
                } else if !run.isEmpty {
                    runs.append(run)
                    run = []
                }
            }
            if !run.isEmpty { runs.append(run) }
            return runs
        }
    }

    /// Whether one of `samples`, encoded or decoded, holds the runs of one of the guards in
    /// `guardRuns` (``guardRuns(_:androidPaths:)``), in order. (No guards: false.)
    static func anySample(_ samples: [SamplePath], holdsRunsOf guardRuns: [[[UInt8]]]) -> Bool {
        func holds<C: Collection>(_ path: C, _ runs: [[UInt8]]) -> Bool where C.Element: BinaryInteger, C.Index == Int {
            var from = path.startIndex
            for run in runs {
                guard let at = firstOccurrence(of: run, in: path, from: from) else { return false }
                from = at + run.count
            }
            return true
        }
        return samples.contains { sample in
            let encoded = Array(sample.encoded.utf8)
            return guardRuns.contains { holds(encoded, $0) || holds(sample.decodedUTF16, $0) }
        }
    }

    /// Where `run` first occurs in `path` at or after `from`.
    static func firstOccurrence<C: Collection>(of run: [UInt8], in path: C, from: Int) -> Int? where C.Element: BinaryInteger, C.Index == Int {
        guard run.count <= path.endIndex - from else { return nil }
        var i = from
        while i + run.count <= path.endIndex {
            var k = 0
            while k < run.count && path[i + k] == C.Element(run[k]) { k += 1 }
            if k == run.count { return i }
            i += 1
        }
        return nil
    }

    /// Whether one of `samples`, encoded or decoded, fits ``guardEnds(_:androidPaths:)``.
    static func anySample(_ samples: [SamplePath], fits ends: GuardEnds) -> Bool {
        guard ends.prefix.count > 1 || ends.tails != nil else { return true }
        func fits<C: BidirectionalCollection>(_ path: C) -> Bool where C.Element: BinaryInteger {
            guard path.starts(with: ends.prefix.lazy.map { C.Element($0) }) else { return false }
            guard let tails = ends.tails else { return true }
            return tails.contains { tail in path.reversed().starts(with: tail.reversed().lazy.map { C.Element($0) }) }
        }
        return samples.contains { fits($0.encoded.utf8) || fits($0.decodedUTF16) }
    }

    /// The Android trailing-slash claims of a route without a required query (what an
    /// empty-last-value guard gives way to), from its Android expressions.
    static func trailingClaims(_ entry: CompiledEntry, _ androidPaths: [ComponentPlan.AndroidPath]) -> Set<[UInt8]> {
        guard entry.isRoute, entry.requiredQuery.isEmpty else { return [] }
        return Set(androidPaths.filter { !$0.isGuard && $0.expression.hasSuffix("/") }.map { Array($0.expression.utf8) })
    }

    /// ``ComponentPlan/androidPaths(for:)`` of `entry`.
    func androidPaths(_ entry: CompiledEntry) -> [ComponentPlan.AndroidPath] {
        positions[entry.index].map { prepared[$0].androidPaths } ?? ComponentPlan.androidPaths(for: entry)
    }

    /// ``ComponentPlan/androidPaths(for:)`` of the entry at `position`.
    func androidPaths(at position: Int) -> [ComponentPlan.AndroidPath] {
        prepared[position].androidPaths
    }
}

/// What decides cheaply that two path patterns cannot overlap (``PathPattern/overlaps(_:)``
/// walks the segments side by side: different literals never match each other, and patterns
/// without a rest parameter match only paths of their own number of segments).
struct PatternShape: Sendable {
    /// The first segment, when it is a literal.
    let firstLiteral: String?
    /// The number of segments.
    let segmentCount: Int
    /// Whether a segment is a rest parameter.
    let hasRest: Bool

    init(_ pattern: PathPattern) {
        if case let .literal(l)? = pattern.segments.first { firstLiteral = l } else { firstLiteral = nil }
        segmentCount = pattern.segments.count
        hasRest = pattern.segments.contains { if case .rest = $0 { return true } else { return false } }
    }

    /// False when the two patterns cannot overlap; true when they may.
    func mayOverlap(_ other: PatternShape) -> Bool {
        if let x = firstLiteral, let y = other.firstLiteral, x != y { return false }
        if !hasRest && !other.hasRest && segmentCount != other.segmentCount { return false }
        return true
    }
}

/// A binary min-heap of indices.
struct MinHeap {
    private var items: [Int] = []

    mutating func push(_ x: Int) {
        items.append(x)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if items[parent] <= items[i] { break }
            items.swapAt(parent, i)
            i = parent
        }
    }

    mutating func pop() -> Int? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < items.count && items[l] < items[m] { m = l }
                if r < items.count && items[r] < items[m] { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }
}
