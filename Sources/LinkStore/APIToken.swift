// Bearer tokens for the admin REST API. `linkwell tokens create` prints a token once; the store
// keeps its SHA-256 only (table api_tokens, migration 3) and its scope (AuditLog.migration). A
// presented token is hashed and compared with every stored hash in constant time, so neither the
// timing nor the database reveals it.

import Foundation

/// One API token as stored: its name and dates, never the secret.
public struct APIToken: Sendable, Equatable {
    public var name: String
    /// SHA-256 of the token, 64 hex digits.
    public var hash: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revoked: Bool
    /// What the token may do; tokens made before scopes existed are `admin` (full rights).
    public var scope: TokenScope = .admin
}

/// What a token (or a signed-in console user) may do. Each scope includes the ones before it.
public enum TokenScope: String, Sendable, Equatable, CaseIterable, Comparable {
    /// Read links, counts and routes; change nothing.
    case read
    /// Also create, change, disable, delete and import links.
    case write
    /// Also read the audit log (and, later, tokens and settings).
    case admin

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: TokenScope, b: TokenScope) -> Bool { a.rank < b.rank }

    /// True when this scope may do what `needed` allows.
    public func allows(_ needed: TokenScope) -> Bool { self >= needed }

    /// The problem with a `--scope` value, or nil.
    public static func parse(_ text: String) -> Result<TokenScope, LinkStoreError> {
        if let scope = TokenScope(rawValue: text.lowercased()) { return .success(scope) }
        return .failure(LinkStoreError(.invalid, "the scope '\(text)' is not one of read, write, admin (read: look only; write: also change links; admin: also the audit log)"))
    }
}

/// What a presented bearer token turned out to be.
public enum APITokenCheck: Sendable, Equatable {
    /// A live token: the request may go on (its name is logged) within its scope.
    case valid(name: String, scope: TokenScope)
    /// The token was revoked with `linkwell tokens revoke`.
    case revoked(name: String)
    /// No stored token has this hash (mistyped, from another database, or not a Linkwell token).
    case unknown
}

/// Making, hashing and reading bearer tokens.
public enum BearerToken {
    /// Every token starts with this, so a leaked one is recognisable (secret scanners, logs).
    public static let prefix = "lw_"
    /// Random base62 characters after the prefix: 40 × log2(62) ≈ 238 bits.
    public static let randomLength = 40

    /// A new token: ``prefix`` and ``randomLength`` characters drawn uniformly from base62.
    public static func generate<R: RandomNumberGenerator>(using rng: inout R) -> String {
        prefix + String((0..<randomLength).map { _ in ShortCode.alphabet[Int(rng.next(upperBound: UInt64(ShortCode.alphabet.count)))] })
    }

    /// A new token from the system's random source.
    public static func generate() -> String {
        var rng = SystemRandomNumberGenerator()
        return generate(using: &rng)
    }

    /// The stored form of `token`: its SHA-256 in hex.
    public static func hash(_ token: String) -> String { SHA256.hex(Array(token.utf8)) }

    /// Compares two byte strings in time that depends on their lengths only, not on where they differ.
    public static func constantTimeEqual<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// The token of an `Authorization` header value: `Bearer <token>` (the scheme in any case,
    /// RFC 9110 §11.1), or nil when the header is missing or another scheme.
    public static func fromAuthorization(_ header: String?) -> String? {
        guard let header else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let token = trimmed.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Token names: 1–64 characters of `A–Z a–z 0–9 . _ -`, so they list and type cleanly.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the token name is empty" }
        if name.utf8.count > 64 { return "the token name '\(name)' is longer than 64 characters" }
        if let bad = name.unicodeScalars.first(where: { !(ShortCode.isCodeCharacter($0) || $0 == ".") }) {
            return "the token name '\(name)' contains '\(bad)'; use A–Z, a–z, 0–9, '.', '-' and '_'"
        }
        return nil
    }
}

