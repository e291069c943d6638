import Association
import Foundation
import LandingPages
import LinkRouting
import Synchronization
import MicroHTTP

/// The running server's state: the current snapshot (swapped atomically on reload), metrics and
/// the log. The public and admin handlers read it; nothing else is mutable.
public final class ServerRuntime: Sendable {
    public let configPath: String
    public let metrics: Metrics
    public let log: EventLog
    private let current: Mutex<Snapshot>
    /// Serialises reloads (SIGHUP and the file watcher).
    private let reloading = Mutex<Void>(())

    /// Per-request log lines (`--access-log off` drops them; metrics still count every request).
    public let accessLog: Bool

    public init(configPath: String, initial: Snapshot, version: String, log: EventLog, accessLog: Bool = true) {
        self.accessLog = accessLog
        self.configPath = configPath
        self.metrics = Metrics(version: version)
        self.log = log
        self.current = Mutex(initial)
        metrics.recordInitialLoad()
    }

    /// The snapshot serving now.
    public var snapshot: Snapshot { current.withLock { $0 } }

    /// Validates the config file and builds a snapshot from it; the report has the errors when
    /// the snapshot is nil.
    public static func loadSnapshot(configPath: String) -> (Snapshot?, ValidationReport) {
        let (loaded, report) = LoadedConfig.load(path: configPath)
        guard let loaded else { return (nil, report) }
        let dir = Snapshot.publicDirectory(settings: loaded.validated.config.server, configPath: configPath)
        do {
            return (try Snapshot(loaded: loaded, publicDirectory: dir), report)
        } catch {
            var failed = report
            let file = (error as? LandingTemplateError)?.file ?? dir ?? "public/templates"
            let message = (error as? LandingTemplateError).map { $0.message } ?? "\(error)"
            failed.diagnostics.append(Diagnostic(.error, file: file, at: "templates", message,
                                                 fix: (error as? LandingTemplateError)?.fix))
            failed.validated = nil
            return (nil, failed)
        }
    }

    /// Builds a new snapshot beside the current one and swaps it in; a config that fails
    /// validation is logged and counted, and the current snapshot keeps serving.
    @discardableResult
    public func reload(reason: String) -> Bool {
        reloading.withLock { _ in
            let (snapshot, report) = Self.loadSnapshot(configPath: configPath)
            guard let snapshot else {
                metrics.recordReload(success: false)
                log.event("reload_failed", [
                    ("reason", .string(reason)), ("config", .string(configPath)),
                    ("errors", .strings(report.errors.map(\.description))),
                ])
                return false
            }
            current.withLock { $0 = snapshot }
            metrics.recordReload(success: true)
            log.event("reloaded", [
                ("reason", .string(reason)), ("config", .string(configPath)),
                ("sites", .strings(snapshot.sites.map(\.name))),
                ("warnings", report.warnings.isEmpty ? nil : .strings(report.warnings.map(\.description))),
            ])
            return true
        }
    }

    // MARK: - Handlers

    /// The public handler: snapshot + request → response, then metrics and one log line.
    public var handler: some HTTPHandler { PublicHandler(runtime: self) }

    /// `/healthz`, `/readyz`, `/metrics`.
    public var adminHandler: some HTTPHandler { AdminHandler(runtime: self) }

    struct PublicHandler: HTTPHandler {
        let runtime: ServerRuntime

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            let start = ContinuousClock.now
            let facts = RequestFacts(request)
            let snapshot = runtime.snapshot
            let result = Responder.respond(snapshot, facts)
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            runtime.completed(result, facts: facts, snapshot: snapshot, seconds: seconds)
            return result.response
        }
    }

    func completed(_ result: ResponderResult, facts: RequestFacts, snapshot: Snapshot, seconds: Double) {
        let status = result.response.status
        metrics.record(site: result.site, kind: result.kind, status: status, seconds: seconds)
        let bytes: Int
        if facts.method == "HEAD" {
            bytes = 0
        } else {
            switch result.response {
            case let .prepared(p): bytes = p.bodyCount
            case let .dynamic(_, _, body): bytes = body.count
            }
        }
        guard accessLog else { return }
        let path = snapshot.logQueryStrings ? facts.rawTarget : String(facts.rawPath)
        log.event("request", [
            ("site", result.site.map { .string($0) }), ("method", .string(facts.method)), ("path", .string(path)),
            ("status", .int(status)), ("bytes", .int(bytes)), ("duration_ms", .double(seconds * 1000)),
            ("client", .string(result.client)), ("scheme", .string(result.scheme)), ("route", result.route.map { .string($0) }),
            ("kind", .string(result.kind.rawValue)),
        ])
    }

    /// The daemon's completion hook: logs and counts the requests libmicrohttpd answered itself
    /// (431, 414, 400 for a malformed request), which the handler never saw.
    public func requestCompleted(_ summary: HTTPRequestSummary) {
        guard summary.method.isEmpty, summary.status != 0 else { return }
        let seconds = Double(summary.durationNanos) / 1e9
        metrics.record(site: nil, kind: .error, status: summary.status, seconds: seconds)
        guard accessLog else { return }
        log.event("request", [
            ("method", .string("")), ("path", .string("")), ("status", .int(summary.status)),
            ("bytes", .int(summary.bodyBytes)), ("duration_ms", .double(seconds * 1000)),
            ("client", .string(summary.peerAddress)), ("kind", .string(RequestKind.error.rawValue)),
        ])
    }

    struct AdminHandler: HTTPHandler {
        let runtime: ServerRuntime

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            guard request.method == "GET" || request.method == "HEAD" else {
                return Responder.plain(405, "Method Not Allowed\n", extra: [("Allow", "GET, HEAD")])
            }
            switch request.rawPath {
            case "/healthz":
                return Responder.plain(200, "ok\n")
            case "/readyz":
                _ = runtime.snapshot  // a runtime always holds a validated snapshot
                return Responder.plain(200, "ready\n")
            case "/metrics":
                return .dynamic(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")],
                                body: Array(runtime.metrics.render().utf8))
            default:
                return Responder.plain(404, "Not found: try /healthz, /readyz or /metrics\n")
            }
        }
    }
}
