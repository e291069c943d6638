// The console at / of the admin listener: sign in with an API token (a form field, never a URL),
// a server-side session in an HttpOnly, SameSite=Strict cookie (Secure over TLS or behind a trusted
// proxy that says https), a CSRF secret on every form plus an Origin check on every POST, a
// sign-in rate limit per client. Pages are server-rendered (ConsoleTemplates) under a strict CSP
// with no script. Rights are the token's scope, checked again on every request; every write is in
// the audit log, as through the API.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

final class Console: Sendable {
    static let cookie = "lw_session"
    /// The cookie that carries the sign-in form's CSRF secret before a session exists.
    static let signInCookie = "lw_signin"
    static let bodyLimit = 64 << 10
    static let csp = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    let runtime: ServerRuntime
    let api: AdminAPI
    let sessions = ConsoleSessions()

    init(runtime: ServerRuntime, api: AdminAPI) {
        self.runtime = runtime
        self.api = api
    }

    /// The console's paths: `/`, `/links` (the list, as `/`) and everything under `/console/`.
    static func handles(_ path: Substring) -> Bool { path == "/" || path == "/links" || path.hasPrefix("/console/") }

    /// POSTs read a small form body; other methods than GET, HEAD and POST are refused.
    func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision {
        switch request.method {
        case "GET", "HEAD": return .readBody(limit: 0)
        case "POST": return .readBody(limit: request.rawPath == "/console/import" ? Self.importBodyLimit : Self.bodyLimit)
        default: return .answer(Responder.plain(405, "Method Not Allowed\n", extra: [("Allow", "GET, HEAD, POST")]))
        }
    }

    /// What one request knows about its client.
    struct Visit {
        let request: HTTPRequest
        let client: String
        let secure: Bool
        let origin: String
        var session: ConsoleSession?
        var sessionID: String?
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let trust = runtime.snapshot.proxyTrust.resolve(RequestFacts(request))
        var visit = Visit(
            request: request, client: trust.client, secure: trust.scheme == "https",
            origin: "\(trust.scheme)://\(trust.host ?? request.header("Host") ?? "")")
        let sso: (user: String, scope: TokenScope)?
        switch singleSignOn(request) {
        case let .refused(response): return response
        case let .user(user, scope): sso = (user, scope)
        case .none: sso = nil
        }
        if let id = Self.cookie(request, Self.cookie), let session = liveSession(id),
           session.via == "sso" ? session.name == sso?.user : sso == nil {
            (visit.session, visit.sessionID) = (session, id)
            if let sso { visit.session?.scope = sso.scope }
        }
        var newCookie: String?
        if visit.session == nil, let sso {
            // Signed in by the proxy: a session of its own, so the forms carry a CSRF secret.
            let now = Date()
            let session = ConsoleSession(tokenHash: "", name: sso.user, via: "sso", scope: sso.scope, csrf: ConsoleSessions.secret(), created: now, lastSeen: now)
            if let id = startSession(session) {
                (visit.session, visit.sessionID) = (session, id)
                newCookie = Self.sessionCookie(Self.cookie, id, secure: visit.secure, maxAge: Int(ConsoleSessions.maximumAge))
            }
        }
        if let session = visit.session { request.attach(AdminRequestNote(tokenName: session.name)) }
        let response = route(visit)
        guard let newCookie, case let .dynamic(status, headers, body) = response else { return response }
        return .dynamic(status: status, headers: headers + [("Set-Cookie", newCookie)], body: body)
    }

    /// The user and role an authenticating proxy names (`server.consoleUserHeader`,
    /// `consoleRoleHeader`), believed only from `server.consoleSSOProxies`; from any other peer
    /// the headers are ignored (and logged). A role that is not a scope is refused.
    enum SingleSignOn {
        case none, user(String, TokenScope), refused(HTTPResponse)
    }

