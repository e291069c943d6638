// Rendering: a walk over the immutable tree with a context stack, writing UTF-8 into one buffer.

struct Renderer {
    let program: Program
    var out: [UInt8]
    var stack: [TemplateValue]
    var partialDepth = 0

    /// Deeper partial nesting renders nothing (a partial that includes itself without a
    /// section that ends the recursion).
    static let maximumPartialDepth = 64

    init(program: Program, out: [UInt8], root: TemplateValue) {
        self.program = program
        self.out = out
        self.stack = [root]
    }

    /// Spec name resolution: the first key is looked up from the top of the stack down, the
    /// rest only inside what it found.
    func lookup(_ path: [String]) -> TemplateValue? {
        guard let first = path.first else { return stack.last }
        var found: TemplateValue?
        for value in stack.reversed() {
            if case let .object(members) = value, let v = members[first] {
                found = v
                break
            }
        }
        guard var value = found else { return nil }
        for key in path.dropFirst() {
            guard case let .object(members) = value, let v = members[key] else { return nil }
            value = v
        }
        return value
    }

    mutating func render(_ nodes: [Node], indent: [UInt8]) {
        for node in nodes {
            switch node {
            case let .text(bytes):
                out.append(contentsOf: bytes)
            case .lineStart:
                if !indent.isEmpty { out.append(contentsOf: indent) }
            case let .variable(path, escaping):
                if let value = lookup(path) { write(value, escaping) }
            case let .section(path, body):
                guard let value = lookup(path), value.isTruthy else { continue }
                if case let .list(items) = value {
                    for item in items {
                        stack.append(item)
                        render(body, indent: indent)
                        stack.removeLast()
                    }
                } else {
                    stack.append(value)
                    render(body, indent: indent)
                    stack.removeLast()
                }
            case let .conditionalSection(path, body):
                guard let value = lookup(path), value.isTruthy else { continue }
                if case let .list(items) = value { stack.append(items[0]) } else { stack.append(value) }
                render(body, indent: indent)
                stack.removeLast()
            case let .invertedSection(path, body):
                if let value = lookup(path), value.isTruthy { continue }
                render(body, indent: indent)
            case let .partial(index, partialIndent):
                guard partialDepth < Renderer.maximumPartialDepth else { continue }
                partialDepth += 1
                render(program.partials[index], indent: partialIndent.isEmpty ? indent : indent + partialIndent)
                partialDepth -= 1
            }
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
                if let checked = SafeURL.check(value.interpolatedText, allowedSchemes: program.allowedSchemes) {
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
