/// Why a template does not compile: where (template or partial name, line, column, counted in
/// Unicode scalars from 1), what, and how to fix it.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    public var templateName: String
    public var line: Int
    public var column: Int
    public var message: String
    public var fix: String

    /// `landing.html:12:5: variables are not allowed inside <script>; pass data through a data-* attribute`
    public var description: String {
        "\(templateName):\(line):\(column): \(message)" + (fix.isEmpty ? "" : "; \(fix)")
    }
}

/// A template's source with the means to turn byte offsets into line and column.
struct TemplateSource: Sendable {
    let name: String
    let bytes: [UInt8]

    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    func error(at offset: Int, _ message: String, fix: String) -> TemplateError {
        let (line, column) = position(of: offset)
        return TemplateError(templateName: name, line: line, column: column, message: message, fix: fix)
    }
}
