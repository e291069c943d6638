// `linkwell codegen`: the route table → source files and platform files for the apps. Pure
// functions of (table, site, options) → file text, deterministic, so the apps' CI can check
// that a checked-in file is still what the config generates.

import LinkRouting

/// What `linkwell codegen TARGET` writes; the raw value is the target's name on the command line.
public enum CodegenTarget: String, Sendable, CaseIterable {
    /// One self-contained Swift file per site (Foundation's URL only), an enum of the routes.
    case swift
    /// Pure Kotlin on the JVM standard library, plus a separate file taking `android.net.Uri`.
    case kotlin
    /// The `<intent-filter>` blocks for each Android app of the site (a manifest overlay).
    case androidManifest = "android-manifest"
    /// The associated-domains entitlement for each iOS app of the site.
    case iosEntitlements = "ios-entitlements"
    /// The `CFBundleURLTypes` entry for each iOS app's custom schemes.
    case iosInfoPlist = "ios-info-plist"
}

/// What the command line adds to the route table: names, and where the config is.
public struct CodegenOptions: Sendable, Equatable {
    /// The config file as the user named it; it goes into the header and into the command the
    /// header prints, so keep it relative to where the command runs (the app's repository).
    public var configPath: String
    /// The enum / sealed class name; default `<Site>Route`.
    public var typeName: String?
    /// The Kotlin package; default: the site's first Android package + `.links`, none without one.
    public var kotlinPackage: String?
    /// `?mode=developer` on every associated domain (development devices fetch the origin directly).
    public var developerMode: Bool

    /// Options as `linkwell codegen` reads them; nil means the default.
    public init(configPath: String, typeName: String? = nil, kotlinPackage: String? = nil, developerMode: Bool = false) {
        self.configPath = configPath
        self.typeName = typeName
        self.kotlinPackage = kotlinPackage
        self.developerMode = developerMode
    }
}

/// One file to write: a name (no directories) and its text.
public struct GeneratedFile: Sendable, Equatable {
    /// The file name, without directories: `DiallodevRoute.swift`.
    public var name: String
    /// The whole file, header first.
    public var contents: String
}

/// Why a target cannot be generated for a site (the CLI prints it with the fix).
public struct CodegenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What cannot be generated and why, naming the site.
    public var message: String
    /// What to change in the config (or the command).
    public var fix: String
    /// An error with its fix.
    public init(_ message: String, fix: String) {
        self.message = message
        self.fix = fix
    }
    /// The message, then `    fix: …` on its own line, as `linkwell validate` prints diagnostics.
    public var description: String { "\(message)\n    fix: \(fix)" }
}

/// The generators: ``files(_:site:table:options:)`` for one target and site, and the header
/// helpers `linkwell codegen --check` reads the generating command back with.
public enum Codegen {
    /// The files of one target for one site.
    public static func files(_ target: CodegenTarget, site: CompiledSite, table: RouteTable, options: CodegenOptions) throws(CodegenError) -> [GeneratedFile] {
        let model = try SiteModel(site: site, table: table, options: options)
        switch target {
        case .swift:
            return [GeneratedFile(name: "\(model.typeName).swift", contents: SwiftGenerator.file(model, header: header(target, model, comment: "//")))]
        case .kotlin:
            let h = header(target, model, comment: "//")
            return [
                GeneratedFile(name: "\(model.typeName).kt", contents: KotlinGenerator.file(model, header: h)),
                GeneratedFile(name: "\(model.typeName)Android.kt", contents: KotlinGenerator.androidFile(model, header: h)),
            ]
        case .androidManifest:
            guard !site.androidApps.isEmpty else {
                throw CodegenError("site '\(site.name)' has no Android app, so there is no manifest to generate", fix: "add the app under 'android' in \(options.configPath)")
            }
            return site.androidApps.map { app in
                GeneratedFile(
                    name: "\(site.name).\(app.package).AndroidManifest.xml",
                    contents: AndroidManifestGenerator.file(model, app: app, header: header(target, model, comment: "xml")))
            }
        case .iosEntitlements, .iosInfoPlist:
            guard !site.iosApps.isEmpty else {
                throw CodegenError("site '\(site.name)' has no iOS app, so there is no plist to generate", fix: "add the app under 'ios' in \(options.configPath)")
            }
            var out: [GeneratedFile] = []
            for app in site.iosApps {
                if target == .iosEntitlements {
                    out.append(
                        GeneratedFile(
                            name: "\(site.name).\(app.bundleID).entitlements",
                            contents: ApplePlistGenerator.entitlements(model, app: app, header: header(target, model, comment: "xml"))))
                } else if !(app.schemes ?? []).isEmpty {
                    out.append(
                        GeneratedFile(
                            name: "\(site.name).\(app.bundleID).Info.plist",
                            contents: ApplePlistGenerator.infoPlist(model, app: app, header: header(target, model, comment: "xml"))))
                }
            }
            guard !out.isEmpty else {
                throw CodegenError(
                    "no iOS app of site '\(site.name)' registers a custom URL scheme, so there is no CFBundleURLTypes entry to generate",
                    fix: "add 'schemes' to the app in \(options.configPath), or leave Info.plist without URL types")
            }
            return out
        }
    }

