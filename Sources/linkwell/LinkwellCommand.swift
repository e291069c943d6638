// The command tree: every subcommand a value with its spec and run function (or its own
// subcommands), dispatched here — help, did-you-mean and usage errors before anything runs.

import Association
import Foundation
import LinkRouting
import LinkServer

enum LinkwellVersion {
    static let string = "0.1.0"
}

/// A leaf command: a spec (help, parsing) and what it does.
protocol LinkwellCommand {
    static var spec: CommandSpec { get }
    static func run(_ args: Arguments) throws -> Int32
}

extension LinkwellCommand {
    static var command: Command { Command(spec: spec, run: run) }
}

/// One node of the command tree: a command that runs, or a group of subcommands.
struct Command: Sendable {
    var spec: CommandSpec
    var subcommands: [Command] = []
    var run: (@Sendable (Arguments) throws -> Int32)? = nil

    init(spec: CommandSpec, run: @escaping @Sendable (Arguments) throws -> Int32) {
        self.spec = spec
        self.run = run
    }

    init(spec: CommandSpec, subcommands: [Command]) {
        self.spec = spec
        self.subcommands = subcommands
    }

    var helpText: String { spec.helpText(subcommands: subcommands.map(\.spec)) }

    /// The subcommand whose last name word is `word`.
    func subcommand(_ word: String) -> Command? {
        subcommands.first { $0.spec.name.split(separator: " ").last.map(String.init) == word }
    }

    var subcommandWords: [String] { subcommands.map { String($0.spec.name.split(separator: " ").last!) } }

    /// Every command that runs, depth first (groups' subcommands after the group).
    var flattened: [Command] { subcommands.flatMap { [$0] + $0.flattened } }

    /// Runs this command (or the subcommand argv names) with argv; returns the exit status.
    func main(_ argv: [String], reference: CLIReference) -> Int32 {
        let end = argv.firstIndex(of: "--") ?? argv.endIndex
        let argv = argv[..<end].filter { $0 != "--quiet" && $0 != "-q" } + argv[end...]
        if !subcommands.isEmpty, let first = argv.first, !first.hasPrefix("-") {
            guard let sub = subcommand(first) else {
                let words = subcommandWords
                let hint = DidYouMean.closest(first, in: words).map { " Did you mean '\($0)'?" }
                    ?? " Choose \(words.dropLast().joined(separator: ", ")) or \(words.last!)."
                Output.err("Error: unknown subcommand '\(first)' for '\(spec.name)'.\(hint) Run 'linkwell \(spec.name) --help' for the list.")
                return ExitCode.usage
            }
            return sub.main(Array(argv.dropFirst()), reference: reference)
        }
        do {
            if argv.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
                Output.out(helpText)
                return 0
            }
            guard let run else {
                let words = subcommandWords
                throw UsageError(message: "name a subcommand: \(words.dropLast().joined(separator: ", ")) or \(words.last!)")
            }
            return try run(try spec.parse(Array(argv), reference: reference))
        } catch let e as UsageError {
            Output.err("Error: \(e.message)")
            Output.err("Usage: \(subcommands.isEmpty ? spec.usage : "linkwell \(spec.name) <subcommand> [options]")\n  See 'linkwell \(spec.name) --help'.")
            return ExitCode.usage
        } catch let e as ExitStatus {
            return e.code
        } catch let e as IOFailure {
            Output.err("Error: \(e)")
            return ExitCode.io
        } catch {
            Output.err("Error: \(error)")
            return 1
        }
    }
}

/// Options several commands share.
enum CommonOptions {
    static let config = Option<Path>("--config", "file", help: "Config file (default: $LINKWELL_CONFIG, else config/linkwell.json5).")
    static let json = Flag("--json", help: "Print as JSON.")
    static let site = Option<String>("--site", "name", help: "Site name or domain (default: the only or the default site).")
}

extension Arguments {
    /// `--config`, else $LINKWELL_CONFIG, else config/linkwell.json5.
    var configPath: String { self[CommonOptions.config]?.path ?? ConfigLoader.defaultPath() }

    /// Loads and validates the config (the load pipeline `serve` runs: the files are generated
    /// once, in `ValidatedConfig.sites`); on errors prints them and stops with status 1.
    func loadConfig() throws -> (ValidatedConfig, ValidationReport) {
        let path = configPath
        let (loaded, report) = LoadedConfig.load(path: path)
        guard let validated = loaded?.validated else {
            for d in report.errors { Output.err(d.position == nil ? "Error: \(d)" : d.withFile(path).description) }
            Output.err("Error: \(path) has \(report.errors.count) error(s); run 'linkwell validate --config \(path)' for the full report.")
            throw ExitStatus(code: 1)
        }
        return (validated, report)
    }
}
