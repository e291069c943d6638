/// A trie over path segments: literal children by exact bytes, parameter edges, and the entries
/// that end (or take the rest) at each node, in flat arrays. Lookup cost depends on the URL's
/// depth and the number of parameter branches, not on the number of routes.
struct PathTrie: Sendable {
    struct Node: Sendable {
        var literalStart: Int32 = 0, literalCount: Int32 = 0
        var paramStart: Int32 = 0, paramCount: Int32 = 0
        var terminalStart: Int32 = 0, terminalCount: Int32 = 0
        var restStart: Int32 = 0, restCount: Int32 = 0
    }

    struct ParamEdge: Sendable {
        var prefix: Range<Int32>
        var suffix: Range<Int32>
        var child: Int32
    }

    /// A pattern segment as the matcher reads it: literal text, or a parameter's prefix and
    /// suffix, as ranges of `bytes`.
    struct Shape: Sendable {
        enum Kind: UInt8, Sendable { case literal, param, rest }
        var kind: Kind
        var ascii: Bool
        var hasOneOf: Bool
        var text: Range<Int32>  // the literal, or the parameter's prefix
        var suffix: Range<Int32>
    }

    struct EntryShape: Sendable {
        var shapes: Range<Int32>
        var isRoute: Bool
        var hasQuery: Bool
    }

    private(set) var nodes: [Node] = []
    private(set) var literals = ByteTable([])
    /// Literal edges grouped by parent node (`Node.literalStart`): text and child, for the
    /// comparison of non-ASCII segments as strings.
    private(set) var literalEdges: [(text: String, child: Int32)] = []
    /// Each literal edge's bytes in `bytes`, in the order of `literalEdges`: a node with a few
    /// literal children compares them directly instead of hashing the segment.
    private(set) var literalBytes: [Range<Int32>] = []
    private(set) var paramEdges: [ParamEdge] = []
    private(set) var lists: [Int32] = []
    private(set) var bytes: [UInt8] = []
    private(set) var entryShapes: [EntryShape] = []
    private(set) var shapes: [Shape] = []
    /// No URL has more candidates than this (sizes the candidate buffer).
    private(set) var maxCandidates = 1

