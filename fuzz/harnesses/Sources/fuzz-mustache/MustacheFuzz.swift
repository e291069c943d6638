// The Mustache engine on arbitrary templates and values, in both modes (the spec's, and the
// contextual HTML escaping of the landing pages). Input: `template \0 partial \0 json-value`;
// the partial is available as `{{>p}}` (and may include itself). Properties: a template that
// compiles renders any value; rendering is deterministic (checked for one input in 8, chosen by a
// hash of its bytes: a second rendering doubles the cost of an execution, and inputs whose partial
// includes itself render up to 10,000 expansions); in HTML mode a plain string value never
// reaches the page as markup (no `<` from the value survives unescaped). Renderings use limits of
// 64 KiB and 20,000 instructions instead of the pages' 4 MiB and 1,000,000: the bytes and steps
// past them run the same code and the cut is the same branch, but at the standard limits the
// corpus filled with inputs that reach them (~80 ms an execution under ASan, the rate falling to
// ~470 executions a second of a core).
import FuzzSupport
import LandingPages
import LinkwellJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMustache(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count <= 16 * 1024 else { return -1 }
    let (templateBytes, rest) = splitOnce(bytes)
    let (partialBytes, valueBytes) = splitOnce(rest)
    let source = text(templateBytes)
    let partials = ["p": text(partialBytes)]
    let value: TemplateValue = (try? JSONValue.parse(valueBytes)).map(TemplateValue.init(json:)) ?? .string(text(valueBytes))
    let checkDeterminism = sampled(bytes, oneIn: 8)
    let limits = RenderLimits(outputBytes: 64 << 10, steps: 20_000)
    for mode in [TemplateMode.spec, .html(allowedSchemes: ["myapp"])] {
        guard let template = try? Template(name: "fuzz", source: source, mode: mode, partials: partials) else { continue }
        let first = template.renderBytes(value, limits: limits)
        if checkDeterminism { fuzzCheck(first == template.renderBytes(value, limits: limits), "rendering is not deterministic") }
        if mode != .spec, !templateBytes.contains(UInt8(ascii: "<")), !partialBytes.contains(UInt8(ascii: "<")) {
            // Nothing in the template writes markup, so any '<' would come from a value. (Bytes,
            // not Characters: "<" followed by a combining mark is one Character.)
            fuzzCheck(!first.contains(UInt8(ascii: "<")), "HTML mode let a value's '<' through: \(text(first).debugDescription)")
        }
    }
    return 0
}
