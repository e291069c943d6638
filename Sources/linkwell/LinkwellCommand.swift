// The shape every subcommand shares: a spec (for help and parsing) and a run function.

import Association
import Foundation
import LinkRouting
import LinkServer

enum LinkwellVersion {
    static let string = "0.1.0"
}

protocol LinkwellCommand {
    static var spec: CommandSpec { get }
    static func run(_ args: Arguments) throws -> Int32
}

extension LinkwellCommand {
    static func main(_ argv: [String]) -> Int32 {
        var argv = argv
        let end = argv.firstIndex(of: "--") ?? argv.endIndex
        if argv[..<end].contains(where: { $0 == "--quiet" || $0 == "-q" }) {
            Output.quiet = true
            argv = argv[..<end].filter { $0 != "--quiet" && $0 != "-q" } + argv[end...]
        }
        do {
            if argv[..<(argv.firstIndex(of: "--") ?? argv.endIndex)].contains(where: { $0 == "--help" || $0 == "-h" }) {
                Output.out(spec.helpText)
                return 0
            }
            return try run(try spec.parse(argv))
        } catch let e as UsageError {
            Output.err("Error: \(e.message)")
            Output.err("Usage: \(spec.usage)\n  See 'linkwell \(spec.name) --help'.")
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

    static var configOption: OptionSpec {
        OptionSpec(name: "--config", valueName: "file", help: "Config file (default: $LINKWELL_CONFIG, else config/linkwell.json5).")
    }

    /// Loads and validates the config (the load pipeline `serve` runs: the files are generated
    /// once, in `ValidatedConfig.sites`); on errors prints them and stops with status 1.
    static func loadConfig(_ args: Arguments) throws -> (ValidatedConfig, ValidationReport) {
        let path = args.value("--config") ?? ConfigLoader.defaultPath()
        let (loaded, report) = LoadedConfig.load(path: path)
        guard let validated = loaded?.validated else {
            for d in report.errors { Output.err(d.position == nil ? "Error: \(d)" : d.withFile(path).description) }
            Output.err("Error: \(path) has \(report.errors.count) error(s); run 'linkwell validate --config \(path)' for the full report.")
            throw ExitStatus(code: 1)
        }
        return (validated, report)
    }
}
