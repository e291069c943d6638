// linkwell codegen — the apps' router and platform files, generated from the route table.

import Association
import Codegen
import Foundation
import LinkRouting

enum CodegenCommand: LinkwellCommand {
    static let targets = CodegenTarget.allCases.map(\.rawValue).joined(separator: "|")

    static let spec = CommandSpec(
        name: "codegen",
        overview: "Generate the apps' link router (Swift, Kotlin) and platform files from the route table.",
        abstract: "Generate the apps' link router (Swift, Kotlin), intent filters and plists.",
        arguments: [
            ArgumentSpec(
                name: targets, help: "What to generate (none with --check).", arity: .optional,
                values: [
                    ("swift", "<Type>.swift: an enum of the site's routes, init?(url:), url, schemeURL (Foundation's URL only, iOS 15+)."),
                    ("kotlin", "<Type>.kt (JVM standard library only) and <Type>Android.kt (parse(uri: android.net.Uri))."),
                    ("android-manifest", "<site>.<package>.AndroidManifest.xml: the intent filters of each Android app."),
                    ("ios-entitlements", "<site>.<bundle>.entitlements: com.apple.developer.associated-domains of each iOS app."),
                    ("ios-info-plist", "<site>.<bundle>.Info.plist: CFBundleURLTypes for each iOS app's custom schemes."),
                ])
        ],
        options: [site.spec, output.spec, typeName.spec, kotlinPackage.spec, developerMode.spec, checkDir.spec, CommonOptions.config.spec],
        discussion: """
            Examples:
              linkwell codegen swift --site diallodev --output ios/Generated
              linkwell codegen --check ios/Generated
            Each file starts with a header naming the config and the exact command that made it;
            `codegen --check DIR` reruns that command and compares, so an app's CI fails when the
            route table changed and the file did not. Run it where the header's config path is
            valid (where the files were generated), or give the config with --config.
            Without --output one file goes to stdout (kotlin: the JVM one, without the
            android.net.Uri file); a site with several apps needs --output.
            """
    )

    static let site = Option<String>(
        "--site", "name", help: "The site (its name or a domain); needed to print to stdout when the config has several.")
    static let output = Option<Path>("--output", "dir", help: "Write the files into <dir> (every site, or --site) instead of printing one.")
    static let typeName = Option<String>(
        "--type-name", "name", help: "The Swift enum / Kotlin sealed class name (default: <Site>Route, e.g. DiallodevRoute).")
    static let kotlinPackage = Option<String>(
        "--kotlin-package", "pkg", help: "The Kotlin package (default: the site's first Android package + '.links').")
    static let developerMode = Flag(
        "--developer-mode", help: "ios-entitlements: append ?mode=developer (development builds fetch the origin, not Apple's CDN).")
    static let checkDir = Option<Path>(
        "--check", "dir", help: "Regenerate every linkwell-generated file under <dir> (from its header) and exit 1 naming the stale ones.")

