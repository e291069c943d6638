// The android-manifest target: for one Android app of a site, the intent filters its activity
// needs — a verified (autoVerify) filter for https/http on the site's hosts with path rules that
// cover the app's routes, and a plain filter per custom scheme — as a manifest overlay the
// manifest merger folds into the activity (or to copy from).
//
// Android 12–14 have no dynamic rules: the intent filter is all there is, so its paths must
// cover every route (and cannot express exclusions). Android matches the decoded path.
// `pathAdvancedPattern` (API 26+) is PatternMatcher's advanced glob: greedy, no backtracking, so
// `[^/]+` is exactly "one segment", but a literal after `[^/]+` in the same segment never
// matches; such a segment is claimed whole and the app's parser decides.

import LinkRouting

/// The `<data>` attribute a path rule is written with.
enum AndroidPathKind: String, Sendable, Equatable {
    case path = "android:path"
    case pathPrefix = "android:pathPrefix"
    case pathAdvancedPattern = "android:pathAdvancedPattern"
}

/// One path attribute of the verified filter.
struct AndroidPathRule: Sendable, Equatable {
    var kind: AndroidPathKind
    /// The pattern as PatternMatcher reads it (before the XML-resource escaping of `\`).
    var value: String
    /// The routes it is there for.
    var routes: [String]
    /// Set when the rule claims more than the route accepts, saying what.
    var note: String?
}

enum AndroidManifestGenerator {
    static let specials: Set<Character> = ["\\", ".", "*", "+", "[", "]", "{", "}"]

