// A small HTML tokenizer that follows the literal text of an `.html`-mode template byte by
// byte (the states of the WHATWG tokenizer that decide where text ends up), so the compiler
// knows the context of every `{{variable}}`: HTML text, a quoted attribute value of a given
// kind, a URL and which part of it, or a place where no variable may go (script, style, event
// handlers, tag and attribute names, unquoted values, comments).

/// Why a variable or a piece of literal text is not allowed where it is.
struct HTMLContextError: Error {
    var message: String
    var fix: String
}

/// Which parts of a URL the text so far may have reached (a set, because a section may or may
/// not have run).
struct URLParts: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    /// Nothing but whitespace so far: a variable here must be a whole, validated URL.
    static let start = URLParts(rawValue: 1)
    /// Literal scheme characters only (`java`): a variable could complete a scheme.
    static let schemeLiteral = URLParts(rawValue: 2)
    /// Scheme characters after a variable: a variable or a `:` could complete a scheme.
    static let schemeVariable = URLParts(rawValue: 4)
    /// The scheme is settled; before any `?` or `#`.
    static let path = URLParts(rawValue: 8)
    /// In the query or fragment.
    static let query = URLParts(rawValue: 16)
    /// `<meta http-equiv="refresh" content="…">` before the URL (the delay, `; url=`).
    static let refreshDelay = URLParts(rawValue: 32)
}

/// How a variable's value is written, decided at compile time from its context.
enum Escaping: Sendable, Equatable {
    /// Spec mode `{{{x}}}`: the text as it is.
    case raw
    /// `& < > " '` escaped (HTML text and quoted attribute values).
    case html
    /// HTML text, `{{{x}}}` in `.html` mode: a `TrustedHTML` value as it is, anything else escaped.
    case htmlAllowingTrusted
    /// A whole URL: `SafeURL` as it is, a string validated (or `about:invalid#linkwell`); then
    /// attribute-escaped.
    case urlWhole
    /// After the scheme, before `?`/`#`: percent-encode what a URL may not contain.
    case urlPath
    /// In the query or fragment: percent-encode everything but the unreserved characters.
    case urlQuery
}

struct HTMLContext: Equatable, Sendable {
    enum RawKind: Equatable, Sendable {
        case script, style, rcdata, rawtext, plaintext
    }

    enum State: Equatable, Sendable {
        case text
        /// Inside an element whose content is not parsed as tags. `endMatch` counts the bytes of
        /// `</name` seen so far; `commentMatch` those of `<!--` (refused inside `<script>`).
        case raw(RawKind, endMatch: Int, commentMatch: Int)
        case tagOpen
        case endTagOpen
        case markupDeclarationOpen(dashes: Int)
        case commentStart
        case commentStartDash
        case comment(dashes: Int)
        case commentEndBang
        case bogusComment
        case tagName
        /// Between attributes. `ambiguity` > 0 after a section that may or may not have left an
        /// attribute name open: 1 = an `=` next would be ambiguous, 2 = any name character would be.
        case beforeAttributeName(ambiguity: Int)
        case attributeName
        case afterAttributeName
        case beforeAttributeValue
        /// `quote` is `"` or `'`, or 0 for an unquoted value.
        case attributeValue(quote: UInt8)
    }

    /// What a `<meta>` tag's `content` holds, from its `property`/`name`/`http-equiv`.
    enum MetaKind: Int, Comparable, Sendable {
        case unknown = 0, plain, url, refresh, dynamic
        static func < (a: MetaKind, b: MetaKind) -> Bool { a.rawValue < b.rawValue }
    }

    enum AttributeKind: Equatable, Sendable {
        case plain, url, srcset, refresh, eventHandler, style, srcdoc
        /// `values`/`to`/`from`/`by`/`attributeName` of SVG `<animate>`/`<set>`: they can set an
        /// `href` to anything.
        case svgAnimation
        case metaSelector(httpEquiv: Bool)
        case metaContentOfUnknownKind
    }