    /// The command that makes a file, as its header prints it (and `codegen --check` reruns it).
    public static func command(_ target: CodegenTarget, site: String, options: CodegenOptions, defaultTypeName: String, defaultPackage: String?) -> [String] {
        var args = ["codegen", target.rawValue, "--config", options.configPath, "--site", site]
        if let t = options.typeName, t != defaultTypeName, target == .swift || target == .kotlin { args += ["--type-name", t] }
        if let p = options.kotlinPackage, p != defaultPackage, target == .kotlin { args += ["--kotlin-package", p] }
        if options.developerMode, target == .iosEntitlements { args += ["--developer-mode"] }
        return args
    }

    /// `linkwell codegen …` as a shell line; words with shell metacharacters are single-quoted.
    public static func shellLine(_ args: [String]) -> String {
        (["linkwell"] + args).map { w in
            let plain = !w.isEmpty && w.unicodeScalars.allSatisfy { c in
                c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "-_./=:+,@%".unicodeScalars.contains(c))
            }
            return plain ? w : "'" + w.replacingAll("'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// Splits a header's command line back into words (the inverse of `shellLine`).
    public static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inQuote = false
        var hasWord = false
        var chars = Substring(line)
        while let c = chars.first {
            chars = chars.dropFirst()
            if inQuote {
                if c == "'" { inQuote = false } else { current.append(c) }
            } else if c == "'" {
                inQuote = true
                hasWord = true
            } else if c == "\\", let next = chars.first {
                current.append(next)
                chars = chars.dropFirst()
                hasWord = true
            } else if c == " " {
                if hasWord { words.append(current) }
                current = ""
                hasWord = false
            } else {
                current.append(c)
                hasWord = true
            }
        }
        if hasWord { words.append(current) }
        return words
    }

    /// The marker line every generated file carries; `codegen --check` looks for it.
    public static let marker = "Generated by linkwell from "

    static func header(_ target: CodegenTarget, _ model: SiteModel, comment: String) -> [String] {
        var cmd = shellLine(command(target, site: model.site.name, options: model.options, defaultTypeName: model.defaultTypeName, defaultPackage: model.defaultKotlinPackage))
        var check = "--check"
        if comment == "xml" {
            // No `--` inside an XML comment; `\-\-config` is `--config` to the shell (and to --check).
            cmd = cmd.replacingAll("--", with: "\\-\\-")
            check = "\\-\\-check"
        }
        return [
            "\(marker)\(model.options.configPath) (site '\(model.site.name)'). Do not edit: change the config, then run",
            "  \(cmd)",
            "`linkwell codegen \(check) DIR` exits 1 in CI when this file is stale.",
        ]
    }

    /// The first line where a file differs from what the config generates, for `--check` and tests.
    public static func firstDifference(expected: String, actual: String) -> String {
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(e.count, a.count) where (i < e.count ? e[i] : nil) != (i < a.count ? a[i] : nil) {
            let want = i < e.count ? String(e[i]) : "<end of file>"
            let have = i < a.count ? String(a[i]) : "<end of file>"
            return "line \(i + 1) differs: the config generates `\(want.trimmingSpaces.prefix(100))`, the file has `\(have.trimmingSpaces.prefix(100))`"
        }
        return "identical"
    }

    /// The command in a generated file's header, if it has one.
    public static func headerCommand(in text: String) -> [String]? {
        let lines = text.split(separator: "\n", maxSplits: 8, omittingEmptySubsequences: false)
        guard let m = lines.firstIndex(where: { $0.contains(marker) }), m + 1 < lines.count else { return nil }
        var line = Substring(lines[m + 1])
        while let f = line.first, f == "/" || f == " " || f == "#" { line = line.dropFirst() }
        let words = shellWords(String(line))
        guard words.first == "linkwell", words.count > 2, words[1] == "codegen" else { return nil }
        return Array(words.dropFirst())
    }
}

/// String literals of the generated Swift and Kotlin sources, which escape alike.
enum StringLiteral {
    /// The escapes both languages write alike.
    static let escapes: [Unicode.Scalar: String] = ["\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\r": "\\r", "\t": "\\t"]

    /// `s` in double quotes: backslash, quote, newline, return and tab escaped, and the characters
    /// of `extra` as it says (Kotlin's `$`); control characters and non-letters beyond ASCII
    /// written as `unicodeEscape` spells their code point, so a reader of the generated file sees
    /// them (nil: the language cannot, the character is written as it is).
    static func quoted(_ s: String, extra: [Unicode.Scalar: String] = [:], unicodeEscape: (UInt32) -> String?) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            if let escaped = escapes[u] ?? extra[u] {
                out += escaped
            } else if u.value < 0x20 || u.value == 0x7F || (u.value >= 0x80 && !u.properties.isAlphabetic),
                      let escaped = unicodeEscape(u.value) {
                out += escaped
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

extension String {
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }

    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    /// `range(of:)` without Foundation (LinkRouting's targets stay Foundation-light).
    func range(of target: String) -> Range<Index>? {
        let t = Array(target)
        guard !t.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            var j = i
            var k = 0
            while k < t.count, j < endIndex, self[j] == t[k] {
                j = index(after: j)
                k += 1
            }
            if k == t.count { return i..<j }
            i = index(after: i)
        }
        return nil
    }
}
