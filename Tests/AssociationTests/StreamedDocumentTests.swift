// The generators write the association files straight to bytes, each object's keys in the
// serialiser's order. The oracle: the same document built as a `JSONValue` tree from the same
// plan (keys in any order) and printed by `serializedBytes(.pretty)`, which sorts them. Every
// shipped config, and one that uses each optional part of both files (legacy and combined AASA
// formats, App Clips, web credentials, activity continuation, substitution variables, query
// names out of order and non-ASCII, fragments, login credentials, web targets, an app without
// routes).

import Foundation
import Testing
@testable import Association
import LinkRouting
import LinkwellJSON

@Suite("Streamed association files")
struct StreamedDocumentTests {
    /// The AASA as a tree, members in the order a reader would list them, not the file's.
    static func referenceAASA(_ site: CompiledSite, plan: ComponentPlan) -> JSONValue {
        let format = site.config.aasa?.format ?? .modern
        var applinks: [(key: String, value: JSONValue)] = []
        let groups = AASAGenerator.appGroups(site)
        var details: [JSONValue] = []
        for group in groups where !group.entries.isEmpty {
            let includes: (CompiledEntry) -> Bool = { $0.iosAppIDs.contains(group.appIDs[0]) }
            if format != .legacy {
                let components = plan.components(for: .apple, appliesTo: includes).map { referenceComponent($0, includeComment: true) }
                details.append(.object([("components", .array(components)), ("appIDs", .array(group.appIDs.map(JSONValue.string)))]))
            }
            if format != .modern {
                let paths = AASAGenerator.legacyPaths(plan: plan, includes: includes)
                for id in group.appIDs {
                    details.append(.object([("paths", .array(paths.map(JSONValue.string))), ("appID", .string(id))]))
                }
            }
        }
        if !plan.substitutionVariables.isEmpty, format != .legacy {
            applinks.append(
                ("substitutionVariables", .object(plan.substitutionVariables.reversed().map { (key: $0.0, value: .array($0.1.map(JSONValue.string))) })))
        }
        applinks.append(("details", .array(details)))
        if format != .modern { applinks.append(("apps", .array([]))) }
        var root: [(key: String, value: JSONValue)] = [("applinks", .object(applinks))]
        let credentials = site.iosApps.filter { $0.webcredentials == true }.map(\.appID)
        if !credentials.isEmpty { root.append(("webcredentials", ["apps": .array(credentials.map(JSONValue.string))])) }
        let clips = site.iosApps.compactMap { app in app.appClipBundleID.map { "\(app.teamID).\($0)" } }
        if !clips.isEmpty { root.append(("appclips", ["apps": .array(clips.map(JSONValue.string))])) }
        let continuation = site.iosApps.filter { $0.activityContinuation == true }.map(\.appID)
        if !continuation.isEmpty { root.append(("activitycontinuation", ["apps": .array(continuation.map(JSONValue.string))])) }
        return .object(root.reversed())
    }