    private func singleSignOn(_ request: HTTPRequest) -> SingleSignOn {
        let server = runtime.snapshot.server
        guard let header = server.consoleUserHeader, let user = request.header(header)?.trimmingCharacters(in: .whitespaces), !user.isEmpty else {
            return .none
        }
        guard ProxyTrust(networks: server.consoleSSOProxies).trusts(request.peerAddress) else {
            runtime.log.event("console_sso_ignored", [("client", .string(request.peerAddress)), ("reason", .string("not one of server.consoleSSOProxies"))])
            return .none
        }
        let role = server.consoleRoleHeader.flatMap { request.header($0) }?.trimmingCharacters(in: .whitespaces) ?? "read"
        guard let scope = TokenScope(rawValue: role.lowercased()) else {
            runtime.log.event("console_refused", [("reason", .string("sso_role")), ("client", .string(request.peerAddress)), ("user", .string(user))])
            return .refused(.dynamic(status: 403, headers: Self.pageHeaders, body: ConsoleTemplates.compiled.message.renderBytes([
                "title": "Not allowed", "message": .string("The proxy named the role '\(role)' for \(user); the console knows read, write and admin. Nothing was shown or changed."),
            ])))
        }
        return .user(user, scope)
    }

    private func route(_ visit: Visit) -> HTTPResponse {
        let request = visit.request
        let path = request.rawPath
        if request.method == "POST" { return post(path, visit) }
        if path.hasPrefix(Self.previewAssets) { return previewAsset(visit) }
        switch path {
        case "/console/console.css":
            return .dynamic(status: 200, headers: [("Content-Type", "text/css; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")],
                            body: Array((ConsoleTemplates.stylesheet + ConsoleTemplates.countsStylesheet + ConsoleTemplates.linksStylesheet).utf8))
        case "/", "/links":
            guard visit.session != nil else { return signInPage(visit, problem: nil, status: 200) }
            return linksPage(visit, notice: nil)
        case "/console/links/new": return linkForm(visit, editing: false)
        case "/console/links/delete": return deletePage(visit)
        case "/console/links/preview": return preview(visit)
        case "/console/links/edit": return linkForm(visit, editing: true)
        case "/console/links/qr.svg": return qrDownload(visit, png: false)
        case "/console/links/qr.png": return qrDownload(visit, png: true)
        case "/console/stats": return statsPage(visit)
        case "/console/routes": return routesPage(visit)
        case "/console/import": return importPage(visit)
        case "/console/audit":
            guard let session = visit.session else { return redirect("/") }
            guard session.scope.allows(.admin) else {
                return message(visit, "Not allowed", "Reading the audit log needs an admin token; you signed in with a \(session.scope.rawValue) token.", status: 403)
            }
            return auditPage(visit)
        default:
            return message(visit, "Not found", "The console has no page \(path).", status: 404)
        }
    }

    // MARK: - Forms

