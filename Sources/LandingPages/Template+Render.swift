// Rendering. The compiled tree is flattened into one array of plain instructions (no reference
// counting while walking it), one text pool and one key table; rendering walks them with a
// context stack and writes UTF-8 into one buffer.

/// The compiled form of a template and the partials it can reach.
struct Program: Sendable {
    enum Opcode: UInt8, Sendable {
        /// `text[a ..< a + b]`
        case text
        /// A partial's indentation, at the start of each of its lines.
        case lineStart
        /// The value named by `keys[a ..< a + b]` (empty: the top of the stack), escaped per `c`.
        case variable
        /// Sections: the body is `code[i + 1 ..< c]`; the name is `keys[a ..< a + b]`.
        case section
        case invertedSection
        case conditionalSection
        /// `code[a ..< b]` (a partial) with `indents[c]` added to the indentation.
        case partial
    }

    struct Instruction: Sendable {
        var op: Opcode
        var escaping: Escaping = .html
        var a: Int32 = 0
        var b: Int32 = 0
        var c: Int32 = 0
    }

    var code: [Instruction] = []
    var mainEnd = 0
    var text: [UInt8] = []
    var keys: [String] = []
    var indents: [[UInt8]] = [[]]
    var allowedSchemes: Set<String> = []
    var sizeHint = 0

    static func assemble(main: [Node], partials: [[Node]], allowedSchemes: Set<String>) -> Program {
        var program = Program()
        program.allowedSchemes = allowedSchemes
        var keyIndex: [[String]: (Int32, Int32)] = [:]
        var partialRanges: [(Int32, Int32)] = Array(repeating: (0, 0), count: partials.count)
        var partialFixups: [(instruction: Int, partial: Int)] = []

        func name(_ path: [String]) -> (Int32, Int32) {
            if let found = keyIndex[path] { return found }
            let entry = (Int32(program.keys.count), Int32(path.count))
            program.keys.append(contentsOf: path)
            keyIndex[path] = entry
            return entry
        }

        func emit(_ nodes: [Node]) {
            for node in nodes {
                switch node {
                case let .text(bytes):
                    program.code.append(
                        Instruction(op: .text, a: Int32(program.text.count), b: Int32(bytes.count)))
                    program.text.append(contentsOf: bytes)
                case .lineStart:
                    program.code.append(Instruction(op: .lineStart))
                case let .variable(path, escaping):
                    let (a, b) = name(path)
                    program.code.append(Instruction(op: .variable, escaping: escaping, a: a, b: b))
                case let .section(path, body), let .invertedSection(path, body), let .conditionalSection(path, body):
                    let op: Opcode
                    switch node {
                    case .invertedSection: op = .invertedSection
                    case .conditionalSection: op = .conditionalSection
                    default: op = .section
                    }
                    let (a, b) = name(path)
                    let at = program.code.count
                    program.code.append(Instruction(op: op, a: a, b: b))
                    emit(body)
                    program.code[at].c = Int32(program.code.count)
                case let .partial(index, indent):
                    var c: Int32 = 0
                    if !indent.isEmpty {
                        c = Int32(program.indents.count)
                        program.indents.append(indent)
                    }
                    partialFixups.append((program.code.count, index))
                    program.code.append(Instruction(op: .partial, c: c))
                }
            }
        }

        emit(main)
        program.mainEnd = program.code.count
        for (i, partial) in partials.enumerated() {
            let start = program.code.count
            emit(partial)
            partialRanges[i] = (Int32(start), Int32(program.code.count))
        }
        for fixup in partialFixups {
            program.code[fixup.instruction].a = partialRanges[fixup.partial].0
            program.code[fixup.instruction].b = partialRanges[fixup.partial].1
        }
        program.sizeHint = program.text.count + program.text.count / 4 + 64
        return program
    }
}

struct Renderer {
    let code: UnsafeBufferPointer<Program.Instruction>
    let text: UnsafeBufferPointer<UInt8>
    let keys: UnsafeBufferPointer<String>
    let indents: [[UInt8]]
    let allowedSchemes: Set<String>
    var stack: [TemplateValue]
    var out: [UInt8]
    var partialDepth = 0
    var partialExpansions = 0
    var steps = 0
    /// Set when a limit (`limits`) stopped the rendering.
    var cut = false

    /// Deeper partial nesting renders nothing (a partial that includes itself without a
    /// section that ends the recursion).
    static let maximumPartialDepth = 64
    /// Partials expanded in one rendering; past it partials render nothing. The depth bound alone
    /// does not bound the work: a partial that includes itself twice expands 2^64 times (found by
    /// fuzz-mustache, docs/dev/fuzzing.md). Data-driven recursion over a real tree stays far below.
    static let maximumPartialExpansions = 10_000
    /// Bytes written and instructions executed before the rendering stops (the page is cut):
    /// `RenderLimits.standard` unless the caller gives others. The expansion bound alone let a
    /// 2 KB template that includes itself write ~20 MB (10,000 expansions of a long value), and
    /// nested sections over one list multiply: `{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}` over 1,000
    /// items is 10^9 bytes, or 10^9 instructions with an empty body (found by fuzz-mustache,
    /// docs/dev/fuzzing.md).
    let limits: RenderLimits

