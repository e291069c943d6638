// The admin REST API, on the admin listener only (`server.admin`): short links as JSON under
// /api/v1/links, bearer tokens (`linkwell tokens create`), the OpenAPI document at
// /api/v1/openapi.json. The checks are those of `linkwell links add` (LinkStore.create and
// ShortLinkValidator); a write rebuilds the link index at once (ServerRuntime.linksChanged), so the
// public listener serves a new link on the next request. Nothing of the public listener leads here.

import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

/// What the admin API tells the access log about a request: the name of the token it accepted.
struct AdminRequestNote: Sendable {
    let tokenName: String
}

/// Who makes a request, for the audit log: a token's name (or an SSO user), how they signed in,
/// what they may do, and the client address as the trusted proxies report it.
struct AdminActor: Sendable {
    var name: String
    var via: String
    var scope: TokenScope
    var client: String

    /// An audit entry of this actor.
    func entry(_ action: String, site: String?, code: String?, detail: JSONValue, outcome: String = "ok") -> AuditEntry {
        AuditEntry(at: Date(), actor: name, via: via, action: action, site: site, code: code, detail: detail, client: client, outcome: outcome)
    }
}

/// Answers `/api/v1/…` on the admin listener.
final class AdminAPI: Sendable {
    static let prefix = "/api/v1"
    /// The largest body of `POST /api/v1/links` by default (`server.adminBulkBodyBytes`): a bulk
    /// create of 10,000 links with every override fits.
    static let bodyLimit = 16 << 20
    /// The most links one POST may create.
    static let maximumBatch = 10_000
    static let maximumPageSize = 1000
    static let defaultPageSize = 100
    /// Longest target, fallback or image URL, and longest preview text (Unicode scalars).
    static let maximumURLLength = 2048
    static let maximumTextLength = 1000

    let runtime: ServerRuntime
    /// The open link database, by location (the config's `storage` may change on reload).
    private let stores = Locked<[String: LinkStore]>([:])
    /// The tokens read last, by location: checked when the database cannot be read.
    private let tokenCache = Locked<[String: [APIToken]]>([:])

    init(runtime: ServerRuntime) { self.runtime = runtime }