    private func post(_ path: Substring, _ visit: Visit) -> HTTPResponse {
        let parts = Self.multipart(visit.request.body, contentType: visit.request.header("Content-Type"))
        let form = parts.map { $0.mapValues { String(decoding: $0, as: UTF8.self) } } ?? AdminAPI.queryItems(Substring(String(decoding: visit.request.body, as: UTF8.self)))
        if visit.request.bodyTooLarge {
            return message(visit, "Too large", "The form is larger than \(AdminAPI.sizeText(Self.bodyLimit)).", status: 413)
        }
        // Another site's page may not post here, signed in or not.
        if let origin = visit.request.header("Origin"), origin != visit.origin {
            return refused(visit, reason: "origin", message: "The form came from \(origin), not from this console (\(visit.origin)). Nothing was changed.")
        }
        if path == "/console/sign-in" { return signIn(visit, form: form) }
        guard let session = visit.session, let id = visit.sessionID else {
            return signInPage(visit, problem: "Your session has ended (signed out, expired or its token revoked). Sign in again; nothing was changed.", status: 401)
        }
        guard let sent = form["csrf"], BearerToken.constantTimeEqual(Array(sent.utf8), Array(session.csrf.utf8)) else {
            return refused(visit, reason: "csrf", message: "The form carried no valid CSRF token (a stale page, or a request from elsewhere). Reload the page and send it again; nothing was changed.")
        }
        switch path {
        case "/console/sign-out":
            endSession(id)
            return redirect("/", cookies: [Self.expiredCookie(Self.cookie, secure: visit.secure)])
        case "/console/links/bulk":
            return bulk(visit, session: session, form: form)
        case "/console/links/toggle", "/console/links/new", "/console/links/edit", "/console/import", "/console/links/delete":
            guard session.scope.allows(.write) else {
                audit(AdminActor(name: session.name, via: session.via, scope: session.scope, client: visit.client).entry(
                    "refused", site: form["site"], code: form["code"], detail: ["path": .string(String(path))],
                    outcome: "refused: insufficient_scope (\(session.scope.rawValue) scope)"))
                return message(visit, "Not allowed", "Your token has scope '\(session.scope.rawValue)', which cannot change links; sign in with a write token. Nothing was changed.", status: 403)
            }
            if path == "/console/import" { return importTakeout(visit, session: session, parts: parts ?? [:]) }
            if path == "/console/links/new" { return createLink(visit, session: session, form: form) }
            if path == "/console/links/edit" { return editLink(visit, session: session, form: form) }
            if path == "/console/links/delete" { return deleteLink(visit, session: session, form: form) }
            return toggle(visit, session: session, form: form)
        default:
            return message(visit, "Not found", "The console has no form \(path).", status: 404)
        }
    }

    private func signIn(_ visit: Visit, form: [String: String]) -> HTTPResponse {
        guard let sent = form["csrf"], let expected = Self.cookie(visit.request, Self.signInCookie),
              BearerToken.constantTimeEqual(Array(sent.utf8), Array(expected.utf8))
        else {
            return refused(visit, reason: "csrf", message: "The sign-in form carried no valid CSRF token (a stale page, or a request from elsewhere). Reload the page and sign in again.")
        }
        if let wait = sessions.retryAfter(visit.client) {
            return signInPage(visit, problem: "Too many failed sign-ins from \(visit.client); try again in \(wait) seconds.", status: 429, extra: [("Retry-After", String(wait))])
        }
        guard let token = form["token"]?.trimmingCharacters(in: .whitespaces), !token.isEmpty else {
            return signInPage(visit, problem: "Enter an API token.", status: 400)
        }
        guard let tokens = storedTokens() else {
            return signInPage(visit, problem: "The link database cannot be read right now, so the token cannot be checked. Try again shortly.", status: 503)
        }
        switch LinkStore.check(token, against: tokens) {
        case let .valid(name, scope):
            let now = Date()
            guard let id = startSession(ConsoleSession(
                tokenHash: BearerToken.hash(token), name: name, via: "console", scope: scope, csrf: ConsoleSessions.secret(), created: now, lastSeen: now))
            else {
                return signInPage(visit, problem: "The session cannot be stored in the link database right now (the server's log says why: console_session_failed). Try again shortly.", status: 503)
            }
            runtime.clicks?.recordTokenUse(name: name)
            runtime.log.event("console_sign_in", [("token", .string(name)), ("client", .string(visit.client))])
            visit.request.attach(AdminRequestNote(tokenName: name))
            return redirect("/", cookies: [
                Self.sessionCookie(Self.cookie, id, secure: visit.secure, maxAge: Int(ConsoleSessions.maximumAge)),
                Self.expiredCookie(Self.signInCookie, secure: visit.secure),
            ])
        case let .revoked(name):
            sessions.recordFailure(visit.client)
            return signInPage(visit, problem: "The token '\(name)' was revoked. Use another token.", status: 401)
        case .unknown:
            sessions.recordFailure(visit.client)
            return signInPage(visit, problem: "That is not one of this server's tokens (mistyped, cut off, or made for another database).", status: 401)
        }
    }

