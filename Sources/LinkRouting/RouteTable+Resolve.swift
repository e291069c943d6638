// Resolution over the URL's bytes: the URL is split into byte ranges (no `String` per part), the
// path's segments and the trie's candidates live in stack buffers sized before the walk, hosts
// and literal segments are found in open-addressing byte tables, and parameters are decoded only
// for the route that is returned. Text is compared as `String` compares it (canonical
// equivalence) wherever bytes could disagree with that: a byte mismatch involving non-ASCII text
// falls back to the `String` comparison, so the results are those of the string-based parser.

typealias Bytes = UnsafeBufferPointer<UInt8>

extension UnsafeBufferPointer where Element == UInt8 {
    @inline(__always)
    func slice(_ r: Range<Int>) -> Bytes { Bytes(rebasing: self[r]) }

    @inline(__always)
    var isASCII: Bool {
        for b in self where b >= 0x80 { return false }
        return true
    }

    @inline(__always)
    func sameBytes(_ other: Bytes) -> Bool {
        guard count == other.count else { return false }
        for i in 0..<count where self[i] != other[i] { return false }
        return true
    }

    @inline(__always)
    func firstIndex(of b: UInt8, in r: Range<Int>) -> Int? {
        guard let p = baseAddress else { return nil }
        var i = r.lowerBound
        while i < r.upperBound {
            if p[i] == b { return i }
            i &+= 1
        }
        return nil
    }

    @inline(__always)
    func lastIndex(of b: UInt8, in r: Range<Int>) -> Int? {
        guard let p = baseAddress else { return nil }
        var i = r.upperBound
        while i > r.lowerBound {
            i &-= 1
            if p[i] == b { return i }
        }
        return nil
    }
}

enum ByteText {
    /// Whether `bytes` and `text` are equal as Swift compares strings: equal bytes are, ASCII
    /// texts with different bytes are not, anything else is compared as `String`s.
    static func equals(_ bytes: Bytes, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { t in
            if bytes.sameBytes(t) { return true }
            if bytes.isASCII && t.isASCII { return false }
            return String(decoding: bytes, as: UTF8.self) == String(decoding: t, as: UTF8.self)
        }
    }

    /// ASCII letters lower-cased, as `String.lowercased()` does for ASCII text.
    static func lowercasedString(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            for i in 0..<bytes.count { out[i] = asciiLower(bytes[i]) }
            return bytes.count
        }
    }

    @inline(__always)
    static func asciiLower(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }

    /// Whether `bytes`, ASCII letters lower-cased, are `lower` (an ASCII lower-case literal).
    @inline(__always)
    static func equalsLowercased(_ bytes: Bytes, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let l = lower.utf8Start
        for i in 0..<bytes.count where asciiLower(bytes[i]) != l[i] { return false }
        return true
    }
}

/// The parts of an absolute URL as byte ranges of its text (browser-normalised already), by the
/// rules of ``URLParts/init(_:)``, which is built on it.
struct RawURL {
    var scheme: Range<Int>
    /// Without user info, port and one trailing dot; empty without an authority.
    var host: Range<Int>
    var port: Int?
    var path: Range<Int>
    var query: Range<Int>?
    var fragment: Range<Int>?

