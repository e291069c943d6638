// An assetlinks.json body read the way Android's StatementService reads it
// (packages/StatementService: StatementParser, JsonParser, AssetFactory, AndroidAppAsset,
// WebAsset, Relation, AndroidAppAssetMatcher), so that Linkwell can say before deploying what a
// phone will conclude:
//
// - one bad statement rejects the whole file (a number or null anywhere in it, a target with a
//   bad namespace/package/fingerprints/site, a malformed relation, a non-object DAL component);
// - a statement without an object `target` or an array `relation` is silently skipped;
// - `{"include": URL}` is a delegation Android fetches (one level); it grants nothing itself;
// - verification compares package names and fingerprints verbatim (no case folding);
// - the Dynamic App Link rules that apply are those of the first statement that verifies.

import LinkwellJSON

/// Which StatementService generation to reproduce. They differ only in DalComponentParser
/// (how a Dynamic App Link expression becomes a PatternMatcher); see
/// `AndroidPatternMatcher.dynamicAppLinkPattern(for:generation:)`.
public enum AndroidParserGeneration: String, Sendable, Equatable, CaseIterable {
    /// Android 15's StatementService: `?*` makes an expression a greedy advanced glob, so `/u/?*/profile` never matches.
    case android15
    /// Android 16's StatementService: literal, prefix or simple-glob patterns. The default.
    case android16
}

/// Why Android rejects a whole assetlinks.json, and what to change.
public struct AssetLinksRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem, one per way StatementService gives up on a file.
    public enum Kind: String, Sendable, Equatable {
        /// Not JSON to Android's strict reader (comment, trailing comma, BOM, unquoted text…).
        case syntax
        /// A number, a null, or a boolean inside an array, somewhere in a statement.
        case unsupportedValue
        /// The body is not a JSON array.
        case notAStatementList
        /// An element of the top-level array is not an object.
        case statementNotAnObject
        /// The `target` object is malformed.
        case invalidTarget
        /// A `relation` entry is not `kind/detail`.
        case invalidRelation
        /// An element of `dynamic_app_link_components` is not an object.
        case invalidDynamicAppLinkComponent
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// The index of the offending statement in the top-level array (0-based).
    public var statementIndex: Int?
    /// Where inside the statement, e.g. `target.sha256_cert_fingerprints[1]`.
    public var field: String?
    /// The 1-based line of a syntax error in the body; nil for other problems.
    public var line: Int?
    /// The 1-based column of a syntax error in the body; nil for other problems.
    public var column: Int?
    /// What is wrong.
    public var problem: String
    /// What to change.
    public var fix: String

    /// `Android rejects the whole assetlinks.json: <where>: <problem>. Fix: <fix>.`
    public var description: String {
        var place: [String] = []
        if let line, let column { place.append("line \(line), column \(column)") }
        if let statementIndex { place.append("statement [\(statementIndex)]") }
        if let field { place.append("field \(field)") }
        let prefix = place.isEmpty ? "" : place.joined(separator: ", ") + ": "
        return "Android rejects the whole assetlinks.json: \(prefix)\(problem). Fix: \(fix)."
    }

    /// `target.sha256_cert_fingerprints[1]`, `relation_extensions["delegate_permission/…"]`.
    static func fieldName(_ path: [AssetLinksReader.PathStep]) -> String? {
        if path.isEmpty { return nil }
        var out = ""
        for step in path {
            switch step {
            case let .index(i): out += "[\(i)]"
            case let .key(k):
                let plain = !k.isEmpty && k.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
                if plain {
                    out += (out.isEmpty ? "" : ".") + k
                } else {
                    var quoted = ""
                    JSONValue.writeString(k, into: &quoted)
                    out += "[\(quoted)]"
                }
            }
        }
        return out
    }
}

/// Who a statement speaks about.
public enum AssetLinksTarget: Sendable, Equatable {
    /// Fingerprints exactly as written (Android compares them verbatim).
    case androidApp(packageName: String, sha256CertFingerprints: [String])
    /// The site as written (`https://example.com`), already checked to be scheme + host (+ port).
    case web(site: String)
}