    static func escapeGlob(_ s: String) -> String {
        var out = ""
        for c in s {
            if specials.contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// The path rules that cover one route (for Android 12–14, where they are all there is).
    static func rules(for entry: CompiledEntry, route: String) -> [AndroidPathRule] {
        let segs = entry.pattern.segments
        func decoded(_ s: String) -> String { PercentEncoding.decode(s) }
        let fixed = segs.filter { if case .rest = $0 { return false } else { return true } }
        // Literal paths, with every oneOf combination spelled out when there are few.
        var combos: [String]? = [""]
        for seg in fixed {
            switch seg {
            case let .literal(l): combos = combos?.map { $0 + "/" + decoded(l) }
            case let .param(_, prefix, suffix, oneOf):
                if let oneOf, let c = combos, c.count * oneOf.count <= 32 {
                    combos = c.flatMap { base in oneOf.map { base + "/" + decoded(prefix) + $0 + decoded(suffix) } }
                } else {
                    combos = nil
                }
            case .rest: break
            }
        }
        if entry.pattern.hasRest {
            if let combos {
                if combos == [""] { return [AndroidPathRule(kind: .pathPrefix, value: "/", routes: [route])] }
                return combos.flatMap { p in
                    [AndroidPathRule(kind: .path, value: p, routes: [route]), AndroidPathRule(kind: .pathPrefix, value: p + "/", routes: [route])]
                }
            }
        } else if let combos {
            return combos.flatMap { p -> [AndroidPathRule] in
                p.isEmpty
                    ? [AndroidPathRule(kind: .path, value: "/", routes: [route])]
                    : [AndroidPathRule(kind: .path, value: p, routes: [route]), AndroidPathRule(kind: .path, value: p + "/", routes: [route])]
            }
        }
        var pattern = ""
        var notes: [String] = []
        for seg in fixed {
            switch seg {
            case let .literal(l): pattern += "/" + escapeGlob(decoded(l))
            case let .param(name, prefix, suffix, oneOf):
                pattern += "/" + escapeGlob(decoded(prefix)) + "[^/]+"
                if !suffix.isEmpty { notes.append("any '\(decoded(prefix))…' segment for {\(name)}, whatever follows it (the glob cannot backtrack to check '\(decoded(suffix))')") }
                if oneOf != nil { notes.append("any value of {\(name)}, not only its oneOf list") }
            case .rest: break
            }
        }
        pattern += entry.pattern.hasRest ? ".*" : "/*"
        return [AndroidPathRule(kind: .pathAdvancedPattern, value: pattern, routes: [route], note: notes.isEmpty ? nil : notes.joined(separator: "; "))]
    }

    /// Every path rule of the app's verified filter, in route order, duplicates merged.
    static func rules(_ m: SiteModel, package: String) -> [AndroidPathRule] {
        var out: [AndroidPathRule] = []
        for r in m.routes where r.entry.androidPackages.contains(package) {
            for rule in rules(for: r.entry, route: r.config.name) {
                if let i = out.firstIndex(where: { $0.kind == rule.kind && $0.value == rule.value }) {
                    if !out[i].routes.contains(rule.routes[0]) { out[i].routes.append(rule.routes[0]) }
                } else {
                    out.append(rule)
                }
            }
        }
        // The claimed short links (`shortLinks.openApp`): the same entries the association files add.
        for entry in shortLinkClaims(m) where entry.isRoute && entry.androidPackages.contains(package) {
            for rule in rules(for: entry, route: ShortLinksConfig.claimRouteName) where !out.contains(where: { $0.kind == rule.kind && $0.value == rule.value }) {
                out.append(rule)
            }
        }
        return out
    }

    /// The entries `shortLinks.openApp` adds after the site's own (``RouteTable/claimsSite(for:)``).
    static func shortLinkClaims(_ m: SiteModel) -> [CompiledEntry] {
        Array(RouteTable.claimsSite(for: m.site).entries.dropFirst(m.site.entries.count))
    }

    static func xmlAttr(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// A comment's text: `--` is not allowed inside XML comments.
    static func xmlComment(_ s: String) -> String {
        var t = s
        while t.contains("--") { t = t.replacingAll("--", with: "- -") }
        return t.hasSuffix("-") ? t + " " : t
    }

    static func file(_ m: SiteModel, app: AndroidAppConfig, header: [String]) -> String {
        var o = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        o += "<!--\n" + header.map { "  " + xmlComment($0) }.joined(separator: "\n") + "\n\n"
        o += "  Intent filters of \(app.package) for site '\(m.site.name)'. The manifest merger folds this file into\n"
        o += "  the activity of the same name (put it in a source set or a library module, or copy the\n"
        o += "  <intent-filter> elements into your activity, which must be exported and should be singleTask\n"
        o += "  or singleTop). Parse intent.data with \(m.typeName).parse(uri) from `linkwell codegen kotlin`.\n-->\n"
        o += "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n    <application>\n"
        o += "        <activity android:name=\".MainActivity\" android:exported=\"true\">\n"
        let rules = rules(m, package: app.package)
        let exclusions = (m.site.entries + shortLinkClaims(m)).filter { $0.exclusion != nil && $0.androidPackages.contains(app.package) }
        if rules.isEmpty {
            o += "            <!-- No route of site '\(xmlComment(m.site.name))' applies to \(app.package): no verified filter. -->\n"
        } else {
            o += "            <!-- App Links: https (and http) links on the site's domains open the app once Android has\n"
            o += "                 verified /.well-known/assetlinks.json on every host below (Android 12+: each host on its\n"
            o += "                 own). On Android 15+ the dynamic rules in assetlinks.json narrow these paths further;\n"
            o += "                 on Android 12–14 these paths are all there is, so they cover every route.\n"
            if !exclusions.isEmpty {
                o += "                 Not expressible here (Android 12–14 open them in the app, whose parser returns null,\n"
                o += "                 so send them to the browser): " + exclusions.map { xmlComment($0.pattern.display) }.joined(separator: ", ") + ".\n"
            }
            o += "            -->\n"
            o += "            <intent-filter android:autoVerify=\"true\">\n"
            o += "                <action android:name=\"android.intent.action.VIEW\" />\n"
            o += "                <category android:name=\"android.intent.category.DEFAULT\" />\n"
            o += "                <category android:name=\"android.intent.category.BROWSABLE\" />\n"
            o += "                <data android:scheme=\"https\" />\n"
            o += "                <data android:scheme=\"http\" />\n"
            for d in m.site.config.domains { o += "                <data android:host=\"\(xmlAttr(d.lowercased()))\" />\n" }
            var previous: ([String], String?)? = nil
            for rule in rules {
                if previous?.0 != rule.routes || previous?.1 != rule.note {
                    let what = rule.routes.map { name in
                        name == ShortLinksConfig.claimRouteName
                            ? "short links (shortLinks.openApp): the app resolves them with \(m.typeName).resolve"
                            : "route '\(name)' " + (m.routes.first { $0.config.name == name }?.entry.pattern.display ?? "")
                    }
                    o += "                <!-- \(xmlComment(what.joined(separator: ", ")))" + (rule.note.map { "; also claims \(xmlComment($0))" } ?? "") + " -->\n"
                    previous = (rule.routes, rule.note)
                }
                // Android reads `\` in a manifest string as an escape: a PatternMatcher `\` is written `\\`.
                o += "                <data \(rule.kind.rawValue)=\"\(xmlAttr(rule.value.replacingAll("\\", with: "\\\\")))\" />\n"
            }
            o += "            </intent-filter>\n"
        }
        for scheme in app.schemes ?? [] {
            o += "            <!-- Custom scheme \(xmlComment(scheme)):// (no verification; any app can register it): every link of\n"
            o += "                 the scheme reaches the app, whose parser decides. -->\n"
            o += "            <intent-filter>\n"
            o += "                <action android:name=\"android.intent.action.VIEW\" />\n"
            o += "                <category android:name=\"android.intent.category.DEFAULT\" />\n"
            o += "                <category android:name=\"android.intent.category.BROWSABLE\" />\n"
            o += "                <data android:scheme=\"\(xmlAttr(scheme.lowercased()))\" />\n"
            o += "            </intent-filter>\n"
        }
        o += "        </activity>\n    </application>\n</manifest>\n"
        return o
    }
}