    init?(_ b: Bytes) {
        guard let colon = b.firstIndex(of: UInt8(ascii: ":"), in: 0..<b.count), colon > 0 else { return nil }
        guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b[0] | 0x20) else { return nil }
        for i in 0..<colon {
            let c = b[i]
            let l = c | 0x20
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(l) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            else { return nil }
        }
        scheme = 0..<colon
        // Fragment first, then query: '#' ends everything; the first '?' before it starts the query.
        var hash = b.count
        var q = -1
        if let p = b.baseAddress {
            var i = colon + 1
            while i < b.count {
                let c = p[i]
                if c == UInt8(ascii: "#") {
                    hash = i
                    break
                }
                if c == UInt8(ascii: "?") && q < 0 { q = i }
                i &+= 1
            }
        }
        fragment = hash < b.count ? (hash + 1)..<b.count : nil
        query = q >= 0 ? (q + 1)..<hash : nil
        var rest = (colon + 1)..<(q >= 0 ? q : hash)
        port = nil
        let slash = UInt8(ascii: "/")
        guard rest.count >= 2, b[rest.lowerBound] == slash, b[rest.lowerBound + 1] == slash else {
            host = rest.lowerBound..<rest.lowerBound
            path = rest
            return
        }
        rest = (rest.lowerBound + 2)..<rest.upperBound
        let pathStart = b.firstIndex(of: slash, in: rest) ?? rest.upperBound
        var authority = rest.lowerBound..<pathStart
        if let at = b.lastIndex(of: UInt8(ascii: "@"), in: authority) { authority = (at + 1)..<authority.upperBound }
        var hostRange = authority
        if !authority.isEmpty, b[authority.lowerBound] == UInt8(ascii: "[") {
            // IPv6 literal
            guard let close = b.firstIndex(of: UInt8(ascii: "]"), in: authority) else { return nil }
            hostRange = authority.lowerBound..<(close + 1)
            if close + 1 < authority.upperBound, b[close + 1] == UInt8(ascii: ":") {
                port = Int(String(decoding: b.slice((close + 2)..<authority.upperBound), as: UTF8.self))
            }
        } else if let c = b.lastIndex(of: UInt8(ascii: ":"), in: authority) {
            hostRange = authority.lowerBound..<c
            if c + 1 < authority.upperBound {
                guard let p = Int(String(decoding: b.slice((c + 1)..<authority.upperBound), as: UTF8.self)), (0...65535).contains(p)
                else { return nil }
                port = p
            }
        }
        if !hostRange.isEmpty, b[hostRange.upperBound - 1] == UInt8(ascii: ".") { hostRange = hostRange.lowerBound..<(hostRange.upperBound - 1) }
        host = hostRange
        path = pathStart..<rest.upperBound
    }
}

/// An open-addressing table from (parent, byte string) to a value, for hosts and the trie's
/// literal edges. Lookups hash and compare bytes, no `String` is made; a slot holds the key's
/// hash, length and first 8 bytes, so most lookups read one slot and nothing else.
struct ByteTable: Sendable {
    private struct Slot: Sendable {
        var length: Int32 = -1  // -1: empty
        var hash: UInt32 = 0
        var parent: Int32 = 0
        var value: Int32 = 0
        var head: UInt64 = 0  // the first 8 bytes, little-endian, zero-padded
        var start: Int32 = 0  // the key's bytes in `pool`
    }

    private var pool: [UInt8] = []
    private var slots: [Slot] = []
    private var mask = 0

    init(_ items: [(parent: Int, key: String, value: Int)]) {
        var capacity = 8
        while capacity < items.count * 2 { capacity *= 2 }
        slots = Array(repeating: Slot(), count: capacity)
        mask = capacity - 1
        for item in items {
            let start = pool.count
            pool.append(contentsOf: item.key.utf8)
            let (hash, head) = pool.withUnsafeBufferPointer { p in ByteTable.hash(parent: item.parent, p.slice(start..<p.count), lowercasing: false) }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].length >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Slot(
                length: Int32(pool.count - start), hash: UInt32(truncatingIfNeeded: hash), parent: Int32(item.parent), value: Int32(item.value),
                head: head, start: Int32(start))
        }
    }

    /// FNV-1a over the bytes (seeded with the parent), and the first 8 bytes.
    @inline(__always)
    private static func hash(parent: Int, _ key: Bytes, lowercasing: Bool) -> (UInt64, UInt64) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (UInt64(truncatingIfNeeded: parent) &* 0x9E37_79B9_7F4A_7C15)
        var head: UInt64 = 0
        for i in 0..<key.count {
            let b = lowercasing ? ByteText.asciiLower(key[i]) : key[i]
            if i < 8 { head |= UInt64(b) << (8 * UInt64(i)) }
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3
        }
        return (h ^ (h >> 29), head)
    }

    /// The value of the key whose bytes are `key` (ASCII letters lower-cased first when
    /// `lowercasing`) under `parent`; nil when there is none.
    func find(parent: Int, _ key: Bytes, lowercasing: Bool) -> Int? {
        let (hash, head) = ByteTable.hash(parent: parent, key, lowercasing: lowercasing)
        let hash32 = UInt32(truncatingIfNeeded: hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let s = slots[slot]
            if s.length < 0 { return nil }
            if s.hash == hash32, s.head == head, Int(s.length) == key.count, Int(s.parent) == parent {
                if key.count <= 8 { return Int(s.value) }
                let same = pool.withUnsafeBufferPointer { pool in
                    let start = Int(s.start)
                    for i in 8..<key.count where (lowercasing ? ByteText.asciiLower(key[i]) : key[i]) != pool[start + i] { return false }
                    return true
                }
                if same { return Int(s.value) }
            }
            slot = (slot + 1) & mask
        }
    }
}

