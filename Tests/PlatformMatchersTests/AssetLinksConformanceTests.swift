import Foundation
import PlatformMatchers
import Testing
import LinkwellJSON

/// One vector of `Fixtures/conformance/assetlinks-cases.json` (answers from AOSP's own
/// StatementService parser and PatternMatcher, run off-device).
struct AssetLinksCase: Sendable, CustomTestStringConvertible {
    struct Expectation: Sendable, Equatable, CustomStringConvertible {
        var parse: String
        var verified: Bool
        var handled: Bool?
        var description: String { "parse \(parse), verified \(verified), handled \(handled.map(String.init) ?? "null")" }
    }

    var name: String
    var body: [UInt8]
    var package: String
    var cert: String
    var url: String?
    var expect: Expectation
    var expectAndroid15: Expectation

    var testDescription: String { name }

    func expectation(for generation: AndroidParserGeneration) -> Expectation {
        generation == .android15 ? expectAndroid15 : expect
    }
}

enum AssetLinksFixtures {
    static let cases: [AssetLinksCase] = (try? load()) ?? []

    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    static func load() throws -> [AssetLinksCase] {
        guard
            let url = Bundle.module.url(
                forResource: "assetlinks-cases", withExtension: "json", subdirectory: "Fixtures/conformance")
        else { throw LoadError(description: "Fixtures/conformance/assetlinks-cases.json is not in the test bundle") }
        let document = try JSONValue.parse([UInt8](try Data(contentsOf: url)))
        guard let cases = document["cases"]?.arrayValue else { throw LoadError(description: "no \"cases\" array") }
        return try cases.map { c in
            guard let name = c["name"]?.stringValue, let assetlinks = c["assetlinks"],
                let package = c["package"]?.stringValue, let cert = c["cert"]?.stringValue,
                let expect = c["expect"]
            else { throw LoadError(description: "malformed case \(c.serialized(.compact))") }
            // A string is the raw body (malformed on purpose); anything else is serialised as is.
            let body: [UInt8]
            if case let .string(raw) = assetlinks {
                body = Array(raw.utf8)
            } else {
                body = Array(assetlinks.serialized(.compact, sortKeys: false).utf8)
            }
            let base = try expectation(expect, over: nil, in: name)
            let a15 = try c["expect_a15"].map { try expectation($0, over: base, in: name) } ?? base
            return AssetLinksCase(
                name: name, body: body, package: package, cert: cert, url: c["url"]?.stringValue,
                expect: base, expectAndroid15: a15)
        }
    }

    /// `expect_a15` is merged over `expect`, key by key.
    private static func expectation(
        _ value: JSONValue, over base: AssetLinksCase.Expectation?, in name: String
    ) throws -> AssetLinksCase.Expectation {
        guard let parse = value["parse"]?.stringValue ?? base?.parse,
            let verified = value["verified"]?.boolValue ?? base?.verified
        else { throw LoadError(description: "case '\(name)': incomplete expectation") }
        let handled: Bool?
        switch value["handled"] {
        case let .bool(b)?: handled = b
        case .null?: handled = nil
        case nil: handled = base?.handled
        default: throw LoadError(description: "case '\(name)': 'handled' must be a boolean or null")
        }
        return AssetLinksCase.Expectation(parse: parse, verified: verified, handled: handled)
    }
}

@Suite("AssetLinks conformance (AOSP StatementService vectors)")
struct AssetLinksConformanceTests {
    @Test("the vector file loads completely")
    func vectorsLoad() throws {
        let cases = try AssetLinksFixtures.load()
        #expect(cases.count == 39)
        #expect(Set(cases.map(\.name)).count == cases.count, "case names are unique")
        #expect(AssetLinksFixtures.cases.count == cases.count)
    }

    @Test(
        "parse, verified and handled match AOSP",
        arguments: AssetLinksFixtures.cases, AndroidParserGeneration.allCases)
    func matchesAOSP(_ c: AssetLinksCase, _ generation: AndroidParserGeneration) {
        let expected = c.expectation(for: generation)
        let actual: AssetLinksCase.Expectation
        var detail = ""
        switch AssetLinksFile.parse(c.body, generation: generation) {
        case let .failure(rejection):
            actual = .init(parse: "rejected", verified: false, handled: nil)
            detail = rejection.description
        case let .success(file):
            let verified = file.isVerified(package: c.package, certificates: [c.cert])
            var handled: Bool?
            if let url = c.url {
                let decision = file.handles(url: url, package: c.package, certificates: [c.cert])
                handled = decision?.handled ?? false
                detail = decision.map { "\($0)" } ?? "not verified"
            }
            actual = .init(parse: "ok", verified: verified, handled: handled)
            // A verified package always gets a decision; an unverified one never does.
            if let url = c.url {
                #expect((file.handles(url: url, package: c.package, certificates: [c.cert]) != nil) == verified)
            }
        }
        #expect(actual == expected, "\(generation.rawValue): \(detail)")
    }
}
