// linkwell tokens — bearer tokens of the admin REST API (/api/v1 on the admin listener), kept
// as SHA-256 hashes in the config's link database: create (prints the token once), list, revoke.

import Foundation
import LinkRouting
import LinkStore

enum TokensCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "tokens",
            overview: "Manage the bearer tokens of the admin REST API (/api/v1 on the admin listener).",
            abstract: "Create, list and revoke bearer tokens of the admin REST API.",
            options: [],
            discussion: """
                Send the token as 'Authorization: Bearer <token>', or sign in with it to the console at / of the admin listener. A token's scope says what it may do: read (look only), write (also create, change, disable, delete and import links), admin (also the audit log); tokens made before scopes existed are admin. The tokens live in the link database (storage.sqlite of the config, else linkwell.db beside it). A lost token cannot be shown again: revoke it and create another.
                Examples:
                  linkwell tokens create --name ci --scope write
                  linkwell tokens create --name dashboard --scope read
                  linkwell tokens revoke ci
                """),
        subcommands: [
            Command(
                spec: CommandSpec(
                    name: "tokens create",
                    overview: "Make a token and print it once (only its SHA-256 is stored); its name defaults to token-N, its scope to admin.",
                    options: [CommonOptions.config.spec, name.spec, scope.spec, CommonOptions.json.spec]),
                run: create),
            Command(
                spec: CommandSpec(
                    name: "tokens list", overview: "List the tokens: name, scope, created, last used, revoked. Never the tokens themselves.",
                    options: [CommonOptions.config.spec, CommonOptions.json.spec]),
                run: list),
            Command(
                spec: CommandSpec(
                    name: "tokens revoke", overview: "Refuse the token from now on (401); its name stays taken.",
                    arguments: [ArgumentSpec(name: "<name>", help: "The token's name ('linkwell tokens list' shows them).")],
                    options: [CommonOptions.config.spec]),
                run: revoke),
        ])

    static let name = Option<String>("--name", "name", help: "The token's name (A–Z a–z 0–9 . - _, at most 64), e.g. ci or ops-laptop.")
    static let scope = Option<TokenScope>(
        "--scope", "read|write|admin", help: "What the token may do: read (look only), write (also change links), admin (also the audit log; the default).")

    /// Runs `body` with the config's link database; a store error is printed, status 1.
    static func withStore(_ args: Arguments, _ body: (LinkStore) throws -> Void) throws -> Int32 {
        let store = try LinksCommand.openLinkStore(try args.loadConfig().0)
        do {
            try body(store)
            return 0
        } catch let e as LinkStoreError {
            Output.err("Error: \(e)")
            return 1
        }
    }

    static func create(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "'tokens create' takes no argument; name the token with --name <name>") }
        return try withStore(args) { store in
            let (token, secret) = try store.createToken(name: args[name], scope: args[scope] ?? .admin)
            if args.has(CommonOptions.json) {
                Output.json(["name": token.name, "scope": token.scope.rawValue, "token": secret, "createdAt": ShortLink.iso(token.createdAt)])
            } else {
                Output.out(secret)
                Output.err("Created \(token.scope.rawValue) token '\(token.name)' in \(store.path). It is shown only now: store it in your secret manager. Use it as 'Authorization: Bearer <token>'; 'linkwell tokens revoke \(token.name)' refuses it.")
            }
        }
    }

    static func list(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "'tokens list' takes no argument") }
        return try withStore(args) { store in
            let tokens = try store.tokens()
            if args.has(CommonOptions.json) {
                struct Listed: Encodable {
                    var name, scope, createdAt: String
                    var lastUsedAt: Nullable<String>
                    var revoked: Bool
                }
                Output.json(tokens.map { t in
                    Listed(name: t.name, scope: t.scope.rawValue, createdAt: ShortLink.iso(t.createdAt), lastUsedAt: Nullable(t.lastUsedAt.map(ShortLink.iso)), revoked: t.revoked)
                })
            } else if tokens.isEmpty {
                Output.out("No API tokens in \(store.path). Create one: linkwell tokens create --name <name>")
            } else {
                var rows = [["NAME", "SCOPE", "CREATED", "LAST USED", "STATUS"]]
                for t in tokens { rows.append([t.name, t.scope.rawValue, ShortLink.iso(t.createdAt), t.lastUsedAt.map(ShortLink.iso) ?? "never", t.revoked ? "revoked" : "active"]) }
                LinksCommand.printColumns(rows)
            }
        }
    }

    static func revoke(_ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError(message: "'tokens revoke' takes one name: linkwell tokens revoke <name>") }
        let name = args.positional[0]
        var revoked = false
        let status = try withStore(args) { store in
            revoked = try store.revokeToken(name: name)
            if !revoked { Output.err("Error: there is no token named '\(name)' in \(store.path); 'linkwell tokens list' shows them.") }
        }
        guard status == 0, revoked else { return 1 }
        Output.out("Revoked token '\(name)'; requests with it now get 401.")
        return 0
    }
}

extension TokenScope: ChoiceValue {}
