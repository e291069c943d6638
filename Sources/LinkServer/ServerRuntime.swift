import Association
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LandingPages
import LinkRouting
import LinkStore
import Synchronization
import MicroHTTP

/// The running server's state: the current snapshot (swapped atomically on reload), metrics and
/// the log. The public and admin handlers read it; nothing else is mutable.
public final class ServerRuntime: Sendable {
    public let configPath: String
    public let metrics: Metrics
    public let log: EventLog
    private let current: Locked<Snapshot>
    /// Serialises reloads (SIGHUP and the file watcher).
    private let reloading = Locked<Void>(())

    /// Per-request log lines (`--access-log off` drops them; metrics still count every request).
    public let accessLog: Bool
    /// Where request lines go when set (buffered, see `AccessLog`); else they are written at once
    /// through `log`.
    public let accessLogWriter: AccessLog?
    /// Click counting (`storage.clicks`); nil: none (tests, benchmarks).
    public let clicks: ClickRecorder?

    /// Keeps the served short links up to date (`linksChanged()`, `startLinkRefresher()`).
    public let linkRefresher: LinkRefresher

    /// App-open beacons per client address (`AppOpenBeacon`).
    let beaconLimiter = BeaconRateLimiter()

    /// Whether links can be written, for /readyz, /metrics and the admin API.
    public var storeStatus: LinkStoreStatus { linkRefresher.status }

    public init(configPath: String, initial: Snapshot, version: String, log: EventLog, accessLog: Bool = true, accessLogWriter: AccessLog? = nil,
                clicks: ClickRecorder? = nil) {
        self.clicks = clicks
        let linkRefresher = LinkRefresher(cell: initial.liveLinks, log: log, configPath: configPath)
        self.linkRefresher = linkRefresher
        // Clicks are written only while links can be; a database that disappeared is not
        // re-created by the flush while its links serve from memory.
        clicks?.attach(
            readOnly: { linkRefresher.status.readOnlyReason },
            mayCreateDatabase: { linkRefresher.cell.current.revision == nil })
        self.accessLog = accessLog
        self.accessLogWriter = accessLogWriter
        self.configPath = configPath
        self.metrics = Metrics(version: version)
        self.log = log
        self.current = Locked(initial)
        metrics.recordInitialLoad()
    }

    /// The snapshot serving now.
    public var snapshot: Snapshot { current.withLock { $0 } }

    /// Call after any write to the links in this process (the admin API, an import run inside
    /// serve): reads the links again and swaps the new index in before it returns. Writes by
    /// other processes and instances are picked up by `startLinkRefresher()`'s thread.
    public func linksChanged() {
        linkRefresher.check(storage: snapshot.table.config.storage, reason: "local write")
    }

    /// Starts watching the store for writes by other processes and instances (`serve`).
    /// The first check runs before this returns, so a read-only store is logged at start.
    public func startLinkRefresher() {
        linkRefresher.check(storage: snapshot.table.config.storage, reason: "start")
        linkRefresher.start { [unowned self] in self.snapshot.table.config.storage }
    }

