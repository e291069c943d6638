// Reading a config file: JSON5 (comments, trailing commas, unquoted keys) through Foundation's
// JSONDecoder, with every failure turned into a Diagnostic that names the file, the config path,
// the value and the fix — including keys the model does not know (a typo like `bundleId` would
// otherwise be silently ignored).

import Foundation

/// Reads a Linkwell config file (JSON5) into a ``LinkwellConfig``.
///
/// JSON5 is JSON that also allows comments, trailing commas and unquoted keys. Every problem
/// comes back as a ``Diagnostic`` naming the file, the config path (`sites[0].routes[2].path`),
/// the bad value and the fix. Keys the model does not know are warnings, not errors: a typo such
/// as `bundleId` for `bundleID` would otherwise be silently ignored.
///
/// ```swift
/// let (config, warnings) = try ConfigLoader.load(path: "config/examples/coffeebreak.json5")
/// for warning in warnings { print(warning) }   // e.g. "… unknown key 'bundleId' is ignored"
/// let table = try RouteTable(config: config)
/// ```
///
/// In an app, ship the file in the bundle and pass its path
/// (`Bundle.main.path(forResource: "linkwell", ofType: "json5")`), or hand the bytes to
/// ``decode(_:file:)``.
public enum ConfigLoader {
    /// `LINKWELL_CONFIG`, else `config/linkwell.json5`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let p = environment["LINKWELL_CONFIG"], !p.isEmpty { return p }
        return "config/linkwell.json5"
    }

    /// The config could not be read or decoded; ``DiagnosticsError/diagnostics`` says where and why (at least one error).
    public typealias Failure = DiagnosticsError

    /// Reads and decodes a file. Unknown keys are warnings; everything else that stops decoding is an error.
    public static func load(path: String) throws(Failure) -> (config: LinkwellConfig, warnings: [Diagnostic]) {
        let loaded = try load(path: path, reusing: [])
        return (loaded.config, loaded.warnings)
    }

    /// A site as a load read it: the text of its item in the `sites` list, what it decoded to,
    /// and its unknown-key warnings.
    public struct SiteSource: Sendable {
        /// The item's bytes exactly as written, compared byte for byte on the next reload.
        public let text: [UInt8]
        /// The site the item decoded to.
        public let config: SiteConfig
        /// Unknown keys found in the item, in the order the whole-file walk reports them.
        public let warnings: [Diagnostic]

        /// A site read from `text`, decoded to `config`, with its unknown-key `warnings`.
        public init(text: [UInt8], config: SiteConfig, warnings: [Diagnostic] = []) {
            self.text = text
            self.config = config
            self.warnings = warnings
        }
    }

    /// What a load read: the model, the unknown-key warnings, and each site's text beside its
    /// model (empty when the root has no `sites` list), for the next reload's `reusing`.
    public struct Loaded: Sendable {
        /// The whole decoded config.
        public var config: LinkwellConfig
        /// Unknown-key warnings of the whole file.
        public var warnings: [Diagnostic]
        /// One entry per item of the root's `sites` list, in order.
        public var sites: [SiteSource]
    }

    /// As ``load(path:)``; `reusing`: the sites of the load a reload replaces. A site whose text
    /// in the `sites` list is byte for byte the one at the same position before is taken as it
    /// was decoded, not decoded again (decoding reads only that text).
    public static func load(path: String, reusing previous: [SiteSource]) throws(Failure) -> Loaded {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (check its permissions)" : "does not exist"
            throw Failure(diagnostics: [
                Diagnostic(
                    .error, file: path, at: "(file)", "the config file \(reason)",
                    fix: "pass the right file with --config PATH or LINKWELL_CONFIG; the shipped default is config/linkwell.json5")
            ])
        }
        return try decode(data, file: path, reusing: previous)
    }

    /// Decodes config bytes that were already read (a bundle resource, a download, a test string).
    ///
    /// `file` only names the source in diagnostics. Returns the config and the unknown-key warnings.
    /// - Throws: ``Failure`` when the bytes are not JSON5 or do not fit the config model (missing
    ///   required key, wrong type, unknown enum value).
    public static func decode(_ data: Data, file: String) throws(Failure) -> (config: LinkwellConfig, warnings: [Diagnostic]) {
        let loaded = try decode(data, file: file, reusing: [])
        return (loaded.config, loaded.warnings)
    }

    /// As ``decode(_:file:)``, reusing the sites of `previous` whose text is unchanged (see
    /// ``load(path:reusing:)``), and returning each site's text.
    public static func decode(_ data: Data, file: String, reusing previous: [SiteSource]) throws(Failure) -> Loaded {
        // Foundation's JSON5 scanner traps (a crash, not an error) on some invalid UTF-8, e.g. in
        // an unquoted key; found by fuzz/harnesses fuzz-config (docs/dev/fuzzing.md).
        if let bad = invalidUTF8(data) {
            throw Failure(diagnostics: [
                Diagnostic(
                    .error, file: file, at: "(file)", value: String(format: "byte 0x%02X", bad.byte),
                    "is not valid UTF-8 at line \(bad.line), column \(bad.column)",
                    fix: "save the file as UTF-8 (a Latin-1 or Windows-1252 editor setting writes such bytes)")
            ])
        }
        let bytes = Array(data)
        let scanned: JSON5Syntax.Scanned
        switch JSON5Syntax.scanWithSites(bytes) {
        case let .failure(syntax):
            var d = Diagnostic(.error, file: file, at: "(syntax)", "\(syntax.message)", fix: syntax.fix)
            d.position = SourcePosition(line: syntax.line, column: syntax.column, text: syntax.sourceLine)
            throw Failure(diagnostics: [d])
        case let .success(result):
            // The key structure comes from the syntax check's pass over the text; reading it
            // through `Decoder` (as before) took a third of a reload at 10k routes.
            scanned = result
        }
        let keys = scanned.keys
        let sources = scanned.siteItems.map { Array(bytes[$0]) }
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        // Each site decoded from its own text (a reload: only the sites whose text changed; a
        // first load of several sites: each on its own core), and the rest of the file with an
        // empty `sites` list. Anything that fails goes the whole-file way below, which words
        // the error exactly as a first load does.
        if !previous.isEmpty || sources.count > 1, let list = scanned.sitesList,
            let config = try? decodeReusing(bytes, sitesList: list, sources: sources, previous: previous, decoder: decoder)
        {
            // An unchanged site's text has the same keys: its unknown-key warnings are the same.
            let (warnings, perSite) = unknownKeys(in: keys, file: file) { i in
                i < previous.count && previous[i].text == sources[i] ? previous[i].warnings.map { $0.withFile(file) } : nil
            }
            return Loaded(config: config, warnings: warnings, sites: siteSources(sources, config.sites, perSite))
        }
        let config: LinkwellConfig
        do {
            config = try decoder.decode(LinkwellConfig.self, from: data)
        } catch let error as DecodingError {
            // The unknown keys explain many decoding failures (`bundleId` for `bundleID`): list
            // them too, and name the typo in the missing key's fix.
            var typos: [Diagnostic] = []
            unknownKeys(in: keys, shape: ConfigShape.root, path: "", file: file, into: &typos)
            var main = diagnostic(for: error, file: file)
            if case let .keyNotFound(key, context) = error {
                let at = render(context.codingPath)
                if let typo = typos.first(where: { $0.path.hasPrefix(at + ".") && $0.fix == "did you mean '\(key.stringValue)'?" }) {
                    let written = String(typo.path.dropFirst(at.count + 1))
                    main.fix = "the object has '\(written)': did you mean '\(key.stringValue)'? (keys are case-sensitive)"
                }
            }
            throw Failure(diagnostics: [main] + typos)
        } catch {
            throw Failure(diagnostics: [Diagnostic(.error, file: file, at: "(file)", "cannot be decoded: \(error)")])
        }
        let (warnings, perSite) = unknownKeys(in: keys, file: file) { _ in nil }
        return Loaded(config: config, warnings: warnings, sites: siteSources(sources, config.sites, perSite))
    }

    /// Each site's text, model and warnings; empty unless there is one of each per site.
    static func siteSources(_ texts: [[UInt8]], _ sites: [SiteConfig], _ warnings: [[Diagnostic]]) -> [SiteSource] {
        guard texts.count == sites.count, warnings.count == sites.count else { return [] }
        return sites.indices.map { SiteSource(text: texts[$0], config: sites[$0], warnings: warnings[$0]) }
    }

    /// The unknown-key warnings of a whole document, in the order of a walk from the root, and
    /// those of each item of the root's `sites` list (empty when there is no such list);
    /// `reused(i)` gives site `i`'s warnings when they are known (its text did not change).
    static func unknownKeys(in root: KeyTree, file: String, reused: (Int) -> [Diagnostic]?) -> (all: [Diagnostic], perSite: [[Diagnostic]]) {
        var out: [Diagnostic] = []
        let sitesKey = LinkwellConfig.CodingKeys.sites.stringValue
        guard case let .object(members) = root, case let .list(items)? = members[sitesKey],
            case let .object(fields) = ConfigShape.root, case let .list(siteShape)? = fields[sitesKey]
        else {
            unknownKeys(in: root, shape: ConfigShape.root, path: "", file: file, into: &out)
            return (out, [])
        }
        // The root's members are walked in sorted order: those before `sites`, the sites, the rest.
        unknownKeys(in: .object(members.filter { $0.key < sitesKey }), shape: ConfigShape.root, path: "", file: file, into: &out)
        var perSite: [[Diagnostic]] = []
        for (i, item) in items.enumerated() {
            var own: [Diagnostic] = []
            if let known = reused(i) {
                own = known
            } else {
                unknownKeys(in: item, shape: siteShape, path: "\(sitesKey)[\(i)]", file: file, into: &own)
            }
            perSite.append(own)
            out += own
        }
        unknownKeys(in: .object(members.filter { $0.key > sitesKey }), shape: ConfigShape.root, path: "", file: file, into: &out)
        return (out, perSite)
    }

    /// The model from the file's root with an empty `sites` list, and each site either taken from
    /// `previous` (same position, the same text) or decoded from its own text.
    static func decodeReusing(
        _ bytes: [UInt8], sitesList: Range<Int>, sources: [[UInt8]], previous: [SiteSource], decoder: JSONDecoder
    ) throws -> LinkwellConfig {
        let changed = sources.indices.filter { !($0 < previous.count && previous[$0].text == sources[$0]) }
        // The changed sites are independent texts: decoded on every core, one decoder each.
        let changedSites = ConcurrentMap.map(changed.count) { k in
            let own = JSONDecoder()
            own.allowsJSON5 = true
            return Result { () throws -> SiteConfig in try own.decode(SiteConfig.self, from: Data(sources[changed[k]])) }
        }
        var decoded = [Result<SiteConfig, any Error>?](repeating: nil, count: sources.count)
        for (k, i) in changed.enumerated() { decoded[i] = changedSites[k] }
        var sites: [SiteConfig] = []
        sites.reserveCapacity(sources.count)
        for i in sources.indices {
            if let result = decoded[i] {
                sites.append(try result.get())
            } else {
                sites.append(previous[i].config)
            }
        }
        var root = Data(bytes[..<sitesList.lowerBound])
        root.append(contentsOf: "[]".utf8)
        root.append(contentsOf: bytes[sitesList.upperBound...])
        var config = try decoder.decode(LinkwellConfig.self, from: root)
        config.sites = sites
        return config
    }

    /// The first byte that does not begin a valid UTF-8 sequence, with its line and column
    /// (1-based; the column counts characters). Nil for valid UTF-8.
    static func invalidUTF8(_ data: Data) -> (byte: UInt8, line: Int, column: Int)? {
        let bytes = [UInt8](data)
        if bytes.allSatisfy({ $0 < 0x80 }) { return nil }  // ASCII (most configs): nothing to decode
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1, column = 1, offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar):
                offset += UTF8.width(scalar)
                if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            case .emptyInput:
                return nil
            case .error:
                return (bytes[offset], line, column)
            }
        }
    }

    static func render(_ codingPath: [any CodingKey]) -> String {
        var s = ""
        for key in codingPath {
            if let i = key.intValue {
                s += "[\(i)]"
            } else {
                s += s.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return s.isEmpty ? "(top level)" : s
    }

    static func diagnostic(for error: DecodingError, file: String) -> Diagnostic {
        switch error {
        case let .keyNotFound(key, context):
            let at = render(context.codingPath)
            return Diagnostic(
                .error, file: file, at: at, "'\(key.stringValue)' is required here but missing",
                fix: "add \"\(key.stringValue)\": … to \(at) (see docs/reference/configuration.md)")
        case let .typeMismatch(type, context):
            let at = render(context.codingPath)
            return Diagnostic(
                .error, file: file, at: at, "expected \(describe(type)) here",
                fix: "write \(at) as \(describe(type)) (see docs/reference/configuration.md)")
        case let .valueNotFound(type, context):
            let at = render(context.codingPath)
            return Diagnostic(.error, file: file, at: at, "expected \(describe(type)), found null", fix: "give \(at) a value or remove it")
        case let .dataCorrupted(context):
            let at = render(context.codingPath)
            var detail = context.debugDescription
            if let underlying = context.underlyingError {
                let text = "\(underlying)"
                if let range = text.range(of: "line \\d+, column \\d+", options: .regularExpression) {
                    detail += " (\(text[range]))"
                } else if detail.isEmpty {
                    detail = text
                }
            }
            if at == "(top level)" {
                // The syntax check passed, so the decoder rejected a value it cannot place.
                return Diagnostic(
                    .error, file: file, at: at, "a value does not fit the config model (the decoder says only: \(detail))",
                    fix: "the JSON5 syntax is valid; look for a fractional or out-of-range number where a whole number belongs (threads, connectionLimit, …)")
            }
            if let allowed = allowedValues(in: context.debugDescription) {
                let value = context.debugDescription.components(separatedBy: "invalid String value ").last ?? ""
                let suggestion = DidYouMean.closest(value, in: allowed)
                return Diagnostic(
                    .error, file: file, at: at, value: value, "'\(value)' is not one of the allowed values: \(allowed.joined(separator: ", "))",
                    fix: suggestion.map { "did you mean '\($0)'?" } ?? "use one of \(allowed.joined(separator: ", ")) (see docs/reference/configuration.md)")
            }
            return Diagnostic(.error, file: file, at: at, "invalid value: \(detail)", fix: "see docs/reference/configuration.md for the allowed values")
        @unknown default:
            return Diagnostic(.error, file: file, at: "(file)", "\(error)")
        }
    }

    /// The config's enums by type name, for "Cannot initialize X from invalid String value …".
    static let enums: [String: [String]] = [
        "FallbackAction": FallbackAction.allCases.map(\.rawValue),
        "AASAFormat": AASAFormat.allCases.map(\.rawValue),
    ]

    /// The allowed values when a decoding message is about one of the config's enums.
    static func allowedValues(in message: String) -> [String]? {
        guard message.hasPrefix("Cannot initialize "), let type = message.dropFirst(18).split(separator: " ").first else { return nil }
        return enums[String(type)]
    }

    static func describe(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array") { return "a list [ … ]" }
        if name.hasPrefix("Dictionary") || name.hasSuffix("Config") || name.hasSuffix("Settings") || name.hasSuffix("Options") {
            return "an object { … }"
        }
        switch name {
        case "String": return "a string"
        case "Bool": return "true or false"
        case "Int", "Double": return "a number"
        default: return name
        }
    }

    // MARK: Unknown keys

    /// The keys the model reads, at every level, taken from each config type's `CodingKeys`: a key
    /// added to the model is known here at once, and `ConfigSchemaTests` holds
    /// config/linkwell.schema.json to the same tree. Only which keys hold objects of their own
    /// is written here (a key left out of `nested` is a plain value, and the schema test says so).
    indirect enum ConfigShape: Sendable, Equatable {
        case object([String: ConfigShape])
        case list(ConfigShape)
        case map(ConfigShape)  // free keys, each value of one shape
        /// A `routes` entry: an exclusion when it has the `exclude` key, else a route (as `RouteEntry` decodes).
        case entry(route: ConfigShape, exclusion: ConfigShape)
        case any

        static func keys<Key: CodingKey & CaseIterable & Hashable>(of _: Key.Type, nested: [Key: ConfigShape] = [:]) -> ConfigShape {
            .object(Dictionary(uniqueKeysWithValues: Key.allCases.map { ($0.stringValue, nested[$0] ?? .any) }))
        }

        static let fallback = keys(of: FallbackConfig.CodingKeys.self)
        static let route = keys(
            of: RouteConfig.CodingKeys.self,
            nested: [
                .query: .map(keys(of: QueryParamConfig.CodingKeys.self)), .params: .map(keys(of: ParamConfig.CodingKeys.self)),
                .fallback: fallback,
                .preview: keys(of: PreviewConfig.CodingKeys.self, nested: [.locales: .map(keys(of: PreviewText.CodingKeys.self))]),
            ])
        static let site = keys(
            of: SiteConfig.CodingKeys.self,
            nested: [
                .ios: .list(keys(of: IOSAppConfig.CodingKeys.self)), .android: .list(keys(of: AndroidAppConfig.CodingKeys.self)),
                .aasa: keys(of: AASAOptions.CodingKeys.self),
                .routes: .list(.entry(route: route, exclusion: keys(of: ExclusionConfig.CodingKeys.self))),
                .fallback: fallback, .notFound: keys(of: NotFoundConfig.CodingKeys.self), .landing: keys(of: LandingConfig.CodingKeys.self),
                .shortLinks: keys(of: ShortLinksConfig.CodingKeys.self), .deferredLinks: keys(of: DeferredLinksConfig.CodingKeys.self),
            ])
        static let root = keys(
            of: LinkwellConfig.CodingKeys.self, nested: [.server: keys(of: ServerSettings.CodingKeys.self), .storage: keys(of: StorageSettings.CodingKeys.self, nested: [.clicks: keys(of: ClickSettings.CodingKeys.self)]), .sites: .list(site)])
    }

    /// The document's key structure, decoded with the same JSON5 reader.
    /// A document's key structure. Built by the syntax check (`JSON5Syntax.scan`); the
    /// `Decodable` conformance reads the same from a decoder (a test compares the two).
    enum KeyTree: Decodable, Equatable, Sendable {
        case object([String: KeyTree])
        case list([KeyTree])
        case leaf

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
                var members: [String: KeyTree] = [:]
                for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(KeyTree.self, forKey: key) }
                self = .object(members)
            } else if var list = try? decoder.unkeyedContainer() {
                var items: [KeyTree] = []
                while !list.isAtEnd { items.append(try list.decode(KeyTree.self)) }
                self = .list(items)
            } else {
                self = .leaf
            }
        }
    }

    static func unknownKeys(in value: KeyTree, shape: ConfigShape, path: String, file: String, into out: inout [Diagnostic]) {
        switch shape {
        case .any:
            return
        case let .entry(route, exclusion):
            let exclude = ExclusionConfig.CodingKeys.exclude.stringValue
            guard case let .object(dict) = value, dict[exclude] != nil else {
                return unknownKeys(in: value, shape: route, path: path, file: file, into: &out)
            }
            let first = out.count
            unknownKeys(in: value, shape: exclusion, path: path, file: file, into: &out)
            // A route's key on an exclusion: say why it is not read.
            guard case let .object(routeKeys) = route, case let .object(exclusionKeys) = exclusion else { return }
            for i in first..<out.count {
                let key = String(out[i].path.dropFirst(path.count + 1))
                guard routeKeys[key] != nil, exclusionKeys[key] == nil else { continue }
                out[i].fix =
                    "this entry has '\(exclude)', so it is an exclusion, which reads only \(exclusionKeys.keys.sorted().joined(separator: ", ")): "
                    + "remove '\(key)', or make the route an entry of its own without '\(exclude)'"
            }
        case let .list(element):
            guard case let .list(array) = value else { return }
            for (i, v) in array.enumerated() { unknownKeys(in: v, shape: element, path: "\(path)[\(i)]", file: file, into: &out) }
        case let .map(element):
            guard case let .object(dict) = value else { return }
            for (k, v) in dict { unknownKeys(in: v, shape: element, path: path.isEmpty ? k : "\(path).\(k)", file: file, into: &out) }
        case let .object(fields):
            guard case let .object(dict) = value else { return }
            for key in dict.keys.sorted() {
                let here = path.isEmpty ? key : "\(path).\(key)"
                if let sub = fields[key] {
                    unknownKeys(in: dict[key]!, shape: sub, path: here, file: file, into: &out)
                } else {
                    let suggestion = closest(key, in: Array(fields.keys))
                    out.append(
                        Diagnostic(
                            .warning, file: file, at: here, "unknown key '\(key)' is ignored",
                            fix: suggestion.map { "did you mean '\($0)'?" } ?? "remove it; the keys allowed here are \(fields.keys.sorted().joined(separator: ", "))"))
                }
            }
        }
    }

    /// The known key closest to a typo (case-insensitive edit distance ≤ 2).
    static func closest(_ key: String, in candidates: [String]) -> String? { DidYouMean.closest(key, in: candidates) }
}
