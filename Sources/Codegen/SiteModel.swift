// What every generator reads: a compiled site turned into names a language can use and the
// tables the generated matcher runs on. The tables are the server's own: entries in priority
// order, hosts and schemes as `RouteTable` assigns them across all sites of the config, apps as
// bits (an entry applies to some apps; an exclusion removes some).

import LinkRouting

struct SiteModel {
    struct Param {
        enum Kind { case path, rest, requiredQuery, optionalQuery, fragment }
        /// The name in the config and in `parameters`.
        var name: String
        /// lowerCamel identifier for Swift labels and Kotlin properties.
        var identifier: String
        var kind: Kind
        /// `oneOf` values with their Swift case / Kotlin constant names.
        var oneOf: [(value: String, swiftCase: String, kotlinConstant: String)]?
        /// Nested enum name for a oneOf parameter (`Item`).
        var enumName: String?
        var isOptional: Bool { kind == .optionalQuery || kind == .fragment }
    }

    struct Route {
        var entry: CompiledEntry
        var config: RouteConfig
        /// Swift case name (lowerCamel) and Kotlin class name (UpperCamel).
        var swiftCase: String
        var kotlinClass: String
        var params: [Param]
        /// The scheme `linkwell link --scheme` uses for this route, if any.
        var scheme: String?
        /// `/post/{postId}` plus the query and fragment it reads, for doc comments.
        var display: String
    }

    struct Entry {
        var entry: CompiledEntry
        /// Bit per app (`apps`).
        var mask: UInt64
    }

    let site: CompiledSite
    let options: CodegenOptions
    let typeName: String
    let defaultTypeName: String
    let defaultKotlinPackage: String?
    let kotlinPackage: String?
    /// iOS app IDs then Android packages; bit i of a mask is apps[i].
    let apps: [String]
    let entries: [Entry]
    let routes: [Route]
    /// Every exact domain of the config → whether this site owns it (the first site listing it).
    let hostOwners: [(host: String, mine: Bool)]
    /// Every wildcard suffix (`.example.com`), longest first → whether this site owns it.
    let wildcards: [(suffix: String, mine: Bool)]
    /// Custom schemes (lower-case) this site owns → the apps registering them.
    let schemes: [(scheme: String, mask: UInt64)]

    var allMask: UInt64 { apps.count == 64 ? ~0 : (UInt64(1) << UInt64(apps.count)) - 1 }

