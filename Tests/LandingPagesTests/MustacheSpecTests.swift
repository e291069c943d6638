import Foundation
import LandingPages
import LinkRouting
import Testing
import LinkwellJSON

/// One test from the official Mustache spec files (mustache/spec, JSON form).
struct MustacheSpecCase: CustomTestStringConvertible, Sendable {
    let file: String
    let name: String
    let template: String
    let data: TemplateValue
    let partials: [String: String]
    let expected: String

    var testDescription: String { "\(file): \(name)" }
}

enum MustacheSpec {
    static let files = ["interpolation", "sections", "inverted", "comments", "partials", "delimiters"]

    static func load(_ file: String) throws -> [MustacheSpecCase] {
        guard
            let url = Bundle.module.url(
                forResource: file, withExtension: "json", subdirectory: "Fixtures/mustache-spec")
        else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(file).json"]) }
        let document = try JSONValue.parse(Array(try Data(contentsOf: url)))
        guard let tests = document["tests"]?.arrayValue else { return [] }
        return tests.map { test in
            var partials: [String: String] = [:]
            for member in test["partials"]?.objectValue ?? [] { partials[member.key] = member.value.stringValue ?? "" }
            return MustacheSpecCase(
                file: file,
                name: test["name"]?.stringValue ?? "?",
                template: test["template"]?.stringValue ?? "",
                data: TemplateValue(json: test["data"] ?? .null),
                partials: partials,
                expected: test["expected"]?.stringValue ?? "")
        }
    }

    static let allCases: [MustacheSpecCase] = {
        files.flatMap { file in (try? load(file)) ?? [] }
    }()
}

@Suite("Mustache spec")
struct MustacheSpecTests {
    @Test("every spec file loads and has tests", arguments: MustacheSpec.files)
    func fileLoads(_ file: String) throws {
        let cases = try MustacheSpec.load(file)
        #expect(!cases.isEmpty)
    }

    @Test("spec", arguments: MustacheSpec.allCases)
    func spec(_ test: MustacheSpecCase) throws {
        let template = try Template(name: test.name, source: test.template, mode: .spec, partials: test.partials)
        let output = template.render(test.data)
        #expect(output == test.expected, "template: \(test.template.debugDescription)")
    }
}