    init(
        code: UnsafeBufferPointer<Program.Instruction>, text: UnsafeBufferPointer<UInt8>,
        keys: UnsafeBufferPointer<String>, indents: [[UInt8]], allowedSchemes: Set<String>, root: TemplateValue,
        out: [UInt8], limits: RenderLimits
    ) {
        self.limits = limits
        self.indents = indents
        self.code = code
        self.text = text
        self.keys = keys
        self.allowedSchemes = allowedSchemes
        self.stack = [root]
        self.out = out
    }

    /// Spec name resolution: the first key is looked up from the top of the stack down, the
    /// rest only inside what it found.
    func lookup(_ start: Int32, _ count: Int32) -> TemplateValue? {
        guard count > 0 else { return stack.last }
        let first = keys[Int(start)]
        var found: TemplateValue?
        var i = stack.count - 1
        while i >= 0 {
            if case let .object(members) = stack[i], let v = members[first] {
                found = v
                break
            }
            i -= 1
        }
        guard var value = found else { return nil }
        var k = Int(start) + 1
        let end = Int(start + count)
        while k < end {
            guard case let .object(members) = value, let v = members[keys[k]] else { return nil }
            value = v
            k += 1
        }
        return value
    }

    mutating func run(_ start: Int, _ end: Int, indent: [UInt8]) {
        var i = start
        while i < end {
            steps += 1
            if steps > limits.steps || out.count > limits.outputBytes {
                cut = true
                return
            }
            let instruction = code[i]
            switch instruction.op {
            case .text:
                let from = Int(instruction.a)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[from..<(from + Int(instruction.b))]))
                i += 1
            case .lineStart:
                if !indent.isEmpty { out.append(contentsOf: indent) }
                i += 1
            case .variable:
                if let value = lookup(instruction.a, instruction.b) { write(value, instruction.escaping) }
                i += 1
            case .section:
                let bodyEnd = Int(instruction.c)
                if let value = lookup(instruction.a, instruction.b), value.isTruthy {
                    section(value, i + 1, bodyEnd, indent: indent)
                    if cut { return }
                }
                i = bodyEnd
            case .conditionalSection:
                let bodyEnd = Int(instruction.c)
                if let value = lookup(instruction.a, instruction.b), value.isTruthy {
                    if case let .list(items) = value { stack.append(items[0]) } else { stack.append(value) }
                    run(i + 1, bodyEnd, indent: indent)
                    stack.removeLast()
                }
                i = bodyEnd
            case .invertedSection:
                let bodyEnd = Int(instruction.c)
                if !(lookup(instruction.a, instruction.b)?.isTruthy ?? false) {
                    run(i + 1, bodyEnd, indent: indent)
                }
                i = bodyEnd
            case .partial:
                if partialDepth < Renderer.maximumPartialDepth, partialExpansions < Renderer.maximumPartialExpansions {
                    partialDepth += 1
                    partialExpansions += 1
                    let extra = instruction.c == 0 ? indent : indent + indents[Int(instruction.c)]
                    run(Int(instruction.a), Int(instruction.b), indent: extra)
                    partialDepth -= 1
                }
                i += 1
            }
        }
    }

    /// A section's body over a truthy value: once per item of a list, else once with the value.
    mutating func section(_ value: TemplateValue, _ start: Int, _ end: Int, indent: [UInt8]) {
        guard case let .list(items) = value else {
            stack.append(value)
            run(start, end, indent: indent)
            stack.removeLast()
            return
        }
        for item in items {
            if cut { return }
            stack.append(item)
            run(start, end, indent: indent)
            stack.removeLast()
        }
    }

    mutating func write(_ value: TemplateValue, _ escaping: Escaping) {
        switch escaping {
        case .raw:
            out.append(contentsOf: value.interpolatedText.utf8)
        case .html:
            HTMLEscaping.appendEscaped(value.interpolatedText, to: &out)
        case .htmlAllowingTrusted:
            if case let .html(trusted) = value {
                out.append(contentsOf: trusted.html.utf8)
            } else {
                HTMLEscaping.appendEscaped(value.interpolatedText, to: &out)
            }
        case .urlWhole:
            switch value {
            case let .url(url):
                HTMLEscaping.appendEscaped(url.string, to: &out)
            default:
                if let checked = SafeURL.check(value.interpolatedText, allowedSchemes: allowedSchemes) {
                    HTMLEscaping.appendEscaped(checked, to: &out)
                } else {
                    out.append(contentsOf: SafeURL.invalidReplacement.utf8)
                }
            }
        case .urlPath:
            HTMLEscaping.appendURLNormalized(value.interpolatedText, to: &out)
        case .urlQuery:
            HTMLEscaping.appendURLQueryComponent(value.interpolatedText, to: &out)
        }
    }
}
