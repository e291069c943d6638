// Reading an apple-app-site-association document into compiled rules.
//
// Lenient where iOS is lenient: unknown keys, values of the wrong type and entries that name no
// app are skipped with a warning. A non-string value inside a query dictionary makes iOS ignore
// the whole dictionary (conformance case "non-string predicate discards the whole query
// dictionary"); a `/`, `?` or `#` of the wrong type is likewise treated as absent (`*`).
// Strict where iOS fails: a document that is not an object, has no `applinks` object, or no
// `details`.

import LinkwellJSON
extension AppleMatcher {
    /// `caseSensitive` / `percentEncoded` at one level; `nil` inherits from the level above.
    struct Settings {
        var caseSensitive: Bool?
        var percentEncoded: Bool?

        func inheriting(from base: Settings) -> Settings {
            Settings(caseSensitive: caseSensitive ?? base.caseSensitive, percentEncoded: percentEncoded ?? base.percentEncoded)
        }
    }

    struct DocumentCompiler {
        private(set) var warnings: [String] = []
        private var variables = Pattern.Variables()

        private static let componentKeys: Set<String> = ["/", "?", "#", "exclude", "comment", "caseSensitive", "percentEncoded"]
        private static let entryKeys: Set<String> = ["appID", "appIDs", "components", "paths", "defaults", "comment"]
        private static let defaultsKeys: Set<String> = ["caseSensitive", "percentEncoded"]

        mutating func compile(_ document: JSONValue) throws(AASAFormatError) -> [Entry] {
            guard case .object = document else {
                throw AASAFormatError(
                    location: "",
                    message: "the document is \(document.kindDescription), not an object; "
                        + "it must look like {\"applinks\": {\"details\": [...]}}")
            }
            guard let applinks = document["applinks"] else {
                throw AASAFormatError(
                    location: "",
                    message: "there is no \"applinks\" key, so the file claims no links; "
                        + "add {\"applinks\": {\"details\": [{\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [...]}]}}")
            }
            guard case .object = applinks else {
                throw AASAFormatError(
                    location: "applinks",
                    message: "is \(applinks.kindDescription), not an object; it must hold a \"details\" array")
            }
            let base = settings(applinks["defaults"], at: "applinks.defaults")
            readVariables(applinks["substitutionVariables"])

            switch applinks["details"] {
            case nil:
                throw AASAFormatError(
                    location: "applinks",
                    message: "has no \"details\" array; add one entry per app: "
                        + "{\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [{\"/\": \"/path/*\"}]}")
            case let .array(list)?:
                return list.enumerated().compactMap { index, value in
                    entry(value, index: index, location: "applinks.details[\(index)]", base: base, keyedAppID: nil)
                }
            case let .object(members)?:
                // The pre-iOS 13 form keyed by app ID: {"TEAMID.bundle.id": {"paths": [...]}}.
                return members.enumerated().compactMap { index, member in
                    entry(
                        member.value, index: index, location: DocumentCompiler.key("applinks.details", member.key),
                        base: base, keyedAppID: member.key)
                }
            case let other?:
                throw AASAFormatError(
                    location: "applinks.details",
                    message: "is \(other.kindDescription); it must be an array of entries like "
                        + "{\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [...]}")
            }
        }

        // MARK: Entries

