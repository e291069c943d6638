// One config schema: the model's CodingKeys are the source; the unknown-key checker walks a tree
// built from them (ConfigLoader.ConfigShape), and config/linkwell.schema.json must list exactly
// the same keys at every level. These tests fail on any drift, in either direction.

import Foundation
import Testing

@testable import LinkRouting

typealias Shape = ConfigLoader.ConfigShape

/// Every difference between the key tree the model reads and a JSON Schema, as
/// `<config path>: <what differs>`; empty when they agree.
enum SchemaDrift {
    static func differences(schema: [String: Any], shape: Shape) -> [String] {
        var out: [String] = []
        compare(schema, shape, at: "(top level)", root: schema, into: &out)
        return out.sorted()
    }

    /// The node with its `$ref` (to `#/$defs/…`) followed; sibling keys such as `description` are dropped.
    static func resolve(_ node: [String: Any], root: [String: Any]) -> [String: Any] {
        guard let ref = node["$ref"] as? String, ref.hasPrefix("#/$defs/"),
            let defs = root["$defs"] as? [String: Any], let target = defs[String(ref.dropFirst("#/$defs/".count))] as? [String: Any]
        else { return node }
        return resolve(target, root: root)
    }

    static func join(_ path: String, _ key: String) -> String { path == "(top level)" ? key : "\(path).\(key)" }

    static func compare(_ raw: [String: Any], _ shape: Shape, at path: String, root: [String: Any], into out: inout [String]) {
        let node = resolve(raw, root: root)
        switch shape {
        case .any:
            if node["properties"] != nil || node["additionalProperties"] is [String: Any] {
                out.append("\(path): the model reads a plain value here, the schema describes an object with keys")
            } else if let items = node["items"] as? [String: Any], resolve(items, root: root)["properties"] != nil {
                out.append("\(path): the model reads a list of plain values here, the schema a list of objects")
            }
        case let .list(element):
            guard let items = node["items"] as? [String: Any] else {
                out.append("\(path): the model reads a list here, the schema has no \"items\"")
                return
            }
            compare(items, element, at: path + "[]", root: root, into: &out)
        case let .map(element):
            guard let values = node["additionalProperties"] as? [String: Any], node["properties"] == nil else {
                out.append("\(path): the model reads free keys here, the schema has no \"additionalProperties\" schema")
                return
            }
            compare(values, element, at: path + ".*", root: root, into: &out)
        case let .entry(route, exclusion):
            let choices = (node["oneOf"] as? [[String: Any]] ?? []).map { resolve($0, root: root) }
            let isExclusion = { (c: [String: Any]) in (c["required"] as? [String] ?? []).contains("exclude") }
            guard choices.count == 2, let e = choices.first(where: isExclusion), let r = choices.first(where: { !isExclusion($0) }) else {
                out.append("\(path): the model reads a route or an exclusion here, the schema needs \"oneOf\" [route, exclusion]")
                return
            }
            compare(r, route, at: path + "(route)", root: root, into: &out)
            compare(e, exclusion, at: path + "(exclusion)", root: root, into: &out)
        case let .object(fields):
            guard let properties = node["properties"] as? [String: Any] else {
                out.append("\(path): the model reads an object with keys here, the schema lists no \"properties\"")
                return
            }
            if node["additionalProperties"] as? Bool != false {
                out.append("\(path): the schema must say \"additionalProperties\": false, as the loader warns about unknown keys")
            }
            for key in Set(fields.keys).subtracting(properties.keys) {
                out.append("\(join(path, key)): the model reads this key, the schema does not list it")
            }
            for key in Set(properties.keys).subtracting(fields.keys) {
                out.append("\(join(path, key)): the schema lists this key, the model does not read it")
            }
            for (key, sub) in fields {
                if let property = properties[key] as? [String: Any] { compare(property, sub, at: join(path, key), root: root, into: &out) }
            }
        }
    }
}

@Suite("Config schema")
struct ConfigSchemaTests {
    static let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/linkwell.schema.json")