    private func toggle(_ visit: Visit, session: ConsoleSession, form: [String: String]) -> HTTPResponse {
        guard let site = form["site"], let code = form["code"], let action = form["action"], action == "disable" || action == "enable" else {
            return linksPage(visit, notice: nil, problem: "The form named no link or action.", status: 400)
        }
        let actor = AdminActor(name: session.name, via: session.via, scope: session.scope, client: visit.client)
        var changed: ShortLink?
        let outcome: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
            guard var link = try store.link(site: site, code: code) else { return }
            let before = link.json(table: runtime.snapshot.table)
            link.disabled = action == "disable"
            link.updatedAt = ShortLink.wholeSeconds(Date())
            try store.upsert(link)
            try store.appendAudit([actor.entry(
                "link.update", site: site, code: code, detail: AdminAPI.difference(before, link.json(table: runtime.snapshot.table)))])
            changed = link
        }
        if case let .failure(error) = outcome {
            return linksPage(visit, notice: nil, problem: "Nothing was changed: \(error.description)", status: 503)
        }
        guard let changed else { return linksPage(visit, notice: nil, problem: "Site '\(site)' has no short link '\(code)'.", status: 404) }
        runtime.linksChanged(changed: [changed], removed: [])
        return redirect("/?site=\(PercentEncoding.encodeComponent(site))&done=\(action)d&code=\(PercentEncoding.encodeComponent(code))")
    }

    /// A refused form: 403, in the access log (status) and, for a signed-in user, the audit log.
    private func refused(_ visit: Visit, reason: String, message: String) -> HTTPResponse {
        if let session = visit.session {
            audit(AdminActor(name: session.name, via: session.via, scope: session.scope, client: visit.client).entry(
                "refused", site: nil, code: nil, detail: ["path": .string(String(visit.request.rawPath))], outcome: "refused: \(reason)"))
        }
        runtime.log.event("console_refused", [("reason", .string(reason)), ("client", .string(visit.client)), ("path", .string(String(visit.request.rawPath)))])
        return self.message(visit, "Refused", message, status: 403)
    }

    // MARK: - Pages

    private func signInPage(_ visit: Visit, problem: String?, status: Int, extra: [(String, String)] = []) -> HTTPResponse {
        let csrf = Self.cookie(visit.request, Self.signInCookie).flatMap { $0.count == 43 ? $0 : nil } ?? ConsoleSessions.secret()
        var v = visit
        v.session = nil
        return page(ConsoleTemplates.compiled.signIn, v, ["title": "Sign in", "csrf": .string(csrf), "problem": problem.map(TemplateValue.string) ?? .null], status: status,
                    extra: extra + [("Set-Cookie", Self.sessionCookie(Self.signInCookie, csrf, secure: visit.secure, maxAge: 3600))])
    }

    private func auditPage(_ visit: Visit) -> HTTPResponse {
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let before = query["before"].flatMap { Int64($0) }
        var entries: [AuditEntry] = []
        _ = withStore { store throws(LinkStoreError) in entries = try store.audit(before: before, limit: 101) }
        let more = entries.count > 100
        if more { entries.removeLast() }
        let rows: [TemplateValue] = entries.map { e in
            [
                "at": .string(ShortLink.iso(e.at)), "actor": .string(e.actor), "via": .string(e.via), "action": .string(e.action),
                "link": .string([e.site, e.code].compactMap { $0 }.joined(separator: "/")), "outcome": .string(e.outcome), "client": .string(e.client),
            ]
        }
        return page(ConsoleTemplates.compiled.audit, visit, [
            "title": "Audit log", "onAudit": true, "entries": .list(rows), "next": more ? .string("/console/audit?before=\(entries[entries.count - 1].id)") : .null,
        ], status: 200)
    }

    func message(_ visit: Visit, _ title: String, _ text: String, status: Int) -> HTTPResponse {
        page(ConsoleTemplates.compiled.message, visit, ["title": .string(title), "message": .string(text)], status: status)
    }

    /// Renders `template` with the navigation's values added.
    func page(_ template: Template, _ visit: Visit, _ values: [String: TemplateValue], status: Int, extra: [(String, String)] = []) -> HTTPResponse {
        var context = values
        if let s = visit.session {
            context["user"] = .string(s.name)
            context["scope"] = .string(s.scope.rawValue)
            context["csrf"] = context["csrf"] ?? .string(s.csrf)
            context["canAudit"] = .bool(s.scope.allows(.admin))
            context["canImport"] = .bool(s.scope.allows(.write))
        }
        return .dynamic(status: status, headers: Self.pageHeaders + extra, body: template.renderBytes(.object(context)))
    }

    static let pageHeaders: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("Content-Security-Policy", csp),
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"), ("X-Frame-Options", "DENY"),
    ]

    func redirect(_ location: String, cookies: [String] = []) -> HTTPResponse {
        .dynamic(status: 303, headers: [("Location", location), ("Cache-Control", "no-store")] + cookies.map { ("Set-Cookie", $0) }, body: [])
    }

    // MARK: - Store, tokens, cookies

    /// The session of a cookie value, when its token is still stored and not revoked (its scope
    /// as stored now); a session whose token is gone is ended.
    private func liveSession(_ id: String) -> ConsoleSession? {
        guard var session = storedSession(id) else { return nil }
        if session.via == "sso" { return session }  // the proxy vouches for it on every request
        guard let tokens = storedTokens() else { return nil }
        guard let token = tokens.first(where: { BearerToken.constantTimeEqual(Array($0.hash.utf8), Array(session.tokenHash.utf8)) }), !token.revoked else {
            endSessions(tokenHash: session.tokenHash)
            return nil
        }
        session.scope = token.scope
        return session
    }

    private func storedTokens() -> [APIToken]? {
        var tokens: [APIToken]?
        let read: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in tokens = try store.tokens() }
        if case .failure = read { return nil }
        return tokens ?? []
    }

    /// Runs `body` with the link database (nothing when there is none yet, unless `creating`).
    func withStore(creating: Bool = false, _ body: (LinkStore) throws(LinkStoreError) -> Void) -> Result<Void, LinkStoreError> {
        let location: StorageLocation
        do throws(LinkStoreError) {
            location = try StorageLocation.of(storage: runtime.snapshot.table.config.storage, configPath: runtime.configPath)
        } catch {
            return .failure(error)
        }
        return SQLiteFileGate.withAccess(location) { () -> Result<Void, LinkStoreError> in
            guard creating || location.exists else { return .success(()) }
            do throws(LinkStoreError) {
                try body(try api.open(location))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }

    func audit(_ entry: AuditEntry) {
        if case let .failure(error) = withStore({ store throws(LinkStoreError) in try store.appendAudit([entry]) }) {
            runtime.log.event("audit_write_failed", [("message", .string(error.description))])
        }
    }

    /// `target` for a log line: the query replaced by `[redacted]` when it carries a secret.
    static func redacted(_ target: String) -> String {
        guard let q = target.firstIndex(of: "?"), secretInQuery(target[target.index(after: q)...]) else { return target }
        return target[..<q] + "?[redacted]"
    }

    static func cookie(_ request: HTTPRequest, _ name: String) -> String? {
        for header in request.headerValues("Cookie") {
            for part in header.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name {
                    return pair[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    static func sessionCookie(_ name: String, _ value: String, secure: Bool, maxAge: Int) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func expiredCookie(_ name: String, secure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// True when a request target carries a secret: a `token`, `access_token` or `api_key`
    /// parameter, or a Linkwell token (`lw_…`) anywhere in the query.
    static func secretInQuery(_ query: Substring?) -> Bool {
        guard let query, !query.isEmpty else { return false }
        let items = AdminAPI.queryItems(query)
        if items.keys.contains(where: { ["token", "access_token", "api_key", "apikey"].contains($0.lowercased()) }) { return true }
        return items.values.contains { $0.contains(BearerToken.prefix) && $0.count >= BearerToken.prefix.count + BearerToken.randomLength }
    }
}