    init(site: CompiledSite, table: RouteTable, options: CodegenOptions) throws(CodegenError) {
        self.site = site
        self.options = options
        defaultTypeName = Naming.upperCamel(site.name) + "Route"
        typeName = options.typeName ?? defaultTypeName
        guard Naming.isIdentifier(typeName) else {
            throw CodegenError("type name '\(typeName)' is not a Swift/Kotlin identifier", fix: "use letters and digits, starting with a letter, e.g. --type-name DiallodevRoute")
        }
        defaultKotlinPackage = site.androidApps.first.map { $0.package + ".links" }
        kotlinPackage = options.kotlinPackage ?? defaultKotlinPackage
        if let p = kotlinPackage, !p.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ Naming.isIdentifier(String($0)) }) {
            throw CodegenError("Kotlin package '\(p)' is not a dotted list of identifiers", fix: "e.g. --kotlin-package com.example.app.links")
        }
        let apps = site.iosApps.map(\.appID) + site.androidApps.map(\.package)
        guard apps.count <= 64 else {
            throw CodegenError("site '\(site.name)' has \(apps.count) apps; the generated matcher handles at most 64", fix: "split the site")
        }
        self.apps = apps
        func mask(_ ids: [String]) -> UInt64 {
            var m: UInt64 = 0
            for (i, a) in apps.enumerated() where ids.contains(a) { m |= UInt64(1) << UInt64(i) }
            return m
        }
        let iosCount = site.iosApps.count
        func mask(ios: [String], android: [String]) -> UInt64 {
            var m: UInt64 = 0
            for (i, a) in apps.enumerated() where i < iosCount ? ios.contains(a) : android.contains(a) { m |= UInt64(1) << UInt64(i) }
            return m
        }
        entries = site.entries.map { Entry(entry: $0, mask: mask(ios: $0.iosAppIDs, android: $0.androidPackages)) }

        // Hosts and schemes as RouteTable.init assigns them: the first site listing one owns it.
        var owners: [(String, Bool)] = []
        var seenHosts = Set<String>()
        var wild: [(String, Bool)] = []
        var seenWild = Set<String>()
        var schemeList: [(String, UInt64)] = []
        var seenSchemes = Set<String>()
        for other in table.sites {
            for d in other.exactDomains where seenHosts.insert(d).inserted { owners.append((d, other.index == site.index)) }
            for w in other.wildcardSuffixes where seenWild.insert(w).inserted { wild.append((w, other.index == site.index)) }
            for sc in other.schemes.keys.sorted() where seenSchemes.insert(sc).inserted {
                if other.index == site.index {
                    let apps = other.schemes[sc]!
                    schemeList.append((sc, mask(ios: apps.ios, android: apps.android)))
                }
            }
        }
        hostOwners = owners
        // Stable: longest suffix first, config order among equals (RouteTable sorts the same way).
        wildcards = wild.enumerated().sorted { a, b in
            a.element.0.utf8.count != b.element.0.utf8.count ? a.element.0.utf8.count > b.element.0.utf8.count : a.offset < b.offset
        }.map(\.element)
        schemes = schemeList

        var routes: [Route] = []
        var usedCases = Naming.reservedMembers
        var usedClasses = Naming.reservedClasses.union([typeName])
        for e in site.entries {
            guard let config = e.route else { continue }
            let swiftCase = Naming.unique(Naming.lowerCamel(config.name), in: &usedCases)
            let kotlinClass = Naming.unique(Naming.upperCamel(config.name), in: &usedClasses)
            var params: [Param] = []
            var usedIdents: Set<String> = Naming.reservedMembers
            var usedEnums: Set<String> = [kotlinClass, typeName]
            for seg in e.pattern.segments {
                switch seg {
                case .literal: break
                case let .param(name, _, _, oneOf):
                    var p = Param(name: name, identifier: Naming.unique(Naming.lowerCamel(name), in: &usedIdents), kind: .path)
                    if let oneOf {
                        var swiftCases: Set<String> = ["init", "rawValue", "allCases"]
                        var constants: Set<String> = ["value", "values", "valueOf", "name", "ordinal"]
                        p.oneOf = oneOf.map { v in
                            (v, Naming.unique(Naming.lowerCamel(v), in: &swiftCases), Naming.unique(Naming.upperSnake(v), in: &constants))
                        }
                        p.enumName = Naming.unique(Naming.upperCamel(name), in: &usedEnums)
                    }
                    params.append(p)
                case let .rest(name):
                    params.append(Param(name: name, identifier: Naming.unique(Naming.lowerCamel(name), in: &usedIdents), kind: .rest))
                }
            }
            for name in e.requiredQuery {
                params.append(Param(name: name, identifier: Naming.unique(Naming.lowerCamel(name), in: &usedIdents), kind: .requiredQuery))
            }
            for name in e.optionalQuery {
                params.append(Param(name: name, identifier: Naming.unique(Naming.lowerCamel(name), in: &usedIdents), kind: .optionalQuery))
            }
            if let f = config.fragment {
                params.append(Param(name: f, identifier: Naming.unique(Naming.lowerCamel(f), in: &usedIdents), kind: .fragment))
            }
            var display = e.pattern.display
            let q = e.requiredQuery.map { "\($0)=…" } + e.optionalQuery.map { "[\($0)=…]" }
            if !q.isEmpty { display += "?" + q.joined(separator: "&") }
            if let f = config.fragment { display += "#{\(f)}" }
            routes.append(
                Route(entry: e, config: config, swiftCase: swiftCase, kotlinClass: kotlinClass, params: params,
                      scheme: SiteModel.preferredScheme(site: site, entry: e), display: display))
        }
        self.routes = routes
    }

    /// The same choice as `RouteTable.build(form: .customScheme(nil))`: the first scheme of the
    /// first iOS app the route applies to, else of its first Android app.
    static func preferredScheme(site: CompiledSite, entry: CompiledEntry) -> String? {
        for app in site.iosApps where entry.iosAppIDs.contains(app.appID) { if let s = app.schemes?.first { return s } }
        for app in site.androidApps where entry.androidPackages.contains(app.package) { if let s = app.schemes?.first { return s } }
        return nil
    }

    /// `https://diallodev.online, https://www.diallodev.online, diallodev://`
    var linkForms: String {
        (site.config.domains.map { "https://\($0)" } + schemes.map { "\($0.scheme)://" }).joined(separator: ", ")
    }
}