    /// Answers and counts the request (`linkwell_api_requests_total`).
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let response = respond(request)
        runtime.metrics.api.record(method: request.method, status: response.status)
        return response
    }

    enum Endpoint {
        case openAPI, links, link(site: String, code: String), stats, audit

        var allowed: String {
            switch self {
            case .openAPI, .stats, .audit: "GET, HEAD"
            case .links: "GET, HEAD, POST"
            case .link: "GET, HEAD, PATCH, DELETE"
            }
        }

        /// The scope a token needs for `method` here: reading the audit log is `admin`, other
        /// reads `read`, every write `write`.
        func needed(_ method: String) -> TokenScope {
            if case .audit = self { return .admin }
            return method == "GET" || method == "HEAD" ? .read : .write
        }
    }

    /// The head of an API request has arrived, its body not yet: route and authenticate now, so
    /// a request without a valid token is refused before a byte of its body is read, and set the
    /// body limit of the endpoint. The authentication is kept for `handle` (done once).
    func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision {
        let endpoint: Endpoint
        switch route(request) {
        case let .failure(refusal):
            runtime.metrics.api.record(method: request.method, status: refusal.response.status)
            return .answer(refusal.response)
        case let .success(e): endpoint = e
        }
        if case .openAPI = endpoint { return .readBody(limit: 0) }
        switch authenticate(request, table: runtime.snapshot.table) {
        case let .failure(refusal):
            runtime.metrics.api.record(method: request.method, status: refusal.response.status)
            return .answer(refusal.response)
        case let .success(token):
            if let refusal = scopeRefusal(endpoint, request: request, token: token, table: runtime.snapshot.table) {
                runtime.metrics.api.record(method: request.method, status: refusal.status)
                return .answer(refusal)
            }
        }
        let server = runtime.snapshot.server
        if case .links = endpoint, request.method == "POST" { return .readBody(limit: server.adminBulkBodyBytes) }
        return .readBody(limit: server.adminBodyBytes)
    }

    /// The endpoint a request names, or the 404/405 for it.
    private func route(_ request: HTTPRequest) -> Result<Endpoint, Refusal> {
        let path = request.rawPath.dropFirst(Self.prefix.count)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let endpoint: Endpoint
        switch (segments.count, segments.first) {
        case (1, "openapi.json") where path.hasPrefix("/"): endpoint = .openAPI
        case (1, "links") where path.hasPrefix("/"): endpoint = .links
        case (1, "stats") where path.hasPrefix("/"): endpoint = .stats
        case (1, "audit") where path.hasPrefix("/"): endpoint = .audit
        case (3, "links") where path.hasPrefix("/") && !segments.contains(""):
            let parts = Array(segments)
            endpoint = .link(site: PercentEncoding.decode(String(parts[1])), code: PercentEncoding.decode(String(parts[2])))
        default:
            return .failure(Refusal(response: Self.error(
                404, "not_found", "there is no API endpoint \(request.rawPath)",
                fix: "the endpoints are GET/POST \(Self.prefix)/links, GET/PATCH/DELETE \(Self.prefix)/links/{site}/{code}, GET \(Self.prefix)/stats and GET \(Self.prefix)/audit; \(Self.prefix)/openapi.json describes them")))
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard endpoint.allowed.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == method }) else {
            return .failure(Refusal(response: Self.error(
                405, "method_not_allowed", "\(request.method) is not allowed on \(request.rawPath)",
                fix: "use \(endpoint.allowed) here (see \(Self.prefix)/openapi.json)", headers: [("Allow", endpoint.allowed)])))
        }
        return .success(endpoint)
    }

    private func respond(_ request: HTTPRequest) -> HTTPResponse {
        let endpoint: Endpoint
        switch route(request) {
        case let .failure(refusal): return refusal.response
        case let .success(e): endpoint = e
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        if case .openAPI = endpoint {
            return Self.json(200, openAPI())
        }
        let table = runtime.snapshot.table
        let token: String
        switch bearerToken(request) {
        case let .failure(refusal): return refusal.response
        case let .success(t): token = t
        }
        let location: StorageLocation
        do throws(LinkStoreError) {
            location = try StorageLocation.of(storage: table.config.storage, configPath: runtime.configPath)
        } catch {
            runtime.log.event("api_store_unavailable", [("message", .string(error.description))])
            return Self.cannotCheckToken
        }
        let writes = method != "GET"
        var changes = LinkChanges()
        let client = runtime.snapshot.proxyTrust.resolve(RequestFacts(request)).client
        // One user of the file at a time in this process (SQLiteFileGate); the link index is
        // rebuilt after the gate is released (the refresher takes it too).
        let response = SQLiteFileGate.withAccess(location) { () -> HTTPResponse in
            for attempt in 1...3 {
                var openError: LinkStoreError?
                var store: LinkStore?
                if location.exists {
                    do throws(LinkStoreError) { store = try open(location) } catch { openError = error }
                }
                let actor: AdminActor
                switch authenticate(token, store: store, location: location) {
                case let .failure(refusal): return refusal.response
                case let .success(t):
                    request.attach(AdminRequestNote(tokenName: t.name))
                    actor = AdminActor(name: t.name, via: "token", scope: t.scope, client: client)
                }
                if !actor.scope.allows(endpoint.needed(method)) {
                    return Self.insufficientScope(actor, needed: endpoint.needed(method), request: request, audit: { entry in try? store?.appendAudit([entry]) })
                }
                // Authenticated from here: answers may name the database.
                if writes, let readOnly = location.writeProblem {
                    runtime.storeStatus.record(refused: .readOnly)
                    return Self.error(
                        503, "links_read_only", "links are read-only on this server: \(readOnly). Nothing was changed; the short links keep serving from memory.",
                        fix: "make the link database and its directory writable by the user running linkwell (or mount its volume read-write), then send the request again")
                }
                guard let store else {
                    let error = openError ?? LinkStoreError(
                        .notFound,
                        "the link database \(location.description) is gone (deleted or moved); linkwell does not create an empty one while it serves links from memory. Restore the file (or move it back), or run 'linkwell links add' to start a new one.")
                    return storeError(error, location: location)
                }
                do throws(LinkStoreError) {
                    changes = LinkChanges()
                    let response = try perform(endpoint, method: method, request: request, table: table, store: store, actor: actor, changes: &changes)
                    if !(200..<300).contains(response.status) { changes = LinkChanges() }
                    // The write is stored: its audit entries follow (a failure here is logged, the write stands).
                    do throws(LinkStoreError) { try store.appendAudit(changes.audit) } catch {
                        runtime.log.event("audit_write_failed", [("message", .string(error.description))])
                    }
                    return response
                } catch where error.kind == .replaced && attempt < 3 {
                    // A new file at the path: open it and do the request there.
                    continue
                } catch {
                    return storeError(error, location: location)
                }
            }
            return Self.error(503, "database_unavailable", "the link database \(location.description) was replaced three times during this request", fix: "send it again", headers: [("Retry-After", "1")])
        }
        if changes.any { runtime.linksChanged(changed: changes.changed, removed: changes.removed) }
        return response
    }

    /// What a write stored, for the link index.
    struct LinkChanges {
        var changed: [ShortLink] = []
        var removed: [(site: String, code: String)] = []
        /// The audit entries of what was stored.
        var audit: [AuditEntry] = []
        var any: Bool { !changed.isEmpty || !removed.isEmpty }
    }

    private func perform(_ endpoint: Endpoint, method: String, request: HTTPRequest, table: RouteTable, store: LinkStore, actor: AdminActor, changes: inout LinkChanges) throws(LinkStoreError) -> HTTPResponse {
        switch (endpoint, method) {
        case (.stats, _): return try stats(request, table: table, store: store)
        case (.audit, _): return try audit(request, store: store)
        case (.links, "GET"): return try list(request, table: table, store: store)
        case (.links, _):
            let response = try create(request, table: table, store: store, changes: &changes)
            // One entry per request: a link's fields for one, the codes for a bulk create.
            if changes.changed.count == 1, let link = changes.changed.first {
                changes.audit = [actor.entry("link.create", site: link.site, code: link.code, detail: link.json(table: table))]
            } else if !changes.changed.isEmpty {
                changes.audit = [actor.entry("links.create", site: nil, code: nil, detail: [
                    "count": .number(String(changes.changed.count)),
                    "links": .array(changes.changed.map { .string("\($0.site)/\($0.code)") }),
                ])]
            }
            return response
        case let (.link(site, code), "GET"):
            return try Self.found(site: site, code: code, table: table, store: store).map { Self.json(200, $0.json(table: table)) }.response
        case let (.link(site, code), "PATCH"):
            let before = try store.link(site: site, code: code)
            let response = try patch(request, site: site, code: code, table: table, store: store, changes: &changes)
            if let before, let after = changes.changed.first {
                changes.audit = [actor.entry("link.update", site: site, code: code, detail: Self.difference(before.json(table: table), after.json(table: table)))]
            }
            return response
        case (.openAPI, _): return Self.json(200, openAPI())
        case let (.link(site, code), _):
            return try Self.found(site: site, code: code, table: table, store: store).map { link throws(LinkStoreError) -> HTTPResponse in
                try store.delete(site: link.site, code: link.code)
                changes.removed.append((link.site, link.code))
                changes.audit = [actor.entry("link.delete", site: link.site, code: link.code, detail: link.json(table: table))]
                return .dynamic(status: 204, headers: [("Cache-Control", "no-store")], body: [])
            }.response
        }
    }

    private func openAPI() -> JSONValue {
        let snapshot = runtime.snapshot
        return OpenAPIDocument.document(table: snapshot.table, bodyLimit: snapshot.server.adminBodyBytes, bulkBodyLimit: snapshot.server.adminBulkBodyBytes)
    }

    // MARK: - Authentication

    /// A 401 or 503 answer.
    struct Refusal: Error {
        var response: HTTPResponse
    }

    /// The request's bearer token: exactly one `Authorization: Bearer <token>` header.
    private func bearerToken(_ request: HTTPRequest) -> Result<String, Refusal> {
        // Which of two tokens would count is a guess a proxy and Linkwell could make differently.
        let authorizations = request.headerValues("Authorization").count
        if authorizations > 1 {
            return .failure(Refusal(response: Self.error(
                400, "duplicate_authorization", "the request has \(authorizations) Authorization headers; send exactly one",
                fix: "send one 'Authorization: Bearer <token>' header (check that a proxy does not add a second one)")))
        }
        guard let token = BearerToken.fromAuthorization(request.header("Authorization")) else {
            runtime.metrics.api.record(authFailure: .missing)
            let sent = request.header("Authorization") != nil
            return .failure(Refusal(response: Self.unauthorized(
                "missing_token",
                sent ? "the Authorization header is not 'Bearer <token>'" : "this request has no Authorization header; the API needs a bearer token",
                fix: Self.createToken, rfcError: sent ? "invalid_request" : nil)))
        }
        return .success(token)
    }

    /// The check `headReceived` makes before a byte of the body is read: the token against the
    /// stored ones (or the ones read last). The handler checks it again with the store it writes to.
    private func authenticate(_ request: HTTPRequest, table: RouteTable) -> Result<(name: String, scope: TokenScope), Refusal> {
        let token: String
        switch bearerToken(request) {
        case let .failure(refusal): return .failure(refusal)
        case let .success(t): token = t
        }
        let location: StorageLocation
        do throws(LinkStoreError) {
            location = try StorageLocation.of(storage: table.config.storage, configPath: runtime.configPath)
        } catch {
            runtime.log.event("api_store_unavailable", [("message", .string(error.description))])
            return .failure(Refusal(response: Self.cannotCheckToken))
        }
        let checked = SQLiteFileGate.withAccess(location) { () -> Result<(name: String, scope: TokenScope), Refusal> in
            let store = location.exists ? try? open(location) : nil
            return authenticate(token, store: store, location: location)
        }
        if case let .success(token) = checked { request.attach(AdminRequestNote(tokenName: token.name)) }
        return checked
    }

    /// The fix of a 401: no server path (the client is not authenticated).
    static let createToken = "create one with 'linkwell tokens create' (with the server's --config) and send 'Authorization: Bearer <token>'"

    /// The 503 when the tokens cannot be read and none were read before: says nothing about the
    /// server to a client not yet authenticated.
    static var cannotCheckToken: HTTPResponse {
        error(503, "database_unavailable", "the link database cannot be read right now, so the token cannot be checked",
              fix: "try again shortly; the server's log and its /readyz say what is wrong", headers: [("Retry-After", "2")])
    }

    /// Checks the token against the stored ones — or, when the database cannot be read, the ones
    /// read last (a deleted or corrupted file does not turn every token into 'invalid'). Reads
    /// only: the use is recorded with the next click flush.
    func authenticate(_ token: String, store: LinkStore?, location: StorageLocation) -> Result<(name: String, scope: TokenScope), Refusal> {
        var tokens: [APIToken]?
        if let store, let read = try? store.tokens() {
            tokens = read
            tokenCache.withLock { $0[location.description] = read }
        } else {
            tokens = tokenCache.withLock { $0[location.description] }
        }
        if tokens == nil, !location.exists, runtime.linkRefresher.cell.current.revision == nil {
            tokens = []  // no database yet: no token exists
        }
        guard let tokens else { return .failure(Refusal(response: Self.cannotCheckToken)) }
        switch LinkStore.check(token, against: tokens) {
        case let .valid(name, scope):
            runtime.clicks?.recordTokenUse(name: name)
            return .success((name, scope))
        case let .revoked(name):
            runtime.metrics.api.record(authFailure: .revoked)
            return .failure(Refusal(response: Self.unauthorized(
                "revoked_token", "the token '\(name)' was revoked", fix: "use another token; \(Self.createToken)", rfcError: "invalid_token")))
        case .unknown:
            runtime.metrics.api.record(authFailure: .invalid)
            return .failure(Refusal(response: Self.unauthorized(
                "invalid_token", "the token is not one of this server's tokens (mistyped, cut off, or made for another database)",
                fix: "'linkwell tokens list' (with the server's --config) shows the token names; a lost token cannot be shown again: \(Self.createToken)",
                rfcError: "invalid_token")))
        }
    }

    /// A connection for this request. SQLite: opened per request (never created; a file
    /// replaced or deleted since the last request is simply the file at the path now); read-only
    /// when the volume cannot be written. PostgreSQL: one kept per location, dropped after an error.
    func open(_ location: StorageLocation) throws(LinkStoreError) -> LinkStore {
        if case .sqlite = location {
            if location.writeProblem != nil { return try LinkStore(reading: location, busyTimeoutMilliseconds: 2000) }
            return try LinkStore(writing: location)
        }
        if let store = stores.withLock({ $0[location.description] }) { return store }
        let store = try LinkStore(location)
        stores.withLock { $0[location.description] = store }
        return store
    }

    // MARK: - Endpoints

    /// `GET /api/v1/stats?site=&link=&route=&since=&until=`: what `linkwell stats --json` prints
    /// (the counts already flushed to the database; see docs/reference/stats.md).
    private func stats(_ request: HTTPRequest, table: RouteTable, store: LinkStore) throws(LinkStoreError) -> HTTPResponse {
        let parameters = Self.queryItems(request.rawQuery)
        if let site = parameters["site"], table.site(named: site) == nil {
            return Self.error(400, "invalid_parameter", "site is '\(site)', which is not a site of the config",
                              fix: "use one of \(table.sites.map(\.name).joined(separator: ", ")), or leave site out for every site")
        }
        let query: ClickQuery
        do throws(LinkStoreError) { query = try ClickQuery(parameters: parameters) } catch {
            return Self.error(400, "invalid_parameter", error.description, fix: "send site, link, route, since and until (YYYY-MM-DD, UTC), each optional")
        }
        let report = try store.clickReport(query)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let body = (try? encoder.encode(report.document(query: query))) ?? Data("{}".utf8)
        return .dynamic(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: Array(body))
    }

    private func list(_ request: HTTPRequest, table: RouteTable, store: LinkStore) throws(LinkStoreError) -> HTTPResponse {
        let query = Self.queryItems(request.rawQuery)
        let limit: Int
        switch Self.pageLimit(query, maximum: Self.maximumPageSize) {
        case let .failure(refusal): return refusal.response
        case let .success(n): limit = n
        }
        let site = query["site"]
        if let site, table.site(named: site) == nil {
            return Self.error(400, "invalid_parameter", "site is '\(site)', which is not a site of the config",
                              fix: "use one of \(table.sites.map(\.name).joined(separator: ", ")), or leave site out for every site")
        }
        let after = query["next"].map(PageCursor.decode)
        // One more than asked tells whether there is a next page.
        var links = try store.links(site: site, after: after, limit: limit + 1)
        let more = links.count > limit
        if more { links.removeLast() }
        let next: JSONValue = more ? .string(PageCursor.encode(site: links[links.count - 1].site, code: links[links.count - 1].code)) : .null
        return Self.json(200, ["links": .array(links.map { $0.json(table: table) }), "next": next])
    }

    private func create(_ request: HTTPRequest, table: RouteTable, store: LinkStore, changes: inout LinkChanges) throws(LinkStoreError) -> HTTPResponse {
        let body: JSONValue
        switch Self.jsonBody(request) {
        case let .failure(refusal): return refusal.response
        case let .success(b): body = b
        }
        let items: [JSONValue]
        let bulk: Bool
        if case let .array(array) = body {
            guard !array.isEmpty else {
                return Self.error(422, "empty_batch", "the request is an empty array: there is nothing to create",
                                  fix: "send one link object, or an array of 1 to \(Self.maximumBatch) of them")
            }
            guard array.count <= Self.maximumBatch else {
                return Self.error(422, "too_many_links", "the request has \(array.count) links; one request creates at most \(Self.maximumBatch)",
                                  fix: "split it into requests of at most \(Self.maximumBatch) links (each is all-or-nothing)")
            }
            (items, bulk) = (array, true)
        } else {
            (items, bulk) = ([body], false)
        }
        var drafts: [NewShortLink] = []
        var errors: [ShortLinkItemError] = []
        for (index, item) in items.enumerated() {
            switch LinkInput.new(item, table: table) {
            case let .success(draft): drafts.append(draft)
            case let .failure(problems):
                errors += problems.items.map { ShortLinkItemError(index: index, field: $0.field, kind: .invalid, message: $0.message) }
            }
        }
        if errors.isEmpty {
            switch try store.create(drafts, table: table) {
            case let .refused(refused): errors = refused
            case let .created(links):
                changes.changed = links
                if bulk {
                    return Self.json(201, ["count": .number(String(links.count)), "links": .array(links.map { $0.json(table: table) })])
                }
                return Self.json(201, links[0].json(table: table), headers: [("Location", Self.location(links[0]))])
            }
        }
        return Self.refusal(errors, bulk: bulk, count: items.count)
    }

    private func patch(_ request: HTTPRequest, site: String, code: String, table: RouteTable, store: LinkStore, changes: inout LinkChanges) throws(LinkStoreError) -> HTTPResponse {
        let body: JSONValue
        switch Self.jsonBody(request) {
        case let .failure(refusal): return refusal.response
        case let .success(b): body = b
        }
        let existing: ShortLink
        switch try Self.found(site: site, code: code, table: table, store: store) {
        case let .failure(refusal): return refusal.response
        case let .success(link): existing = link
        }
        var link: ShortLink
        switch LinkInput.patch(body, onto: existing) {
        case let .failure(problems):
            return Self.refusal(problems.items.map { ShortLinkItemError(index: 0, field: $0.field, kind: .invalid, message: $0.message) }, bulk: false, count: 1)
        case let .success(patched): link = patched
        }
        link.updatedAt = ShortLink.wholeSeconds(Date())
        // Only disabling is allowed for a link the config no longer accepts; anything else must
        // leave a link that could be served.
        let onlyDisables = body.objectValue?.allSatisfy { $0.key == "disabled" } == true && link.disabled
        if !onlyDisables, case let .failure(refusal) = ShortLinkValidator.check(link, table: table) {
            return Self.refusal([ShortLinkItemError(index: 0, field: refusal.field, kind: .invalid, message: refusal.description)], bulk: false, count: 1)
        }
        try store.upsert(link)
        changes.changed = [link]
        return Self.json(200, link.json(table: table))
    }

    // MARK: - Helpers

    /// The stored link, or a 404 that says what is missing.
    private static func found(site: String, code: String, table: RouteTable, store: LinkStore) throws(LinkStoreError) -> Result<ShortLink, Refusal> {
        guard table.site(named: site) != nil else {
            return .failure(Refusal(response: error(
                404, "link_not_found", "there is no site '\(site)'", fix: "the sites are \(table.sites.map(\.name).joined(separator: ", ")); GET \(prefix)/links lists the links")))
        }
        guard let link = try store.link(site: site, code: code) else {
            return .failure(Refusal(response: error(
                404, "link_not_found", "site '\(site)' has no short link '\(code)'", fix: "GET \(prefix)/links?site=\(site) lists its links")))
        }
        return .success(link)
    }

    private static func location(_ link: ShortLink) -> String {
        "\(prefix)/links/\(PercentEncoding.encodeComponent(link.site))/\(PercentEncoding.encodeComponent(link.code))"
    }

    /// The request's JSON body, or the 400/413/415 that says why there is none.
    private static func jsonBody(_ request: HTTPRequest) -> Result<JSONValue, Refusal> {
        if request.bodyTooLarge {
            let limit = request.bodyLimit ?? bodyLimit
            return .failure(Refusal(response: error(
                413, "body_too_large", "the request body is larger than \(sizeText(limit)), the most this endpoint takes",
                fix: request.method == "POST"
                    ? "split the links into several requests (server.adminBulkBodyBytes sets this limit)"
                    : "send a smaller body (server.adminBodyBytes sets this limit)")))
        }
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            return .failure(Refusal(response: error(
                415, "unsupported_media_type", "the body must be JSON, but Content-Type is \(type.map { "'\($0)'" } ?? "missing")",
                fix: "send 'Content-Type: application/json' (curl: -H 'Content-Type: application/json')")))
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body)
        } catch {
            return .failure(Refusal(response: Self.error(
                400, "invalid_json", "the body is not valid JSON: \(error.description)", fix: "check the JSON at that line and column (e.g. with 'jq .')")))
        }
        // Which of two values counts is a guess JSON parsers make differently; refuse instead.
        if let (key, place) = duplicateKey(in: value, at: nil) {
            return .failure(Refusal(response: Self.error(
                400, "duplicate_key", "the key '\(key)' appears more than once in \(place); each key may appear once per object",
                fix: "remove one of the '\(key)' members and send the request again")))
        }
        return .success(value)
    }

    /// The first key that appears twice in one object, and where: `the body` or `item 3` (of an array body).
    static func duplicateKey(in value: JSONValue, at place: String?) -> (key: String, place: String)? {
        switch value {
        case let .object(members):
            var seen = Set<String>()
            for member in members {
                if !seen.insert(member.key).inserted { return (member.key, place ?? "the body") }
            }
            for member in members {
                if let found = duplicateKey(in: member.value, at: (place.map { "\($0), " } ?? "") + "member '\(member.key)'") { return found }
            }
            return nil
        case let .array(items):
            for (index, item) in items.enumerated() {
                if let found = duplicateKey(in: item, at: place.map { "\($0), item \(index)" } ?? "item \(index)") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// 409 when every problem is a taken code, else 422; each problem names its item and field.
    private static func refusal(_ errors: [ShortLinkItemError], bulk: Bool, count: Int) -> HTTPResponse {
        let conflict = errors.allSatisfy { $0.kind != .invalid }
        let shown = errors.prefix(100)
        let details: [JSONValue] = shown.map { e in
            var o: [(key: String, value: JSONValue)] = []
            if bulk { o.append(("index", .number(String(e.index)))) }
            o += [("field", .string(e.field)), ("code", .string(e.kind.rawValue)), ("message", .string(e.message))]
            return .object(o)
        }
        let first = errors[0]
        let more = errors.count > shown.count ? " (the first \(shown.count) are listed)" : ""
        let message = bulk
            ? "\(errors.count) of the \(count) links were refused\(more), so none was created; the first: item \(first.index), \(first.field): \(first.message)"
            : "the link was refused: \(first.field): \(first.message)"
        let code = !conflict ? "invalid_link" : errors.allSatisfy { $0.kind == .codeTaken } ? "code_taken" : "code_conflict"
        return error(
            conflict ? 409 : 422, code, message,
            fix: conflict
                ? "choose other codes, or leave code out to get generated ones"
                : "correct the fields named in details (index is the item's position in the array) and send the request again",
            details: details)
    }

    /// A store failure, for an authenticated client: a full disk → 507, a read-only one → 503,
    /// locked, gone, replaced or unreadable → 503 with Retry-After, anything else → 500.
    private func storeError(_ e: LinkStoreError, location: StorageLocation) -> HTTPResponse {
        if case .postgres = location { stores.withLock { $0[location.description] = nil } }  // reconnect next time
        switch e.kind {
        case .full:
            runtime.storeStatus.record(refused: .full)
            return Self.error(507, "insufficient_storage", e.description,
                              fix: "free space on the volume of \(location.description) (or move storage.sqlite to a larger one), then send the request again; nothing was changed")
        case .readOnly:
            runtime.storeStatus.record(refused: .readOnly)
            return Self.error(503, "links_read_only", e.description,
                              fix: "make \(location.description) and its directory writable by the user running linkwell, then send the request again")
        case .locked:
            runtime.storeStatus.record(refused: .locked)
            return Self.error(503, "database_locked", e.description,
                              fix: "wait for the other writer to finish and send the request again (Retry-After); nothing was changed", headers: [("Retry-After", "2")])
        case .cannotOpen, .corrupt, .tooNew, .notFound, .replaced, .unavailable:
            runtime.storeStatus.record(refused: .unavailable)
            return Self.error(503, "database_unavailable", e.description,
                              fix: "check that \(location.description) is there, readable and writable by linkwell (for PostgreSQL: that the server is up); nothing was changed; try again once it is", headers: [("Retry-After", "2")])
        default:
            return Self.error(500, "database_error", e.description, fix: "see the server's log; the request changed nothing")
        }
    }

    private static func unauthorized(_ code: String, _ message: String, fix: String, rfcError: String?) -> HTTPResponse {
        let challenge = "Bearer realm=\"linkwell admin API\"" + (rfcError.map { ", error=\"\($0)\"" } ?? "")
        return error(401, code, message, fix: fix, headers: [("WWW-Authenticate", challenge)])
    }

    /// `1 MiB`, `512 KiB`, `1000 bytes`.
    static func sizeText(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// `{"error": {"code", "message", "fix", "details"?}}`.
    static func error(_ status: Int, _ code: String, _ message: String, fix: String, details: [JSONValue]? = nil, headers: [(String, String)] = []) -> HTTPResponse {
        var o: [(key: String, value: JSONValue)] = [("code", .string(code)), ("message", .string(message)), ("fix", .string(fix))]
        if let details { o.append(("details", .array(details))) }
        return json(status, ["error": .object(o)], headers: headers)
    }

    static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> HTTPResponse {
        .dynamic(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")] + headers,
                 body: Array(value.serialized(.pretty, sortKeys: false).utf8))
    }

    /// Query parameters, percent-decoded (`+` is a space); the last of repeated names wins.
    static func queryItems(_ raw: Substring?) -> [String: String] {
        var out: [String: String] = [:]
        for item in RawQueryItem.split(String(raw ?? "")) {
            let decode = { (s: Substring) in PercentEncoding.decode(s.replacingOccurrences(of: "+", with: " ")) }
            out[decode(item.name)] = item.value.map(decode) ?? ""
        }
        return out
    }
}

extension Result where Failure == AdminAPI.Refusal {
    func map(_ body: (Success) throws(LinkStoreError) -> HTTPResponse) throws(LinkStoreError) -> Result<HTTPResponse, AdminAPI.Refusal> {
        switch self {
        case let .success(value): return .success(try body(value))
        case let .failure(refusal): return .failure(refusal)
        }
    }
}

extension Result where Success == HTTPResponse, Failure == AdminAPI.Refusal {
    var response: HTTPResponse {
        switch self {
        case let .success(r): r
        case let .failure(refusal): refusal.response
        }
    }
}

/// The `next` cursor of a page: base64url of `site` NUL `code` of the page's last link. Any
/// string reads as some position (never an error): a hand-made cursor just starts elsewhere.
enum PageCursor {
    static func encode(site: String, code: String) -> String {
        Data((site + "\u{0}" + code).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ cursor: String) -> (site: String, code: String) {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            .filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }
        if text.count % 4 == 1 { text.removeLast() }
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let bytes = Data(base64Encoded: text).map(Array.init) ?? []
        let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let site = parts.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let code = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
        return (site, code)
    }
}
