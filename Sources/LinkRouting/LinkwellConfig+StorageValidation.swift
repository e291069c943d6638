// The `storage` block: one backend, and a PostgreSQL connection string that libpq can read and
// that keeps the password out of the config file. (libpq itself parses it again when linkwell
// connects; this check needs no library, so LinkRouting stays free of C dependencies.)

import Foundation

extension LinkwellConfig {
    func validateStorage(_ storage: StorageSettings, into out: inout [Diagnostic]) {
        if storage.sqlite != nil && storage.postgres != nil {
            out.append(Diagnostic(
                .error, at: "storage", "storage has both sqlite and postgres; the links live in one database",
                fix: "keep storage.postgres for several instances on one database, or storage.sqlite for one machine"))
        }
        if let file = storage.passwordFile, storage.postgres == nil {
            out.append(Diagnostic(
                .error, at: "storage.passwordFile", value: file, "storage.passwordFile is only read for PostgreSQL, and storage.postgres is not set",
                fix: "add storage.postgres, or remove storage.passwordFile"))
        }
        guard let conninfo = storage.postgres else { return }
        if let problem = Self.postgresConnectionStringProblem(conninfo) {
            out.append(Diagnostic(.error, at: "storage.postgres", value: Self.withoutPassword(conninfo), problem.message, fix: problem.fix))
        }
    }

    /// Why `conninfo` cannot be used, or nil.
    static func postgresConnectionStringProblem(_ conninfo: String) -> (message: String, fix: String)? {
        let text = conninfo.trimmingCharacters(in: .whitespaces)
        let example = "postgresql://linkwell@127.0.0.1:5432/linkwell"
        if text.isEmpty {
            return ("storage.postgres is empty", "write a libpq connection string such as \(example), or remove the key to use SQLite")
        }
        let lower = text.lowercased()
        if lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") {
            let rest = text[text.index(text.firstIndex(of: "/")!, offsetBy: 2)...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
                return ("storage.postgres holds a password (user:password@…); the config file is read by many and shown in logs",
                        "remove it from the URL and put it in the file named by storage.passwordFile, or in the LINKWELL_POSTGRES_PASSWORD environment variable")
            }
            if lower.contains("password=") {
                return ("storage.postgres holds a password (password=…); the config file is read by many and shown in logs",
                        "remove it and put it in the file named by storage.passwordFile, or in the LINKWELL_POSTGRES_PASSWORD environment variable")
            }
            return nil
        }
        if text.contains("=") {
            if lower.split(separator: " ").contains(where: { $0.hasPrefix("password=") || $0 == "password" }) {
                return ("storage.postgres holds a password (password=…); the config file is read by many and shown in logs",
                        "remove it and put it in the file named by storage.passwordFile, or in the LINKWELL_POSTGRES_PASSWORD environment variable")
            }
            return nil
        }
        return ("storage.postgres '\(text)' is not a libpq connection string",
                "write it as \(example) or 'host=127.0.0.1 port=5432 user=linkwell dbname=linkwell'")
    }

    /// `conninfo` with its password (`user:password@`, `password=…`) replaced by `***` (for messages).
    static func withoutPassword(_ conninfo: String) -> String {
        var text = conninfo
        if let scheme = text.range(of: "://") {
            let authority = text[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                text = String(text[...colon]) + "***" + String(text[at...])
            }
        }
        var out = ""
        var rest = Substring(text)
        while let r = rest.range(of: "password=", options: .caseInsensitive) {
            out += rest[..<r.upperBound] + "***"
            rest = rest[r.upperBound...].drop { $0 != " " && $0 != "&" }
        }
        return out + rest
    }
}