    init(entries: [CompiledEntry]) {
        struct Building {
            var literals: [(String, Int)] = []
            var params: [(prefix: String, suffix: String, child: Int)] = []
            var terminal: [Int] = []
            var rest: [Int] = []
        }
        var build = [Building()]
        for (e, entry) in entries.enumerated() {
            var node = 0
            for seg in entry.pattern.segments {
                switch seg {
                case let .literal(l):
                    if let next = build[node].literals.first(where: { $0.0 == l })?.1 {
                        node = next
                    } else {
                        build.append(Building())
                        build[node].literals.append((l, build.count - 1))
                        node = build.count - 1
                    }
                case let .param(_, prefix, suffix, _):
                    if let edge = build[node].params.first(where: { $0.prefix == prefix && $0.suffix == suffix }) {
                        node = edge.child
                    } else {
                        build.append(Building())
                        build[node].params.append((prefix, suffix, build.count - 1))
                        node = build.count - 1
                    }
                case .rest:
                    build[node].rest.append(e)
                    node = -1
                }
                if node < 0 { break }
            }
            if node >= 0 { build[node].terminal.append(e) }
        }
        func text(_ s: String) -> Range<Int32> {
            let start = Int32(bytes.count)
            bytes.append(contentsOf: s.utf8)
            return start..<Int32(bytes.count)
        }
        var tableItems: [(parent: Int, key: String, value: Int)] = []
        for (n, b) in build.enumerated() {
            var node = Node()
            node.literalStart = Int32(literalEdges.count)
            node.literalCount = Int32(b.literals.count)
            for (l, child) in b.literals {
                literalEdges.append((l, Int32(child)))
                literalBytes.append(text(l))
                tableItems.append((n, l, child))
            }
            node.paramStart = Int32(paramEdges.count)
            node.paramCount = Int32(b.params.count)
            for p in b.params { paramEdges.append(ParamEdge(prefix: text(p.prefix), suffix: text(p.suffix), child: Int32(p.child))) }
            node.terminalStart = Int32(lists.count)
            node.terminalCount = Int32(b.terminal.count)
            lists += b.terminal.map(Int32.init)
            node.restStart = Int32(lists.count)
            node.restCount = Int32(b.rest.count)
            lists += b.rest.map(Int32.init)
            nodes.append(node)
        }
        literals = ByteTable(tableItems)
        // An upper bound of the candidates below each node (children come after their parent):
        // its rest entries, plus its terminal entries or what one literal child and every
        // parameter child can add.
        var bound = Array(repeating: 0, count: build.count)
        for n in build.indices.reversed() {
            let b = build[n]
            let literal = b.literals.map { bound[$0.1] }.max() ?? 0
            let params = b.params.reduce(0) { $0 + bound[$1.child] }
            bound[n] = b.rest.count + max(b.terminal.count, literal + params)
        }
        maxCandidates = max(1, bound[0])
        for entry in entries {
            let start = Int32(shapes.count)
            for seg in entry.pattern.segments {
                switch seg {
                case let .literal(l):
                    shapes.append(Shape(kind: .literal, ascii: l.utf8.allSatisfy { $0 < 0x80 }, hasOneOf: false, text: text(l), suffix: 0..<0))
                case let .param(_, prefix, suffix, oneOf):
                    shapes.append(Shape(kind: .param, ascii: true, hasOneOf: oneOf != nil, text: text(prefix), suffix: text(suffix)))
                case .rest:
                    shapes.append(Shape(kind: .rest, ascii: true, hasOneOf: false, text: 0..<0, suffix: 0..<0))
                }
            }
            entryShapes.append(
                EntryShape(
                    shapes: start..<Int32(shapes.count), isRoute: entry.isRoute,
                    hasQuery: !entry.requiredQuery.isEmpty))
        }
    }

    /// The value of `segment` between `prefix` and `suffix`; nil when it does not have them or
    /// the value would be empty.
    @inline(__always)
    static func paramValue(_ segment: Bytes, prefix: Bytes, suffix: Bytes) -> Bytes? {
        guard segment.count > prefix.count + suffix.count else { return nil }
        // Byte-wise: patterns and raw URL segments are compared as sent (no Unicode equivalence).
        for i in 0..<prefix.count where segment[i] != prefix[i] { return nil }
        let tail = segment.count - suffix.count
        for i in 0..<suffix.count where segment[tail + i] != suffix[i] { return nil }
        return segment.slice(prefix.count..<tail)
    }

    static func paramValue(_ segment: Substring, prefix: String, suffix: String) -> Substring? {
        var s = String(segment), p = prefix, x = suffix
        let range: Range<Int>? = s.withUTF8 { sb in
            p.withUTF8 { pb in
                x.withUTF8 { xb in
                    paramValue(sb, prefix: pb, suffix: xb).map { v in (v.baseAddress! - sb.baseAddress!)..<(v.baseAddress! - sb.baseAddress! + v.count) }
                }
            }
        }
        guard let range else { return nil }
        let u = segment.utf8
        return segment[u.index(u.startIndex, offsetBy: range.lowerBound)..<u.index(u.startIndex, offsetBy: range.upperBound)]
    }

    /// Writes the indices of every entry whose pattern shape matches `segments` into `out`
    /// (room for ``maxCandidates``); returns how many. oneOf and query are the caller's.
    func collect(_ segments: PathSegments, into out: UnsafeMutableBufferPointer<Int>) -> Int {
        bytes.withUnsafeBufferPointer { pool in
            var count = 0
            collect(node: 0, depth: 0, segments, pool, out, &count)
            return count
        }
    }