/// Identifiers from config names: `ai-workspace` → `aiWorkspace` / `AiWorkspace` / `AI_WORKSPACE`.
enum Naming {
    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal", "let",
        "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript",
        "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self",
        "Self", "super", "throws", "true", "try", "some", "any", "Type", "Protocol",
    ]
    static let kotlinKeywords: Set<String> = [
        "as", "break", "class", "continue", "do", "else", "false", "for", "fun", "if", "in", "interface", "is", "null", "object",
        "package", "return", "super", "this", "throw", "true", "try", "typealias", "typeof", "val", "var", "when", "while",
    ]
    /// Names the generated types declare themselves.
    static let reservedMembers: Set<String> = [
        "url", "schemeURL", "routeName", "parameters", "hashValue", "hash", "toUrl", "toSchemeUrl", "equals", "hashCode",
        "toString", "copy", "parse", "of", "allRouteNames", "description",
    ]
    static let reservedClasses: Set<String> = ["Companion", "Table", "String", "Map", "Any", "Unit"]

    static func words(_ s: String) -> [String] {
        var words: [String] = []
        var current = ""
        var prevLower = false
        for c in s {
            if c.isASCII && (c.isLetter || c.isNumber) {
                if c.isUppercase && prevLower && !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current.append(c)
                prevLower = c.isLowercase || c.isNumber
            } else {
                if !current.isEmpty { words.append(current) }
                current = ""
                prevLower = false
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func lowerCamel(_ s: String) -> String {
        // A name that is already an identifier keeps its spelling (`aiWorkspace`, `postId`).
        if isIdentifier(s), let f = s.first, f.isLowercase, !s.contains("_") { return s }
        let w = words(s)
        guard let first = w.first else { return "value" }
        var out = first.lowercased() + w.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if out.first!.isNumber { out = "_" + out }
        return out
    }

    static func upperCamel(_ s: String) -> String {
        let w = words(s)
        guard !w.isEmpty else { return "Value" }
        var out = w.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if out.first!.isNumber { out = "_" + out }
        return out
    }

    static func upperSnake(_ s: String) -> String {
        let w = words(s)
        guard !w.isEmpty else { return "VALUE" }
        var out = w.map { $0.uppercased() }.joined(separator: "_")
        if out.first!.isNumber { out = "_" + out }
        return out
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let f = s.first, f == "_" || (f.isASCII && f.isLetter) else { return false }
        return s.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }

    /// `base`, or `base2`, `base3`… when taken or a keyword of either language.
    static func unique(_ base: String, in used: inout Set<String>) -> String {
        var name = base
        var n = 2
        while used.contains(name) || swiftKeywords.contains(name) || kotlinKeywords.contains(name) {
            name = base + String(n)
            n += 1
        }
        used.insert(name)
        return name
    }
}

extension PathPattern {
    /// The pattern as a person writes it (`/post/{postId}`, `/files/*`), for comments.
    var display: String {
        if segments.isEmpty { return "/" }
        return segments.map { seg -> String in
            switch seg {
            case let .literal(l): return "/" + l
            case let .param(name, prefix, suffix, _): return "/\(prefix){\(name)}\(suffix)"
            case let .rest(name): return name == "*" ? "/*" : "/{\(name)*}"
            }
        }.joined()
    }
}