/// A raw path's segments: byte ranges in stack memory. `""` and `"/"` have none; one leading and
/// one trailing slash are insignificant (as in AASA), so `/post/1/` is `post`, `1`.
struct PathSegments {
    let path: Bytes
    let bounds: UnsafeMutableBufferPointer<Int>  // start, end of each segment
    let count: Int

    /// Splits `path` into `bounds` (room for `2 × (slashes + 1)` values).
    init(_ path: Bytes, into bounds: UnsafeMutableBufferPointer<Int>) {
        self.path = path
        self.bounds = bounds
        let slash = UInt8(ascii: "/")
        var start = 0
        var end = path.count
        if start < end, path[start] == slash { start += 1 }
        if start < end, path[end - 1] == slash { end -= 1 }
        guard start < end else {
            count = 0
            return
        }
        var n = 0
        var segStart = start
        for i in start..<end where path[i] == slash {
            bounds[2 * n] = segStart
            bounds[2 * n + 1] = i
            n += 1
            segStart = i + 1
        }
        bounds[2 * n] = segStart
        bounds[2 * n + 1] = end
        count = n + 1
    }

    /// The number of `Int`s `init(_:into:)` needs for `path`.
    static func boundsCapacity(_ path: Bytes) -> Int {
        var slashes = 0
        for b in path where b == UInt8(ascii: "/") { slashes += 1 }
        return 2 * (slashes + 1)
    }

    @inline(__always)
    subscript(i: Int) -> Bytes { path.slice(bounds[2 * i]..<bounds[2 * i + 1]) }

    /// Segments `i…` with their slashes; empty when there are none.
    func tail(from i: Int) -> Bytes {
        i < count ? path.slice(bounds[2 * i]..<bounds[2 * count - 1]) : path.slice(0..<0)
    }

