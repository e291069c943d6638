// The OpenAPI 3.0 document of the admin REST API, served at /api/v1/openapi.json without
// authentication. Written from the serving route table (the site names, their domains) and from
// LinkInput's field table, so what it promises is what the server checks; tests/live/test_api.py
// runs schemathesis against the real server with it.

import LinkRouting
import LinkStore
import LinkwellJSON

enum OpenAPIDocument {
    /// `bodyLimit`: `server.adminBodyBytes`; `bulkBodyLimit`: `server.adminBulkBodyBytes` (POST /links).
    static func document(table: RouteTable, bodyLimit: Int, bulkBodyLimit: Int = AdminAPI.bodyLimit) -> JSONValue {
        let siteNames = JSONValue.array(table.sites.map { .string($0.name) })
        let p = AdminAPI.prefix
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "Linkwell admin API",
                "version": "1",
                "description": .string("""
                    Short links of this Linkwell server, on the admin listener only (server.admin). Every operation but this \
                    document needs 'Authorization: Bearer <token>' (create one with 'linkwell tokens create'). Errors are \
                    {"error": {"code", "message", "fix"}}; a refused batch lists every bad item in error.details. A write is served \
                    by the public listener at once. The token is checked before the body is read. Request bodies are at most \
                    \(AdminAPI.sizeText(bodyLimit)), \(AdminAPI.sizeText(bulkBodyLimit)) for POST \(AdminAPI.prefix)/links; 413 beyond.
                    """),
            ],
            "paths": [
                "\(p)/links": [
                    "get": operation(
                        "listLinks", "List links, a page at a time, ordered by site and code.",
                        parameters: [
                            query("limit", ["type": "integer", "minimum": 1, "maximum": .number(String(AdminAPI.maximumPageSize)), "default": .number(String(AdminAPI.defaultPageSize))],
                                  "Links per page."),
                            query("site", ["type": "string", "enum": siteNames], "Only this site's links."),
                            query("next", ["type": "string"], "The next value of the previous page; left out, the first page."),
                        ],
                        responses: ["200": ok("A page of links; next is null on the last page.", ref("LinkPage")), "400": errorRef, "401": unauthorized, "503": errorRef]),
                    "post": operation(
                        "createLinks",
                        "Create one link (an object) or up to \(AdminAPI.maximumBatch) (an array), all or nothing.",
                        body: ["oneOf": [ref("NewLink"), ["type": "array", "minItems": 1, "maxItems": .number(String(AdminAPI.maximumBatch)), "items": ref("NewLink")]]],
                        responses: [
                            "201": ok("Created: the link (for an object) or {count, links} (for an array).", ["oneOf": [ref("Link"), ref("CreatedLinks")]]),
                            "400": errorRef, "401": unauthorized, "403": errorRef, "409": errorRef, "413": errorRef, "415": errorRef, "422": errorRef, "503": errorRef,
                            "507": errorRef,
                        ]),
                ],
                "\(p)/links/{site}/{code}": [
                    "parameters": [
                        path("site", ["type": "string", "enum": siteNames], "The site's name."),
                        path("code", ["type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"], "The link's code."),
                    ],
                    "get": operation("getLink", "One link.", responses: ["200": ok("The link.", ref("Link")), "401": unauthorized, "404": errorRef, "503": errorRef]),
                    "patch": operation(
                        "updateLink", "Change a link: disable or enable it, its target, its overrides (null removes one).",
                        body: ref("LinkPatch"),
                        responses: ["200": ok("The changed link.", ref("Link")), "400": errorRef, "401": unauthorized, "403": errorRef, "404": errorRef, "415": errorRef, "422": errorRef, "503": errorRef, "507": errorRef]),
                    "delete": operation(
                        "deleteLink", "Delete a link; its code may be handed out again.",
                        responses: ["204": ["description": "Deleted."], "401": unauthorized, "403": errorRef, "404": errorRef, "503": errorRef, "507": errorRef]),
                ],
                "\(p)/stats": [
                    "get": operation(
                        "getStats", "Click counts (what 'linkwell stats --json' prints): totals by platform, outcome, in-app browser, crawler, referrer host, per day and month, per link and route, and the funnel clicks → app opens → first opens.",
                        parameters: [
                            query("site", ["type": "string", "enum": siteNames], "Only this site's clicks."),
                            query("link", ["type": "string"], "Only this short link's clicks (its code)."),
                            query("route", ["type": "string"], "Only clicks answered by this route (its pages and the short links to it)."),
                            query("since", ["type": "string", "format": "date"], "From this UTC day on (YYYY-MM-DD), inclusive."),
                            query("until", ["type": "string", "format": "date"], "Up to this UTC day (YYYY-MM-DD), inclusive."),
                        ],
                        responses: ["200": ok("The counts.", ["type": "object"]), "400": errorRef, "401": unauthorized, "503": errorRef]),
                ],
                "\(p)/audit": [
                    "get": operation(
                        "getAudit", "The audit log, newest first: every write (and every write refused for its token's scope) with who, when, what changed and from where. Needs an admin token.",
                        parameters: [
                            query("limit", ["type": "integer", "minimum": 1, "maximum": .number(String(AdminAPI.maximumAuditPage)), "default": .number(String(AdminAPI.defaultPageSize))],
                                  "Entries per page."),
                            query("before", ["type": "string", "pattern": "^[0-9]{1,18}$"], "The next value of the previous page; left out, the newest entries."),
                        ],
                        responses: ["200": ok("A page of entries; next is null on the last page.", ref("AuditPage")), "400": errorRef, "401": unauthorized, "403": errorRef, "503": errorRef]),
                ],
                "\(p)/openapi.json": [
                    "get": [
                        "operationId": "openAPI", "summary": "This document (no token needed).", "security": [],
                        "responses": ["200": ["description": "The OpenAPI document.", "content": ["application/json": ["schema": ["type": "object"]]]]],
                    ],
                ],
            ],
            "components": [
                "securitySchemes": ["bearerAuth": ["type": "http", "scheme": "bearer", "description": "A token from 'linkwell tokens create' (lw_…)."]],
                "responses": [
                    "Error": ["description": "The request was refused; error says why and how to fix it.", "content": ["application/json": ["schema": ref("Error")]]],
                    "Unauthorized": [
                        "description": "No token, an unknown one, or a revoked one (counted in linkwell_api_auth_failures_total).",
                        "headers": ["WWW-Authenticate": ["required": true, "schema": ["type": "string"], "description": "Bearer realm=\"linkwell admin API\"…"]],
                        "content": ["application/json": ["schema": ref("Error")]],
                    ],
                ],
                "schemas": [
                    "NewLink": newLink(table),
                    "LinkPatch": object(LinkInput.fields.filter(\.patch), table: table, required: []),
                    "Link": linkSchema(),
                    "LinkPage": ["type": "object", "additionalProperties": false, "required": ["links", "next"],
                                 "properties": ["links": ["type": "array", "items": ref("Link")], "next": ["type": "string", "nullable": true]]],
                    "AuditPage": ["type": "object", "additionalProperties": false, "required": ["entries", "next"],
                                  "properties": ["entries": ["type": "array", "items": ref("AuditEntry")], "next": ["type": "string", "nullable": true]]],
                    "AuditEntry": [
                        "type": "object", "additionalProperties": false,
                        "required": ["id", "at", "actor", "via", "action", "site", "code", "detail", "client", "outcome"],
                        "properties": [
                            "id": ["type": "integer"], "at": ["type": "string", "format": "date-time"],
                            "actor": ["type": "string", "description": "The token's name, or the user the single-sign-on proxy named."],
                            "via": ["type": "string", "enum": ["token", "console", "sso"]],
                            "action": ["type": "string", "description": "link.create, link.update, link.delete, links.import, refused, …"],
                            "site": ["type": "string", "nullable": true], "code": ["type": "string", "nullable": true],
                            "detail": ["type": "object", "description": "What changed (for an update: each field's before and after)."],
                            "client": ["type": "string", "description": "The client address, as the trusted proxies report it."],
                            "outcome": ["type": "string", "description": "ok, or 'refused: …'."],
                        ],
                    ],
                    "CreatedLinks": ["type": "object", "additionalProperties": false, "required": ["count", "links"],
                                     "properties": ["count": ["type": "integer", "minimum": 1], "links": ["type": "array", "items": ref("Link")]]],
                    "Error": [
                        "type": "object", "additionalProperties": false, "required": ["error"],
                        "properties": [
                            "error": [
                                "type": "object", "additionalProperties": false, "required": ["code", "message", "fix"],
                                "properties": [
                                    "code": ["type": "string", "description": "Machine-readable: invalid_link, code_taken, code_conflict, invalid_token, insufficient_scope, …"],
                                    "message": ["type": "string", "description": "What is wrong, naming the value."],
                                    "fix": ["type": "string", "description": "What to do about it."],
                                    "details": [
                                        "type": "array",
                                        "items": [
                                            "type": "object", "additionalProperties": false, "required": ["field", "code", "message"],
                                            "properties": [
                                                "index": ["type": "integer", "minimum": 0, "description": "The item's position in a batch."],
                                                "field": ["type": "string"], "code": ["type": "string", "enum": ["invalid", "code_taken", "code_conflict"]],
                                                "message": ["type": "string"],
                                            ],
                                        ],
                                    ],
                                ],
                            ],
                        ],
                    ],
                ],
            ],
            "security": [["bearerAuth": []]],
        ]
    }

    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }
    static let errorRef: JSONValue = ["$ref": "#/components/responses/Error"]
    static let unauthorized: JSONValue = ["$ref": "#/components/responses/Unauthorized"]

    static func ok(_ description: String, _ schema: JSONValue) -> JSONValue {
        ["description": .string(description), "content": ["application/json": ["schema": schema]]]
    }

    static func operation(_ id: String, _ summary: String, parameters: [JSONValue] = [], body: JSONValue? = nil, responses: JSONValue) -> JSONValue {
        var o: [(key: String, value: JSONValue)] = [("operationId", .string(id)), ("summary", .string(summary))]
        if !parameters.isEmpty { o.append(("parameters", .array(parameters))) }
        if let body { o.append(("requestBody", ["required": true, "content": ["application/json": ["schema": body]]])) }
        o.append(("responses", responses))
        return .object(o)
    }

    static func query(_ name: String, _ schema: JSONValue, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "query", "required": false, "schema": schema, "description": .string(description)]
    }

    static func path(_ name: String, _ schema: JSONValue, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "path", "required": true, "schema": schema, "description": .string(description)]
    }

    /// The schema of one field (LinkInput's table).
    static func schema(_ field: LinkInput.Field, table: RouteTable, site: CompiledSite?) -> JSONValue {
        var o: [(key: String, value: JSONValue)]
        let noNUL: (key: String, value: JSONValue) = ("pattern", "^[^\\u0000]*$")
        switch field.kind {
        case .bool: o = [("type", "boolean")]
        case .length: o = [("type", "integer"), ("minimum", .number(String(ShortCode.minimumShortLength))), ("maximum", .number(String(ShortCode.maximumLength)))]
        case .text: o = [("type", "string"), ("maxLength", .number(String(AdminAPI.maximumTextLength))), noNUL]
        case .url: o = [("type", "string"), ("maxLength", .number(String(AdminAPI.maximumURLLength))), ("pattern", .string(ShortLinkValidator.webURLPattern))]
        case .fallback:
            o = [("type", "string"), ("maxLength", .number(String(AdminAPI.maximumURLLength))), ("pattern", .string(fallbackPattern(site.map { [$0] } ?? table.sites, table: table)))]
        case .target:
            o = [("type", "string"), ("maxLength", .number(String(AdminAPI.maximumURLLength))), ("pattern", .string(targetPattern(site.map { [$0] } ?? table.sites)))]
        case .date: o = [("type", "string"), ("format", "date-time")]
        case .code: o = [("type", "string"), ("pattern", "^[A-Za-z0-9_-]{1,64}$")]
        case .site: o = [("type", "string"), ("enum", .array((site.map { [$0] } ?? table.sites).map { .string($0.name) }))]
        case .style: o = [("type", "string"), ("enum", .array(ShortCode.Style.allCases.map { .string($0.rawValue) }))]
        }
        if field.nullable { o.append(("nullable", true)) }
        o.append(("description", .string(field.description)))
        return .object(o)
    }

    /// http(s) URLs on the sites' domains with plain path segments: what ShortLinkValidator always
    /// accepts (it also accepts queries and app-scheme links that a route takes).
    /// A fallback: http(s) on a host RedirectPolicy allows for the sites (their domains and
    /// allowed hosts, the app stores, the hosts their config links to), a port below 10000
    /// (a subset: the schema stays simple), then a path, query or fragment without spaces,
    /// controls or backslashes.
    static func fallbackPattern(_ sites: [CompiledSite], table: RouteTable) -> String {
        func escape(_ s: String) -> String { s.replacingOccurrences(of: ".", with: "\\.") }
        var hosts: Set<String> = RedirectPolicy.storeHosts
        var wildcards: Set<String> = []
        for site in sites {
            hosts.formUnion(site.exactDomains)
            hosts.formUnion(RedirectPolicy.configHosts(site: site))
            wildcards.formUnion(site.wildcardSuffixes.map { $0.hasPrefix(".") ? $0 : "." + $0 })
            for allowed in site.config.shortLinks?.allowedHosts ?? [] {
                if allowed.hasPrefix("*.") { wildcards.insert(String(allowed.dropFirst(1)).lowercased()) } else { hosts.insert(allowed.lowercased()) }
            }
        }
        let alternatives = hosts.sorted().map(escape) + wildcards.sorted().map { "[a-z0-9]+" + escape($0) }
        return "^https?://(\(alternatives.joined(separator: "|")))(:[0-9]{1,4})?([/?#][^\\u0000-\\u0020\\u007f\\\\]*)?$"
    }

    static func targetPattern(_ sites: [CompiledSite]) -> String {
        func escape(_ s: String) -> String { s.replacingOccurrences(of: ".", with: "\\.") }
        let hosts = sites.flatMap { site in
            site.exactDomains.map(escape) + site.wildcardSuffixes.map { "[a-z0-9]+" + escape($0.hasPrefix(".") ? $0 : "." + $0) }
        }
        return "^https?://(\(hosts.joined(separator: "|")))(/[A-Za-z0-9_-]+)*/?$"
    }

    static func object(_ fields: [LinkInput.Field], table: RouteTable, site: CompiledSite? = nil, required: [String]) -> JSONValue {
        var o: [(key: String, value: JSONValue)] = [("type", "object"), ("additionalProperties", false)]
        if !required.isEmpty { o.append(("required", .array(required.map { .string($0) }))) }
        o.append(("properties", .object(fields.map { ($0.name, schema($0, table: table, site: site)) })))
        return .object(o)
    }

    /// One site: its fields. Several: one variant per site (its name, its domains), so a valid
    /// document is a link the server accepts; `site` may be left out for the default site.
    static func newLink(_ table: RouteTable) -> JSONValue {
        let fields = LinkInput.fields.filter(\.create)
        if table.sites.count == 1 { return object(fields, table: table, required: ["target"]) }
        let fallback = ShortLinkSites.defaultSite(table)
        return ["oneOf": .array(table.sites.map { site in
            object(fields, table: table, site: site, required: site.index == fallback?.index ? ["target"] : ["site", "target"])
        })]
    }

    static func linkSchema() -> JSONValue {
        let string: JSONValue = ["type": "string"]
        let date: JSONValue = ["type": "string", "format": "date-time"]
        var properties: [(key: String, value: JSONValue)] = [
            ("code", string), ("site", string), ("url", ["type": "string", "description": "https://<site's domain>/<code>"]), ("target", string),
            ("status", ["type": "string", "enum": ["live", "disabled", "expired"]]),
            ("route", ["type": "string", "nullable": true, "description": "The route the target opens; null for a web page."]),
            ("problem", ["type": "string", "description": "Why the link is not served (the config changed since it was stored)."]),
            ("forcedRedirect", ["type": "boolean"]), ("disabled", ["type": "boolean"]), ("createdAt", date), ("updatedAt", date),
        ]
        for f in LinkInput.fields where f.nullable {
            properties.append((f.name, f.kind == .date ? date : string))
        }
        return [
            "type": "object", "additionalProperties": false,
            "required": ["code", "site", "url", "target", "status", "forcedRedirect", "disabled", "createdAt", "updatedAt"],
            "properties": .object(properties),
        ]
    }
}