        private mutating func entry(
            _ value: JSONValue, index: Int, location: String, base: Settings, keyedAppID: String?
        ) -> Entry? {
            guard case let .object(members) = value else {
                warn(location, "is \(value.kindDescription), not an object; the entry is ignored")
                return nil
            }
            warnUnknownKeys(members, known: DocumentCompiler.entryKeys, at: location)

            var appIDs: [String] = []
            if let keyedAppID {
                appIDs = [keyedAppID]
            } else if let list = value["appIDs"] {
                if case let .array(items) = list {
                    for (k, item) in items.enumerated() {
                        if case let .string(appID) = item {
                            if !appIDs.contains(appID) { appIDs.append(appID) }
                        } else {
                            warn("\(location).appIDs[\(k)]", "is \(item.kindDescription), not a string; ignored")
                        }
                    }
                } else {
                    warn("\(location).appIDs", "is \(list.kindDescription), not an array of strings; ignored")
                }
            }
            // swcutil ignores `appID` whenever `appIDs` is present, even as an empty array.
            if value["appID"] != nil, value["appIDs"] != nil, keyedAppID == nil {
                warn("\(location).appID", "is ignored because \"appIDs\" is present; iOS reads only \"appIDs\" then")
            } else if appIDs.isEmpty, keyedAppID == nil, let single = value["appID"] {
                if case let .string(appID) = single {
                    appIDs = [appID]
                } else {
                    warn("\(location).appID", "is \(single.kindDescription), not a string; ignored")
                }
            }
            guard !appIDs.isEmpty else {
                warn(location, "names no app (no \"appIDs\" array of strings, no \"appID\" string); the entry is ignored")
                return nil
            }

            let entrySettings = settings(value["defaults"], at: "\(location).defaults").inheriting(from: base)
            var rules: [Rule] = []
            if let components = value["components"] {
                if value["paths"] != nil {
                    warn(location, "has both \"components\" and \"paths\"; iOS 13 and later use \"components\" only")
                }
                if case let .array(list) = components {
                    rules = list.enumerated().compactMap { k, component in
                        rule(component: component, index: k, location: "\(location).components[\(k)]", base: entrySettings)
                    }
                } else {
                    warn("\(location).components", "is \(components.kindDescription), not an array; the entry claims nothing")
                }
            } else if let paths = value["paths"] {
                if case let .array(list) = paths {
                    rules = list.enumerated().compactMap { k, path in
                        rule(legacyPath: path, index: k, location: "\(location).paths[\(k)]", base: entrySettings)
                    }
                } else {
                    warn("\(location).paths", "is \(paths.kindDescription), not an array; the entry claims nothing")
                }
            } else {
                warn(location, "has neither \"components\" nor \"paths\"; the entry claims nothing")
            }
            return Entry(detailsIndex: index, appIDs: appIDs, rules: rules)
        }

        // MARK: Rules

        private mutating func rule(component value: JSONValue, index: Int, location: String, base: Settings) -> Rule? {
            guard case let .object(members) = value else {
                warn(location, "is \(value.kindDescription), not an object; ignored")
                return nil
            }
            warnUnknownKeys(members, known: DocumentCompiler.componentKeys, at: location)
            let own = Settings(
                caseSensitive: bool(value["caseSensitive"], at: "\(location).caseSensitive"),
                percentEncoded: bool(value["percentEncoded"], at: "\(location).percentEncoded"))
            let resolved = own.inheriting(from: base)
            let caseSensitive = resolved.caseSensitive ?? true
            let percentEncoded = resolved.percentEncoded ?? true

            func stringPattern(_ key: String, isPath: Bool) -> Pattern? {
                guard let raw = value[key] else { return nil }
                guard case let .string(source) = raw else {
                    warn(DocumentCompiler.key(location, key), "is \(raw.kindDescription), not a string; treated as absent (\"*\")")
                    return nil
                }
                return pattern(
                    source, at: DocumentCompiler.key(location, key), isPath: isPath, caseSensitive: caseSensitive,
                    percentEncoded: percentEncoded, decodesEscapes: false)
            }

            var query: QueryPredicate?
            switch value["?"] {
            case nil:
                query = nil
            case let .string(source)?:
                query = .text(
                    pattern(
                        source, at: DocumentCompiler.key(location, "?"), isPath: false, caseSensitive: caseSensitive,
                        percentEncoded: percentEncoded, decodesEscapes: false))
            case let .object(items)?:
                let queryLocation = DocumentCompiler.key(location, "?")
                if let bad = items.first(where: { $0.value.stringValue == nil }) {
                    warn(
                        DocumentCompiler.key(queryLocation, bad.key),
                        "is \(bad.value.kindDescription), not a string; iOS then ignores the whole query dictionary, "
                            + "so any query matches")
                    query = nil
                } else {
                    // With a repeated name the last value wins, as in any JSON object reader.
                    var order: [String] = []
                    var sources: [String: String] = [:]
                    for item in items {
                        if sources[item.key] == nil { order.append(item.key) }
                        sources[item.key] = item.value.stringValue
                    }
                    query = .items(
                        order.map { name in
                            QueryItemPredicate(
                                name: name,
                                pattern: pattern(
                                    sources[name] ?? "", at: DocumentCompiler.key(queryLocation, name), isPath: false,
                                    caseSensitive: caseSensitive, percentEncoded: percentEncoded, decodesEscapes: percentEncoded))
                        })
                }
            case let other?:
                warn(
                    DocumentCompiler.key(location, "?"),
                    "is \(other.kindDescription), not a string or an object; treated as absent (\"*\")")
                query = nil
            }

            return Rule(
                index: index,
                exclude: bool(value["exclude"], at: "\(location).exclude") ?? false,
                description: value.serialized(.compact),
                path: stringPattern("/", isPath: true),
                query: query,
                fragment: stringPattern("#", isPath: false))
        }

