/// HTML that the server vouches for: escaped text, markup written in the server's own source,
/// or the output of a template rendered in `.html` mode. In `.html` mode a `{{{x}}}` or
/// `{{& x}}` tag emits a value unescaped only when it is a `TrustedHTML`, and only in HTML text.
public struct TrustedHTML: Sendable, Hashable, CustomStringConvertible {
    public let html: String

    /// Plain text, escaped.
    public init(escaping text: String) { html = HTMLEscaping.text(text) }

    /// Markup written in the program's source; a `StaticString` cannot carry request data.
    public init(literal: StaticString) { html = literal.description }

    /// Markup from a source the package vouches for (its own files, an `.html`-mode render).
    package init(uncheckedHTML html: String) { self.html = html }

    public var description: String { html }

    public static func + (lhs: TrustedHTML, rhs: TrustedHTML) -> TrustedHTML {
        TrustedHTML(uncheckedHTML: lhs.html + rhs.html)
    }
}
