// Text compiled once from a function of a few string inputs ("slots"): the literal bytes between
// the slots, and for each place a slot lands, how its characters come out there (HTML-escaped,
// percent-encoded once or twice, as is). Writing it for real inputs appends bytes and escapes
// only the inputs — no context, no template walk, no link building.
//
// How it is learned: the function runs once with each slot set to a probe string made of marker
// tokens (ASCII letters and digits, which every escaper in this module leaves alone) around each
// probe character, and the output is read back between the markers. Then it runs again with
// awkward real-looking inputs and the compiled text must give the same bytes; if not (the
// function is not character-wise for this case), there is no compiled text and the caller renders
// the slow way. An input with a byte whose mapping was not learned is refused at write time the
// same way (`write` returns false).

/// How one slot's characters come out at one place of a compiled text. A class: a page writes
/// through the same few escapers at many places, each use a reference rather than a copy of
/// its tables.
public final class SlotEscaper: Sendable, Equatable {
    /// The outputs of the learned ASCII bytes, back to back: byte `b`'s is
    /// `outputs[starts[b] ..< starts[b + 1]]`.
    let outputs: [UInt8]
    let starts: [UInt16]
    /// Bit `b` (of `learnedLow` for 0–63, `learnedHigh` for 64–127): byte `b` was learned; an
    /// input with another byte is rendered the slow way.
    let learnedLow: UInt64
    let learnedHigh: UInt64
    /// Non-ASCII bytes: nil = not learned; `[]` = copied as is; else percent-encoded once per
    /// byte with this prefix (`%` or `%25`: encoded twice) and upper-case hex digits.
    let nonASCII: [UInt8]?
    /// Bit `b`: byte `b` comes out as itself (runs of those are copied in one go).
    let identityLow: UInt64
    let identityHigh: UInt64
    /// Every byte comes out as itself (a QR code's SVG): the value is copied whole.
    let isIdentity: Bool

    static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    public static func == (a: SlotEscaper, b: SlotEscaper) -> Bool {
        a === b || (a.outputs == b.outputs && a.starts == b.starts && a.learnedLow == b.learnedLow && a.learnedHigh == b.learnedHigh
            && a.nonASCII == b.nonASCII && a.identityLow == b.identityLow && a.identityHigh == b.identityHigh && a.isIdentity == b.isIdentity)
    }

    init?(ascii: [[UInt8]?], nonASCII: [UInt8]?) {
        var outputs: [UInt8] = []
        var starts: [UInt16] = []
        var low: UInt64 = 0
        var high: UInt64 = 0
        var sameLow: UInt64 = 0
        var sameHigh: UInt64 = 0
        for b in 0..<128 {
            starts.append(UInt16(outputs.count))
            guard let out = ascii[b] else { continue }
            outputs += out
            if b < 64 { low |= 1 << UInt64(b) } else { high |= 1 << UInt64(b - 64) }
            if out == [UInt8(b)] {
                if b < 64 { sameLow |= 1 << UInt64(b) } else { sameHigh |= 1 << UInt64(b - 64) }
            }
        }
        self.identityLow = sameLow
        self.identityHigh = sameHigh
        self.isIdentity = sameLow == .max && sameHigh == .max && nonASCII == []
        starts.append(UInt16(outputs.count))
        guard outputs.count < Int(UInt16.max) else { return nil }
        self.outputs = outputs
        self.starts = starts
        self.learnedLow = low
        self.learnedHigh = high
        self.nonASCII = nonASCII
    }

    /// Appends `value` escaped; false (nothing meaningful written) when it has an unlearned byte.
    @inline(__always)
    func append(_ value: Substring, to out: inout [UInt8]) -> Bool {
        // `withUTF8` lends the substring's own bytes (a bridged one is made native first).
        var value = value
        if isIdentity {
            value.withUTF8 { out.append(contentsOf: $0) }
            return true
        }
        return value.withUTF8 { append($0, to: &out) }
    }

