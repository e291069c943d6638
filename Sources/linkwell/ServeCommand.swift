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
        var signals = sigset_t()
        sigemptyset(&signals)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGUSR1] { sigaddset(&signals, s) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let format = args[logFormat] ?? .json
        let accessLogSetting = args[accessLog] ?? .on
        var accessLogDestination = AccessLog.Destination.stdout
        if case let .file(path) = accessLogSetting { accessLogDestination = .file(path) }
        let log = EventLog(format: format)
        let configPath = args.configPath

        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: configPath)
        guard let snapshot = loaded else {
            for d in report.errors { Output.err("Error: \(d)") }
            Output.err("Error: \(configPath) has \(report.errors.count) error(s); nothing was started. Run 'linkwell validate --config \(configPath)' for the full report.")
            return 1
        }
        for w in report.warnings { Output.err("Warning: \(w)") }

        // The config's server settings (validated with it), overridden by the command line.
        var server = snapshot.server
        if case .off = accessLogSetting { server.accessLog = false } else { server.accessLog = true }
        if !args.all(listen).isEmpty { server.listen = args.all(listen) }
        if let adminSetting = args[admin] { server.admin = adminSetting.address }
        if let n = args[threads]?.value { server.threads = n }

        let requestLog: AccessLog?
        do { requestLog = server.accessLog ? try AccessLog(format: format, destination: accessLogDestination) : nil } catch {
            Output.err("Error: \(error)")
            return 1
        }
        let clicks = ClickRecorder(settings: ClickRecorder.Settings(snapshot: snapshot, configPath: configPath), log: log)
        let runtime = ServerRuntime(configPath: configPath, initial: snapshot, version: LinkwellVersion.string, log: log,
                                    accessLog: server.accessLog, accessLogWriter: requestLog, clicks: clicks)
        clicks.start()
        if let requestLog { runtime.metrics.attach(accessLogDropped: { requestLog.dropped }) }
        let logger: @Sendable (String) -> Void = { message in log.event("httpd", [("message", .string(message))]) }

        let daemon: HTTPDaemon
        var admin: HTTPDaemon? = nil
        do {
            daemon = try HTTPDaemon(
                options: server.daemonOptions(logger: logger, onConnectionEvent: { runtime.connectionEvent($0) }),
                handler: runtime.handler, onRequestCompleted: { runtime.requestCompleted($0) })
            let publicDaemon = daemon
            runtime.attach(connectionStatistics: { publicDaemon.connectionStatistics() })
            if let adminOptions = server.adminDaemonOptions(logger: logger, onConnectionEvent: { runtime.connectionEvent($0, listener: "admin") }) {
                admin = try HTTPDaemon(options: adminOptions, handler: runtime.adminHandler, onRequestCompleted: { runtime.adminRequestCompleted($0) })
            }
        } catch {
            Output.err("Error: \(error)")
            return 1
        }

        log.event("listening", [
            ("addresses", .strings(daemon.boundAddresses.map(\.description))),
            ("admin", admin.map { .string($0.boundAddresses[0].description) }),
            ("sites", .strings(snapshot.sites.map(\.name))),
            ("config", .string(configPath)),
            ("public", snapshot.publicDirectory.map { .string($0) }),
            ("static_assets", .int(snapshot.assets.responses.count)),
            ("version", .string(LinkwellVersion.string)),
        ])
        for w in snapshot.assets.warnings { log.event("warning", [("message", .string(w))]) }
        runtime.startLinkRefresher()

        if args.has(watch) {
            let watched = configPath
            Thread.detachNewThread {
                var last = ConfigWatcher.fingerprint(watched)
                while true {
                    sleep(1)
                    let now = ConfigWatcher.fingerprint(watched)
                    if now != last, now != nil {
                        last = now
                        runtime.reload(reason: "watch")
                    }
                }
            }
        }

        while true {
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { continue }
            if received == SIGUSR1 {
                if let error = requestLog?.reopen() {
                    log.event("access_log_reopen_failed", [("message", .string(error.description))])
                } else if case let .file(path)? = requestLog?.destination {
                    log.event("access_log_reopened", [("path", .string(path))])
                }
                continue
            }
            if received == SIGHUP {
                requestLog?.flush()
                clicks.flush()  // to the database of the config counted under
                runtime.reload(reason: "SIGHUP")
                continue
            }
            // The deadline of the config serving now (a reload may have changed it).
            let deadline = runtime.snapshot.server.shutdownDeadlineSeconds
            let signalName = received == SIGTERM ? "SIGTERM" : "SIGINT"
            log.event("shutting_down", [
                ("signal", .string(signalName)),
                ("in_flight", .int(daemon.inFlightRequests())), ("connections", .int(daemon.activeConnections())),
                ("admin_in_flight", admin.map { .int($0.inFlightRequests()) }),
                ("deadline_seconds", .double(deadline)),
            ])
            // Drain on another thread, so a second signal here can cut it short.
            let stopping = daemon
            let adminDaemon = admin
            Thread.detachNewThread {
                // Both listeners under one deadline: an API write in flight is finished and
                // answered, or (past the deadline, before its handler ran) answered 503 undone.
                let result = HTTPDaemon.shutdown([stopping] + (adminDaemon.map { [$0] } ?? []),
                                                 gracePeriod: .milliseconds(Int(max(0, deadline) * 1000)))
                var fields: [(String, EventLog.Value?)] = [("drained", .bool(result.drained))]
                if !result.drained {
                    fields.append(("cut_requests", .int(result.cutRequests)))
                    fields.append(("cut_connections", .int(result.cutConnections)))
                    if result.cutAnswers > 0 { fields.append(("cut_answers", .int(result.cutAnswers))) }
                }
                requestLog?.flush()
                finalFlush(clicks, log: log)
                log.event("stopped", fields)
                exit(0)
            }
            while true {
                var again: Int32 = 0
                guard sigwait(&signals, &again) == 0, again != SIGHUP, again != SIGUSR1 else { continue }  // no reload while stopping
                requestLog?.flush()
                finalFlush(clicks, log: log)
                log.event("stopped", [
                    ("drained", .bool(false)), ("forced", .bool(true)), ("signal", .string(again == SIGTERM ? "SIGTERM" : "SIGINT")),
                    ("cut_requests", .int(stopping.inFlightRequests())), ("cut_connections", .int(stopping.activeConnections())),
                ])
                exit(1)
            }
        }
    }
}

/// The last click flush before exit: retried for a few seconds; what cannot be written is logged.
func finalFlush(_ clicks: ClickRecorder, log: EventLog) {
    if case let .failed(pending) = clicks.flush(attempts: 5) {
        log.event("clicks_lost", [
            ("clicks", .int(pending)), ("database", .string(clicks.currentSettings.databaseName)),
            ("message", .string("the link database could not be written before exit (see clicks_flush_failed); these counts are lost")),
        ])
    }
}

/// What identifies a version of the config file: modification time, size and inode.
enum ConfigWatcher {
    struct Fingerprint: Equatable {
        var seconds: Int
        var nanoseconds: Int
        var size: Int
        var inode: UInt
    }

    static func fingerprint(_ path: String) -> Fingerprint? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Fingerprint(seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec), size: Int(info.st_size), inode: UInt(info.st_ino))
    }
}
