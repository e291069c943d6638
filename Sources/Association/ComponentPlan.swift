// From compiled routes to platform components. Both generators read this plan, so the AASA
// components and Android's dynamic-app-link components come from one derivation.
//
// A route parameter is one non-empty path segment, but both platforms' wildcards can cross
// `/`. The plan therefore puts, before each claim, the exclusions that keep deeper paths out
// (`/post/*/?*` before `/post/?*`), and orders entries so those exclusions never block another
// route. The invariant check (InvariantCheck.swift) proves the result with the matchers.

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

    public static func == (a: PlannedComponent, b: PlannedComponent) -> Bool {
        a.path == b.path && a.query.elementsEqual(b.query, by: ==) && a.fragment == b.fragment && a.exclude == b.exclude
            && a.comment == b.comment && a.entryIndex == b.entryIndex
    }

    public func json(includeComment: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("/", .string(path))]
        if !query.isEmpty { members.append(("?", .object(query.map { (key: $0.0, value: JSONValue.string($0.1)) }))) }
        if let fragment { members.append(("#", .string(fragment))) }
        if exclude { members.append(("exclude", .bool(true))) }
        if includeComment, let comment { members.append(("comment", .string(comment))) }
        return .object(members)
    }
}

public enum Platform: String, Sendable, CaseIterable {
    case apple, android
}

public struct ComponentPlan: Sendable {
    /// Substitution variables the Apple patterns use (name → encoded values), sorted by name.
    public var substitutionVariables: [(String, [String])]

    let site: CompiledSite
    let variableNames: [String: String]  // "entryIndex/param" → variable name

