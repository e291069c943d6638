/// How a template escapes what it interpolates.
public enum TemplateMode: Sendable, Equatable {
    /// Exactly the Mustache specification: `{{x}}` is HTML-escaped, `{{{x}}}` is not.
    case spec
    /// Contextual escaping for HTML pages (what Linkwell's landing pages use): every variable is
    /// escaped for where it lands (text, attribute, URL), and variables where no escaping is safe
    /// (script, style, event handlers, unquoted attributes) are compile errors. A plain string
    /// in a URL attribute must be relative or use `http`, `https` or one of `allowedSchemes`.
    case html(allowedSchemes: Set<String>)

    /// `.html` with only `http` and `https` allowed in URL attributes.
    public static var html: TemplateMode { .html(allowedSchemes: []) }
}

/// A compiled Mustache template: parsed once into an immutable tree, rendered as a pure function
/// of (template, context value). Partials are compiled with it, in the same mode.
public struct Template: Sendable {
    public let name: String
    public let mode: TemplateMode
    /// Partials the template includes that were not supplied; they render empty (as the spec
    /// says), and `linkwell validate` can report them.
    public let missingPartials: Set<String>
    let program: Program

    /// Compiles `source`. `partials` maps names to sources; only those the template (directly or
    /// through other partials) includes are compiled.
    public init(
        name: String, source: String, mode: TemplateMode = .html(allowedSchemes: []),
        partials: [String: String] = [:]
    ) throws(TemplateError) {
        var compiler = TemplateCompiler(mode: mode, partialSources: partials)
        let main = try compiler.compileMain(TemplateSource(name: name, bytes: Array(source.utf8)))
        try compiler.compilePendingPartials()
        self.name = name
        self.mode = mode
        self.missingPartials = compiler.missing
        self.program = Program.assemble(
            main: main, partials: compiler.partials, allowedSchemes: compiler.allowedSchemes)
    }

    /// Renders the template with `context` as the root of the context stack.
    public func render(_ context: TemplateValue) -> String {
        String(decoding: renderBytes(context), as: UTF8.self)
    }

    /// The rendered bytes (UTF-8), for a response body.
    public func renderBytes(_ context: TemplateValue, limits: RenderLimits = .standard) -> [UInt8] {
        var out: [UInt8] = []
        render(context, into: &out, limits: limits)
        return out
    }

    /// The standard limits' values (`RenderLimits.standard`): 4 MiB and 1,000,000 instructions.
    public static let maximumOutputBytes = RenderLimits.standard.outputBytes
    public static let maximumSteps = RenderLimits.standard.steps

    /// The rendered bytes, and whether a limit cut them.
    public func renderChecked(_ context: TemplateValue, limits: RenderLimits = .standard) -> (bytes: [UInt8], cut: Bool) {
        var out: [UInt8] = []
        let cut = render(context, into: &out, limits: limits)
        return (out, cut)
    }

    /// Appends the rendering to `buffer`; returns true when a limit (`limits`) cut it.
    @discardableResult
    public func render(_ context: TemplateValue, into buffer: inout [UInt8], limits: RenderLimits = .standard) -> Bool {
        var cut = false
        buffer.reserveCapacity(buffer.count + program.sizeHint)
        program.code.withUnsafeBufferPointer { code in
            program.text.withUnsafeBufferPointer { text in
                program.keys.withUnsafeBufferPointer { keys in
                    var renderer = Renderer(
                        code: code, text: text, keys: keys, indents: program.indents,
                        allowedSchemes: program.allowedSchemes, root: context, out: buffer, limits: limits)
                    buffer = []
                    renderer.run(0, program.mainEnd, indent: [])
                    buffer = renderer.out
                    cut = renderer.cut
                }
            }
        }
        return cut
    }
}

/// How much one rendering may write and execute; a rendering that reaches either limit stops
/// there and its output is cut (`Template.renderChecked` reports it).
public struct RenderLimits: Sendable, Equatable {
    /// Bytes written, plus at most the one value or text run being written when it was reached.
    public var outputBytes: Int
    /// Instructions executed (sections, values, text runs, partials).
    public var steps: Int

    public init(outputBytes: Int, steps: Int) {
        self.outputBytes = outputBytes
        self.steps = steps
    }

    /// What every page gets: 4 MiB and 1,000,000 instructions. A landing page is ~10 KB and a few
    /// thousand instructions: only a template that includes itself or nests sections over long
    /// lists gets near them. (The bound on partial expansions, 10,000, applies whatever the limits.)
    public static let standard = RenderLimits(outputBytes: 4 << 20, steps: 1_000_000)
}

/// The tree the compiler builds; `Program.assemble` flattens it for rendering.
indirect enum Node: Sendable {
    case text([UInt8])
    case lineStart
    case variable([String], Escaping)
    case section([String], [Node])
    case invertedSection([String], [Node])
    /// A section that runs at most once (HTML mode, where a second pass would be unsafe).
    case conditionalSection([String], [Node])
    case partial(Int, indent: [UInt8])
}
