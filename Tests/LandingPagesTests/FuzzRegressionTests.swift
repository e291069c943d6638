// Inputs the fuzzers (fuzz/harnesses, docs/dev/fuzzing.md) found hanging or crashing, kept as tests.

import Foundation
import LinkwellJSON
import Testing
@testable import LandingPages

@Suite("Fuzz regressions: Mustache")
struct MustacheFuzzRegressionTests {
    /// fuzz-mustache timeout-444c1d1e: `template \0 partial \0 value`; the partial `p` includes
    /// itself twice, which expanded 2^64 times under the depth bound alone.
    static let timeoutInput = Array(Data(base64Encoded: "fCBUaGlzIjxmb290QD18DQp7ez5wfX0NCnwADw8PDw8PD3wNCnt7PnB9fQ1vb3RAPXwNCnt7PnB9fQ0KfAAPDw8PDw8PfA0Ke3s+cH19CnwADw8PDw8PDw8PDw+PDw8PDw8gSXMKICB7eyNib29sZWHh4eHh4eHh4evh4eHh4eHh4eHh4eHh4eHh4eHh1+Hh4eHh4eHh4eHh4eHh4eF7fQ==")!)

    @Test("a partial that includes itself twice stops after the expansion budget", arguments: [TemplateMode.spec, .html])
    func doublyRecursivePartial(mode: TemplateMode) throws {
        let template = try Template(name: "t", source: "{{>a}}", mode: mode, partials: ["a": "x{{>a}}{{>a}}"])
        #expect(template.render([:]) == String(repeating: "x", count: Renderer.maximumPartialExpansions))
    }

    /// (In HTML mode this template does not compile: its partial sits inside a tag.)
    @Test("the fuzzer's input renders in spec mode, bounded by the budget")
    func fuzzerInput() throws {
        let parts = Self.timeoutInput.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        let source = String(decoding: parts[0], as: UTF8.self), partial = String(decoding: parts[1], as: UTF8.self)
        let value = (try? JSONValue.parse(Array(parts[2]))).map(TemplateValue.init(json:)) ?? .string(String(decoding: parts[2], as: UTF8.self))
        let template = try Template(name: "fuzz", source: source, mode: .spec, partials: ["p": partial])
        let bytes = template.renderBytes(value)
        #expect(bytes.count <= source.utf8.count + Renderer.maximumPartialExpansions * (partial.utf8.count + 8))
        #expect(bytes.count > Renderer.maximumPartialExpansions)
    }

    @Test("data-driven recursion over a tree still renders every node")
    func treeRecursion() throws {
        func node(_ depth: Int) -> TemplateValue {
            depth == 0 ? ["name": "leaf", "kids": []] : ["name": .string("n\(depth)"), "kids": [node(depth - 1), node(depth - 1)]]
        }
        let template = try Template(name: "t", source: "{{>n}}", mode: .spec, partials: ["n": "{{name}};{{#kids}}{{>n}}{{/kids}}"])
        let rendered = template.render(node(10))
        #expect(rendered.split(separator: ";").count == (1 << 11) - 1)
    }

    /// The expansion budget bounds expansions, not bytes: 10,000 expansions of a 2 KB value wrote
    /// ~20 MB per execution (what slowed fuzz-mustache's long run to ~500 executions a second).
    @Test("a self-including partial with a long value stops at the output limit", arguments: [TemplateMode.spec, .html])
    func outputLimit(mode: TemplateMode) throws {
        let value = String(repeating: "v", count: 2_000)
        let template = try Template(name: "t", source: "{{>a}}", mode: mode, partials: ["a": "{{v}}{{>a}}{{>a}}"])
        let (bytes, cut) = template.renderChecked(["v": .string(value)])
        #expect(cut)
        #expect(bytes.count > Template.maximumOutputBytes)
        #expect(bytes.count <= Template.maximumOutputBytes + value.utf8.count)
        #expect(bytes.allSatisfy { $0 == UInt8(ascii: "v") })
    }

    @Test("sections nested over one long list stop at the limits, with and without output")
    func nestedListSections() throws {
        let items = TemplateValue.list(Array(repeating: .bool(true), count: 1_000))
        // 10^9 bytes without a limit.
        let writing = try Template(name: "t", source: "{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}", mode: .spec)
        let (bytes, cut) = writing.renderChecked(["a": items])
        #expect(cut)
        #expect(bytes.count > 100_000 && bytes.count <= Template.maximumOutputBytes + 1)
        #expect(bytes.allSatisfy { $0 == UInt8(ascii: "x") })
        // Nothing written, 10^9 iterations without the step limit.
        let silent = try Template(name: "t", source: "{{#a}}{{#a}}{{#a}}{{^a}}x{{/a}}{{/a}}{{/a}}{{/a}}", mode: .spec)
        let (none, cutSilent) = silent.renderChecked(["a": items])
        #expect(cutSilent)
        #expect(none.isEmpty)
    }

    /// fuzz-mustache renders with smaller limits (64 KiB, 20,000 instructions): bytes past them run
    /// the same code, and near the standard 4 MiB an execution cost ~80 ms under ASan.
    @Test("a caller's limits cut where it says, in bytes and in instructions", arguments: [TemplateMode.spec, .html])
    func callerLimits(mode: TemplateMode) throws {
        let limits = RenderLimits(outputBytes: 64 << 10, steps: 20_000)
        let value = String(repeating: "v", count: 500)
        let recursive = try Template(name: "t", source: "{{>a}}", mode: mode, partials: ["a": "{{v}}{{>a}}{{>a}}"])
        let (bytes, cut) = recursive.renderChecked(["v": .string(value)], limits: limits)
        #expect(cut)
        #expect(bytes.count > limits.outputBytes && bytes.count <= limits.outputBytes + value.utf8.count)
        // The same rendering under the standard limits goes on to 4 MiB.
        #expect(recursive.renderBytes(["v": .string(value)]).count > Template.maximumOutputBytes)
        let silent = try Template(name: "t", source: "{{#a}}{{#a}}{{^a}}x{{/a}}{{/a}}{{/a}}", mode: mode)
        let items = TemplateValue.list(Array(repeating: .bool(true), count: 300))
        let (none, cutSilent) = silent.renderChecked(["a": items], limits: limits)
        #expect(cutSilent && none.isEmpty)
        // 90,000 iterations: under the standard step limit, not cut.
        #expect(!silent.renderChecked(["a": items]).cut)
        var buffer = Array("head".utf8)
        #expect(recursive.render(["v": .string(value)], into: &buffer, limits: limits))
        #expect(buffer.starts(with: Array("head".utf8)) && buffer.count <= 4 + limits.outputBytes + value.utf8.count)
    }

    @Test("a real page is far below the limits")
    func realPageIsNotCut() throws {
        let template = try Template(name: "t", source: "<ul>{{#a}}<li>{{n}}</li>{{/a}}</ul>", mode: .html)
        let items = TemplateValue.list((0..<2_000).map { ["n": .string("item \($0)")] })
        let (bytes, cut) = template.renderChecked(["a": items])
        #expect(!cut)
        #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "<li>").count == 2_001)
    }
}