    static func schema() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any])
    }

    @Test("config/linkwell.schema.json lists exactly the keys the model reads")
    func shippedSchemaMatchesModel() throws {
        #expect(
            SchemaDrift.differences(schema: try Self.schema(), shape: Shape.root) == [],
            "change config/linkwell.schema.json (or the model's CodingKeys) until they list the same keys")
    }

    /// A schema edit (a JSON path into the schema, and the new value or nil to delete it) and the
    /// drift it must produce.
    struct SchemaEdit: Sendable, CustomTestStringConvertible {
        var path: [String]
        var value: String?  // JSON text
        var drift: [String]
        var testDescription: String { path.joined(separator: "/") + (value == nil ? " deleted" : " = \(value!)") }
    }

    static let edits: [SchemaEdit] = [
        SchemaEdit(path: ["properties", "server"], value: nil, drift: ["server: the model reads this key, the schema does not list it"]),
        SchemaEdit(
            path: ["properties", "extra"], value: #"{"type": "string"}"#, drift: ["extra: the schema lists this key, the model does not read it"]),
        SchemaEdit(
            path: ["$defs", "iosApp", "properties", "teamID"], value: nil,
            drift: ["sites[].ios[].teamID: the model reads this key, the schema does not list it"]),
        SchemaEdit(
            path: ["$defs", "route", "properties", "weight"], value: #"{"type": "integer"}"#,
            drift: ["sites[].routes[](route).weight: the schema lists this key, the model does not read it"]),
        SchemaEdit(
            path: ["$defs", "exclusion", "properties", "comment"], value: nil,
            drift: ["sites[].routes[](exclusion).comment: the model reads this key, the schema does not list it"]),
        SchemaEdit(
            path: ["$defs", "queryParam", "properties", "required"], value: nil,
            drift: ["sites[].routes[](route).query.*.required: the model reads this key, the schema does not list it"]),
        SchemaEdit(
            path: ["$defs", "fallback", "properties", "watch"], value: #"{"type": "string"}"#,
            drift: [
                "sites[].fallback.watch: the schema lists this key, the model does not read it",
                "sites[].routes[](route).fallback.watch: the schema lists this key, the model does not read it",
            ]),
        SchemaEdit(
            path: ["$defs", "site", "properties", "landing"], value: #"{"type": "string"}"#,
            drift: ["sites[].landing: the model reads an object with keys here, the schema lists no \"properties\""]),
        SchemaEdit(
            path: ["$defs", "site", "properties", "website"], value: #"{"type": "object", "properties": {"url": {}}}"#,
            drift: ["sites[].website: the model reads a plain value here, the schema describes an object with keys"]),
        SchemaEdit(
            path: ["$defs", "landing", "additionalProperties"], value: nil,
            drift: ["sites[].landing: the schema must say \"additionalProperties\": false, as the loader warns about unknown keys"]),
    ]

    static func edited(_ node: Any, _ path: ArraySlice<String>, _ value: Any?) -> Any {
        guard let key = path.first, var object = node as? [String: Any] else { return value as Any }
        if path.count == 1 {
            object[key] = value
        } else {
            object[key] = edited(object[key] ?? [String: Any](), path.dropFirst(), value)
        }
        return object
    }

    @Test("a schema that drifts from the model is caught at every level", arguments: edits)
    func driftedSchemaIsCaught(edit: SchemaEdit) throws {
        let value = try edit.value.map { try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) }
        let schema = try #require(Self.edited(try Self.schema(), edit.path[...], value) as? [String: Any])
        #expect(SchemaDrift.differences(schema: schema, shape: Shape.root) == edit.drift.sorted())
    }

    @Test("a key added to the model alone is caught")
    func modelOnlyKeyIsCaught() throws {
        guard case var .object(root) = Shape.root, case let .list(.object(site))? = root["sites"] else {
            Issue.record("unexpected shape \(Shape.root)")
            return
        }
        var wider = site
        wider["aliases"] = .any
        root["sites"] = .list(.object(wider))
        #expect(
            SchemaDrift.differences(schema: try Self.schema(), shape: .object(root))
                == ["sites[].aliases: the model reads this key, the schema does not list it"])
    }

    /// The properties whose config key is not their own name.
    static let renamed = ["LinkwellConfig.schema": "$schema", "SiteConfig.isDefault": "default"]

    /// A config type's stored properties (from an instance), as config keys, and its `CodingKeys`.
    struct ModelType: Sendable, CustomTestStringConvertible {
        var name: String
        var properties: [String]
        var keys: [String]
        var testDescription: String { name }

        init<Key: CodingKey & CaseIterable>(_ instance: Any, _: Key.Type) {
            name = "\(type(of: instance))"
            let name = name
            properties = Mirror(reflecting: instance).children.compactMap(\.label).map { renamed["\(name).\($0)"] ?? $0 }
            keys = Key.allCases.map(\.stringValue)
        }
    }

    static let modelTypes: [ModelType] = [
        ModelType(LinkwellConfig(sites: []), LinkwellConfig.CodingKeys.self),
        ModelType(SiteConfig(domains: [], routes: []), SiteConfig.CodingKeys.self),
        ModelType(IOSAppConfig(teamID: "", bundleID: ""), IOSAppConfig.CodingKeys.self),
        ModelType(AndroidAppConfig(package: "", fingerprints: []), AndroidAppConfig.CodingKeys.self),
        ModelType(AASAOptions(), AASAOptions.CodingKeys.self),
        ModelType(RouteConfig(name: "", path: ""), RouteConfig.CodingKeys.self),
        ModelType(QueryParamConfig(), QueryParamConfig.CodingKeys.self),
        ModelType(ParamConfig(), ParamConfig.CodingKeys.self),
        ModelType(ExclusionConfig(exclude: ""), ExclusionConfig.CodingKeys.self),
        ModelType(FallbackConfig(), FallbackConfig.CodingKeys.self),
        ModelType(PreviewConfig(), PreviewConfig.CodingKeys.self),
        ModelType(NotFoundConfig(), NotFoundConfig.CodingKeys.self),
        ModelType(LandingConfig(), LandingConfig.CodingKeys.self),
        ModelType(ServerSettings(), ServerSettings.CodingKeys.self),
        ModelType(StorageSettings(), StorageSettings.CodingKeys.self),
        ModelType(ClickSettings(), ClickSettings.CodingKeys.self),
    ]

    /// Each config type's stored properties against its `CodingKeys`: a property without a key
    /// would be neither read nor known, a key without a property would not compile.
    @Test(arguments: modelTypes)
    func everyPropertyHasACodingKey(type: ModelType) {
        #expect(type.properties == type.keys)
    }

    @Test("the unknown-key checker reads the tree: typos warn, known keys at every level do not")
    func unknownKeysFromTheModel() throws {
        let text = """
            { "$schema": "x", server: { listen: ["127.0.0.1:1"], publicDir: "p", publicDirs: "q" },
              sites: [{ domains: ["example.com"], default: true,
                ios: [{ teamID: "ABCDE12345", bundleID: "a.b", appClipBundleId: "a.b.Clip" }],
                routes: [
                  { exclude: "/x/*", fragment: "f", comment: "c", path: "/y" },
                  { name: "r", path: "/r/{id}", query: { q: { required: true, requird: true } },
                    params: { id: { oneOf: ["a"] } }, preview: { title: "t", alt: "a" } },
                ],
                landing: { appName: "n", colour: "red" } }] }
            """
        let diagnostics = try ConfigLoader.decode(Data(text.utf8), file: "c.json5").warnings
        let warnings = diagnostics.map { "\($0.path) \($0.message)" }
        #expect(
            warnings.sorted() == [
                "server.publicDirs unknown key 'publicDirs' is ignored",
                "sites[0].ios[0].appClipBundleId unknown key 'appClipBundleId' is ignored",
                "sites[0].landing.colour unknown key 'colour' is ignored",
                "sites[0].routes[0].path unknown key 'path' is ignored",
                "sites[0].routes[1].preview.alt unknown key 'alt' is ignored",
                "sites[0].routes[1].query.q.requird unknown key 'requird' is ignored",
            ])
        #expect(diagnostics.first { $0.path == "sites[0].routes[1].query.q.requird" }?.fix == "did you mean 'required'?")
        #expect(
            diagnostics.first { $0.path == "sites[0].routes[0].path" }?.fix
                == "this entry has 'exclude', so it is an exclusion, which reads only apps, comment, exclude, fragment: "
                + "remove 'path', or make the route an entry of its own without 'exclude'")
    }
}
