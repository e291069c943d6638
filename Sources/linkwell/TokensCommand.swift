// linkwell tokens — bearer tokens of the admin REST API (/api/v1 on the admin listener), kept
// as SHA-256 hashes in the config's link database: create (prints the token once), list, revoke.

import Foundation
import LinkRouting
import LinkStore

enum TokensCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "tokens",
        overview: "Manage the bearer tokens of the admin REST API (/api/v1 on the admin listener).",
        usage: "linkwell tokens create|list|revoke [<name>] [--name <name>] [--config <file>] [--json]",
        arguments: [
            ("create", "Make a token and print it once (only its SHA-256 is stored): --name <name>, default token-N."),
            ("list", "List the tokens: name, created, last used, revoked. Never the tokens themselves."),
            ("revoke <name>", "Refuse the token from now on (401); its name stays taken."),
        ],
        options: [
            configOption,
            OptionSpec(name: "--name", valueName: "name", help: "create: the token's name (A–Z a–z 0–9 . - _, at most 64), e.g. ci or ops-laptop."),
            OptionSpec(name: "--json", valueName: nil, help: "Print as JSON."),
        ],
        discussion: "Send the token as 'Authorization: Bearer <token>'. The tokens live in the link database (storage.sqlite of the config, else linkwell.db beside it). A lost token cannot be shown again: revoke it and create another."
    )

    static func run(_ args: Arguments) throws -> Int32 {
        guard let action = args.positional.first else { throw UsageError(message: "name an action: create, list or revoke") }
        let store = try LinksCommand.openLinkStore(try loadConfig(args).0)
        do {
            switch action {
            case "create":
                guard args.positional.count == 1 else { throw UsageError(message: "'tokens create' takes no argument; name the token with --name <name>") }
                let (token, secret) = try store.createToken(name: args.value("--name"))
                if args.has("--json") {
                    Output.json(["name": token.name, "token": secret, "createdAt": ShortLink.iso(token.createdAt)])
                } else {
                    Output.out(secret)
                    Output.err("Created token '\(token.name)' in \(store.path). It is shown only now: store it in your secret manager. Use it as 'Authorization: Bearer <token>'; 'linkwell tokens revoke \(token.name)' refuses it.")
                }
            case "list":
                let tokens = try store.tokens()
                if args.has("--json") {
                    Output.json(tokens.map { t -> [String: Any] in
                        ["name": t.name, "createdAt": ShortLink.iso(t.createdAt), "lastUsedAt": t.lastUsedAt.map(ShortLink.iso) ?? NSNull(), "revoked": t.revoked]
                    })
                } else if tokens.isEmpty {
                    Output.out("No API tokens in \(store.path). Create one: linkwell tokens create --name <name>")
                } else {
                    var rows = [["NAME", "CREATED", "LAST USED", "STATUS"]]
                    for t in tokens { rows.append([t.name, ShortLink.iso(t.createdAt), t.lastUsedAt.map(ShortLink.iso) ?? "never", t.revoked ? "revoked" : "active"]) }
                    let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
                    for row in rows {
                        Output.out(row.enumerated().map { $0.offset == 3 ? $0.element : $0.element.padding(toLength: widths[$0.offset] + 2, withPad: " ", startingAt: 0) }.joined())
                    }
                }
            case "revoke":
                guard args.positional.count == 2 else { throw UsageError(message: "'tokens revoke' takes one name: linkwell tokens revoke <name>") }
                let name = args.positional[1]
                guard try store.revokeToken(name: name) else {
                    Output.err("Error: there is no token named '\(name)' in \(store.path); 'linkwell tokens list' shows them.")
                    return 1
                }
                Output.out("Revoked token '\(name)'; requests with it now get 401.")
            default:
                throw UsageError(message: "unknown action '\(action)'; use create, list or revoke")
            }
        } catch let e as LinkStoreError {
            Output.err("Error: \(e)")
            return 1
        }
        return 0
    }
}
