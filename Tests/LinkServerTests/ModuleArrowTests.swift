// What crosses the module walls by injection or by copy: the landing check that Association runs
// only when LinkServer hands it over, and the content hash LandingPages computes without MicroHTTP.

import Association
import LandingPages
import Testing
@testable import LinkServer
import MicroHTTP

@Suite("Module arrows")
struct ModuleArrowTests {
    @Test("the landing pages' findings reach validate through LoadedConfig.load, and only there")
    func landingCheckInjected() throws {
        let (_, report) = try ServerConfigurationTests.load(server: "")
        #expect(report.warnings.contains { $0.path == "sites[0].ios[0].appStoreID" }, "\(report.diagnostics)")
        #expect(report.warnings.contains { $0.path == "sites[0].android" }, "\(report.diagnostics)")
    }

    @Test("a generated file's name is its entity tag's value", arguments: ["", "a", "body { color: red }", String(repeating: "é", count: 300)])
    func hashIsTheEntityTag(text: String) {
        let bytes = Array(text.utf8)
        #expect("\"" + BrandStylesheet.hash(bytes) + "\"" == EntityTag.strong(for: bytes))
    }
}