    static func referenceComponent(_ c: PlannedComponent, includeComment: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("/", .string(c.path))]
        if !c.query.isEmpty { members.append(("?", .object(c.query.map { (key: $0.0, value: JSONValue.string($0.1)) }))) }
        if let fragment = c.fragment { members.append(("#", .string(fragment))) }
        if c.exclude { members.append(("exclude", .bool(true))) }
        if !c.percentEncoded { members.append(("percentEncoded", .bool(false))) }
        if includeComment, let comment = c.comment { members.append(("comment", .string(comment))) }
        return .object(members.reversed())
    }

    static func referenceAssetLinks(_ site: CompiledSite, plan: ComponentPlan) -> JSONValue {
        var statements: [JSONValue] = []
        for app in site.androidApps {
            var relations: [JSONValue] = [.string(AssetLinksGenerator.handleAllURLs)]
            if app.loginCredentials == true { relations.append(.string(AssetLinksGenerator.getLoginCreds)) }
            let includes: (CompiledEntry) -> Bool = { $0.androidPackages.contains(app.package) }
            let components = plan.components(for: .android, appliesTo: includes).map { referenceComponent($0, includeComment: false) }
            let rules: [JSONValue] = components.isEmpty ? [["exclude": true, "/": "*"]] : components
            statements.append(
                .object([
                    ("target", .object([
                        ("sha256_cert_fingerprints", .array(app.fingerprints.map(JSONValue.string))),
                        ("package_name", .string(app.package)), ("namespace", "android_app"),
                    ])),
                    ("relation_extensions", .object([(key: AssetLinksGenerator.handleAllURLs, value: JSONValue.object([("dynamic_app_link_components", .array(rules))]))])),
                    ("relation", .array(relations)),
                ]))
            for web in app.webTargets ?? [] {
                statements.append(.object([
                    ("target", .object([("site", .string(web)), ("namespace", "web")])),
                    ("relation", .array([.string(AssetLinksGenerator.getLoginCreds)])),
                ]))
            }
        }
        return .array(statements)
    }

    /// Each optional part of both files, in two sites and three AASA formats.
    static let featureConfig = """
        {
          sites: [
            { name: "legacy", domains: ["legacy.example"], aasa: { format: "legacy" },
              ios: [{ id: "a", teamID: "ABCDE12345", bundleID: "com.example.a", webcredentials: true, activityContinuation: true },
                    { id: "b", teamID: "ABCDE12345", bundleID: "com.example.b", appClipBundleID: "com.example.b.Clip" }],
              android: [{ id: "droid", package: "com.example.droid", loginCredentials: true, webTargets: ["https://legacy.example", "https://www.legacy.example"],
                          fingerprints: ["38:17:17:3B:E6:4C:38:8E:0B:4F:AD:88:1E:C7:E6:B3:CF:6E:96:26:BF:19:A2:8E:1D:AA:40:34:C2:CB:D7:20"] },
                        { id: "none", package: "com.example.none",
                          fingerprints: ["38:17:17:3B:E6:4C:38:8E:0B:4F:AD:88:1E:C7:E6:B3:CF:6E:96:26:BF:19:A2:8E:1D:AA:40:34:C2:CB:D7:21"] }],
              routes: [
                { name: "post", path: "/post/{id}", apps: ["a", "droid"] },
                { exclude: "/post/x/*" },
                { name: "search", path: "/search", query: { zeta: { required: true }, alpha: { required: true }, "café": { required: true } }, apps: ["b", "droid"] },
                { name: "doc", path: "/{lang}/docs/{page}", params: { lang: { oneOf: ["en", "fr", "é"] } } },
                { name: "files", path: "/files/{path*}", apps: ["a"] },
                { name: "frag", path: "/p/{id}", fragment: "section", comment: "a \\"quoted\\" note" },
              ] },
            { name: "both", domains: ["both.example"], aasa: { format: "both" },
              ios: [{ id: "a", teamID: "ABCDE12345", bundleID: "com.example.a" }, { id: "b", teamID: "ABCDE12345", bundleID: "com.example.b" }],
              android: [{ id: "droid", package: "com.example.droid",
                          fingerprints: ["38:17:17:3B:E6:4C:38:8E:0B:4F:AD:88:1E:C7:E6:B3:CF:6E:96:26:BF:19:A2:8E:1D:AA:40:34:C2:CB:D7:20"] }],
              routes: [
                { name: "item", path: "/item-{id}.html" },
                { name: "size", path: "/shoe/{size}", params: { size: { oneOf: ["s", "m"] } }, apps: ["b"] },
                { name: "color", path: "/shirt/{color}", params: { color: { oneOf: ["red", "blue"] } } },
                { exclude: "/item-0.html", fragment: "nope" },
              ] },
            { name: "modern", domains: ["modern.example"],
              ios: [{ id: "a", teamID: "ABCDE12345", bundleID: "com.example.a" }],
              routes: [{ name: "home", path: "/" }, { name: "u", path: "/u/{user}/{path*}" }] },
          ],
        }
        """

    static func tables() throws -> [(String, RouteTable)] {
        var out: [(String, RouteTable)] = []
        for name in GoldenFileTests.configs {
            out.append((name, try GoldenFileTests.table(name)))
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-streamed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("features.json5").path
        try featureConfig.write(toFile: path, atomically: true, encoding: .utf8)
        out.append(("features", try RouteTable(config: try ConfigLoader.load(path: path).config)))
        return out
    }

    static func diff(_ expected: [UInt8], _ actual: [UInt8]) -> String {
        UnifiedDiff.firstHunk(
            expected: String(decoding: expected, as: UTF8.self), actual: String(decoding: actual, as: UTF8.self),
            expectedName: "serialised tree", actualName: "streamed") ?? ""
    }

    @Test("the streamed bytes are the sorted serialisation of the same document, for every site of every config")
    func streamedEqualsSerialised() throws {
        var sites = 0
        for (name, table) in try Self.tables() {
            for site in table.sites {
                let claims = RouteTable.claimsSite(for: site)
                let plan = ComponentPlan(site: claims)
                let aasa = AASAGenerator.bytes(for: claims, plan: plan)
                let expectedAASA = Self.referenceAASA(claims, plan: plan).serializedBytes(.pretty)
                #expect(aasa == expectedAASA, "\(name) / \(site.name): AASA\n\(Self.diff(expectedAASA, aasa))")
                let links = AssetLinksGenerator.bytes(for: claims, plan: plan)
                let expectedLinks = Self.referenceAssetLinks(claims, plan: plan).serializedBytes(.pretty)
                #expect(links == expectedLinks, "\(name) / \(site.name): assetlinks\n\(Self.diff(expectedLinks, links))")
                // The documents are the files read back.
                #expect(AASAGenerator.document(for: claims, plan: plan) == (try JSONValue.parse(expectedAASA)))
                #expect(AssetLinksGenerator.document(for: claims, plan: plan) == (try JSONValue.parse(expectedLinks)))
                sites += 1
            }
        }
        #expect(sites >= 8)
    }

    @Test("the writer lays out empty and nested containers as the serialiser does")
    func writerLayout() {
        var w = JSONPrettyWriter()
        w.beginObject()
        w.key("a")
        w.strings([])
        w.key("b")
        w.beginObject()
        w.endObject()
        w.key("c")
        w.beginArray()
        w.bool(true)
        w.beginObject()
        w.key("d\u{2028}\"")
        w.string("x/y\n")
        w.endObject()
        w.endArray()
        w.endObject()
        let tree: JSONValue = .object([
            ("a", .array([])), ("b", .object([])), ("c", .array([.bool(true), .object([("d\u{2028}\"", .string("x/y\n"))])])),
        ])
        #expect(w.finish() == tree.serializedBytes(.pretty))
        var empty = JSONPrettyWriter()
        empty.beginArray()
        empty.endArray()
        #expect(empty.finish() == JSONValue.array([]).serializedBytes(.pretty))
    }
}
