// Mustache syntax: tags, delimiters, standalone lines, section nesting. The output is a tree of
// `ParsedNode`s with byte offsets kept for error messages; `Template+Escaper.swift` turns it
// into the render tree, deciding how each variable is escaped.

/// A tag's name: `.` (empty path, the implicit iterator) or dot-separated keys.
struct TemplateName: Sendable, Equatable {
    let path: [String]
    let text: String
}

indirect enum ParsedNode {
    case text([UInt8], offset: Int)
    /// Where a line of the template begins; a partial included on a standalone line emits its
    /// indentation here.
    case lineStart
    case variable(TemplateName, raw: Bool, offset: Int)
    case section(TemplateName, inverted: Bool, children: [ParsedNode], offset: Int, closeOffset: Int)
    case partial(String, indent: [UInt8], offset: Int)
}

struct MustacheParser {
    let source: TemplateSource
    /// Partials mark the start of each line so that indentation can be applied when rendered.
    let marksLineStarts: Bool

    enum TagKind: Equatable {
        case variable, raw, section, inverted, close, comment, partial, delimiters

        var canStandAlone: Bool {
            switch self {
            case .section, .inverted, .close, .comment, .partial, .delimiters: return true
            case .variable, .raw: return false
            }
        }
    }

    enum Token {
        case text(Range<Int>)
        case tag(TagKind, content: String, offset: Int, indent: [UInt8])
        case lineStart
    }

    private var bytes: [UInt8] { source.bytes }

    func parse() throws(TemplateError) -> [ParsedNode] {
        let tokens = try tokenize()
        return try buildTree(applyStandaloneRules(tokens))
    }

