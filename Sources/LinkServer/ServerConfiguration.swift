// Every default of the running server, in one place, and the one reading of the config's
// `server` keys: listen addresses are parsed by MicroHTTP's `ListenAddress`, trusted proxies by
// its `IPNetwork` — the same definitions the daemon and the proxy trust use — once per load.
//
// The host:port and CIDR checks live here, not in `LinkRouting`'s model validation: the parsers
// belong to `MicroHTTP`, which `LinkRouting` (the app library) must not import, and a second
// hand-written copy there drifted from what the daemon accepted. `ConfigValidator` runs
// `ServerConfiguration.diagnostics` as an extra check, so `linkwell validate` reports them with
// the other findings, through the same `Diagnostic` type, before any port opens.

import Association
import Foundation
import LandingPages
import LinkRouting
import MicroHTTP

public struct ServerConfiguration: Sendable, Equatable {
    public static let defaultListen = [ListenAddress(host: "127.0.0.1", port: 8080)]
    public static let defaultAdmin = ListenAddress(host: "127.0.0.1", port: 9090)
    public static let defaultCacheControl = "public, max-age=300"

    /// Public listeners (`server.listen`, `--listen`).
    public var listen: [ListenAddress] = defaultListen
    /// The admin listener for /healthz, /readyz, /metrics; nil when `off`.
    public var admin: ListenAddress? = defaultAdmin
    /// Polling threads per public listen address.
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Peers whose forwarding headers are believed (default: loopback).
    public var trustedProxies: [IPNetwork] = ProxyTrust.defaultCIDRs.compactMap(IPNetwork.init)
    /// `Cache-Control` of the association files.
    public var associationCacheControl: String = defaultCacheControl
    /// Open connections per listen address; beyond it a new one is closed at once and counted.
    public var connectionLimit: Int = 4096
    /// Open connections from one client address; 0 = none. `trustedProxies` are exempt.
    public var perIPConnectionLimit: Int = 128
    /// Seconds without a byte after which a connection is closed.
    public var connectionTimeoutSeconds: Int = 30
    /// Seconds a client has to send a whole request head (docs/reference/limits.md).
    public var requestHeadTimeoutSeconds: Double = 10
    /// Request line plus headers answered normally (431 beyond). 16 KB: what a browser with a
    /// domain's worth of analytics cookies sends; nginx's default is 8 KB a line, 32 KB in all.
    public var requestHeadBytes: Int = 16 * 1024
    /// One request line or header line, as nginx (`large_client_header_buffers 4 8k`).
    public var requestLineBytes: Int = 8 * 1024
    /// libmicrohttpd's pool per connection; nil = sized from the head budget
    /// (`HTTPDaemonOptions.effectiveConnectionMemoryLimit`).
    public var requestHeaderMemoryBytes: Int?
    /// Only these methods are answered (405 for the rest, before any body is read).
    public static let allowedMethods = ["GET", "HEAD"]
    /// Methods answered on one path only: the apps' app-open beacon (`AppOpenBeacon`).
    public static let publicPathMethods = [AppOpenBeacon.path: ["POST"]]
    /// The admin listener's methods: the REST API's, and those it answers 405 with an `Allow` header.
    public static let adminAllowedMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]
    /// How long a stopping server waits for requests in flight.
    public var shutdownDeadlineSeconds: Double = 10
    public var logQueryStrings: Bool = false
    /// Open connections on the admin listener; beyond it a new one is closed at once.
    public var adminConnectionLimit: Int = 128
    /// Open admin connections from one client address (0 = none): one client cannot take every
    /// place, so `/healthz` still gets in. Not exempted for `trustedProxies`.
    public var adminPerIPConnectionLimit: Int = 16
    /// The largest admin API request body (413 beyond); answered before it is read when announced.
    public var adminBodyBytes: Int = 1 << 20
    /// The largest body of the bulk endpoint `POST /api/v1/links` (10,000 links with every override fit).
    public var adminBulkBodyBytes: Int = 16 << 20
    /// Single sign-on for the console: the user and role headers, believed only from these peers.
    public var consoleUserHeader: String?
    public var consoleRoleHeader: String?
    public var consoleSSOProxies: [IPNetwork] = []
    /// One log line per request (`--access-log`; not a config key).
    public var accessLog: Bool = true

    /// Every default.
    public init() {}

    /// The config's `server` keys over the defaults. An entry that does not parse keeps the
    /// default and is reported by `read(_:)`; a validated config has none.
    public init(_ settings: ServerSettings?) {
        self = Self.read(settings).configuration
    }

    /// The configuration and the findings about `server.listen`, `server.admin` and
    /// `server.trustedProxies`, at their config paths, from one reading of the keys.
    public static func read(_ settings: ServerSettings?) -> (configuration: ServerConfiguration, diagnostics: [Diagnostic]) {
        var c = ServerConfiguration()
        var out: [Diagnostic] = []
        guard let s = settings else { return (c, out) }
        func address(_ text: String, at path: String) -> ListenAddress? {
            do {
                return try ListenAddress(parsing: text)
            } catch {
                var reason = "\(error)"
                if case let .invalidAddress(_, why) = error { reason = why }
                out.append(
                    Diagnostic(
                        .error, at: path, value: text, "'\(text)' is not HOST:PORT (\(reason))",
                        fix: "write a numeric address and port, e.g. \"127.0.0.1:8080\" or \"[::1]:8080\" (0 lets the OS pick a port)"))
                return nil
            }
        }
        if let listen = s.listen {
            let parsed = listen.enumerated().compactMap { i, text in address(text, at: "server.listen[\(i)]") }
            if parsed.count == listen.count { c.listen = parsed }
        }
        if let admin = s.admin {
            if admin == "off" {
                c.admin = nil
            } else if let a = address(admin, at: "server.admin") {
                c.admin = a
            }
        }
        if let proxies = s.trustedProxies {
            var networks: [IPNetwork] = []
            for (i, text) in proxies.enumerated() {
                if let n = IPNetwork(text) {
                    networks.append(n)
                } else {
                    out.append(
                        Diagnostic(
                            .error, at: "server.trustedProxies[\(i)]", value: text, "'\(text)' is not an IP address or CIDR range",
                            fix: "write e.g. \"10.0.0.0/8\", \"192.168.1.10\" or \"::1/128\""))
                }
            }
            if networks.count == proxies.count { c.trustedProxies = networks }
        }
        if let v = s.threads { c.threads = v }
        if let v = s.associationCacheControl { c.associationCacheControl = v }
        if let v = s.connectionLimit { c.connectionLimit = v }
        if let v = s.perIPConnectionLimit { c.perIPConnectionLimit = v }
        if let v = s.connectionTimeoutSeconds { c.connectionTimeoutSeconds = v }
        if let v = s.requestHeaderMemoryBytes { c.requestHeaderMemoryBytes = v }
        if let v = s.requestHeadTimeoutSeconds { c.requestHeadTimeoutSeconds = v }
        if let v = s.requestHeadBytes {
            c.requestHeadBytes = v
            c.requestLineBytes = min(c.requestLineBytes, v)
        }
        if let v = s.shutdownDeadlineSeconds { c.shutdownDeadlineSeconds = v }
        if let v = s.logQueryStrings { c.logQueryStrings = v }
        if let v = s.adminConnectionLimit { c.adminConnectionLimit = v }
        if let v = s.adminPerIPConnectionLimit { c.adminPerIPConnectionLimit = v }
        if let v = s.adminBodyBytes { c.adminBodyBytes = v }
        if let v = s.adminBulkBodyBytes { c.adminBulkBodyBytes = v }
        c.consoleUserHeader = s.consoleUserHeader
        c.consoleRoleHeader = s.consoleRoleHeader
        if let proxies = s.consoleSSOProxies {
            for (i, text) in proxies.enumerated() {
                if let n = IPNetwork(text) {
                    c.consoleSSOProxies.append(n)
                } else {
                    out.append(Diagnostic(
                        .error, at: "server.consoleSSOProxies[\(i)]", value: text, "'\(text)' is not an IP address or CIDR range",
                        fix: "list the addresses the authenticating proxy connects from, e.g. \"127.0.0.1\" or \"10.0.0.5/32\""))
                }
            }
        }
        if s.consoleUserHeader != nil, (s.consoleSSOProxies ?? []).isEmpty {
            out.append(Diagnostic(
                .error, at: "server.consoleSSOProxies", value: nil, "server.consoleUserHeader is set but no proxy is trusted to send it",
                fix: "list the authenticating proxy's addresses in server.consoleSSOProxies (any other client could name itself a user)"))
        }
        return (c, out)
    }

    /// The public listener's head checks: GET and HEAD everywhere, POST on the beacon's path.
    var publicHeadLimits: RequestHeadLimits {
        var limits = RequestHeadLimits(headBytes: requestHeadBytes, lineBytes: requestLineBytes, allowedMethods: Self.allowedMethods)
        limits.pathMethods = Self.publicPathMethods
        return limits
    }

    /// The public daemon's options: the limits of docs/reference/limits.md.
    public func daemonOptions(
        logger: (@Sendable (String) -> Void)? = nil, onConnectionEvent: (@Sendable (HTTPConnectionEvent) -> Void)? = nil
    ) -> HTTPDaemonOptions {
        HTTPDaemonOptions(
            listen: listen, threads: threads, connectionLimit: connectionLimit, perIPConnectionLimit: perIPConnectionLimit,
            perIPLimitExemptions: trustedProxies, connectionTimeoutSeconds: connectionTimeoutSeconds,
            requestHeadTimeoutSeconds: requestHeadTimeoutSeconds,
            headLimits: publicHeadLimits,
            connectionMemoryLimit: requestHeaderMemoryBytes, requestBodyLimit: 0, logger: logger, onConnectionEvent: onConnectionEvent)
    }

    /// The admin daemon's options (one thread; its own connection limits, the public head deadline
    /// and head budget); nil when the admin listener is off. Bodies are limited per endpoint
    /// (`AdminAPI.headReceived`); the daemon's own limit is the larger one.
    public func adminDaemonOptions(
        logger: (@Sendable (String) -> Void)? = nil, onConnectionEvent: (@Sendable (HTTPConnectionEvent) -> Void)? = nil
    ) -> HTTPDaemonOptions? {
        admin.map {
            HTTPDaemonOptions(
                listen: [$0], threads: 1, connectionLimit: adminConnectionLimit, perIPConnectionLimit: adminPerIPConnectionLimit,
                connectionTimeoutSeconds: 10, requestHeadTimeoutSeconds: requestHeadTimeoutSeconds,
                headLimits: RequestHeadLimits(headBytes: requestHeadBytes, lineBytes: requestLineBytes, allowedMethods: Self.adminAllowedMethods),
                requestBodyLimit: adminBodyBytes, collectsRequestBodies: true, logger: logger, onConnectionEvent: onConnectionEvent)
        }
    }
}