/// One statement Android keeps (one per JSON statement; all its relations together).
public struct AssetLinksStatement: Sendable, Equatable {
    /// The relation that lets an app open the site's links (App Links).
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// Position in the file's top-level array.
    public var index: Int
    /// `kind/detail` strings, validated like Relation.create.
    public var relations: [String]
    /// The app or site the statement is about.
    public var target: AssetLinksTarget
    /// From `relation_extensions["delegate_permission/common.handle_all_urls"].dynamic_app_link_components`.
    public var dynamicAppLinkRules: DynamicAppLinkRules

    /// True when ``relations`` include ``handleAllURLs`` (compared as Java's `String.equals` does).
    public var grantsHandleAllURLs: Bool { relations.contains { javaEquals($0, Self.handleAllURLs) } }

    /// AndroidAppAssetMatcher: same package, at least one common fingerprint (verbatim).
    public func verifies(package: String, certificates: [String]) -> Bool {
        guard grantsHandleAllURLs, case let .androidApp(name, fingerprints) = target, javaEquals(name, package) else {
            return false
        }
        return fingerprints.contains { fp in certificates.contains { javaEquals($0, fp) } }
    }
}

/// A statement Android skips without rejecting the file.
public struct AssetLinksSkippedStatement: Sendable, Equatable {
    /// Position of the skipped statement in the file's top-level array.
    public var index: Int
    /// Why Android skips it (`it has no 'target'`, `'relation' is a string, not an array`).
    public var reason: String
}

/// An assetlinks.json body as Android reads it: which apps it verifies, and the Dynamic App Link
/// rules each one gets.
///
/// Android opens a site's `https` links in an app only after it fetched
/// `https://<domain>/.well-known/assetlinks.json` and found a statement with the relation
/// `delegate_permission/common.handle_all_urls` naming the app's package and the SHA-256
/// fingerprint of its signing certificate. One malformed statement makes Android reject the
/// whole file; `parse` then returns an ``AssetLinksRejection`` that names the statement and the fix.
/// (The byte-level reader behind it, `AssetLinksReader`, is internal.)
///
/// ```swift
/// let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
/// let body = """
///     [{"relation": ["delegate_permission/common.handle_all_urls"],
///       "target": {"namespace": "android_app", "package_name": "com.fitconnect.app",
///                  "sha256_cert_fingerprints": ["\(fingerprint)"]}}]
///     """
/// switch AssetLinksFile.parse(body) {
/// case .success(let file):
///     file.isVerified(package: "com.fitconnect.app", certificates: [fingerprint])   // true
///     file.handles(url: "https://fitconnect.app/signup", package: "com.fitconnect.app",
///                  certificates: [fingerprint])?.handled                           // true (no dynamic rules)
/// case .failure(let rejection):
///     print(rejection)   // "Android rejects the whole assetlinks.json: …. Fix: …."
/// }
/// ```
public struct AssetLinksFile: Sendable {
    /// The Android version whose reading this is.
    public let generation: AndroidParserGeneration
    /// The statements Android keeps, in file order.
    public let statements: [AssetLinksStatement]
    /// `include` URLs, in order; Android fetches and adds them (one level deep). Not followed here.
    public let includes: [String]
    /// Statements Android skips without rejecting the file (no `target` object, no `relation` array).
    public let skipped: [AssetLinksSkippedStatement]
    /// Things that do not reject the file but probably do not do what was meant.
    public let warnings: [String]

    /// Parses `bytes` (the HTTP body). Either every statement is usable or Android rejects it all.
    public static func parse(
        _ bytes: [UInt8], generation: AndroidParserGeneration = .android16
    ) -> Result<AssetLinksFile, AssetLinksRejection> {
        do {
            return .success(try read(bytes, generation: generation))
        } catch {
            return .failure(error)
        }
    }

    /// Parses an assetlinks.json body given as text; the same as parsing its UTF-8 bytes.
    public static func parse(
        _ text: String, generation: AndroidParserGeneration = .android16
    ) -> Result<AssetLinksFile, AssetLinksRejection> {
        parse(Array(text.utf8), generation: generation)
    }