    static func run(_ args: Arguments) throws -> Int32 {
        if let dir = args[checkDir]?.path {
            guard args.positional.isEmpty else { throw UsageError(message: "--check takes a directory, not a target: linkwell codegen --check <dir>") }
            return try check(dir: dir, config: args[CommonOptions.config]?.path, reference: args.reference)
        }
        guard args.positional.count == 1, let target = CodegenTarget(rawValue: args.positional[0]) else {
            throw UsageError(message: args.positional.isEmpty
                ? "say what to generate: \(targets.replacingOccurrences(of: "|", with: ", "))"
                : "unknown target '\(args.positional.joined(separator: " "))'; use one of \(targets.replacingOccurrences(of: "|", with: ", "))")
        }
        let configPath = args.configPath
        let table = try args.loadConfig().0.table
        var sites = table.sites
        if let name = args[Self.site] {
            guard let s = table.site(named: name) else {
                throw UsageError(message: "no site '\(name)'; the config has \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
            sites = [s]
        }
        if args[typeName] != nil, sites.count > 1 {
            throw UsageError(message: "--type-name names one type, but the config has \(sites.count) sites; add --site")
        }
        let options = CodegenOptions(
            configPath: configPath, typeName: args[typeName], kotlinPackage: args[kotlinPackage],
            developerMode: args.has(developerMode))
        guard let dir = args[output]?.path else {
            guard sites.count == 1 else {
                throw UsageError(message: "the config has \(sites.count) sites; pick one with --site, or write them all with --output DIR")
            }
            let files: [GeneratedFile]
            do {
                files = try Codegen.files(target, site: sites[0], table: table, options: options)
            } catch {
                Output.err("Error: \(error)")
                return 1
            }
            if files.count > 1, target != .kotlin {
                throw UsageError(message: "site '\(sites[0].name)' has \(files.count) apps, one \(target.rawValue) file each (\(files.map(\.name).joined(separator: ", "))); write them with --output DIR")
            }
            FileHandle.standardOutput.write(Data(files[0].contents.utf8))
            return 0
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var failed = false
        for site in sites {
            let files: [GeneratedFile]
            do {
                files = try Codegen.files(target, site: site, table: table, options: options)
            } catch {
                // Writing every site: a site without the platform is skipped, not an error.
                Output.err("\(args[Self.site] == nil ? "skipped" : "Error"): \(error)")
                if args[Self.site] != nil { failed = true }
                continue
            }
            for f in files {
                let path = (dir as NSString).appendingPathComponent(f.name)
                try Data(f.contents.utf8).write(to: URL(fileURLWithPath: path))
                Output.out("wrote \(path) (\(f.contents.utf8.count) bytes)")
            }
        }
        return failed ? 1 : 0
    }

    /// Every file under `dir` whose header names a `linkwell codegen` command, regenerated and compared.
    static func check(dir: String, config override: String?, reference: CLIReference) throws -> Int32 {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw UsageError(message: "'\(dir)' is not a directory")
        }
        let skip: Set<String> = [".build", "build", "node_modules", "Pods", "DerivedData", ".git", ".gradle"]
        var paths: [String] = []
        if let e = fm.enumerator(atPath: dir) {
            while let rel = e.nextObject() as? String {
                let name = (rel as NSString).lastPathComponent
                if skip.contains(name) || (name.hasPrefix(".") && name != ".") {
                    if (e.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory { e.skipDescendants() }
                    continue
                }
                if (e.fileAttributes?[.type] as? FileAttributeType) == .typeRegular { paths.append(rel) }
            }
        }
        var tables: [String: RouteTable] = [:]
        var checked = 0
        var stale: [String] = []
        for rel in paths.sorted() {
            let path = (dir as NSString).appendingPathComponent(rel)
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            let head = String(decoding: handle.readData(ofLength: 2048), as: UTF8.self)
            handle.closeFile()
            guard head.contains(Codegen.marker), var words = Codegen.headerCommand(in: head) else { continue }
            checked += 1
            let rerun = "linkwell " + words.joined(separator: " ")
            // words: codegen TARGET --config X --site S [...]
            var parsed: Arguments
            do {
                parsed = try spec.parse(Array(words.dropFirst()), reference: reference)
            } catch {
                Output.err("stale: \(path) — its header's command does not parse (\(rerun)); regenerate the file")
                stale.append(path)
                continue
            }
            if let override {
                parsed.set(CommonOptions.config, Path(override))
                if let i = words.firstIndex(of: "--config"), i + 1 < words.count { words[i + 1] = override }
            }
            let configPath = parsed.configPath
            guard parsed.positional.count == 1, let target = CodegenTarget(rawValue: parsed.positional[0]) else {
                Output.err("stale: \(path) — unknown target in its header: \(rerun)")
                stale.append(path)
                continue
            }
            if tables[configPath] == nil {
                let report = ConfigValidator.validate(path: configPath, platformCheck: false)
                guard let t = report.table else {
                    for d in report.errors { Output.err("Error: \(d)") }
                    Output.err("Error: \(configPath) (named by \(path)) has \(report.errors.count) error(s); fix it, then check again")
                    return 1
                }
                tables[configPath] = t
            }
            let table = tables[configPath]!
            let name = (path as NSString).lastPathComponent
            let fix = "regenerate: " + Codegen.shellLine(words) + " --output " + ((rel as NSString).deletingLastPathComponent.isEmpty ? dir : (dir as NSString).appendingPathComponent((rel as NSString).deletingLastPathComponent))
            guard let siteName = parsed[Self.site], let site = table.site(named: siteName) else {
                Output.err("stale: \(path) — \(configPath) has no site '\(parsed[Self.site] ?? "?")' any more; delete the file or \(fix)")
                stale.append(path)
                continue
            }
            let options = CodegenOptions(
                configPath: configPath, typeName: parsed[typeName], kotlinPackage: parsed[kotlinPackage],
                developerMode: parsed.has(developerMode))
            let files = (try? Codegen.files(target, site: site, table: table, options: options)) ?? []
            guard let expected = files.first(where: { $0.name == name }) else {
                Output.err("stale: \(path) — \(configPath) no longer generates '\(name)' (it generates \(files.map { "'\($0.name)'" }.joined(separator: ", "))); delete it or \(fix)")
                stale.append(path)
                continue
            }
            let actual = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if actual == expected.contents {
                Output.out("up to date: \(path)")
            } else {
                Output.err("stale: \(path) — \(Codegen.firstDifference(expected: expected.contents, actual: actual)); \(fix)")
                stale.append(path)
            }
        }
        if checked == 0 {
            Output.err("Error: no file under '\(dir)' has a 'linkwell codegen' header; pass the directory the generated files are in")
            return 1
        }
        if !stale.isEmpty {
            Output.err("\(stale.count) of \(checked) generated file(s) are stale: \(stale.joined(separator: ", "))")
            return 1
        }
        Output.out("\(checked) generated file(s) are up to date")
        return 0
    }
}