/// The last stage before a snapshot: a validated config (table and generated sites) and its
/// server configuration, each made once.
public struct LoadedConfig: Sendable {
    public let validated: ValidatedConfig
    public let server: ServerConfiguration

    public init(validated: ValidatedConfig, server: ServerConfiguration) {
        self.validated = validated
        self.server = server
    }

    /// Reads, decodes, checks (model, routes, server keys), compiles and generates: what
    /// `validate`, `serve` and every reload run. The config is loaded when the report has no errors.
    /// `reusing`: the sites of the snapshot a reload replaces (unchanged sites are not compiled or
    /// generated again; see ``ConfigValidator/validate(path:platformCheck:reusing:extraChecks:tableChecks:)``).
    /// The landing pages' findings (`LandingDiagnostics`) are checked on the compiled table.
    public static func load(path: String, platformCheck: Bool = false, reusing: [GeneratedSite] = []) -> (LoadedConfig?, ValidationReport) {
        var server = ServerConfiguration()
        let report = ConfigValidator.validate(path: path, platformCheck: platformCheck, reusing: reusing, extraChecks: { config in
            let read = ServerConfiguration.read(config.server)
            server = read.configuration
            return read.diagnostics
        }, tableChecks: LandingDiagnostics.check)
        guard report.isValid, let validated = report.validated else { return (nil, report) }
        return (LoadedConfig(validated: validated, server: server), report)
    }
}