    /// Validates the config file and builds a snapshot from it; the report has the errors when
    /// the snapshot is nil. Without `liveLinks` (start-up) the short links are read from the
    /// store into a new index; a reload passes the running server's, which the link refresher
    /// keeps current — a reload never waits on the database.
    /// `previous`: the snapshot a reload replaces; its sites whose part of the config did not
    /// change are reused as compiled and generated (the snapshot's pages, assets and caches are
    /// always built anew).
    public static func loadSnapshot(configPath: String, liveLinks: LinkIndexCell? = nil, previous: Snapshot? = nil) -> (Snapshot?, ValidationReport) {
        let (loaded, report) = LoadedConfig.load(path: configPath, reusing: previous?.sites.map(\.generated) ?? [])
        guard let loaded else { return (nil, report) }
        let dir = Snapshot.publicDirectory(settings: loaded.validated.config.server, configPath: configPath)
        if let configured = loaded.validated.config.server?.publicDir, let dir, !Snapshot.isDirectory(dir) {
            var failed = report
            failed.diagnostics.append(Diagnostic(
                .error, file: configPath, at: "server.publicDir", value: configured,
                "server.publicDir is '\(configured)', but \(dir) is not a directory, so its templates, CSS and images cannot be laid over the shipped ones",
                fix: "create the folder, correct the path (relative paths start at the config file's folder), or remove server.publicDir (the pages compiled into the binary then serve alone)"))
            failed.validated = nil
            return (nil, failed)
        }
        // Short links at start-up: read once from the link database, when it exists (serve never
        // creates a SQLite file; 'linkwell links add' does). A writable one is migrated first; a
        // read-only one (a read-only volume) is read as it is, and the server starts with links
        // read-only. A broken or locked file, or a PostgreSQL server that cannot be reached,
        // stops the start with the error and its fix.
        let cell: LinkIndexCell
        if let liveLinks {
            cell = liveLinks
        } else {
            let storage = loaded.validated.table.config.storage
            do throws(LinkStoreError) {
                let location = try StorageLocation.of(storage: storage, configPath: configPath)
                var state = LinkIndexCell.State(index: .empty, source: location)
                if location.exists {
                    let store = location.writeProblem == nil
                        ? try LinkStore(writing: location) : try LinkStore(reading: location, busyTimeoutMilliseconds: 2000)
                    let (index, revision) = try SQLiteFileGate.withAccess(location) { () throws(LinkStoreError) in try store.loadIndex(table: nil) }
                    state = LinkIndexCell.State(index: index, revision: revision, source: location)
                }
                cell = LinkIndexCell(state)
            } catch {
                var failed = report
                let file = storage?.postgres == nil ? LinkStore.databasePath(storage: storage, configPath: configPath) : configPath
                failed.diagnostics.append(Diagnostic(.error, file: file, at: storage?.postgres == nil ? "storage.sqlite" : "storage.postgres", error.description))
                failed.validated = nil
                return (nil, failed)
            }
        }
        do {
            return (try Snapshot(loaded: loaded, publicDirectory: dir, configDirectory: Snapshot.configDirectory(configPath), liveLinks: cell), report)
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
        rebuild(reason: reason, configReload: true)
    }

    /// Links written in this process (the admin API): the index is read again from the store
    /// (which has the write) and swapped in before this returns.
    /// When the store cannot be read back (deleted or locked a moment after the write), the
    /// written links are applied to the index in memory instead: a link answered 2xx is served.
    public func linksChanged(changed: [ShortLink], removed: [(site: String, code: String)]) {
        if !linkRefresher.check(storage: snapshot.table.config.storage, reason: "local write") {
            linkRefresher.apply(changed: changed, removed: removed)
        }
    }

    @discardableResult
    private func rebuild(reason: String, configReload: Bool) -> Bool {
        reloading.withLock { _ in
            let (snapshot, report) = Self.loadSnapshot(
                configPath: configPath, liveLinks: linkRefresher.cell, previous: current.withLock { $0 })
            guard let snapshot else {
                if configReload { metrics.recordReload(success: false) }
                log.event("reload_failed", [
                    ("reason", .string(reason)), ("config", .string(configPath)),
                    ("errors", .strings(report.errors.map(\.description))),
                ])
                return false
            }
            current.withLock { $0 = snapshot }
            // The links stay (bound to the new routes); a changed `storage` block is read now.
            linkRefresher.check(storage: snapshot.table.config.storage, reason: "reload")
            clicks?.configure(ClickRecorder.Settings(snapshot: snapshot, configPath: configPath))
            // The old snapshot (and its caches) is freed once the last request using it is done;
            // hand the freed heap back to the system instead of keeping the high-water mark.
            _ = malloc_trim(0)
            if !configReload {
                log.event("links_reloaded", [("links", .int(snapshot.links.count))])
                return true
            }
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
    public var adminHandler: some HTTPHandler {
        let api = AdminAPI(runtime: self)
        return AdminHandler(runtime: self, api: api, console: Console(runtime: self, api: api))
    }

    struct PublicHandler: HTTPHandler {
        let runtime: ServerRuntime

        /// Only the app-open beacon's POST reaches here (`ServerConfiguration.publicPathMethods`):
        /// its body is read up to the beacon's limit.
        func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision {
            .readBody(limit: AppOpenBeacon.bodyLimit)
        }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if request.method == "POST" { return appOpen(request) }
            let start = Self.nanos()
            let snapshot = runtime.snapshot
            if let (result, path) = Responder.wellKnown(snapshot, request) {
                // No click to count; the log shows the path as sent (the matched one).
                noted(request, result, path: snapshot.logQueryStrings ? request.rawTarget : path, since: start)
                return result.response
            }
            if let response = Responder.plainLink(snapshot, request, { result, path, request in
                if let click = result.click, let clicks = runtime.clicks, clicks.enabled, request.method == "GET" {
                    clicks.record(click, referer: request.header(.referer))
                }
                // The target itself when it has no query (no new String).
                let whole = snapshot.logQueryStrings || path.utf8.count == request.rawTarget.utf8.count
                noted(request, result, path: whole ? request.rawTarget : String(path), since: start)
                return result.response
            }) {
                return response
            }
            let facts = RequestFacts(request)
            // Read before the responder takes the facts.
            let isGet = facts.method == "GET"
            let path = snapshot.logQueryStrings ? facts.rawTarget : String(facts.rawPath)
            let result = Responder.respond(snapshot, consume facts)
            if let click = result.click, let clicks = runtime.clicks, clicks.enabled, isGet {
                clicks.record(click, referer: request.header(.referer))
            }
            noted(request, result, path: path, since: start)
            return result.response
        }

        /// Hands what the responder knew to `requestCompleted` (the request's note), which logs
        /// and counts the request once its response is really sent.
        private func noted(_ request: borrowing HTTPRequest, _ result: borrowing ResponderResult, path: String, since start: UInt64) {
            let seconds = Double(Self.nanos() &- start) / 1e9
            request.note(AnsweredRequest.init)?.fill(
                site: result.site, kind: result.kind, route: result.route, client: result.client, scheme: result.scheme,
                path: path, seconds: seconds)
        }

        /// The monotonic clock in nanoseconds: one `clock_gettime`, where `ContinuousClock.now`
        /// and `Duration.components` cost ~270 instructions a request.
        static func nanos() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        }

        /// `POST /.well-known/linkwell/opens`, the one POST the head check lets through.
        func appOpen(_ request: HTTPRequest) -> HTTPResponse {
            let start = ContinuousClock.now
            let snapshot = runtime.snapshot
            let result = AppOpenBeacon.answer(request, snapshot: snapshot, limiter: runtime.beaconLimiter, counter: runtime.clicks)
            let elapsed = ContinuousClock.now - start
            request.note(AnsweredRequest.init)?.fill(
                site: result.site, kind: result.kind, route: result.route, client: result.client, scheme: result.scheme,
                path: AppOpenBeacon.path, seconds: Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
            return result.response
        }
    }

    /// What the public handler knew about a request, handed to the completion hook as the
    /// request's note (`HTTPRequest.note`): one object per thread, filled again by each request.
    final class AnsweredRequest: @unchecked Sendable {
        // @unchecked: filled by the handler, then read by the completion hook of the same request,
        // on the connection's thread; reused only once nothing else holds it.
        var site: String? = nil
        var kind: RequestKind = .error
        var route: String? = nil
        var client = ""
        var scheme = ""
        var path = ""
        /// Time to compute the response.
        var seconds = 0.0

        func fill(site: String?, kind: RequestKind, route: String?, client: String, scheme: String, path: String, seconds: Double) {
            self.site = site
            self.kind = kind
            self.route = route
            self.client = client
            self.scheme = scheme
            self.path = path
            self.seconds = seconds
        }
    }

    /// The daemon's completion hook, called once per request after its response was sent (or
    /// failed): one log line and one count per request — including those refused before the
    /// handler (RFC 9112 checks, limits) and those libmicrohttpd answered itself (431, 505, …).
    /// A connection that closed before its head was complete is no request: the connection
    /// counters report it.
    public func requestCompleted(_ summary: HTTPRequestSummary) {
        guard summary.headComplete || summary.status != 0 else { return }
        // The public handler fills no other note: no dynamic cast.
        let answered = summary.note.map { unsafeDowncast($0, to: AnsweredRequest.self) }
        let kind = answered?.kind ?? .error
        let sent = summary.outcome == .completed
        let seconds = answered?.seconds ?? Double(summary.durationNanos) / 1e9
        // Logged before counted: once /metrics counts a request, its line is in the log's buffer.
        if accessLog { logRequest(summary, answered: answered, kind: kind, sent: sent) }
        if sent {
            metrics.record(site: answered?.site, kind: kind, status: summary.status, seconds: seconds)
        } else {
            metrics.recordUnsent(outcome: Self.outcomeName(summary.outcome))
        }
    }

    private func logRequest(_ summary: HTTPRequestSummary, answered: AnsweredRequest?, kind: RequestKind, sent: Bool) {
        let path = answered?.path ?? logPath(summary.rawTarget)
        let line = RequestLogLine(
            site: answered?.site, method: summary.method, path: path,
            status: sent ? summary.status : 0, intendedStatus: sent ? nil : summary.status,
            outcome: sent ? nil : Self.outcomeName(summary.outcome),
            bytes: sent ? summary.bodyBytes : 0, durationNanos: Int(summary.durationNanos),
            client: answered?.client ?? summary.peerAddress, scheme: answered?.scheme,
            route: answered?.route, kind: kind.rawValue,
            rejectedBy: summary.rejectedBy.map { $0 == .headCheck ? "linkwell" : "libmicrohttpd" })
        if let accessLogWriter {
            accessLogWriter.record(line)
        } else {
            log.event("request", line.fields)
        }
    }

    /// A refused request's target for the log: the path only (unless query strings are logged),
    /// at most 512 bytes.
    private func logPath(_ target: String) -> String {
        let path = snapshot.logQueryStrings ? target : String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        return path.utf8.count <= 512 ? path : String(decoding: path.utf8.prefix(512), as: UTF8.self) + "…"
    }

    static func outcomeName(_ outcome: HTTPRequestSummary.Outcome) -> String {
        switch outcome {
        case .completed: "completed"
        case .error: "error"
        case .timeout: "timeout"
        case .shutdown: "shutdown"
        case .clientAbort: "client_abort"
        case .headDeadline: "head_deadline"
        }
    }

    /// The daemon's connection events (at most one line per kind and second).
    /// `listener` names a listener other than the public one (`admin`).
    public func connectionEvent(_ event: HTTPConnectionEvent, listener: String? = nil) {
        let on: (String, EventLog.Value?) = ("listener", listener.map { .string($0) })
        switch event {
        case let .refused(reason, count, addresses):
            log.event("connections_refused", [("reason", .string(reason.rawValue)), ("count", .int(count)), ("clients", .strings(addresses)), on])
        case let .headDeadline(count, addresses):
            log.event("connections_closed", [("reason", .string("request_head_deadline")), ("count", .int(count)), ("clients", .strings(addresses)), on])
        }
    }

    /// The admin daemon's completion hook: one line per admin request (`event: admin_request`)
    /// where the access log goes — 401s and requests refused before the handler included — with
    /// the name of the token that authenticated it (never the token).
    public func adminRequestCompleted(_ summary: HTTPRequestSummary) {
        guard accessLog, summary.headComplete || summary.status != 0 else { return }
        let sent = summary.outcome == .completed
        var line = RequestLogLine(
            site: nil, method: summary.method, path: logPath(Console.redacted(summary.rawTarget)),
            status: sent ? summary.status : 0, intendedStatus: sent ? nil : summary.status,
            outcome: sent ? nil : Self.outcomeName(summary.outcome),
            bytes: sent ? summary.bodyBytes : 0, durationNanos: Int(summary.durationNanos),
            client: summary.peerAddress, scheme: nil, route: nil, kind: "admin",
            rejectedBy: summary.rejectedBy.map { $0 == .headCheck ? "linkwell" : "libmicrohttpd" })
        line.event = .adminRequest
        line.token = (summary.annotation as? AdminRequestNote)?.tokenName
        if let accessLogWriter {
            accessLogWriter.record(line)
        } else {
            log.event("admin_request", line.fields)
        }
    }

    /// Where `/metrics` and `/readyz` read the public listener's connection counters.
    public func attach(connectionStatistics: @escaping @Sendable () -> HTTPConnectionStatistics) {
        metrics.attach(connectionStatistics: connectionStatistics)
    }

    struct AdminHandler: HTTPHandler {
        let runtime: ServerRuntime
        /// `/api/v1/…` (AdminAPI.swift).
        let api: AdminAPI
        /// `/` and `/console/…` (Console.swift).
        let console: Console

        static func isAPI(_ request: HTTPRequest) -> Bool {
            request.rawPath == AdminAPI.prefix || request.rawPath.hasPrefix(AdminAPI.prefix + "/")
        }

        /// Before any body byte: the API authenticates and sets its endpoint's body limit; the
        /// other paths take no body (a POST is refused at once).
        func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision {
            // A secret in a URL ends up in histories, proxies and logs: refused on every path.
            if Console.secretInQuery(request.rawQuery) { return .answer(Self.secretInURL) }
            if Self.isAPI(request) { return api.headReceived(request) }
            if Console.handles(request.rawPath) { return console.headReceived(request) }
            guard request.method == "GET" || request.method == "HEAD" else { return .answer(Self.methodNotAllowed) }
            return .readBody(limit: 0)
        }

        static let methodNotAllowed = Responder.plain(405, "Method Not Allowed\n", extra: [("Allow", "GET, HEAD")])
        static let secretInURL = AdminAPI.error(
            400, "token_in_url", "the address carries a token (a token, access_token or api_key parameter, or an lw_… value); a secret in a URL ends up in browser histories, proxies and logs, so it is refused and was not checked",
            fix: "send the token as 'Authorization: Bearer <token>' (API) or in the console's sign-in form; revoke this token if the address was shared or logged ('linkwell tokens revoke NAME')")

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if Console.secretInQuery(request.rawQuery) { return Self.secretInURL }
            if Self.isAPI(request) { return api.handle(request) }
            if Console.handles(request.rawPath) { return console.handle(request) }
            guard request.method == "GET" || request.method == "HEAD" else { return Self.methodNotAllowed }
            switch request.rawPath {
            case "/healthz":
                return Responder.plain(200, "ok\n")
            case "/readyz":
                _ = runtime.snapshot  // a runtime always holds a validated snapshot
                if let stats = runtime.metrics.connectionStatistics(), stats.saturated {
                    return Responder.plain(503, "saturated: \(stats.open) of \(stats.limit) connections open; new clients are refused at \(stats.limit)\n")
                }
                // Ready whatever the link store's state: association files and route pages never
                // depend on it; the second line says what links can do.
                return Responder.plain(200, "ready\n" + runtime.storeStatus.readyLine(served: runtime.linkRefresher.cell.index.count))
            case "/metrics":
                return .dynamic(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")],
                                body: Array((runtime.metrics.render() + runtime.storeStatus.metricsText(served: runtime.linkRefresher.cell.index.count)
                                    + (runtime.clicks?.metricsText() ?? "")).utf8))
            default:
                return Responder.plain(404, "Not found: try / (the console), /healthz, /readyz, /metrics or /api/v1/openapi.json\n")
            }
        }
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (in <malloc.h>, which the Glibc module does not export).
@_silgen_name("malloc_trim")
private func malloc_trim(_ pad: Int) -> Int32
#else
private func malloc_trim(_ pad: Int) -> Int32 { 0 }
#endif