    public init(site: CompiledSite) {
        GenerationCounter.record(.componentPlan, site: site)
        self.site = site
        var names: [String: String] = [:]
        var vars: [(String, [String])] = []
        for entry in site.entries {
            for seg in entry.pattern.segments {
                guard case let .param(name, _, _, oneOf?) = seg else { continue }
                let encoded = oneOf.map(PercentEncoding.encodeComponent)
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
        let entries = site.entries.filter(includes)
        return ComponentPlan.emissionOrder(entries)
    }

    /// Components for one app on one platform.
    public func components(for platform: Platform, appliesTo includes: (CompiledEntry) -> Bool) -> [PlannedComponent] {
        orderedEntries(appliesTo: includes).flatMap { components(for: $0, platform: platform) }
    }

    /// A stable topological order: config order, except that an entry whose URLs a route's
    /// guard exclusions would block moves ahead of that route when the two never match the same URL.
    static func emissionOrder(_ entries: [CompiledEntry]) -> [CompiledEntry] {
        let n = entries.count
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
        for (i, e) in entries.enumerated() {
            var node = 0
            for seg in e.pattern.segments {
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
            for i in neighbours(j) where i < j && entries[i].pattern.overlaps(entries[j].pattern) { edge(i, j) }
        }
        var samples: [[String]?] = Array(repeating: nil, count: n)
        for r in 0..<n where entries[r].isRoute {
            let guards = guardGlobs(entries[r].pattern).map(AppleMatcher.Glob.init)
            guard !guards.isEmpty else { continue }
            for y in neighbours(r) where y != r && !entries[y].pattern.overlaps(entries[r].pattern) {
                if samples[y] == nil { samples[y] = RouteTable.samplePaths(for: entries[y], variants: 2).accepted }
                if samples[y]!.contains(where: { s in guards.contains { $0.matches(s) } }) {
                    edge(y, r)
                }
            }
        }
        // Kahn's algorithm, always taking the earliest ready entry; a cycle falls back to
        // config order (the invariant check then reports what differs).
        var ready = MinHeap()
        for i in 0..<n where indegree[i] == 0 { ready.push(i) }
        var emitted = Array(repeating: false, count: n)
        var order: [CompiledEntry] = []
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
            order.append(entries[i])
            for j in after[i] {
                indegree[j] -= 1
                if indegree[j] == 0 && !emitted[j] { ready.push(j) }
            }
        }
        return order
    }

    /// The Apple guard exclusions of a pattern: for each single-segment parameter, the same
    /// pattern with that parameter spanning two or more segments.
    static func guardGlobs(_ pattern: PathPattern) -> [String] {
        var globs: [String] = []
        for (i, seg) in pattern.segments.enumerated() {
            guard case .param = seg else { continue }
            var parts = pattern.segments.map { appleGlobPiece($0, variable: nil) }
            if case let .param(_, prefix, suffix, _) = seg { parts[i] = "\(prefix)*/?*\(suffix)" }
            globs.append("/" + parts.joined(separator: "/"))
        }
        return globs
    }

    static func appleGlobPiece(_ seg: PathSegment, variable: String?) -> String {
        switch seg {
        case let .literal(l): return l
        case let .param(_, prefix, suffix, _): return prefix + (variable.map { "$(\($0))" } ?? "?*") + suffix
        case .rest: return "*"
        }
    }

    static func androidPiece(_ seg: PathSegment, value: String? = nil) -> String {
        switch seg {
        case let .literal(l): return PercentEncoding.decode(l)
        case let .param(_, prefix, suffix, _):
            return PercentEncoding.decode(prefix) + (value ?? "?*") + PercentEncoding.decode(suffix)
        case .rest: return "*"
        }
    }

    /// The components one entry contributes, guards first.
    public func components(for entry: CompiledEntry, platform: Platform) -> [PlannedComponent] {
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
            var out: [PlannedComponent] = []
            if !exclude {
                for g in ComponentPlan.guardGlobs(entry.pattern) {
                    var c = make(g, exclude: true, comment: "keeps '\(entry.pattern.source)' to one segment per parameter")
                    c.query = []
                    out.append(c)
                }
            }
            let parts = segs.map { seg -> String in
                if case let .param(name, _, _, oneOf) = seg, oneOf != nil {
                    return ComponentPlan.appleGlobPiece(seg, variable: variableNames["\(entry.index)/\(name)"])
                }
                return ComponentPlan.appleGlobPiece(seg, variable: nil)
            }
            out.append(make("/" + parts.joined(separator: "/"), exclude: exclude, comment: comment))
            return out
        case .android:
            // Android has no substitution variables: one component per listed value.
            var paths: [[String]] = [[]]
            for seg in segs {
                if case let .param(_, _, _, oneOf?) = seg {
                    paths = paths.flatMap { p in oneOf.map { p + [ComponentPlan.androidPiece(seg, value: $0)] } }
                } else {
                    paths = paths.map { $0 + [ComponentPlan.androidPiece(seg)] }
                }
            }
            var out: [PlannedComponent] = []
            for p in paths {
                let path = "/" + p.joined(separator: "/")
                if entry.pattern.hasRest {
                    // `/files/*` does not match `/files` on Android; Apple's does.
                    let parent = "/" + p.dropLast().joined(separator: "/")
                    out.append(make(parent, exclude: exclude, comment: comment))
                    out.append(make(path, exclude: exclude, comment: comment))
                    continue
                }
                // A free parameter last (a `oneOf` one is spelled out, so it needs no guard).
                let lastIsParam: Bool
                if case .param(_, _, _, nil) = segs.last { lastIsParam = true } else { lastIsParam = false }
                if path != "/" {
                    // A trailing slash is insignificant to the parser (and to iOS), not to Android.
                    out.append(make(path + "/", exclude: exclude, comment: comment))
                }
                if lastIsParam && !exclude {
                    // `?*` at the end would take deeper paths too.
                    var guardPath = p
                    guardPath[guardPath.count - 1] = ComponentPlan.androidPiece(segs.last!, value: "*")
                    var c = make("/" + guardPath.joined(separator: "/") + "/*", exclude: true, comment: "keeps '\(entry.pattern.source)' to one segment per parameter")
                    c.query = []
                    out.append(c)
                }
                out.append(make(path, exclude: exclude, comment: comment))
            }
            return out
        }
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