    func append(_ value: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        outputs.withUnsafeBufferPointer { outputs in
            starts.withUnsafeBufferPointer { starts in
                var run = 0
                var i = 0
                let n = value.count
                while i < n {
                    let b = value[i]
                    if b < 0x80 {
                        let bit: UInt64 = 1 << UInt64(b & 63)
                        let same = b < 64 ? identityLow & bit : identityHigh & bit
                        if same != 0 {
                            i += 1
                            continue
                        }
                        let learned = b < 64 ? learnedLow & bit : learnedHigh & bit
                        guard learned != 0 else { return false }
                        if run < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: value[run..<i])) }
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: outputs[Int(starts[Int(b)])..<Int(starts[Int(b) + 1])]))
                    } else {
                        guard let prefix = nonASCII else { return false }
                        if prefix.isEmpty {
                            i += 1
                            continue
                        }
                        if run < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: value[run..<i])) }
                        out.append(contentsOf: prefix)
                        out.append(Self.hex[Int(b >> 4)])
                        out.append(Self.hex[Int(b & 0x0F)])
                    }
                    i += 1
                    run = i
                }
                if run < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: value[run..<n])) }
                return true
            }
        }
    }
}

/// Literal bytes and slots, in output order.
public struct CompiledText: Sendable, Equatable {
    public enum Segment: Sendable, Equatable {
        case bytes([UInt8])
        case slot(Int, SlotEscaper)
    }

    /// Literal bytes, then a slot (or none, at the end): plain integers into `literal` and
    /// `escapers`, so writing copies bytes without touching reference counts.
    struct Piece: Sendable, Equatable {
        var start: Int32
        var end: Int32
        /// -1: no slot after the literal.
        var slot: Int32
        var escaper: Int32
    }

    let literal: [UInt8]
    let pieces: [Piece]
    let escapers: [SlotEscaper]
    public let slotCount: Int
    /// Bytes of the literal segments (a size hint for the output buffer).
    public var literalBytes: Int { literal.count }

    init(segments: [Segment], slotCount: Int) {
        var literal: [UInt8] = []
        var pieces: [Piece] = []
        var escapers: [SlotEscaper] = []
        var start = 0
        for s in segments {
            switch s {
            case let .bytes(b):
                literal += b
            case let .slot(i, escaper):
                let index = escapers.firstIndex(of: escaper) ?? { escapers.append(escaper); return escapers.count - 1 }()
                pieces.append(Piece(start: Int32(start), end: Int32(literal.count), slot: Int32(i), escaper: Int32(index)))
                start = literal.count
            }
        }
        if start < literal.count || pieces.isEmpty {
            pieces.append(Piece(start: Int32(start), end: Int32(literal.count), slot: -1, escaper: -1))
        }
        self.literal = literal
        self.pieces = pieces
        self.escapers = escapers
        self.slotCount = slotCount
    }

    /// The literal bytes and slots in output order.
    public var segments: [Segment] {
        var out: [Segment] = []
        for p in pieces {
            if p.end > p.start { out.append(.bytes(Array(literal[Int(p.start)..<Int(p.end)]))) }
            if p.slot >= 0 { out.append(.slot(Int(p.slot), escapers[Int(p.escaper)])) }
        }
        return out
    }

    /// True when no slot appears (the bytes are the same for every input).
    public var isConstant: Bool { !pieces.contains { $0.slot >= 0 } }

    /// Which slots appear at least once.
    public var usedSlots: Set<Int> {
        Set(pieces.compactMap { $0.slot >= 0 ? Int($0.slot) : nil })
    }

    /// Appends the text for `values` (one per slot); false when an input has a byte whose
    /// mapping was not learned (render the slow way then).
    public func write(_ values: [Substring], into out: inout [UInt8]) -> Bool {
        literal.withUnsafeBufferPointer { literal in
            escapers.withUnsafeBufferPointer { escapers in
                for p in pieces {
                    if p.end > p.start { out.append(contentsOf: UnsafeBufferPointer(rebasing: literal[Int(p.start)..<Int(p.end)])) }
                    if p.slot >= 0, !escapers[Int(p.escaper)].append(values[Int(p.slot)], to: &out) { return false }
                }
                return true
            }
        }
    }