    private func collect(
        node n: Int, depth: Int, _ segments: PathSegments, _ pool: Bytes, _ out: UnsafeMutableBufferPointer<Int>, _ count: inout Int
    ) {
        let node = nodes[n]
        for k in Int(node.restStart)..<Int(node.restStart + node.restCount) {
            out[count] = Int(lists[k])
            count += 1
        }
        if depth == segments.count {
            for k in Int(node.terminalStart)..<Int(node.terminalStart + node.terminalCount) {
                out[count] = Int(lists[k])
                count += 1
            }
            return
        }
        let seg = segments[depth]
        if node.literalCount > 0, let next = literalChild(n, node, seg, pool) {
            collect(node: next, depth: depth + 1, segments, pool, out, &count)
        }
        for k in Int(node.paramStart)..<Int(node.paramStart + node.paramCount) {
            let edge = paramEdges[k]
            let prefix = pool.slice(Int(edge.prefix.lowerBound)..<Int(edge.prefix.upperBound))
            let suffix = pool.slice(Int(edge.suffix.lowerBound)..<Int(edge.suffix.upperBound))
            if PathTrie.paramValue(seg, prefix: prefix, suffix: suffix) != nil {
                collect(node: Int(edge.child), depth: depth + 1, segments, pool, out, &count)
            }
        }
    }

    /// At most this many literal children are compared one by one rather than looked up.
    static let linearLiterals: Int32 = 4

    @inline(__always)
    private func literalChild(_ n: Int, _ node: Node, _ seg: Bytes, _ pool: Bytes) -> Int? {
        if node.literalCount <= PathTrie.linearLiterals {
            // The same answer as the table's (equal bytes), without hashing the segment.
            for k in Int(node.literalStart)..<Int(node.literalStart + node.literalCount) {
                let r = literalBytes[k]
                if Int(r.upperBound - r.lowerBound) == seg.count, seg.sameBytes(pool.slice(Int(r.lowerBound)..<Int(r.upperBound))) {
                    return Int(literalEdges[k].child)
                }
            }
        } else if let child = literals.find(parent: n, seg, lowercasing: false) {
            return child
        }
        // Equal bytes are equal strings; a non-ASCII segment may still equal a literal as a string.
        if seg.isASCII { return nil }
        let text = String(decoding: seg, as: UTF8.self)
        for k in Int(node.literalStart)..<Int(node.literalStart + node.literalCount) where literalEdges[k].text == text {
            return Int(literalEdges[k].child)
        }
        return nil
    }

    /// Whether entry `e`'s path pattern matches `segments` (literals, parameters' prefix,
    /// suffix and non-empty value, segment count); `oneOf(i, value)` decides a oneOf parameter.
    func pathMatches(_ e: Int, _ segments: PathSegments, oneOf: (Int, Bytes) -> Bool) -> Bool {
        let entry = entryShapes[e]
        return bytes.withUnsafeBufferPointer { pool in
            var i = 0
            for s in Int(entry.shapes.lowerBound)..<Int(entry.shapes.upperBound) {
                let shape = shapes[s]
                let text = pool.slice(Int(shape.text.lowerBound)..<Int(shape.text.upperBound))
                switch shape.kind {
                case .literal:
                    guard i < segments.count else { return false }
                    let seg = segments[i]
                    if !seg.sameBytes(text) {
                        if shape.ascii && seg.isASCII { return false }
                        guard String(decoding: seg, as: UTF8.self) == String(decoding: text, as: UTF8.self) else { return false }
                    }
                case .param:
                    let suffix = pool.slice(Int(shape.suffix.lowerBound)..<Int(shape.suffix.upperBound))
                    guard i < segments.count, let value = PathTrie.paramValue(segments[i], prefix: text, suffix: suffix) else { return false }
                    if shape.hasOneOf && !oneOf(i, value) { return false }
                case .rest:
                    return true
                }
                i += 1
            }
            return segments.count == i
        }
    }

    /// The candidates for a raw path (no punctuation encoding), sorted: for checks at load time.
    func candidates(forRawPath path: String) -> [Int] {
        var path = path
        return path.withUTF8 { p in
            PathSegments.with(p) { segments in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: maxCandidates) { out in
                    Array(out[0..<collect(segments, into: out)]).sorted()
                }
            }
        }
    }
}