        private mutating func rule(legacyPath value: JSONValue, index: Int, location: String, base: Settings) -> Rule? {
            guard case let .string(source) = value else {
                warn(location, "is \(value.kindDescription), not a string; ignored")
                return nil
            }
            let exclude = source.hasPrefix("NOT ")
            let text = exclude ? String(source.dropFirst(4)) : source
            return Rule(
                index: index, exclude: exclude, description: source,
                path: pattern(
                    text, at: location, isPath: true, caseSensitive: base.caseSensitive ?? true,
                    percentEncoded: base.percentEncoded ?? true, decodesEscapes: false),
                query: nil, fragment: nil)
        }

        private mutating func pattern(
            _ source: String, at location: String, isPath: Bool, caseSensitive: Bool, percentEncoded: Bool, decodesEscapes: Bool
        ) -> Pattern {
            var messages: [String] = []
            let compiled = Pattern(
                source, isPath: isPath, caseSensitive: caseSensitive, percentEncoded: percentEncoded,
                decodesEscapes: decodesEscapes, variables: variables, warnings: &messages)
            for message in messages { warn(location, message) }
            return compiled
        }

        // MARK: Settings and variables

        private mutating func settings(_ value: JSONValue?, at location: String) -> Settings {
            guard let value else { return Settings() }
            guard case let .object(members) = value else {
                warn(location, "is \(value.kindDescription), not an object; ignored")
                return Settings()
            }
            warnUnknownKeys(members, known: DocumentCompiler.defaultsKeys, at: location)
            return Settings(
                caseSensitive: bool(value["caseSensitive"], at: "\(location).caseSensitive"),
                percentEncoded: bool(value["percentEncoded"], at: "\(location).percentEncoded"))
        }

        private mutating func readVariables(_ value: JSONValue?) {
            let location = "applinks.substitutionVariables"
            guard let value else { return }
            guard case let .object(members) = value else {
                warn(location, "is \(value.kindDescription), not an object; ignored")
                return
            }
            for member in members {
                let memberLocation = DocumentCompiler.key(location, member.key)
                guard case let .array(items) = member.value else {
                    warn(memberLocation, "is \(member.value.kindDescription), not an array of strings; ignored")
                    continue
                }
                var strings: [String] = []
                for (k, item) in items.enumerated() {
                    if case let .string(string) = item {
                        strings.append(string)
                    } else {
                        warn("\(memberLocation)[\(k)]", "is \(item.kindDescription), not a string; ignored")
                    }
                }
                variables.custom[member.key] = strings
            }
        }

        private mutating func bool(_ value: JSONValue?, at location: String) -> Bool? {
            guard let value else { return nil }
            if case let .bool(flag) = value { return flag }
            warn(location, "is \(value.kindDescription), not true or false; ignored")
            return nil
        }

        // MARK: Messages

        private mutating func warn(_ location: String, _ message: String) {
            warnings.append("\(location): \(message)")
        }

        private mutating func warnUnknownKeys(_ members: [(key: String, value: JSONValue)], known: Set<String>, at location: String) {
            for member in members where !known.contains(member.key) {
                warn(location, "unknown key \"\(member.key)\" is ignored")
            }
        }

        /// `location.name`, or `location["name"]` when the name is not a plain identifier.
        static func key(_ location: String, _ name: String) -> String {
            let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "_" }
            if plain { return "\(location).\(name)" }
            var quoted = ""
            JSONValue.writeString(name, into: &quoted)
            return "\(location)[\(quoted)]"
        }
    }
}