    /// Whether a `handle_all_urls` statement names `package` with one of `certificates`
    /// (compared verbatim: upper-case colon-separated hex, as Android computes them).
    public func isVerified(package: String, certificates: [String]) -> Bool {
        verifyingStatement(package: package, certificates: certificates) != nil
    }

    /// The first statement that verifies the app: its Dynamic App Link rules are the ones Android uses.
    public func verifyingStatement(package: String, certificates: [String]) -> AssetLinksStatement? {
        statements.first { $0.verifies(package: package, certificates: certificates) }
    }

    /// `nil` when the package is not verified; otherwise whether `url` opens the app after the
    /// dynamic rules of the first verifying statement.
    public func handles(url: String, package: String, certificates: [String]) -> AndroidURLDecision? {
        verifyingStatement(package: package, certificates: certificates)?.dynamicAppLinkRules.decide(url: url)
    }

    // MARK: Reading

    private init(
        generation: AndroidParserGeneration, statements: [AssetLinksStatement], includes: [String],
        skipped: [AssetLinksSkippedStatement], warnings: [String]
    ) {
        self.generation = generation
        self.statements = statements
        self.includes = includes
        self.skipped = skipped
        self.warnings = warnings
    }

    /// StatementParser.parseStatementList.
    private static func read(_ bytes: [UInt8], generation: AndroidParserGeneration) throws(AssetLinksRejection) -> AssetLinksFile {
        var reader = AssetLinksReader(bytes: bytes)
        try reader.beginStatementList()
        var statements: [AssetLinksStatement] = []
        var includes: [String] = []
        var skipped: [AssetLinksSkippedStatement] = []
        var warnings: [String] = []
        var index = 0
        while try reader.hasNextStatement(first: index == 0) {
            let object = try reader.readStatement(index: index)
            switch try statement(object, index: index, generation: generation) {
            case let .include(url):
                includes.append(url)
                warnings.append("statement [\(index)] includes \(url); Android fetches it (one level deep), Linkwell does not follow it")
            case let .skipped(reason):
                skipped.append(AssetLinksSkippedStatement(index: index, reason: reason))
                warnings.append("statement [\(index)] is skipped by Android: \(reason)")
            case let .statement(s):
                warnings += Self.warnings(for: s)
                statements.append(s)
            }
            index += 1
        }
        if reader.hasTrailingContent {
            warnings.append("there is content after the closing ']'; Android ignores it, stricter parsers reject the file")
        }
        return AssetLinksFile(
            generation: generation, statements: statements, includes: includes, skipped: skipped, warnings: warnings)
    }

    private enum Outcome {
        case include(String)
        case skipped(String)
        case statement(AssetLinksStatement)
    }

    /// StatementParser.parseOneStatement.
    private static func statement(
        _ o: AndroidJSONObject, index: Int, generation: AndroidParserGeneration
    ) throws(AssetLinksRejection) -> Outcome {
        let include = o.optString("include")
        if !include.isEmpty { return .include(include) }
        guard let targetObject = o.optObject("target") else {
            let why = o.opt("target").map { "'target' is \($0.kindDescription), not an object" } ?? "it has no 'target'"
            return .skipped(why)
        }
        guard let relations = o.optArray("relation") else {
            let why = o.opt("relation").map { "'relation' is \($0.kindDescription), not an array" } ?? "it has no 'relation'"
            return .skipped(why)
        }
        let target = try Self.target(targetObject, index: index)
        let rules = try Self.dynamicRules(o, index: index, generation: generation)
        var relationStrings: [String] = []
        for (i, r) in relations.enumerated() {
            let relation = r.javaString
            guard isWellFormedRelation(relation) else {
                throw AssetLinksRejection(
                    kind: .invalidRelation, statementIndex: index, field: "relation[\(i)]",
                    problem: "\(quoted(relation)) is not a relation of the form kind/detail (lower-case letters, digits, '_' and '.')",
                    fix: "use \"\(AssetLinksStatement.handleAllURLs)\" (and/or \"delegate_permission/common.get_login_creds\")")
            }
            relationStrings.append(relation)
        }
        return .statement(AssetLinksStatement(index: index, relations: relationStrings, target: target, dynamicAppLinkRules: rules))
    }