    /// The text for `values` as spans (`start, end` pairs, in output order) over the literal
    /// followed by `written`: literal ranges by reference, only the slots' escaped bytes appended
    /// to `written`. Offsets at or past `literalBytes` are `written`'s, less `literalBytes`. A
    /// slot that lands several times through the same escaper (a page repeats its link in many
    /// places) is escaped once: its later places are spans over the same written bytes. nil as
    /// `write(_:into:)`'s false.
    public func spans(_ values: [Substring], written: inout [UInt8]) -> [Int32]? {
        let base = Int32(literal.count)
        let pairs = slotCount * escapers.count
        var complete = true
        let spans = escapers.withUnsafeBufferPointer { escapers in
            // Per (slot, escaper): the start and end of its escaped bytes in `written`, or -1 when
            // not written yet. On the stack: a page has a few slots and a handful of escapers.
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(2 * pairs, 1)) { made in
                made.initialize(repeating: -1)
                // At most two spans per piece: filled in place, no capacity check per span.
                return [Int32](unsafeUninitializedCapacity: spanCapacity) { out, count in
                    var n = 0
                    for p in pieces {
                        if p.end > p.start {
                            out[n] = p.start
                            out[n + 1] = p.end
                            n += 2
                        }
                        guard p.slot >= 0 else { continue }
                        let pair = 2 * (Int(p.slot) * escapers.count + Int(p.escaper))
                        if made[pair] < 0 {
                            let before = written.count
                            guard escapers[Int(p.escaper)].append(values[Int(p.slot)], to: &written) else {
                                complete = false
                                break
                            }
                            made[pair] = base + Int32(before)
                            made[pair + 1] = base + Int32(written.count)
                        }
                        if made[pair + 1] > made[pair] {
                            out[n] = made[pair]
                            out[n + 1] = made[pair + 1]
                            n += 2
                        }
                    }
                    count = n
                }
            }
        }
        return complete ? spans : nil
    }

    /// Room for the spans of one `spans(_:written:)` (two per literal, two per slot).
    public var spanCapacity: Int { pieces.count * 4 }

    /// The literal bytes (what `spans(_:written:)`'s literal spans point into).
    public var literalStorage: [UInt8] { literal }

    /// The text for `values`, or nil (see `write`).
    public func bytes(_ values: [Substring]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(literalBytes + 64)
        return write(values, into: &out) ? out : nil
    }

    public func string(_ values: [Substring]) -> String? {
        bytes(values).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Learning

    /// The characters a slot is probed with: every ASCII byte and three non-ASCII scalars (2, 3
    /// and 4 UTF-8 bytes).
    public static let allCharacters: [String] = (0..<128).map { String(UnicodeScalar(UInt8($0))) } + nonASCIISamples
    /// Characters of a URL path and query as this module writes them (a generated card's path).
    public static let urlCharacters: [String] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%/?=&".map(String.init)
    static let nonASCIISamples = ["\u{E9}", "\u{20AC}", "\u{1F600}"]

    /// Inputs the compiled text must reproduce exactly before it is used.
    static let checkValues = [
        "Z9a", "caf\u{E9} <b>&amp;\"x'</b> \u{20AC}5 \u{1F600}", "%41%2F% a/b/c x?y=1&z=#f+\t{title}", "&#106;avascript:..a\\`^|~",
    ]

    static func marker(_ slot: Int, _ index: Int) -> String { "xLWq\(slot)q\(index)qLWx" }

    /// Compiles `render` over `characters.count` slots (slot `i` probed with `characters[i]`).
    /// nil when `render` fails for the probes or its output is not reproduced for the check
    /// inputs (then the caller keeps calling `render`).
    public static func learn(characters: [[String]], render: ([String]) -> [UInt8]?) -> CompiledText? {
        if let text = learnOnce(characters: characters, render: render) { return text }
        // A probe character may change what the function does (a control character in a URL):
        // retry with printable characters only.
        let printable = characters.map { set in set.filter { $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } } }
        guard printable != characters else { return nil }
        return learnOnce(characters: printable, render: render)
    }

    static func learnOnce(characters: [[String]], render: ([String]) -> [UInt8]?) -> CompiledText? {
        let probes = characters.enumerated().map { slot, chars in
            var s = marker(slot, 0)
            for (i, c) in chars.enumerated() { s += c + marker(slot, i + 1) }
            return s
        }
        guard let output = render(probes), let text = parse(output, characters: characters) else { return nil }
        // The check: awkward inputs (restricted to what each slot learned) give the same bytes.
        for k in 0..<checkValues.count {
            let values = characters.indices.map { slot -> String in
                let allowed = Set(characters[slot])
                let v = String(checkValues[(k + slot) % checkValues.count].filter { allowed.contains(String($0)) })
                return v.isEmpty ? "q" : v
            }
            guard let expected = render(values) else { return nil }
            var got: [UInt8] = []
            guard text.write(values.map { Substring($0) }, into: &got), got == expected else { return nil }
        }
        return text
    }

    /// Splits a probe rendering into literal bytes and slots.
    static func parse(_ output: [UInt8], characters: [[String]]) -> CompiledText? {
        let start: [UInt8] = Array("xLWq".utf8)
        let markerBytes = characters.indices.map { slot in (0...characters[slot].count).map { Array(marker(slot, $0).utf8) } }
        var segments: [Segment] = []
        var literal: [UInt8] = []
        var seen: [SlotEscaper] = []
        var i = 0
        func matches(_ m: [UInt8], at p: Int) -> Bool {
            p + m.count <= output.count && output[p..<(p + m.count)].elementsEqual(m)
        }
        func find(_ m: [UInt8], from p: Int) -> Int? {
            var q = p
            while q + m.count <= output.count {
                if output[q] == m[0], matches(m, at: q) { return q }
                q += 1
            }
            return nil
        }
        while i < output.count {
            guard output[i] == start[0], matches(start, at: i) else {
                literal.append(output[i])
                i += 1
                continue
            }
            // An occurrence must start with some slot's marker 0 and run through all its markers.
            guard let slot = markerBytes.indices.first(where: { matches(markerBytes[$0][0], at: i) }) else { return nil }
            segments.append(.bytes(literal))
            literal = []
            var p = i + markerBytes[slot][0].count
            var outputs: [[UInt8]] = []
            for k in 1..<markerBytes[slot].count {
                guard let next = find(markerBytes[slot][k], from: p) else { return nil }
                let piece = Array(output[p..<next])
                outputs.append(piece)
                p = next + markerBytes[slot][k].count
            }
            guard var escaper = escaper(characters: characters[slot], outputs: outputs) else { return nil }
            // Identical escapers share their storage (a page has a handful of distinct ones).
            if let same = seen.first(where: { $0 == escaper }) { escaper = same } else { seen.append(escaper) }
            segments.append(.slot(slot, escaper))
            i = p
        }
        segments.append(.bytes(literal))
        // A marker fragment left in a literal means an occurrence was cut (truncated text).
        let text = CompiledText(segments: segments, slotCount: characters.count)
        for s in text.segments { if case let .bytes(b) = s, contains(start, in: b) { return nil } }
        return text
    }

    static func contains(_ needle: [UInt8], in hay: [UInt8]) -> Bool {
        guard hay.count >= needle.count else { return false }
        for p in 0...(hay.count - needle.count) where hay[p..<(p + needle.count)].elementsEqual(needle) { return true }
        return false
    }

    static func escaper(characters: [String], outputs: [[UInt8]]) -> SlotEscaper? {
        var ascii: [[UInt8]?] = Array(repeating: nil, count: 128)
        var samples: [String: [UInt8]] = [:]
        for (c, out) in zip(characters, outputs) {
            let bytes = Array(c.utf8)
            if bytes.count == 1, bytes[0] < 0x80 {
                ascii[Int(bytes[0])] = out
            } else {
                samples[c] = out
            }
        }
        // Non-ASCII: all samples copied as is, or all percent-encoded per byte with one prefix.
        var nonASCII: [UInt8]?
        if !samples.isEmpty {
            let raw = samples.allSatisfy { Array($0.key.utf8) == $0.value }
            if raw {
                nonASCII = []
            } else if let first = samples.first {
                let n = first.key.utf8.count
                let prefixLength = (first.value.count - 2 * n) / n
                if prefixLength > 0, (first.value.count - 2 * n) % n == 0 {
                    let prefix = Array(first.value.prefix(prefixLength))
                    let ok = samples.allSatisfy { key, value in
                        var expect: [UInt8] = []
                        for b in key.utf8 { expect += prefix + [SlotEscaper.hex[Int(b >> 4)], SlotEscaper.hex[Int(b & 0x0F)]] }
                        return expect == value
                    }
                    if ok { nonASCII = prefix }
                }
            }
            if nonASCII == nil { return nil }
        }
        return SlotEscaper(ascii: ascii, nonASCII: nonASCII)
    }
}
