// From the parsed tree to the render tree. In `.html` mode this is where every variable gets
// its escaping from the HTML context of the literal text around it (HTMLContext.swift).

struct TemplateCompiler {
    let mode: TemplateMode
    let partialSources: [String: String]
    let allowedSchemes: Set<String>
    var partialIndex: [String: Int] = [:]
    var partials: [[Node]] = []
    var pending: [(name: String, index: Int)] = []
    var missing: Set<String> = []

    init(mode: TemplateMode, partialSources: [String: String]) {
        self.mode = mode
        self.partialSources = partialSources
        if case let .html(schemes) = mode {
            allowedSchemes = SafeURL.normalizedSchemes(schemes)
        } else {
            allowedSchemes = SafeURL.alwaysAllowedSchemes
        }
    }

    var isHTML: Bool {
        if case .html = mode { return true }
        return false
    }

    mutating func compileMain(_ source: TemplateSource) throws(TemplateError) -> [Node] {
        let parsed = try MustacheParser(source: source, marksLineStarts: false).parse()
        var context: HTMLContext? = isHTML ? .text : nil
        let nodes = try lower(parsed, source: source, context: &context)
        if let context {
            switch context.state {
            case .text, .raw: break
            default:
                throw source.error(
                    at: source.bytes.count, "the template ends inside \(context.description)",
                    fix: "close every tag, quote and comment the template opens")
            }
        }
        return nodes
    }

    mutating func compilePendingPartials() throws(TemplateError) {
        while let (name, index) = pending.popLast() {
            let source = TemplateSource(name: name, bytes: Array((partialSources[name] ?? "").utf8))
            let parsed = try MustacheParser(source: source, marksLineStarts: true).parse()
            var context: HTMLContext? = isHTML ? .text : nil
            partials[index] = try lower(parsed, source: source, context: &context)
            if let context, context.state != .text {
                throw source.error(
                    at: source.bytes.count, "the partial ends inside \(context.description)",
                    fix: "a partial is included in HTML text: close every tag, quote, comment and <script>/<style> it opens")
            }
        }
    }

    private mutating func index(ofPartial name: String) -> Int? {
        if let i = partialIndex[name] { return i }
        guard partialSources[name] != nil else {
            missing.insert(name)
            return nil
        }
        let i = partials.count
        partials.append([])
        partialIndex[name] = i
        pending.append((name, i))
        return i
    }

    private mutating func lower(
        _ nodes: [ParsedNode], source: TemplateSource, context: inout HTMLContext?
    ) throws(TemplateError) -> [Node] {
        var out: [Node] = []
        out.reserveCapacity(nodes.count)
        for node in nodes {
            switch node {
            case let .text(bytes, offset):
                if var c = context {
                    for (k, b) in bytes.enumerated() {
                        do {
                            try c.consume(b)
                        } catch {
                            throw source.error(at: offset + k, error.message, fix: error.fix)
                        }
                    }
                    context = c
                }
                if case let .text(previous) = out.last {
                    out[out.count - 1] = .text(previous + bytes)
                } else {
                    out.append(.text(bytes))
                }

            case .lineStart:
                out.append(.lineStart)

            case let .variable(name, raw, offset):
                guard var c = context else {
                    out.append(.variable(name.path, raw ? .raw : .html))
                    continue
                }
                do {
                    out.append(.variable(name.path, try c.variable(raw: raw)))
                } catch {
                    throw source.error(at: offset, error.message, fix: error.fix)
                }
                context = c

            case let .section(name, inverted, children, offset, closeOffset):
                guard let start = context else {
                    var none: HTMLContext? = nil
                    let body = try lower(children, source: source, context: &none)
                    out.append(inverted ? .invertedSection(name.path, body) : .section(name.path, body))
                    continue
                }
                let (section, after) = try lowerSection(
                    name: name, inverted: inverted, children: children, offset: offset, closeOffset: closeOffset,
                    source: source, start: start)
                context = after
                out.append(section)

            case let .partial(name, indent, offset):
                if let c = context, c.state != .text {
                    throw source.error(
                        at: offset, "the partial '\(name)' is included in \(c.description)",
                        fix: "include partials only in HTML text, between tags")
                }
                if let i = index(ofPartial: name) { out.append(.partial(i, indent: indent)) }
            }
        }
        return out
    }

    /// A section's body must leave the HTML context where it found it (up to what `join`
    /// reconciles), since it may run zero, one or many times. When the joined context differs
    /// from the entry one, the body is compiled again from the joined context until that is
    /// stable, so that every later pass is covered too. When no stable context exists (a body
    /// like `{{u}}` at the start of an `href`, whose second pass would follow the first URL), the
    /// section is compiled to run at most once: a list renders its first item only.
    private mutating func lowerSection(
        name: TemplateName, inverted: Bool, children: [ParsedNode], offset: Int, closeOffset: Int,
        source: TemplateSource, start: HTMLContext
    ) throws(TemplateError) -> (Node, HTMLContext) {
        var entry = start
        do { try entry.flush() } catch { throw source.error(at: offset, error.message, fix: error.fix) }

        func pass(_ compiler: inout TemplateCompiler, from context: HTMLContext) throws(TemplateError) -> ([Node], HTMLContext) {
            var c: HTMLContext? = context
            let body = try compiler.lower(children, source: source, context: &c)
            var end = c!
            do { try end.flush() } catch { throw source.error(at: closeOffset, error.message, fix: error.fix) }
            guard let joined = HTMLContext.join(context, end) else {
                let sigil = inverted ? "^" : "#"
                throw source.error(
                    at: closeOffset,
                    "the section {{\(sigil)\(name.text)}} starts in \(context.description) but ends in \(end.description)",
                    fix: "open and close tags, quotes and comments inside the same section")
            }
            return (body, joined)
        }

        let (firstBody, firstJoined) = try pass(&self, from: entry)
        if inverted { return (.invertedSection(name.path, firstBody), firstJoined) }
        if firstJoined == entry { return (.section(name.path, firstBody), entry) }
        var context = firstJoined
        var trial = self
        for _ in 0..<8 {
            guard let (body, joined) = try? pass(&trial, from: context) else { break }
            if joined == context {
                self = trial
                return (.section(name.path, body), context)
            }
            context = joined
        }
        return (.conditionalSection(name.path, firstBody), firstJoined)
    }
}
