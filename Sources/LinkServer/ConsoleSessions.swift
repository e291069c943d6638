// The console's sessions, sign-in rate limit and the secrets of its forms. A session is a random
// id in an HttpOnly, SameSite=Strict cookie; the link database keeps only the id's SHA-256 with the
// hash of the token that signed in (table console_sessions), so a session survives a restart and
// is known to every instance on the same database, sign-out deletes it at once, revoking the token
// deletes its sessions, and every request checks the token against the stored ones again.

import Foundation
import LinkStore
import MicroHTTP

/// One signed-in console user.
struct ConsoleSession: Sendable {
    /// SHA-256 of the token that signed in (checked against the stored tokens on every request).
    var tokenHash: String
    /// The token's name (or the SSO user), for the pages and the audit log.
    var name: String
    var via: String
    var scope: TokenScope
    /// The secret every form of this session carries (`csrf` field).
    var csrf: String
    var created: Date
    var lastSeen: Date
}

/// The sessions of one server, by the SHA-256 of their cookie value.
final class ConsoleSessions: Sendable {
    /// A session ends after this long without a request, and in any case after ``maximumAge``.
    static let idleSeconds: TimeInterval = 2 * 3600
    static let maximumAge: TimeInterval = 12 * 3600
    /// Failed sign-ins per client address in ``failureWindow`` before 429.
    static let maximumFailures = 5
    static let failureWindow: TimeInterval = 60

    private let failures = Locked<[String: (start: Date, count: Int)]>([:])
    /// A session's last use is written at most this often (a page view is not a database write).
    static let touchSeconds: TimeInterval = 60

    /// A new random secret: 32 bytes, base64url.
    static func secret() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Stores a new session and returns its cookie value.
    func start(_ session: ConsoleSession, in store: LinkStore) throws(LinkStoreError) -> String {
        let id = Self.secret()
        let now = Date()
        try store.startConsoleSession(
            ConsoleSessionRecord(idHash: BearerToken.hash(id), tokenHash: session.tokenHash, name: session.name, via: session.via,
                                 scope: session.scope, csrf: session.csrf, createdAt: session.created, lastSeenAt: session.lastSeen),
            idleBefore: now.addingTimeInterval(-Self.idleSeconds), startedBefore: now.addingTimeInterval(-Self.maximumAge))
        return id
    }

    /// The live session of a cookie value (its last use recorded), or nil; an expired one is deleted.
    func session(_ id: String, in store: LinkStore) throws(LinkStoreError) -> ConsoleSession? {
        let key = BearerToken.hash(id)
        guard let r = try store.consoleSession(idHash: key) else { return nil }
        var s = ConsoleSession(tokenHash: r.tokenHash, name: r.name, via: r.via, scope: r.scope, csrf: r.csrf, created: r.createdAt, lastSeen: r.lastSeenAt)
        let now = Date()
        if Self.expired(s, now: now) {
            try store.endConsoleSession(idHash: key)
            return nil
        }
        if now.timeIntervalSince(s.lastSeen) >= Self.touchSeconds {
            try store.touchConsoleSession(idHash: key, at: now)
            s.lastSeen = now
        }
        return s
    }

    static func expired(_ s: ConsoleSession, now: Date) -> Bool {
        now.timeIntervalSince(s.lastSeen) > idleSeconds || now.timeIntervalSince(s.created) > maximumAge
    }

    /// Seconds until `client` may try again, or nil when it may sign in now.
    func retryAfter(_ client: String) -> Int? {
        failures.withLock { all in
            guard let f = all[client] else { return nil }
            let elapsed = Date().timeIntervalSince(f.start)
            if elapsed > Self.failureWindow {
                all[client] = nil
                return nil
            }
            return f.count >= Self.maximumFailures ? max(1, Int((Self.failureWindow - elapsed).rounded(.up))) : nil
        }
    }

    func recordFailure(_ client: String) {
        failures.withLock { all in
            let now = Date()
            if let f = all[client], now.timeIntervalSince(f.start) <= Self.failureWindow {
                all[client] = (f.start, f.count + 1)
            } else {
                all[client] = (now, 1)
            }
            if all.count > 10_000 { all = all.filter { now.timeIntervalSince($0.value.start) <= Self.failureWindow } }
        }
    }
}

extension Console {
    /// Starts a session in the link database; nil (and a log line) when the database cannot store it.
    func startSession(_ session: ConsoleSession) -> String? {
        var id: String?
        let stored = withStore(creating: true) { store throws(LinkStoreError) in id = try sessions.start(session, in: store) }
        if case let .failure(error) = stored {
            runtime.log.event("console_session_failed", [("message", .string(error.description))])
            return nil
        }
        return id
    }

    /// The stored, unexpired session of a cookie value, or nil.
    func storedSession(_ id: String) -> ConsoleSession? {
        var session: ConsoleSession?
        let read = withStore { store throws(LinkStoreError) in session = try sessions.session(id, in: store) }
        if case let .failure(error) = read {
            runtime.log.event("console_session_failed", [("message", .string(error.description))])
        }
        return session
    }

    /// Deletes the session of a cookie value (sign-out).
    func endSession(_ id: String) {
        _ = withStore { store throws(LinkStoreError) in try store.endConsoleSession(idHash: BearerToken.hash(id)) }
    }

    /// Deletes every session signed in with the token of this hash (the token is revoked or gone).
    func endSessions(tokenHash: String) {
        _ = withStore { store throws(LinkStoreError) in try store.endConsoleSessions(tokenHash: tokenHash) }
    }
}
