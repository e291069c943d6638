import Foundation
import Testing

@testable import PlatformMatchers
import LinkwellJSON

/// One vector of `aasa-cases.json` (the st-tech simulator's answers) or `aasa-observed.json`
/// (Apple's documented examples and behaviour observed with `swcutil`).
struct AASAConformanceCase: Sendable, CustomTestStringConvertible {
    var file: String
    var name: String
    var aasa: JSONValue
    var url: String
    var expect: [String: AppleVerdict]
    /// Set when the file itself could not be read; the test then fails with this message.
    var loadError: String?

    var testDescription: String { loadError == nil ? name : "\(file): cannot load" }

    /// Every case of a fixture file, or one failing case that says why the file could not be read
    /// (argument lists cannot throw, and a silently empty list would pass).
    static func load(_ file: String) -> [AASAConformanceCase] {
        func failure(_ message: String) -> [AASAConformanceCase] {
            [AASAConformanceCase(file: file, name: file, aasa: .null, url: "", expect: [:], loadError: message)]
        }
        guard let url = Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Fixtures/conformance") else {
            return failure("Fixtures/conformance/\(file).json is not in the test bundle")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(Array(try Data(contentsOf: url)))
        } catch {
            return failure("\(file).json: \(error)")
        }
        guard let cases = document["cases"]?.arrayValue, !cases.isEmpty else {
            return failure("\(file).json has no \"cases\" array")
        }
        var result: [AASAConformanceCase] = []
        for (index, item) in cases.enumerated() {
            guard let name = item["name"]?.stringValue, let aasa = item["aasa"], let target = item["url"]?.stringValue,
                let expectMembers = item["expect"]?.objectValue
            else {
                return failure("\(file).json case \(index) lacks name, aasa, url or expect")
            }
            var expect: [String: AppleVerdict] = [:]
            for member in expectMembers {
                guard let raw = member.value.stringValue, let verdict = AppleVerdict(rawValue: raw) else {
                    return failure("\(file).json case \"\(name)\": expect[\(member.key)] is not \"match\" or \"block\"")
                }
                expect[member.key] = verdict
            }
            result.append(AASAConformanceCase(file: file, name: name, aasa: aasa, url: target, expect: expect))
        }
        return result
    }

    func check() throws {
        if let loadError {
            Issue.record(Comment(rawValue: loadError))
            return
        }
        let matcher = try AppleMatcher(aasa: aasa)
        let verdicts = matcher.verdicts(for: url)
        #expect(verdicts == expect, "\(file): \(name) — \(url)")
        // The decisions agree with the verdicts and point at real rules.
        for decision in matcher.decisions(for: url) {
            #expect(decision.detailsIndex >= 0 && decision.componentIndex >= 0 && !decision.rule.isEmpty)
        }
    }
}

@Suite("AppleMatcher conformance")
struct AppleMatcherConformanceTests {
    static let simulatorCases = AASAConformanceCase.load("aasa-cases")
    static let observedCases = AASAConformanceCase.load("aasa-observed")

    @Test("aasa-cases.json (st-tech simulator)", arguments: simulatorCases)
    func simulatorCase(_ testCase: AASAConformanceCase) throws {
        try testCase.check()
    }

    @Test("aasa-observed.json (documented and swcutil-observed)", arguments: observedCases)
    func observedCase(_ testCase: AASAConformanceCase) throws {
        try testCase.check()
    }

    @Test("every vector is loaded")
    func counts() {
        #expect(Self.simulatorCases.count == 77 && Self.simulatorCases.allSatisfy { $0.loadError == nil })
        #expect(Self.observedCases.count == 35 && Self.observedCases.allSatisfy { $0.loadError == nil })
    }

    // MARK: The fixtures are copies of shared/conformance

    /// `shared/conformance` beside the package (as in the main checkout and in CI), or one level
    /// further up (a worktree under `wt/`); `nil` when neither exists.
    static let sharedConformanceDirectory: URL? = {
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // LinkRoutingTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        let candidates = [
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance"),
            packageRoot.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/conformance"),
        ]
        return candidates.first { candidate in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }()

    @Test(
        "Fixtures/conformance equals shared/conformance",
        .enabled(
            if: sharedConformanceDirectory != nil,
            "shared/conformance is not beside this checkout, so there is nothing to compare the fixture copies with"))
    func fixturesMatchShared() throws {
        let shared = try #require(Self.sharedConformanceDirectory)
        let fixtures = try #require(Bundle.module.url(forResource: "conformance", withExtension: nil, subdirectory: "Fixtures"))
        let sharedNames = try FileManager.default.contentsOfDirectory(atPath: shared.path).filter { !$0.hasPrefix(".") }.sorted()
        let fixtureNames = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(fixtureNames == sharedNames, "the fixture directory lists other files than \(shared.path)")
        for name in sharedNames {
            let original = try Data(contentsOf: shared.appendingPathComponent(name))
            let copy = try? Data(contentsOf: fixtures.appendingPathComponent(name))
            #expect(copy == original, "Tests/PlatformMatchersTests/Fixtures/conformance/\(name) differs from \(shared.path)/\(name); copy it again")
        }
    }
}
