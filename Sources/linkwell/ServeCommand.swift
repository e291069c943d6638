// linkwell serve — the server: association files, landing pages, static assets, admin endpoints.

import Foundation
import LinkRouting
import LinkServer
#if canImport(Glibc)
import Glibc
import MicroHTTP
#endif

extension EventLog.Format: ChoiceValue, CaseIterable {
    public static var allCases: [EventLog.Format] { [.json, .text] }
}

extension ListenAddress: ArgumentValue {
    init(argument: String) throws(ExpectedValue) {
        do { self = try ListenAddress(parsing: argument) } catch { throw ExpectedValue(expected: "\(error)") }
    }
}

enum ServeCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "serve",
        overview: "Serve the association files and landing pages of every site in the config.",
        abstract: "Serve the association files, landing pages and admin endpoints.",
        options: [CommonOptions.config.spec, listen.spec, admin.spec, threads.spec, logFormat.spec, accessLog.spec, watch.spec],
        discussion: """
            The config is validated before any port opens. SIGHUP reloads it: a config that fails
            validation is logged and counted, and the running one keeps serving. SIGTERM or SIGINT
            stop accepting connections, let requests in flight finish (server.shutdownDeadlineSeconds,
            default 10) and exit 0.
            The first line on stdout names the bound addresses:
              {"time":"…","event":"listening","addresses":["127.0.0.1:8080"],"admin":"127.0.0.1:9090","sites":[…],…}
            """
    )

    static let listen = Option<ListenAddress>(
        "--listen", "host:port",
        help: "Address to listen on: 127.0.0.1:8080, [::1]:8080, port 0 = any free port (default: server.listen, else 127.0.0.1:8080).",
        repeatable: true)
    static let admin = Option<AdminAddress>(
        "--admin", "host:port",
        help: "Admin listener for /healthz, /readyz, /metrics and the REST API /api/v1 (default: server.admin, else 127.0.0.1:9090); 'off' disables it.")
    static let threads = Option<Count>("--threads", "n", help: "Polling threads per listen address (default: server.threads, else the core count).")
    static let logFormat = Option<EventLog.Format>("--log-format", "json|text", help: "One JSON object per line (default) or text for humans.")
    static let accessLog = Option<AccessLogSetting>(
        "--access-log", "on|off|file",
        help: "One log line per request: on = stdout (default), off, or a file to append to (reopened on SIGUSR1, for logrotate). Buffered 64 KB / 1 s; metrics count requests either way.")
    static let watch = Flag("--watch", help: "Reload when the config file changes (checked every second).")

    /// `--admin host:port`, or `off`.
    struct AdminAddress: ArgumentValue {
        var address: ListenAddress?
        init(argument: String) throws(ExpectedValue) {
            if argument == "off" { address = nil; return }
            do { address = try ListenAddress(parsing: argument) } catch { throw ExpectedValue(expected: "\(error); or 'off'") }
        }
    }

    /// `--access-log on|off|<file>`.
    enum AccessLogSetting: ArgumentValue {
        case on, off, file(String)
        init(argument: String) throws(ExpectedValue) {
            switch argument {
            case "on": self = .on
            case "off": self = .off
            case "": throw ExpectedValue(expected: "use on (stdout), off or a file path")
            case let path: self = .file(path)
            }
        }
    }

    static func run(_ args: Arguments) throws -> Int32 {
        // Before any daemon thread exists, so every thread inherits the mask and only sigwait sees them.
        let signals = ServerProcess.blockSignals()
        let log = EventLog(format: args[logFormat] ?? .json)
        let configPath = args.configPath
        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: configPath)
        guard let snapshot = loaded else {
            for d in report.errors { Output.err("Error: \(d)") }
            Output.err("Error: \(configPath) has \(report.errors.count) error(s); nothing was started. Run 'linkwell validate --config \(configPath)' for the full report.")
            return 1
        }
        for w in report.warnings { Output.err("Warning: \(w)") }

        var server = snapshot.server
        let accessLogDestination = override(&server, with: args)
        let process: ServerProcess
        do {
            process = try ServerProcess(
                configPath: configPath, snapshot: snapshot, server: server, log: log,
                accessLogDestination: accessLogDestination, version: LinkwellVersion.string, signals: signals)
        } catch {
            Output.err("Error: \(error)")
            return 1
        }
        if args.has(watch) { process.watchConfig() }
        process.run()
    }

    /// The config's server settings (validated with it), overridden by the command line; returns
    /// where the access log goes.
    static func override(_ server: inout ServerConfiguration, with args: Arguments) -> AccessLog.Destination {
        var destination = AccessLog.Destination.stdout
        switch args[accessLog] ?? .on {
        case .on: server.accessLog = true
        case .off: server.accessLog = false
        case let .file(path):
            server.accessLog = true
            destination = .file(path)
        }
        if !args.all(listen).isEmpty { server.listen = args.all(listen) }
        if let adminSetting = args[admin] { server.admin = adminSetting.address }
        if let n = args[threads]?.value { server.threads = n }
        return destination
    }
}
