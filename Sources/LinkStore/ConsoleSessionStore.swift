// The console's sessions in the link database (migration 11), so a session survives a restart and
// every instance on one database knows it. The row is keyed by the SHA-256 of the cookie value,
// never the value; it keeps the hash of the token that signed in, so revoking the token deletes
// its sessions in the same transaction. Portable SQL: SQLite 3.40 and PostgreSQL 15.

import Foundation

/// One console session as stored.
public struct ConsoleSessionRecord: Sendable, Equatable {
    /// SHA-256 (hex) of the cookie value.
    public var idHash: String
    /// SHA-256 of the token that signed in; "" for a session the SSO proxy vouches for.
    public var tokenHash: String
    /// The token's name, or the user the proxy named.
    public var name: String
    /// `console` (a token) or `sso`.
    public var via: String
    public var scope: TokenScope
    /// The secret the session's forms carry.
    public var csrf: String
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(idHash: String, tokenHash: String, name: String, via: String, scope: TokenScope, csrf: String, createdAt: Date, lastSeenAt: Date) {
        self.idHash = idHash
        self.tokenHash = tokenHash
        self.name = name
        self.via = via
        self.scope = scope
        self.csrf = csrf
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

extension LinkStore {
    /// Migration 11: the console's sessions, and the per-site click tables its counts read
    /// (ClickRollups.swift).
    static let consoleSessionMigration: (version: Int, name: String, sql: String) = (
        11, "console sessions",
        """
        CREATE TABLE console_sessions (
            id_hash TEXT NOT NULL PRIMARY KEY,
            token_hash TEXT NOT NULL,
            name TEXT NOT NULL,
            via TEXT NOT NULL,
            scope TEXT NOT NULL,
            csrf TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            last_seen_at BIGINT NOT NULL
        );
        CREATE INDEX console_sessions_token ON console_sessions (token_hash);
        CREATE INDEX console_sessions_last_seen ON console_sessions (last_seen_at);
        """ + "\n" + LinkStore.rollupSchema
    )

    /// Stores a new session, deleting the ones idle since `idleBefore` or started before
    /// `startedBefore` (expired sessions never pile up).
    public func startConsoleSession(_ s: ConsoleSessionRecord, idleBefore: Date, startedBefore: Date) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                try db.query("DELETE FROM console_sessions WHERE last_seen_at < ? OR created_at < ?", [.date(idleBefore), .date(startedBefore)])
                try db.query(
                    "INSERT INTO console_sessions (id_hash, token_hash, name, via, scope, csrf, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [.text(s.idHash), .text(s.tokenHash), .text(s.name), .text(s.via), .text(s.scope.rawValue), .text(s.csrf),
                     .date(s.createdAt), .date(s.lastSeenAt)])
            }
        }
    }

    /// The session stored under `idHash`, or nil.
    public func consoleSession(idHash: String) throws(LinkStoreError) -> ConsoleSessionRecord? {
        try withDB { db throws(LinkStoreError) in
            var found: ConsoleSessionRecord?
            try db.query(
                "SELECT id_hash, token_hash, name, via, scope, csrf, created_at, last_seen_at FROM console_sessions WHERE id_hash = ?", [.text(idHash)]
            ) { r in
                found = ConsoleSessionRecord(
                    idHash: r.text(0) ?? "", tokenHash: r.text(1) ?? "", name: r.text(2) ?? "", via: r.text(3) ?? "",
                    scope: r.text(4).flatMap(TokenScope.init(rawValue:)) ?? .read, csrf: r.text(5) ?? "",
                    createdAt: r.date(6) ?? .distantPast, lastSeenAt: r.date(7) ?? .distantPast)
            }
            return found
        }
    }

    /// Records a use of the session (its idle time starts again).
    public func touchConsoleSession(idHash: String, at time: Date) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in
            try db.query("UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?", [.date(time), .text(idHash)])
        }
    }

    /// Deletes one session (sign-out, expiry).
    public func endConsoleSession(idHash: String) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in try db.query("DELETE FROM console_sessions WHERE id_hash = ?", [.text(idHash)]) }
    }

    /// Deletes every session signed in with the token of this hash.
    public func endConsoleSessions(tokenHash: String) throws(LinkStoreError) {
        try withDB { db throws(LinkStoreError) in try db.query("DELETE FROM console_sessions WHERE token_hash = ?", [.text(tokenHash)]) }
    }

    /// How many sessions are stored (tests, `doctor`-style reports).
    public func consoleSessionCount() throws(LinkStoreError) -> Int {
        try withDB { db throws(LinkStoreError) in
            var n = 0
            try db.query("SELECT COUNT(*) FROM console_sessions") { r in n = Int(r.integer(0) ?? 0) }
            return n
        }
    }
}