extension LinkStore {
    /// Stores a new token named `name` (default: `token-N`, the first free N) and returns it with
    /// its secret — the only time the secret exists outside the caller.
    public func createToken(name: String? = nil, scope: TokenScope = .admin, now: Date = Date()) throws(LinkStoreError) -> (token: APIToken, secret: String) {
        if let name, let problem = BearerToken.nameProblem(name) { throw LinkStoreError(.invalid, problem) }
        return try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                var taken = Set<String>()
                try db.query("SELECT name FROM api_tokens") { taken.insert($0.text(0) ?? "") }
                let chosen = name ?? (1...).lazy.map { "token-\($0)" }.first { !taken.contains($0) }!
                if taken.contains(chosen) {
                    throw LinkStoreError(
                        .constraint,
                        "there is already a token named '\(chosen)' in \(db.path) (revoked tokens keep their names); choose another --name, e.g. '\(chosen)-2'. 'linkwell tokens list' shows them.")
                }
                let secret = BearerToken.generate()
                let token = APIToken(
                    name: chosen, hash: BearerToken.hash(secret), createdAt: ShortLink.wholeSeconds(now), lastUsedAt: nil, revoked: false,
                    scope: scope)
                try db.query(
                    "INSERT INTO api_tokens (name, hash, created_at, last_used_at, revoked, scope) VALUES (?, ?, ?, NULL, 0, ?)",
                    [.text(token.name), .text(token.hash), .date(token.createdAt), .text(scope.rawValue)])
                return (token, secret)
            }
        }
    }

    /// Every token, by name (hashes included, secrets never stored).
    public func tokens() throws(LinkStoreError) -> [APIToken] {
        try withDB { db throws(LinkStoreError) in
            var out: [APIToken] = []
            try db.query("SELECT name, hash, created_at, last_used_at, revoked, scope FROM api_tokens ORDER BY name") { r in
                out.append(APIToken(
                    name: r.text(0) ?? "", hash: r.text(1) ?? "", createdAt: r.date(2) ?? Date(timeIntervalSince1970: 0),
                    lastUsedAt: r.date(3), revoked: r.bool(4), scope: r.text(5).flatMap(TokenScope.init(rawValue:)) ?? .read))
            }
            return out
        }
    }

    /// Revokes the token named `name` at once (every later request with it gets 401); false when
    /// there is no such token. Revoking twice is not an error.
    @discardableResult
    public func revokeToken(name: String) throws(LinkStoreError) -> Bool {
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                try db.query("UPDATE api_tokens SET revoked = 1 WHERE name = ?", [.text(name)])
                let found = db.changes > 0
                // The console sessions it signed in end with it.
                try db.query("DELETE FROM console_sessions WHERE token_hash IN (SELECT hash FROM api_tokens WHERE name = ?)", [.text(name)])
                return found
            }
        }
    }

    /// Checks a presented token against `tokens` (as ``tokens()`` read them): hashes it and
    /// compares the hash with every one in constant time (no early exit).
    public static func check(_ presented: String, against tokens: [APIToken]) -> APITokenCheck {
        let digest = Array(BearerToken.hash(presented).utf8)
        var result = APITokenCheck.unknown
        for token in tokens where BearerToken.constantTimeEqual(Array(token.hash.utf8), digest) {
            result = token.revoked ? .revoked(name: token.name) : .valid(name: token.name, scope: token.scope)
        }
        return result
    }

    /// Checks a presented token against the stored ones. Reads only: the use is recorded with
    /// ``recordTokenUse(_:)`` (the server batches it with the click flush), so a request works on
    /// a full, locked or read-only disk.
    public func authenticate(_ presented: String) throws(LinkStoreError) -> APITokenCheck {
        LinkStore.check(presented, against: try tokens())
    }

    /// Sets `last_used_at` of the named tokens (name → time of the last use) in one
    /// transaction; a time older than the stored one is left out.
    public func recordTokenUse(_ uses: [String: Date]) throws(LinkStoreError) {
        guard !uses.isEmpty else { return }
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) in
                for (name, time) in uses.sorted(by: { $0.key < $1.key }) {
                    try db.query(
                        "UPDATE api_tokens SET last_used_at = ? WHERE name = ? AND (last_used_at IS NULL OR last_used_at < ?)",
                        [.date(time), .text(name), .date(time)])
                }
            }
        }
    }
}