    var state: State = .text
    /// The tag being read, or the element whose raw text we are in (lowercased).
    var element: [UInt8] = []
    var isEndTag = false
    var meta: MetaKind = .unknown
    var attribute: [UInt8] = []
    var attributeKind: AttributeKind = .plain
    var url: URLParts = []
    var attributeHasVariable = false
    /// Value bytes since the last variable or section boundary.
    var literal: [UInt8] = []
    /// The whole literal value, kept where its meaning matters (meta selectors, refresh delay).
    var valueText: [UInt8] = []

    static let text = HTMLContext()

    // MARK: Bytes

    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D }
    static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 0x20 : b }

    var elementName: String { String(decoding: element, as: UTF8.self) }
    var attributeName: String { String(decoding: attribute, as: UTF8.self) }

    mutating func consume(_ b: UInt8) throws(HTMLContextError) {
        switch state {
        case .text:
            if b == UInt8(ascii: "<") { state = .tagOpen }

        case let .raw(kind, endMatch, commentMatch):
            try consumeRaw(b, kind: kind, endMatch: endMatch, commentMatch: commentMatch)

        case .tagOpen:
            if HTMLContext.isAlpha(b) {
                startTag(b, isEnd: false)
            } else if b == UInt8(ascii: "/") {
                state = .endTagOpen
            } else if b == UInt8(ascii: "!") {
                state = .markupDeclarationOpen(dashes: 0)
            } else if b == UInt8(ascii: "?") {
                state = .bogusComment
            } else {
                state = .text
                try consume(b)
            }

        case .endTagOpen:
            if HTMLContext.isAlpha(b) {
                startTag(b, isEnd: true)
            } else if b == UInt8(ascii: ">") {
                state = .text
            } else {
                state = .bogusComment
            }

        case let .markupDeclarationOpen(dashes):
            if b == UInt8(ascii: "-") {
                state = dashes == 0 ? .markupDeclarationOpen(dashes: 1) : .commentStart
            } else {
                state = .bogusComment
                try consume(b)
            }

        case .commentStart:
            if b == UInt8(ascii: "-") {
                state = .commentStartDash
            } else if b == UInt8(ascii: ">") {
                state = .text
            } else {
                state = .comment(dashes: 0)
                try consume(b)
            }

        case .commentStartDash:
            if b == UInt8(ascii: "-") {
                state = .comment(dashes: 2)
            } else if b == UInt8(ascii: ">") {
                state = .text
            } else {
                state = .comment(dashes: 0)
                try consume(b)
            }

        case let .comment(dashes):
            if b == UInt8(ascii: "-") {
                state = .comment(dashes: min(dashes + 1, 2))
            } else if dashes == 2 && b == UInt8(ascii: ">") {
                state = .text
            } else if dashes == 2 && b == UInt8(ascii: "!") {
                state = .commentEndBang
            } else {
                state = .comment(dashes: 0)
            }

        case .commentEndBang:
            if b == UInt8(ascii: "-") {
                state = .comment(dashes: 1)
            } else if b == UInt8(ascii: ">") {
                state = .text
            } else {
                state = .comment(dashes: 0)
            }

        case .bogusComment:
            if b == UInt8(ascii: ">") { state = .text }

        case .tagName:
            if HTMLContext.isWhitespace(b) || b == UInt8(ascii: "/") {
                state = .beforeAttributeName(ambiguity: 0)
            } else if b == UInt8(ascii: ">") {
                endTag()
            } else {
                element.append(HTMLContext.lower(b))
            }

        case let .beforeAttributeName(ambiguity):
            if HTMLContext.isWhitespace(b) {
                state = .beforeAttributeName(ambiguity: ambiguity == 2 ? 1 : ambiguity)
            } else if b == UInt8(ascii: "/") {
                state = .beforeAttributeName(ambiguity: 0)
            } else if b == UInt8(ascii: ">") {
                endTag()
            } else if ambiguity == 2 || (ambiguity == 1 && b == UInt8(ascii: "=")) {
                throw HTMLContextError(
                    message: "after the section above, this character may continue an attribute name or start a new one",
                    fix: "put a space after the closing tag of a section that writes an attribute, and give it its value inside the section")
            } else {
                startAttribute(b)
            }

        case .attributeName:
            if HTMLContext.isWhitespace(b) {
                state = .afterAttributeName
            } else if b == UInt8(ascii: "/") {
                clearAttribute()
                state = .beforeAttributeName(ambiguity: 0)
            } else if b == UInt8(ascii: "=") {
                beginValue()
            } else if b == UInt8(ascii: ">") {
                endTag()
            } else {
                attribute.append(HTMLContext.lower(b))
            }

        case .afterAttributeName:
            if HTMLContext.isWhitespace(b) {
                break
            } else if b == UInt8(ascii: "/") {
                clearAttribute()
                state = .beforeAttributeName(ambiguity: 0)
            } else if b == UInt8(ascii: "=") {
                beginValue()
            } else if b == UInt8(ascii: ">") {
                endTag()
            } else {
                startAttribute(b)
            }

        case .beforeAttributeValue:
            if HTMLContext.isWhitespace(b) {
                break
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                state = .attributeValue(quote: b)
            } else if b == UInt8(ascii: ">") {
                endTag()
            } else {
                state = .attributeValue(quote: 0)
                try consume(b)
            }

        case let .attributeValue(quote):
            if quote != 0 {
                if b == quote {
                    try endValue()
                    state = .beforeAttributeName(ambiguity: 0)
                } else {
                    appendValue(b)
                }
            } else if HTMLContext.isWhitespace(b) {
                try endValue()
                state = .beforeAttributeName(ambiguity: 0)
            } else if b == UInt8(ascii: ">") {
                try endValue()
                endTag()
            } else {
                appendValue(b)
            }
        }
    }

    private mutating func consumeRaw(_ b: UInt8, kind: RawKind, endMatch: Int, commentMatch: Int) throws(HTMLContextError) {
        if kind == .plaintext { return }
        var commentMatch = commentMatch
        if kind == .script {
            let target: [UInt8] = [0x3C, 0x21, 0x2D, 0x2D]  // <!--
            if b == target[commentMatch] {
                commentMatch += 1
                if commentMatch == target.count {
                    throw HTMLContextError(
                        message: "'<!--' inside <script> changes where the script ends",
                        fix: "remove the HTML comment markers from the script")
                }
            } else {
                commentMatch = b == 0x3C ? 1 : 0
            }
        }
        // "</" + element name, then whitespace, "/" or ">".
        let length = 2 + element.count
        if endMatch == length {
            if HTMLContext.isWhitespace(b) || b == UInt8(ascii: "/") {
                isEndTag = true
                state = .beforeAttributeName(ambiguity: 0)
                return
            }
            if b == UInt8(ascii: ">") {
                enterText()
                return
            }
        }
        let expected: UInt8 = endMatch == 0 ? 0x3C : endMatch == 1 ? 0x2F : element[min(endMatch - 2, element.count - 1)]
        var next: Int
        if endMatch < length && HTMLContext.lower(b) == expected {
            next = endMatch + 1
        } else {
            next = b == 0x3C ? 1 : 0
        }
        if next > length { next = 0 }
        state = .raw(kind, endMatch: next, commentMatch: commentMatch)
    }

    private mutating func startTag(_ b: UInt8, isEnd: Bool) {
        element = [HTMLContext.lower(b)]
        isEndTag = isEnd
        meta = .unknown
        clearAttribute()
        state = .tagName
    }

    private mutating func enterText() {
        self = HTMLContext()
    }

    /// The `>` of a tag.
    private mutating func endTag() {
        guard !isEndTag else {
            enterText()
            return
        }
        let kind: RawKind?
        switch elementName {
        case "script": kind = .script
        case "style": kind = .style
        case "title", "textarea": kind = .rcdata
        case "iframe", "xmp", "noembed", "noframes": kind = .rawtext
        case "plaintext": kind = .plaintext
        default: kind = nil
        }
        if let kind {
            let name = element
            enterText()
            element = name
            state = .raw(kind, endMatch: 0, commentMatch: 0)
        } else {
            enterText()
        }
    }

    private mutating func clearAttribute() {
        attribute = []
        attributeKind = .plain
        url = []
        attributeHasVariable = false
        literal = []
        valueText = []
    }

    private mutating func startAttribute(_ b: UInt8) {
        clearAttribute()
        attribute = [HTMLContext.lower(b)]
        state = .attributeName
    }

    private mutating func beginValue() {
        let kind = HTMLContext.kind(ofAttribute: attributeName, element: elementName, meta: meta)
        attributeKind = kind
        switch kind {
        case .url, .srcset: url = .start
        case .refresh: url = .refreshDelay
        default: url = []
        }
        attributeHasVariable = false
        literal = []
        valueText = []
        state = .beforeAttributeValue
    }

    private var keepsValueText: Bool {
        switch attributeKind {
        case .metaSelector: return true
        case .refresh: return url.contains(.refreshDelay)
        default: return false
        }
    }

    private mutating func appendValue(_ b: UInt8) {
        literal.append(b)
        if keepsValueText { valueText.append(b) }
    }

    private mutating func endValue() throws(HTMLContextError) {
        try flush(atValueEnd: true)
        if case let .metaSelector(httpEquiv) = attributeKind {
            let decoded = CharacterReferences.decode(valueText.map(UInt32.init))
            let value = String(String.UnicodeScalarView(decoded.compactMap(Unicode.Scalar.init)))
                .trimmingASCIIWhitespace().lowercased()
            let kind: MetaKind
            if attributeHasVariable {
                kind = .dynamic
            } else if httpEquiv {
                kind = value == "refresh" ? .refresh : .plain
            } else {
                kind = HTMLContext.isURLMetaName(value) ? .url : .plain
            }
            meta = max(meta, kind)
        }
        clearAttribute()
    }

    // MARK: Boundaries (variables and sections)

    /// Called before a variable and at section tags: classifies the literal value text since
    /// the last boundary. A character reference may not be split by a boundary.
    mutating func flush(atValueEnd: Bool = false) throws(HTMLContextError) {
        guard case .attributeValue = state, !literal.isEmpty else { return }
        if !atValueEnd && CharacterReferences.endsInsideReference(literal) {
            throw HTMLContextError(
                message: "a variable or section right after '&' in attribute '\(attributeName)' could complete a character reference",
                fix: "write '&amp;' for a literal ampersand")
        }
        switch attributeKind {
        case .url, .srcset:
            url = try advanceURL(url, CharacterReferences.decode(literal.map(UInt32.init)))
        case .refresh:
            if url.contains(.refreshDelay) {
                let decoded = CharacterReferences.decode(valueText.map(UInt32.init))
                if let rest = HTMLContext.refreshURLStart(decoded) {
                    valueText = []
                    url = try advanceURL(.start, rest)
                }
            } else {
                url = try advanceURL(url, CharacterReferences.decode(literal.map(UInt32.init)))
            }
        default:
            break
        }
        literal = []
    }

    private func advanceURL(_ parts: URLParts, _ scalars: [UInt32]) throws(HTMLContextError) -> URLParts {
        var parts = parts
        let isSrcset = attributeKind == .srcset
        let isRefresh = attributeKind == .refresh
        for c in scalars {
            if c == 0x09 || c == 0x0A || c == 0x0D { continue }  // removed by URL parsers
            if isSrcset && c == 0x2C {
                parts = .start
                continue
            }
            let isSchemeChar = SafeURL.isASCIIAlpha(c) || (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2D || c == 0x2E
            let isQueryStart = c == 0x3F || c == 0x23
            var next: URLParts = []
            if parts.contains(.start) {
                if c <= 0x20 || (isRefresh && (c == 0x22 || c == 0x27)) {
                    next.insert(.start)
                } else if SafeURL.isASCIIAlpha(c) {
                    next.insert(.schemeLiteral)
                } else {
                    next.insert(isQueryStart ? .query : .path)
                }
            }
            if parts.contains(.schemeLiteral) {
                next.insert(isSchemeChar ? .schemeLiteral : isQueryStart ? .query : .path)
            }
            if parts.contains(.schemeVariable) {
                if c == 0x3A {
                    throw HTMLContextError(
                        message: "':' right after a variable in attribute '\(attributeName)' would let the variable choose the URL's scheme",
                        fix: "put the whole URL, scheme included, in one variable (a SafeURL or a validated string)")
                }
                next.insert(isSchemeChar ? .schemeVariable : isQueryStart ? .query : .path)
            }
            if parts.contains(.path) { next.insert(isQueryStart ? .query : .path) }
            if parts.contains(.query) { next.insert(.query) }
            if parts.contains(.refreshDelay) { next.insert(.refreshDelay) }
            parts = next
        }
        return parts
    }

    /// Where the URL starts in a refresh `content` value (`5; url=…`, `0;URL='…'`, `3, …`):
    /// the text after the delay, separator and `url=`, or nil while that is not settled yet.
    static func refreshURLStart(_ s: [UInt32]) -> [UInt32]? {
        func isSpace(_ c: UInt32) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D }
        var i = 0
        while i < s.count, isSpace(s[i]) { i += 1 }
        let delayStart = i
        while i < s.count, (s[i] >= 0x30 && s[i] <= 0x39) || s[i] == 0x2E { i += 1 }
        guard i > delayStart else { return nil }
        let delayEnd = i
        while i < s.count, isSpace(s[i]) { i += 1 }
        if i < s.count, s[i] == 0x3B || s[i] == 0x2C { i += 1 }
        while i < s.count, isSpace(s[i]) { i += 1 }
        guard i > delayEnd else { return nil }  // "0x": not a refresh value, or not finished
        let rest = Array(s[i...])
        let lowered = rest.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        let u: UInt32 = 0x75, r: UInt32 = 0x72, l: UInt32 = 0x6C
        if lowered.count >= 3, lowered[0] == u, lowered[1] == r, lowered[2] == l {
            var k = 3
            while k < rest.count, isSpace(rest[k]) { k += 1 }
            if k == rest.count { return nil }  // "url " — the '=' may still come
            if rest[k] == 0x3D {
                k += 1
                return Array(rest[k...])
            }
            return rest
        }
        if lowered.isEmpty || lowered == [u] || lowered == [u, r] { return lowered.isEmpty ? [] : nil }
        return rest
    }

    /// The escaping for a variable here, or why no variable may go here; updates the URL state.
    mutating func variable(raw: Bool) throws(HTMLContextError) -> Escaping {
        switch state {
        case .text:
            return raw ? .htmlAllowingTrusted : .html
        case let .raw(kind, endMatch, _):
            switch kind {
            case .rcdata:
                if endMatch > 0 {
                    throw HTMLContextError(
                        message: "a variable right after '\(String(decoding: ([0x3C, 0x2F] + element).prefix(endMatch), as: UTF8.self))' could close <\(elementName)>",
                        fix: "put a space or other text between them")
                }
                return .html
            case .script:
                throw HTMLContextError(
                    message: "variables are not allowed inside <script>", fix: "pass data through a data-* attribute")
            case .style:
                throw HTMLContextError(
                    message: "variables are not allowed inside <style>", fix: "choose between literal class names with a section")
            case .rawtext, .plaintext:
                throw HTMLContextError(
                    message: "variables are not allowed inside <\(elementName)>", fix: "move the value outside the element")
            }
        case .tagOpen, .endTagOpen, .tagName:
            throw HTMLContextError(
                message: "a variable cannot write a tag name", fix: "write the tag literally and choose between tags with sections")
        case .markupDeclarationOpen, .commentStart, .commentStartDash, .comment, .commentEndBang, .bogusComment:
            throw HTMLContextError(
                message: "variables are not allowed inside HTML comments or declarations",
                fix: "use a Mustache comment, or move the value outside the comment")
        case .beforeAttributeName, .attributeName, .afterAttributeName:
            throw HTMLContextError(
                message: "a variable cannot write attribute names or whole attributes in <\(elementName)>",
                fix: "write the attribute literally, e.g. {{#checked}}checked{{/checked}} or name=\"{{value}}\"")
        case .beforeAttributeValue:
            throw HTMLContextError(
                message: "unquoted attribute value: the variable in attribute '\(attributeName)' of <\(elementName)> is not in quotes",
                fix: "quote the value: \(attributeName)=\"{{…}}\"")
        case let .attributeValue(quote):
            if quote == 0 {
                throw HTMLContextError(
                    message: "unquoted attribute value: the variable in attribute '\(attributeName)' of <\(elementName)> is not in quotes",
                    fix: "quote the whole value: \(attributeName)=\"…\"")
            }
            try flush()
            return try attributeVariable()
        }
    }

    private mutating func attributeVariable() throws(HTMLContextError) -> Escaping {
        switch attributeKind {
        case .plain:
            return .html
        case .metaSelector:
            attributeHasVariable = true
            return .html
        case .eventHandler:
            throw HTMLContextError(
                message: "variables are not allowed in the event-handler attribute '\(attributeName)'",
                fix: "pass data through a data-* attribute and read it from a script")
        case .style:
            throw HTMLContextError(
                message: "variables are not allowed in a style attribute", fix: "choose between literal class names with a section")
        case .svgAnimation:
            throw HTMLContextError(
                message: "variables are not allowed in the SVG animation attribute '\(attributeName)' of <\(elementName)>",
                fix: "animate to literal values only")
        case .srcdoc:
            throw HTMLContextError(
                message: "variables are not allowed in a srcdoc attribute", fix: "point the iframe's src at a page instead")
        case .metaContentOfUnknownKind:
            throw HTMLContextError(
                message: "the kind of this <meta> content is unknown when its variable is reached",
                fix: "write property=, name= or http-equiv= literally before content= in the <meta> tag")
        case .url, .srcset, .refresh:
            if url.contains(.refreshDelay) {
                throw HTMLContextError(
                    message: "a variable in the delay part of a refresh <meta>",
                    fix: "write the delay and 'url=' literally: content=\"0; url={{url}}\"")
            }
            if url.contains(.schemeVariable) {
                throw HTMLContextError(
                    message: "a variable in attribute '\(attributeName)' right after another one could extend the URL's scheme",
                    fix: "put the whole URL in one variable (a SafeURL), or separate the variables with '/', '?' or '#'")
            }
            if url.contains(.schemeLiteral) {
                throw HTMLContextError(
                    message: "a variable in attribute '\(attributeName)' right after text that could still be a URL scheme",
                    fix: "put the whole URL in one variable, or write the literal part up to ':' or '/' before the variable")
            }
            if url.contains(.start) {
                url.remove(.start)
                url.insert(.schemeVariable)
                return .urlWhole
            }
            return url == .query ? .urlQuery : .urlPath
        }
    }

    // MARK: Sections

    /// The context after a section that may or may not have run: `a` and `b` joined, or nil
    /// when they differ in a way no single escaping decision covers.
    static func join(_ a: HTMLContext, _ b: HTMLContext) -> HTMLContext? {
        if a == b { return a }
        guard a.element == b.element, a.isEndTag == b.isEndTag, a.meta == b.meta else { return nil }
        func between(_ s: State) -> Int? {
            switch s {
            case let .beforeAttributeName(ambiguity): return ambiguity
            case .afterAttributeName: return 1
            case .attributeName: return 2
            default: return nil
            }
        }
        if let ra = between(a.state), let rb = between(b.state) {
            var c = a
            c.clearAttribute()
            c.state = .beforeAttributeName(ambiguity: max(1, ra, rb))
            return c
        }
        if case let .attributeValue(qa) = a.state, case let .attributeValue(qb) = b.state, qa == qb,
            a.attribute == b.attribute, a.attributeKind == b.attributeKind, a.literal.isEmpty, b.literal.isEmpty,
            a.valueText == b.valueText
        {
            var c = a
            c.url = a.url.union(b.url)
            c.attributeHasVariable = a.attributeHasVariable || b.attributeHasVariable
            return c
        }
        return nil
    }

    /// For messages: "HTML text", "the value of attribute 'href' in <a>", …
    var description: String {
        switch state {
        case .text: return "HTML text"
        case let .raw(kind, _, _):
            return kind == .rcdata ? "the text of <\(elementName)>" : "the content of <\(elementName)>"
        case .tagOpen, .endTagOpen: return "a tag's opening '<'"
        case .markupDeclarationOpen, .commentStart, .commentStartDash, .comment, .commentEndBang, .bogusComment:
            return "an HTML comment or declaration"
        case .tagName: return "the name of <\(elementName)>"
        case .beforeAttributeName, .afterAttributeName, .beforeAttributeValue:
            return "the \(isEndTag ? "</" : "<")\(elementName)> tag"
        case .attributeName: return "the name of attribute '\(attributeName)' in <\(elementName)>"
        case let .attributeValue(quote):
            return "the \(quote == 0 ? "unquoted " : "")value of attribute '\(attributeName)' in <\(elementName)>"
        }
    }

    // MARK: Attribute kinds

    static let urlAttributes: Set<String> = [
        "action", "archive", "background", "cite", "classid", "codebase", "data", "formaction", "href", "icon",
        "longdesc", "manifest", "ping", "poster", "profile", "src", "usemap", "xmlns", "xlink:href", "lowsrc",
        "dynsrc", "itemtype", "itemid",
    ]

    static let svgAnimationElements: Set<String> = [
        "animate", "set", "animatemotion", "animatetransform", "animatecolor", "discard",
    ]
    static let svgAnimationAttributes: Set<String> = ["values", "to", "from", "by", "attributename"]

    static let urlMetaNames: Set<String> = [
        "og:url", "og:image", "og:image:url", "og:image:secure_url", "og:video", "og:video:url",
        "og:video:secure_url", "og:audio", "og:audio:url", "og:audio:secure_url", "twitter:image",
        "twitter:image:src", "twitter:url", "twitter:player", "twitter:player:stream", "twitter:app:url:iphone",
        "twitter:app:url:ipad", "twitter:app:url:googleplay", "url", "image", "thumbnailurl", "msapplication-tileimage",
        "msapplication-starturl",
    ]

    static func isURLMetaName(_ name: String) -> Bool {
        if urlMetaNames.contains(name) { return true }
        if name.hasPrefix("al:") && name.hasSuffix(":url") { return true }
        return name.hasSuffix(":url") || name.hasSuffix(":secure_url")
    }

    static func kind(ofAttribute name: String, element: String, meta: MetaKind) -> AttributeKind {
        if name.hasPrefix("on") { return .eventHandler }
        if name == "style" { return .style }
        if name == "srcdoc" { return .srcdoc }
        if svgAnimationElements.contains(element) && svgAnimationAttributes.contains(name) { return .svgAnimation }
        if element == "meta" {
            switch name {
            case "content":
                switch meta {
                case .unknown, .dynamic: return .metaContentOfUnknownKind
                case .plain: return .plain
                case .url: return .url
                case .refresh: return .refresh
                }
            case "property", "name", "itemprop": return .metaSelector(httpEquiv: false)
            case "http-equiv": return .metaSelector(httpEquiv: true)
            default: break
            }
        }
        if urlAttributes.contains(name) { return .url }
        if name == "srcset" || name == "imagesrcset" { return .srcset }
        return .plain
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