    /// Relation.create: `kind/detail`, both `[a-z0-9_.]+`.
    private static func isWellFormedRelation(_ relation: String) -> Bool {
        let units = Array(relation.utf16)
        guard let slash = units.firstIndex(of: Unit.slash) else { return false }
        func ok(_ part: ArraySlice<UInt16>) -> Bool {
            !part.isEmpty && part.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2E }
        }
        return ok(units[..<slash]) && ok(units[(slash + 1)...])
    }

    /// AssetFactory.create → AndroidAppAsset.create / WebAsset.create.
    private static func target(_ t: AndroidJSONObject, index: Int) throws(AssetLinksRejection) -> AssetLinksTarget {
        func reject(_ field: String, _ problem: String, _ fix: String) -> AssetLinksRejection {
            AssetLinksRejection(kind: .invalidTarget, statementIndex: index, field: "target." + field, problem: problem, fix: fix)
        }
        guard let namespace = t.optStringOrNil("namespace") else {
            throw reject(
                "namespace", "the target has no namespace",
                "add \"namespace\": \"android_app\" (with package_name and sha256_cert_fingerprints) or \"web\" (with site)")
        }
        if javaEquals(namespace, "android_app") {
            let package = t.optString("package_name")
            if package.isEmpty {
                throw reject(
                    "package_name", t.has("package_name") ? "package_name is empty" : "the android_app target has no package_name",
                    "add \"package_name\": \"com.example.app\" (the applicationId)")
            }
            guard let certs = t.optArray("sha256_cert_fingerprints") else {
                let problem = t.opt("sha256_cert_fingerprints").map { "sha256_cert_fingerprints is \($0.kindDescription), not an array" }
                    ?? "the android_app target has no sha256_cert_fingerprints"
                throw reject(
                    "sha256_cert_fingerprints", problem,
                    "add \"sha256_cert_fingerprints\": [\"14:6D:E9:…\"] with the SHA-256 fingerprint of the app-signing certificate (with Play App Signing, the one Play Console shows)")
            }
            if certs.isEmpty {
                throw reject(
                    "sha256_cert_fingerprints", "sha256_cert_fingerprints is an empty array",
                    "list at least one SHA-256 fingerprint of the app-signing certificate, upper-case hex pairs joined by ':'")
            }
            return .androidApp(packageName: package, sha256CertFingerprints: certs.map(\.javaString))
        }
        if javaEquals(namespace, "web") {
            let site = t.optString("site")
            if site.isEmpty {
                throw reject("site", "the web target has no site", "add \"site\": \"https://example.com\"")
            }
            if let problem = webSiteProblem(site) {
                throw reject("site", "\(quoted(site)) \(problem)", "write only scheme, host and optional port: \"https://example.com\"")
            }
            return .web(site: site)
        }
        throw reject("namespace", "namespace \(quoted(namespace)) is not supported", "use \"android_app\" or \"web\"")
    }

    /// What java.net.URL + WebAsset.create object to in a `site`, or nil.
    static func webSiteProblem(_ site: String) -> String? {
        var s = Array(site.utf16)
        while let last = s.last, last <= 0x20 { s.removeLast() }
        while let first = s.first, first <= 0x20 { s.removeFirst() }
        func lower(_ u: UInt16) -> UInt16 { u >= 0x41 && u <= 0x5A ? u + 0x20 : u }
        if s.count >= 4, s[0..<4].map(lower) == Array("url:".utf16) { s.removeFirst(4) }
        guard let colon = s.firstIndex(where: { $0 == Unit.colon || $0 == Unit.slash }), s[colon] == Unit.colon else {
            return "has no scheme"
        }
        let scheme = String(decoding: s[..<colon].map(lower), as: UTF16.self)
        guard scheme == "https" || scheme == "http" else { return "does not use https (or http)" }
        var rest = Array(s[(colon + 1)...])
        if let hash = rest.firstIndex(of: Unit.hash) { rest = Array(rest[..<hash]) }
        var query: [UInt16]?
        if let q = rest.firstIndex(of: Unit.question) {
            query = Array(rest[(q + 1)...])
            rest = Array(rest[..<q])
        }
        var path = rest
        let isUNC = rest.count >= 4 && rest[0..<4].allSatisfy { $0 == Unit.slash }
        if !isUNC && rest.count >= 2 && rest[0] == Unit.slash && rest[1] == Unit.slash {
            let afterSlashes = rest[2...]
            let end = afterSlashes.firstIndex(of: Unit.slash) ?? rest.count
            let authority = Array(rest[2..<end])
            path = Array(rest[end...])
            var host = authority
            let ats = authority.indices.filter { authority[$0] == 0x40 }
            if ats.count == 1 { return "contains user info" }
            if ats.count > 1 { host = [] }
            if host.first == Unit.openBracket {
                guard let close = host.firstIndex(of: Unit.closeBracket), close > 2 else { return "has an invalid IPv6 host" }
                let after = host[(close + 1)...]
                if let first = after.first {
                    guard first == Unit.colon else { return "has an invalid authority" }
                    if after.count > 1, javaParseInt(after.dropFirst(), radix: 10) == nil { return "has an invalid port" }
                }
            } else if let c = host.firstIndex(of: Unit.colon), c + 1 < host.count {
                guard let port = javaParseInt(host[(c + 1)...], radix: 10), port >= -1 else { return "has an invalid port" }
            }
        }
        if path == Array("/.".utf16) { path = [Unit.slash] }
        if let query { path += [Unit.question] + query }
        if !path.isEmpty && path != [Unit.slash] { return "has a path or query" }
        return nil
    }

    /// StatementParser.parseDynamicAppLinkComponents.
    private static func dynamicRules(
        _ o: AndroidJSONObject, index: Int, generation: AndroidParserGeneration
    ) throws(AssetLinksRejection) -> DynamicAppLinkRules {
        guard let extensions = o.optObject("relation_extensions"),
            let handleAll = extensions.optObject(AssetLinksStatement.handleAllURLs),
            let components = handleAll.optArray("dynamic_app_link_components")
        else { return .none(generation) }
        var parsed: [(object: AndroidJSONObject, json: String)] = []
        for (i, c) in components.enumerated() {
            guard case let .object(object) = c else {
                throw AssetLinksRejection(
                    kind: .invalidDynamicAppLinkComponent, statementIndex: index,
                    field: "relation_extensions[\"\(AssetLinksStatement.handleAllURLs)\"].dynamic_app_link_components[\(i)]",
                    problem: "the component is \(c.kindDescription), not an object (org.json getJSONObject throws)",
                    fix: "write each component as an object such as {\"/\": \"/products/*\"}")
            }
            parsed.append((object, object.jsonValue.serialized(.compact, sortKeys: false)))
        }
        return DynamicAppLinkRules(parsed: parsed, generation: generation)
    }

    private static func warnings(for s: AssetLinksStatement) -> [String] {
        var out: [String] = []
        if case let .androidApp(package, fingerprints) = s.target {
            for fp in fingerprints where !isCanonicalFingerprint(fp) {
                out.append(
                    "statement [\(s.index)] (\(package)): fingerprint \(quoted(fp)) is not 32 upper-case hex pairs joined by ':'; Android compares verbatim, so it never verifies")
            }
        }
        if let reason = s.dynamicAppLinkRules.discardReason {
            out.append("statement [\(s.index)]: \(reason)")
        }
        for rejected in s.dynamicAppLinkRules.rejectedComponents {
            out.append(
                "statement [\(s.index)]: component \(rejected.index) \(rejected.json) is a pattern Android \(s.dynamicAppLinkRules.generation == .android15 ? "15's" : "16's") PatternMatcher rejects (\(rejected.reason)): every URL the earlier components leave to it fails there and does not open the app")
        }
        return out
    }

    /// `14:6D:E9:…:44:E5`: what Android computes for a certificate.
    public static func isCanonicalFingerprint(_ fp: String) -> Bool {
        let u = Array(fp.utf8)
        guard u.count == 95 else { return false }
        for (i, b) in u.enumerated() {
            if i % 3 == 2 {
                if b != UInt8(ascii: ":") { return false }
            } else if !((0x30...0x39).contains(b) || (0x41...0x46).contains(b)) {
                return false
            }
        }
        return true
    }

    private static func quoted(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, into: &out)
        return out
    }
}
