// The admin API's rights and its audit log: the scope a token needs per endpoint and method (a
// read token gets 403 on a write, before its body is read, and the refusal is audited), the audit
// entries of the writes, and `GET /api/v1/audit`.

import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

extension AdminAPI {
    static let maximumAuditPage = 1000

    /// The 403 for a token whose scope does not cover the endpoint (and the audit entry of the
    /// refused write), or nil when it does. Run before the body is read.
    func scopeRefusal(_ endpoint: Endpoint, request: HTTPRequest, token: (name: String, scope: TokenScope), table: RouteTable) -> HTTPResponse? {
        let method = request.method == "HEAD" ? "GET" : request.method
        let needed = endpoint.needed(method)
        guard !token.scope.allows(needed) else { return nil }
        let actor = AdminActor(name: token.name, via: "token", scope: token.scope, client: runtime.snapshot.proxyTrust.resolve(RequestFacts(request)).client)
        return Self.insufficientScope(actor, needed: needed, request: request, audit: { entry in
            guard let location = try? StorageLocation.of(storage: table.config.storage, configPath: runtime.configPath) else { return }
            SQLiteFileGate.withAccess(location) {
                guard location.exists, location.writeProblem == nil, let store = try? open(location) else { return }
                do throws(LinkStoreError) { try store.appendAudit([entry]) } catch {
                    runtime.log.event("audit_write_failed", [("message", .string(error.description))])
                }
            }
        })
    }

    /// 403 `insufficient_scope` (RFC 6750 §3.1): names the token, its scope and the scope needed.
    /// A refused write is handed to `audit` (reads refused for scope are in the access log only).
    static func insufficientScope(_ actor: AdminActor, needed: TokenScope, request: HTTPRequest, audit: (AuditEntry) -> Void = { _ in }) -> HTTPResponse {
        let what = needed == .admin ? "read the audit log" : "change links"
        if needed == .write {
            audit(actor.entry(
                "refused", site: nil, code: nil,
                detail: ["method": .string(request.method), "path": .string(String(request.rawPath))],
                outcome: "refused: insufficient_scope (\(actor.scope.rawValue) scope)"))
        }
        return error(
            403, "insufficient_scope",
            "the token '\(actor.name)' has scope '\(actor.scope.rawValue)', which cannot \(what); this needs a '\(needed.rawValue)' token. Nothing was changed.",
            fix: "use a token made with 'linkwell tokens create --scope \(needed.rawValue)' (with the server's --config)",
            headers: [("WWW-Authenticate", "Bearer realm=\"linkwell admin API\", error=\"insufficient_scope\", scope=\"\(needed.rawValue)\"")])
    }

    /// `GET /api/v1/audit?limit=&before=`: entries newest first; `next` is the `before` of the next page.
    func audit(_ request: HTTPRequest, store: LinkStore) throws(LinkStoreError) -> HTTPResponse {
        let query = Self.queryItems(request.rawQuery)
        let limit: Int
        switch Self.pageLimit(query, maximum: Self.maximumAuditPage) {
        case let .failure(refusal): return refusal.response
        case let .success(n): limit = n
        }
        var before: Int64?
        if let text = query["before"] {
            guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int64(text) else {
                return Self.error(400, "invalid_parameter", "before is '\(text)'; it must be an entry id (a whole number)",
                                  fix: "send the next value of the previous page, or leave before out for the newest entries")
            }
            before = n
        }
        var entries = try store.audit(before: before, limit: limit + 1)
        let more = entries.count > limit
        if more { entries.removeLast() }
        let next: JSONValue = more ? .string(String(entries[entries.count - 1].id)) : .null
        return Self.json(200, ["entries": .array(entries.map(\.json)), "next": next])
    }

    /// The `limit` parameter of a page (default ``defaultPageSize``), or the 400 for it.
    static func pageLimit(_ query: [String: String], maximum: Int) -> Result<Int, Refusal> {
        guard let text = query["limit"] else { return .success(defaultPageSize) }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(text), (1...maximum).contains(n) else {
            return .failure(Refusal(response: error(
                400, "invalid_parameter", "limit is '\(text)'; it must be a whole number from 1 to \(maximum)",
                fix: "send e.g. ?limit=\(defaultPageSize) (the default) or ?limit=\(maximum) (the most)")))
        }
        return .success(n)
    }

    /// `{field: {before, after}}` for each member that differs between two link objects.
    static func difference(_ before: JSONValue, _ after: JSONValue) -> JSONValue {
        let old = Dictionary((before.objectValue ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary((after.objectValue ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        var out: [(key: String, value: JSONValue)] = []
        for key in Set(old.keys).union(new.keys).sorted() where key != "updatedAt" && old[key] != new[key] {
            out.append((key, ["before": old[key] ?? .null, "after": new[key] ?? .null]))
        }
        return .object(out)
    }
}
