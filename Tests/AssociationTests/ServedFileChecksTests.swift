// The offline checks doctor and the console share, on good and on broken association files.

import Foundation
import LinkRouting
import Testing

@testable import Association

@Suite struct ServedFileChecksTests {
    static func fitconnect() throws -> (RouteTable, GeneratedSite) {
        let table = try GoldenFileTests.table("fitconnect")
        return (table, GeneratedSite(table.sites[0]))
    }

    @Test func theGeneratedFilesPassAndEveryRouteIsClaimed() throws {
        let (table, site) = try Self.fitconnect()
        let aasa = ServedFileChecks.file(label: "fitconnect.app", name: "aasa", kind: .aasa, body: site.aasa, site: site.compiled)
        let links = ServedFileChecks.file(label: "fitconnect.app", name: "assetlinks", kind: .assetlinks, body: site.assetLinks, site: site.compiled)
        #expect(aasa.usable && links.usable)
        #expect((aasa.checks + links.checks).allSatisfy { $0.result == .pass })
        let routes = ServedFileChecks.routes(label: "fitconnect.app", host: "fitconnect.app", site: site.compiled, table: table,
                                             aasa: site.aasa, assetLinks: site.assetLinks)
        #expect(routes.count == site.compiled.routes.compactMap(\.route).count && routes.allSatisfy { $0.result == .pass })
    }

    @Test func brokenFilesFailWithAFix() throws {
        let (table, site) = try Self.fitconnect()
        let bom = ServedFileChecks.file(label: "h", name: "aasa", kind: .aasa, body: [0xEF, 0xBB, 0xBF] + site.aasa, site: site.compiled)
        #expect(!bom.usable && bom.checks.last?.result == .fail && bom.checks.last?.fix != nil)
        let html = ServedFileChecks.file(label: "h", name: "assetlinks", kind: .assetlinks, body: Array("<html>".utf8), site: site.compiled)
        #expect(!html.usable && html.checks.last?.what.contains("not strict JSON") == true)
        // An AASA for another app: iOS reads it, but our app is not listed and no route opens it.
        let other = Array(#"{"applinks":{"details":[{"appIDs":["AAAAAAAAAA.other.app"],"components":[{"/":"/*"}]}]}}"#.utf8)
        let checks = ServedFileChecks.file(label: "h", name: "aasa", kind: .aasa, body: other, site: site.compiled)
        #expect(checks.usable && checks.checks.contains { $0.result == .fail && $0.what.contains("does not list FC8T2N4Q7Z.com.fitconnect.app") })
        let routes = ServedFileChecks.routes(label: "h", host: "fitconnect.app", site: site.compiled, table: table, aasa: other, assetLinks: nil)
        #expect(!routes.isEmpty && routes.allSatisfy { $0.result == .fail && $0.what.contains("iOS FC8T2N4Q7Z.com.fitconnect.app") })
    }
}
