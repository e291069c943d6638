// Set relations between path patterns, used by validation (shadowed routes, exclusions that
// exclude nothing) and by the generators (which entries may be reordered).

extension PathPattern {
    /// True when some path matches both patterns.
    public func overlaps(_ other: PathPattern) -> Bool {
        compare(other, restInOther: true, segments: PathPattern.compatible)
    }

    /// True when every path that matches `other` also matches `self`.
    public func covers(_ other: PathPattern) -> Bool {
        compare(other, restInOther: false, segments: PathPattern.segmentCovers)
    }

    /// Both relations walk the segments side by side: a rest segment in `self` (checked first)
    /// holds, one in `other` gives `restInOther`; patterns of different lengths differ; otherwise
    /// every pair of segments must stand in the relation `segments`.
    private func compare(_ other: PathPattern, restInOther: Bool, segments relation: (PathSegment, PathSegment) -> Bool) -> Bool {
        let a = segments
        let b = other.segments
        var i = 0
        while true {
            if i < a.count, case .rest = a[i] { return true }
            if i < b.count, case .rest = b[i] { return restInOther }
            if i == a.count || i == b.count { return a.count == b.count }
            if !relation(a[i], b[i]) { return false }
            i += 1
        }
    }

    static func literalFits(_ literal: String, prefix: String, suffix: String, oneOf: [String]?) -> Bool {
        guard let raw = PathTrie.paramValue(Substring(literal), prefix: prefix, suffix: suffix) else { return false }
        if let oneOf { return oneOf.contains(PercentEncoding.decode(Array(raw.utf8))) }
        return true
    }

    static func compatible(_ x: PathSegment, _ y: PathSegment) -> Bool {
        switch (x, y) {
        case let (.literal(l), .literal(m)): return l == m
        case let (.literal(l), .param(_, p, s, o)), let (.param(_, p, s, o), .literal(l)):
            return literalFits(l, prefix: p, suffix: s, oneOf: o)
        case let (.param(_, p1, s1, o1), .param(_, p2, s2, o2)):
            guard p1.hasPrefix(p2) || p2.hasPrefix(p1), s1.hasSuffix(s2) || s2.hasSuffix(s1) else { return false }
            if let o1, let o2 { return !Set(o1).isDisjoint(with: o2) }
            if let o1 { return o1.contains { literalFits(p2 + PercentEncoding.encodeComponent($0) + s2, prefix: p1, suffix: s1, oneOf: nil) } }
            if let o2 { return o2.contains { literalFits(p1 + PercentEncoding.encodeComponent($0) + s1, prefix: p2, suffix: s2, oneOf: nil) } }
            return true
        default: return true
        }
    }

    /// Every segment `y` matches is matched by `x`.
    static func segmentCovers(_ x: PathSegment, _ y: PathSegment) -> Bool {
        switch (x, y) {
        case let (.literal(l), .literal(m)): return l == m
        case (.literal, .param): return false
        case let (.param(_, p, s, o), .literal(l)): return literalFits(l, prefix: p, suffix: s, oneOf: o)
        case let (.param(_, p1, s1, o1), .param(_, p2, s2, o2)):
            guard p2.hasPrefix(p1), s2.hasSuffix(s1) else { return false }
            if let o1 {
                guard let o2 else { return false }
                return o2.allSatisfy { literalFits(p2 + PercentEncoding.encodeComponent($0) + s2, prefix: p1, suffix: s1, oneOf: o1) }
            }
            return true
        default: return false
        }
    }
}