    // MARK: Tokens

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private static func trimmed(_ s: Substring) -> String {
        String(s.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }

    private func matches(_ needle: [UInt8], at i: Int) -> Bool {
        guard i + needle.count <= bytes.count else { return false }
        for k in 0..<needle.count where bytes[i + k] != needle[k] { return false }
        return true
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        var i = start
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], matches(needle, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func display(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

    func tokenize() throws(TemplateError) -> [Token] {
        var open: [UInt8] = Array("{{".utf8)
        var close: [UInt8] = Array("}}".utf8)
        var tokens: [Token] = []
        let n = bytes.count

        func appendText(_ range: Range<Int>) {
            var start = range.lowerBound
            var i = start
            while i < range.upperBound {
                if bytes[i] == 0x0A {
                    tokens.append(.text(start..<(i + 1)))
                    start = i + 1
                }
                i += 1
            }
            if start < range.upperBound { tokens.append(.text(start..<range.upperBound)) }
        }

        var i = 0
        var textStart = 0
        while i < n {
            guard bytes[i] == open[0], matches(open, at: i) else {
                i += 1
                continue
            }
            appendText(textStart..<i)
            let tagStart = i
            var j = i + open.count
            var kind = TagKind.variable
            var closer = close
            if j < n {
                switch bytes[j] {
                case UInt8(ascii: "{"):
                    kind = .raw
                    closer = [UInt8(ascii: "}")] + close
                case UInt8(ascii: "&"): kind = .raw
                case UInt8(ascii: "#"): kind = .section
                case UInt8(ascii: "^"): kind = .inverted
                case UInt8(ascii: "/"): kind = .close
                case UInt8(ascii: "!"): kind = .comment
                case UInt8(ascii: ">"): kind = .partial
                case UInt8(ascii: "="):
                    kind = .delimiters
                    closer = [UInt8(ascii: "=")] + close
                case UInt8(ascii: "<"), UInt8(ascii: "$"):
                    throw source.error(
                        at: tagStart, "template inheritance ('\(display(open))<' and '\(display(open))$' tags) is not supported",
                        fix: "use partials ('\(display(open))>name\(display(close))') instead")
                default: break
                }
                if kind != .variable { j += 1 }
            }
            guard let end = find(closer, from: j) else {
                throw source.error(
                    at: tagStart, "the tag opened with '\(display(open))' is never closed with '\(display(closer))'",
                    fix: "add '\(display(closer))' or write a literal '\(display(open))' using a set-delimiter tag")
            }
            let content = String(decoding: bytes[j..<end], as: UTF8.self)
            i = end + closer.count
            textStart = i
            if kind == .delimiters {
                let parts = content.split(whereSeparator: { $0.isWhitespace })
                guard parts.count == 2, !parts[0].contains("="), !parts[1].contains("=") else {
                    throw source.error(
                        at: tagStart, "invalid set-delimiter tag '\(display(open))=\(content)=\(display(close))'",
                        fix: "write two delimiters without '=' separated by a space, e.g. '\(display(open))=<% %>=\(display(close))'")
                }
                open = Array(parts[0].utf8)
                close = Array(parts[1].utf8)
            }
            tokens.append(.tag(kind, content: content, offset: tagStart, indent: []))
        }
        appendText(textStart..<n)
        return tokens
    }

    // MARK: Standalone lines

    /// A line holding one section, inverted, close, comment, partial or delimiter tag and
    /// otherwise only spaces and tabs is removed entirely (the partial keeps the indentation).
    func applyStandaloneRules(_ tokens: [Token]) -> [Token] {
        var out: [Token] = []
        out.reserveCapacity(tokens.count)
        var line: [Token] = []

        func isBlank(_ range: Range<Int>) -> Bool {
            var i = range.lowerBound
            while i < range.upperBound {
                let b = bytes[i]
                if b == 0x20 || b == 0x09 || b == 0x0A {
                    i += 1
                } else if b == 0x0D, i + 1 < range.upperBound, bytes[i + 1] == 0x0A {
                    i += 1
                } else {
                    return false
                }
            }
            return true
        }

        func finishLine() {
            defer { line.removeAll(keepingCapacity: true) }
            guard !line.isEmpty else { return }
            var tagPosition: Int?
            var standalone = true
            for (k, token) in line.enumerated() {
                switch token {
                case let .tag(kind, _, _, _):
                    if tagPosition != nil || !kind.canStandAlone { standalone = false }
                    tagPosition = k
                case let .text(range):
                    if !isBlank(range) { standalone = false }
                case .lineStart: break
                }
                if !standalone { break }
            }
            if standalone, let t = tagPosition, case let .tag(kind, content, offset, _) = line[t] {
                var indent: [UInt8] = []
                if kind == .partial {
                    for token in line[..<t] {
                        if case let .text(range) = token { indent.append(contentsOf: bytes[range]) }
                    }
                }
                out.append(.tag(kind, content: content, offset: offset, indent: indent))
                return
            }
            if marksLineStarts {
                let isEmptyLine = line.allSatisfy { token in
                    if case let .text(range) = token {
                        let text = bytes[range]
                        return text.elementsEqual([0x0A]) || text.elementsEqual([0x0D, 0x0A])
                    }
                    return false
                }
                if !isEmptyLine { out.append(.lineStart) }
            }
            out.append(contentsOf: line)
        }

        for token in tokens {
            line.append(token)
            if case let .text(range) = token, bytes[range.upperBound - 1] == 0x0A { finishLine() }
        }
        finishLine()
        return out
    }

    // MARK: Tree

    private func name(_ content: String, at offset: Int) throws(TemplateError) -> TemplateName {
        let text = MustacheParser.trimmed(content[...])
        guard !text.isEmpty else {
            throw source.error(at: offset, "empty tag name", fix: "write a name between the delimiters, or '.' for the current item")
        }
        if text == "." { return TemplateName(path: [], text: text) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw source.error(at: offset, "the name '\(text)' has an empty part", fix: "write names like 'a' or 'a.b.c'")
        }
        return TemplateName(path: parts, text: text)
    }

    func buildTree(_ tokens: [Token]) throws(TemplateError) -> [ParsedNode] {
        struct Frame {
            var name: TemplateName
            var inverted: Bool
            var offset: Int
            var children: [ParsedNode] = []
        }
        var root: [ParsedNode] = []
        var stack: [Frame] = []

        func append(_ node: ParsedNode) {
            if stack.isEmpty { root.append(node) } else { stack[stack.count - 1].children.append(node) }
        }

        for token in tokens {
            switch token {
            case let .text(range):
                append(.text(Array(bytes[range]), offset: range.lowerBound))
            case .lineStart:
                append(.lineStart)
            case let .tag(kind, content, offset, indent):
                switch kind {
                case .variable, .raw:
                    append(.variable(try name(content, at: offset), raw: kind == .raw, offset: offset))
                case .section, .inverted:
                    stack.append(Frame(name: try name(content, at: offset), inverted: kind == .inverted, offset: offset))
                case .close:
                    let closing = try name(content, at: offset)
                    guard let frame = stack.popLast() else {
                        throw source.error(
                            at: offset, "{{/\(closing.text)}} closes a section that was never opened",
                            fix: "remove the closing tag or open the section with {{#\(closing.text)}}")
                    }
                    guard frame.name == closing else {
                        let (line, column) = source.position(of: frame.offset)
                        throw source.error(
                            at: offset,
                            "{{/\(closing.text)}} closes the section '\(frame.name.text)' opened at line \(line), column \(column)",
                            fix: "close sections in the reverse order they were opened")
                    }
                    append(
                        .section(
                            frame.name, inverted: frame.inverted, children: frame.children, offset: frame.offset,
                            closeOffset: offset))
                case .partial:
                    let partialName = MustacheParser.trimmed(content[...])
                    guard !partialName.isEmpty else {
                        throw source.error(at: offset, "a partial tag without a name", fix: "write the partial's name after '>'")
                    }
                    append(.partial(partialName, indent: indent, offset: offset))
                case .comment, .delimiters:
                    break
                }
            }
        }
        if let open = stack.last {
            throw source.error(
                at: open.offset, "the section '\(open.name.text)' is never closed", fix: "add {{/\(open.name.text)}} where the section ends")
        }
        return root
    }
}