    /// Calls `body` with the segments of `path`.
    static func with<R>(_ path: Bytes, _ body: (PathSegments) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: boundsCapacity(path)) { body(PathSegments(path, into: $0)) }
    }
}

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
        if node.literalCount > 0, let next = literalChild(n, node, seg) {
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

    @inline(__always)
    private func literalChild(_ n: Int, _ node: Node, _ seg: Bytes) -> Int? {
        if let child = literals.find(parent: n, seg, lowercasing: false) { return child }
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

/// One `&`-separated query item as byte ranges: by the rules of ``RawQueryItem/split(_:)``.
enum QueryBytes {
    /// Calls `body` with each item's name and value (nil without `=`) until it returns false.
    static func forEach(_ query: Bytes, _ body: (Bytes, Bytes?) -> Bool) {
        guard query.isASCII else {
            // `split` cuts at Characters; in ASCII text every '&' and '=' is one, elsewhere ask it.
            let text = String(decoding: query, as: UTF8.self)
            let u = text.utf8
            func offset(_ i: String.Index) -> Int { u.distance(from: u.startIndex, to: i) }
            for item in RawQueryItem.split(text) {
                let name = query.slice(offset(item.name.startIndex)..<offset(item.name.endIndex))
                let value = item.value.map { query.slice(offset($0.startIndex)..<offset($0.endIndex)) }
                if !body(name, value) { return }
            }
            return
        }
        var start = 0
        while start <= query.count {
            let end = query.firstIndex(of: UInt8(ascii: "&"), in: start..<query.count) ?? query.count
            if end > start {
                if let eq = query.firstIndex(of: UInt8(ascii: "="), in: start..<end) {
                    if !body(query.slice(start..<eq), query.slice((eq + 1)..<end)) { return }
                } else if !body(query.slice(start..<end), nil) {
                    return
                }
            }
            start = end + 1
        }
    }

    /// ``RawQueryItem/hasName(_:)`` on bytes.
    @inline(__always)
    static func hasName(_ item: Bytes, _ name: String) -> Bool {
        if ByteText.equals(item, name) { return true }
        guard item.contains(UInt8(ascii: "%")) else { return false }
        return PercentEncoding.decode(item) == name
    }
}

extension RouteTable {
    /// ``resolve(_:)`` on the URL's bytes, browser-normalised.
    func resolve(normalized b: Bytes, original url: String) -> LinkResolution {
        guard let u = RawURL(b) else { return .unsupported("'\(url)' is not an absolute URL") }
        let scheme = b.slice(u.scheme)
        if ByteText.equalsLowercased(scheme, "https") || ByteText.equalsLowercased(scheme, "http") {
            let host = b.slice(u.host)
            let s: Int
            if let i = hostTable.find(parent: 0, host, lowercasing: true) {
                s = i
            } else {
                let h = ByteText.lowercasedString(host)
                guard let site = site(forHost: h, fallbackToDefault: false) else { return .unknownHost(h) }
                s = site.index
            }
            return resolvers[s].resolve(path: b.slice(u.path), query: u.query.map(b.slice), fragment: u.fragment.map(b.slice), restrictTo: nil)
        }
        let schemeText = ByteText.lowercasedString(scheme)
        guard let s = schemeIndex[schemeText] else {
            return .unsupported("'\(schemeText)' is neither https nor a custom scheme of any configured app")
        }
        let site = sites[s]
        var path = RouteTable.customSchemePath(url: url, scheme: schemeText, site: site)
        let apps = site.schemes[schemeText] ?? ([], [])
        return path.withUTF8 { p in
            site.resolver.resolve(path: p, query: u.query.map(b.slice), fragment: u.fragment.map(b.slice), restrictTo: apps)
        }
    }
}

/// A site's entries, trie and apps: all that resolution reads.
final class SiteResolver: Sendable {
    let name: String
    let entries: [CompiledEntry]
    let trie: PathTrie
    /// App IDs of the site's iOS apps, package names of its Android apps.
    let iosApps: [String]
    let androidApps: [String]
    /// Per entry, what deciding and answering need from its config.
    let facts: [Facts]

    struct Facts: Sendable {
        /// The route's name, or the exclusion's `exclude` pattern.
        var name: String
        /// The route's fragment parameter, or the fragment an exclusion is limited to.
        var fragment: String?
    }

    init(name: String, entries: [CompiledEntry], iosApps: [String], androidApps: [String]) {
        self.name = name
        self.entries = entries
        self.facts = entries.map { entry in
            switch entry.kind {
            case let .route(r): return Facts(name: r.name, fragment: r.fragment)
            case let .exclusion(e): return Facts(name: e.exclude, fragment: e.fragment)
            }
        }
        self.trie = PathTrie(entries: entries)
        self.iosApps = iosApps
        self.androidApps = androidApps
    }

    /// Resolves a raw path (still encoded) with its query and fragment on this site.
    func resolve(path rawPath: Bytes, query: Bytes?, fragment: Bytes?, restrictTo apps: (ios: [String], android: [String])?) -> LinkResolution {
        if rawPath.contains(where: PercentEncoding.isRawPathPunctuation) {
            let encoded = PercentEncoding.rawPunctuationEncoded(rawPath)
            return encoded.withUnsafeBufferPointer { resolve(path: $0, query: query, fragment: fragment, restrictTo: apps) }
        }
        return PathSegments.with(rawPath) { segments in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: trie.maxCandidates) { buffer in
                let n = trie.collect(segments, into: buffer)
                if n == 0 { return .noRoute(site: name) }
                let candidates = UnsafeMutableBufferPointer(rebasing: buffer[0..<n])
                if n > 1 {
                    // Insertion sort: a handful of candidates.
                    for i in 1..<n {
                        let x = candidates[i]
                        var j = i
                        while j > 0 && candidates[j - 1] > x {
                            candidates[j] = candidates[j - 1]
                            j -= 1
                        }
                        candidates[j] = x
                    }
                }
                return decide(UnsafeBufferPointer(candidates), segments, query: query, fragment: fragment, restrictTo: apps)
            }
        }
    }

    /// The first candidate (in priority order) that decides: an exclusion that leaves no app, or
    /// a route whose path, oneOf values and required query match.
    private func decide(
        _ candidates: UnsafeBufferPointer<Int>, _ segments: PathSegments, query: Bytes?, fragment: Bytes?,
        restrictTo apps: (ios: [String], android: [String])?
    ) -> LinkResolution {
        var excludedIOS: [String] = []
        var excludedAndroid: [String] = []
        for c in candidates {
            let shape = trie.entryShapes[c]
            if !shape.isRoute {
                if let f = facts[c].fragment {
                    guard let fragment, ByteText.equals(fragment, f) else { continue }
                }
                for id in entries[c].iosAppIDs where !excludedIOS.contains(id) { excludedIOS.append(id) }
                for p in entries[c].androidPackages where !excludedAndroid.contains(p) { excludedAndroid.append(p) }
                let iosLeft = apps.map { $0.ios.contains { !excludedIOS.contains($0) } } ?? iosApps.contains { !excludedIOS.contains($0) }
                let androidLeft =
                    apps.map { $0.android.contains { !excludedAndroid.contains($0) } } ?? androidApps.contains { !excludedAndroid.contains($0) }
                if !iosLeft && !androidLeft {
                    return .excluded(site: name, entryIndex: entries[c].index, pattern: facts[c].name)
                }
                continue
            }
            let pathOK = trie.pathMatches(c, segments) { i, value in
                guard case let .param(_, _, _, oneOf?) = entries[c].pattern.segments[i] else { return true }
                let decoded = PercentEncoding.decode(value)
                return oneOf.contains { $0 == decoded }
            }
            guard pathOK else { continue }
            if shape.hasQuery {
                guard let query, SiteResolver.hasRequired(entries[c].requiredQuery, in: query) else { continue }
            }
            var ios = entries[c].iosAppIDs
            var android = entries[c].androidPackages
            if !excludedIOS.isEmpty || !excludedAndroid.isEmpty {
                ios = ios.filter { !excludedIOS.contains($0) }
                android = android.filter { !excludedAndroid.contains($0) }
            }
            if let apps {
                ios = ios.filter(apps.ios.contains)
                android = android.filter(apps.android.contains)
            }
            if ios.isEmpty && android.isEmpty {
                if !excludedIOS.isEmpty || !excludedAndroid.isEmpty {
                    return .excluded(site: name, entryIndex: entries[c].index, pattern: entries[c].pattern.source)
                }
                continue
            }
            return .matched(
                LinkMatch(
                    site: name, route: facts[c].name, parameters: parameters(c, segments, query: query, fragment: fragment),
                    iosAppIDs: ios, androidPackages: android, entryIndex: entries[c].index))
        }
        return .noRoute(site: name)
    }

    /// Every required name is present, and every item of that name has a non-empty value.
    private static func hasRequired(_ names: [String], in query: Bytes) -> Bool {
        for name in names {
            var found = false
            var ok = true
            QueryBytes.forEach(query) { itemName, value in
                guard QueryBytes.hasName(itemName, name) else { return true }
                guard let value, !value.isEmpty else {
                    ok = false
                    return false
                }
                found = true
                return true
            }
            if !ok || !found { return false }
        }
        return true
    }

    /// The first item named `name`: whether there is one, and its value (nil without `=`).
    private static func firstItem(_ name: String, in query: Bytes) -> (found: Bool, value: Bytes?) {
        var found = false
        var value: Bytes? = nil
        QueryBytes.forEach(query) { itemName, itemValue in
            guard QueryBytes.hasName(itemName, name) else { return true }
            found = true
            value = itemValue
            return false
        }
        return (found, value)
    }

    /// The decoded parameters of the route that matched (path, then query, then fragment).
    private func parameters(_ c: Int, _ segments: PathSegments, query: Bytes?, fragment: Bytes?) -> [String: String] {
        var params: [String: String] = [:]
        for (i, seg) in entries[c].pattern.segments.enumerated() {
            switch seg {
            case .literal:
                continue
            case let .param(name, prefix, suffix, oneOf):
                let s = segments[i]
                var value = PercentEncoding.decode(s.slice(prefix.utf8.count..<(s.count - suffix.utf8.count)))
                // Strings compare by canonical equivalence: report the config's spelling of the
                // value (as the generated routers' enums do), not the link's.
                if let oneOf, let listed = oneOf.first(where: { $0 == value }) { value = listed }
                params[name] = value
            case let .rest(name):
                if name != "*" { params[name] = PercentEncoding.decode(segments.tail(from: i)) }
            }
        }
        if let query {
            for name in entries[c].requiredQuery {
                let item = SiteResolver.firstItem(name, in: query)
                if let value = item.value { params[name] = PercentEncoding.decode(value) }
            }
            for name in entries[c].optionalQuery {
                let item = SiteResolver.firstItem(name, in: query)
                if item.found { params[name] = item.value.map { PercentEncoding.decode($0) } ?? "" }
            }
        }
        if let f = facts[c].fragment, let fragment { params[f] = PercentEncoding.decode(fragment) }
        return params
    }
}
