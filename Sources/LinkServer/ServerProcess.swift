// The running server as a process: the two listeners, the signals it answers (SIGHUP reloads,
// SIGUSR1 reopens the access log, SIGTERM/SIGINT drain and exit), the optional config watcher and
// the last click flush. `linkwell serve` parses its options and hands them here.

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MicroHTTP

/// One server process: started listeners and the signal loop that stops it.
public final class ServerProcess {
    /// The signals the process answers; blocked in every thread, received only by `sigwait`.
    public static func blockSignals() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGUSR1] { sigaddset(&signals, s) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        return signals
    }

    /// The config file: reloaded on SIGHUP, watched with `watchConfig()`.
    let configPath: String
    let runtime: ServerRuntime
    let log: EventLog
    /// The access log (nil when off): flushed before a reload and at exit, reopened on SIGUSR1.
    let requestLog: AccessLog?
    /// Click counts, flushed before a reload and at exit.
    let clicks: ClickRecorder
    /// The public listener and the admin one (nil when `admin` is off).
    let daemon: HTTPDaemon, admin: HTTPDaemon?
    var signals: sigset_t

    /// Opens the listeners of `server` (the config's settings with the command line's overrides).
    /// Throws when the access log cannot be opened or a listener cannot bind.
    public init(configPath: String, snapshot: Snapshot, server: ServerConfiguration, log: EventLog,
                accessLogDestination: AccessLog.Destination, version: String, signals: sigset_t) throws {
        self.configPath = configPath
        self.log = log
        self.signals = signals
        requestLog = server.accessLog ? try AccessLog(format: log.format, destination: accessLogDestination) : nil
        clicks = ClickRecorder(settings: ClickRecorder.Settings(snapshot: snapshot, configPath: configPath), log: log)
        let runtime = ServerRuntime(configPath: configPath, initial: snapshot, version: version, log: log,
                                    accessLog: server.accessLog, accessLogWriter: requestLog, clicks: clicks)
        self.runtime = runtime
        clicks.start()
        if let requestLog { runtime.metrics.attach(accessLogDropped: { [requestLog] in requestLog.dropped }) }
        let logger: @Sendable (String) -> Void = { [log] message in log.event("httpd", [("message", .string(message))]) }
        daemon = try HTTPDaemon(
            options: server.daemonOptions(logger: logger, onConnectionEvent: { runtime.connectionEvent($0) }),
            handler: runtime.handler, onRequestCompleted: { runtime.requestCompleted($0) })
        let publicDaemon = daemon
        runtime.attach(connectionStatistics: { publicDaemon.connectionStatistics() })
        if let adminOptions = server.adminDaemonOptions(logger: logger, onConnectionEvent: { runtime.connectionEvent($0, listener: "admin") }) {
            admin = try HTTPDaemon(options: adminOptions, handler: runtime.adminHandler, onRequestCompleted: { runtime.adminRequestCompleted($0) })
        } else {
            admin = nil
        }
        log.event("listening", [
            ("addresses", .strings(daemon.boundAddresses.map(\.description))),
            ("admin", admin.map { .string($0.boundAddresses[0].description) }),
            ("sites", .strings(snapshot.sites.map(\.name))),
            ("config", .string(configPath)),
            ("public", snapshot.publicDirectory.map { .string($0) }),
            ("static_assets", .int(snapshot.assets.responses.count)),
            ("version", .string(version)),
        ])
        for w in snapshot.assets.warnings { log.event("warning", [("message", .string(w))]) }
        runtime.startLinkRefresher()
    }

    /// Reloads when the config file changes (checked every second).
    public func watchConfig() {
        let watched = configPath
        let runtime = runtime
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

    /// Answers signals until SIGTERM or SIGINT, then drains and exits.
    public func run() -> Never {
        while true {
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { continue }
            switch received {
            case SIGUSR1: reopenAccessLog()
            case SIGHUP:
                requestLog?.flush()
                clicks.flush()  // to the database of the config counted under
                runtime.reload(reason: "SIGHUP")
            default: stop(received)
            }
        }
    }

    func reopenAccessLog() {
        if let error = requestLog?.reopen() {
            log.event("access_log_reopen_failed", [("message", .string(error.description))])
        } else if case let .file(path)? = requestLog?.destination {
            log.event("access_log_reopened", [("path", .string(path))])
        }
    }

    static func name(_ signal: Int32) -> String { signal == SIGTERM ? "SIGTERM" : "SIGINT" }

    /// Stops accepting, lets requests in flight finish within the deadline, exits 0; a second
    /// SIGTERM or SIGINT while draining cuts it short (exit 1).
    func stop(_ received: Int32) -> Never {
        // The deadline of the config serving now (a reload may have changed it).
        let deadline = runtime.snapshot.server.shutdownDeadlineSeconds
        log.event("shutting_down", [
            ("signal", .string(Self.name(received))),
            ("in_flight", .int(daemon.inFlightRequests())), ("connections", .int(daemon.activeConnections())),
            ("admin_in_flight", admin.map { .int($0.inFlightRequests()) }),
            ("deadline_seconds", .double(deadline)),
        ])
        // Drain on another thread, so a second signal here can cut it short.
        let (stopping, adminDaemon, requestLog, clicks, log) = (daemon, admin, requestLog, clicks, log)
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
            ServerProcess.finalFlush(clicks, log: log)
            log.event("stopped", fields)
            exit(0)
        }
        while true {
            var again: Int32 = 0
            guard sigwait(&signals, &again) == 0, again != SIGHUP, again != SIGUSR1 else { continue }  // no reload while stopping
            requestLog?.flush()
            ServerProcess.finalFlush(clicks, log: log)
            log.event("stopped", [
                ("drained", .bool(false)), ("forced", .bool(true)), ("signal", .string(Self.name(again))),
                ("cut_requests", .int(stopping.inFlightRequests())), ("cut_connections", .int(stopping.activeConnections())),
            ])
            exit(1)
        }
    }

    /// The last click flush before exit: retried for a few seconds; what cannot be written is logged.
    static func finalFlush(_ clicks: ClickRecorder, log: EventLog) {
        if case let .failed(pending) = clicks.flush(attempts: 5) {
            log.event("clicks_lost", [
                ("clicks", .int(pending)), ("database", .string(clicks.currentSettings.databaseName)),
                ("message", .string("the link database could not be written before exit (see clicks_flush_failed); these counts are lost")),
            ])
        }
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
