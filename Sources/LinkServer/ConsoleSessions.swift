// The console's server-side sessions, sign-in rate limit and the secrets of its forms. A session
// is a random id in an HttpOnly, SameSite=Strict cookie; the server keeps only the id's SHA-256
// with the hash of the token that signed in, so sign-out ends it at once and a revoked token ends
// it at the next request (every request checks the token against the stored ones again).

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

    private let sessions = Locked<[String: ConsoleSession]>([:])
    private let failures = Locked<[String: (start: Date, count: Int)]>([:])

    /// A new random secret: 32 bytes, base64url.
    static func secret() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Starts a session and returns its cookie value.
    func start(_ session: ConsoleSession) -> String {
        let id = Self.secret()
        sessions.withLock { all in
            let now = Date()
            all = all.filter { !Self.expired($0.value, now: now) }
            all[BearerToken.hash(id)] = session
        }
        return id
    }

    /// The live session of a cookie value (its last use updated), or nil.
    func session(_ id: String) -> ConsoleSession? {
        let key = BearerToken.hash(id)
        return sessions.withLock { all in
            guard var s = all[key] else { return nil }
            let now = Date()
            if Self.expired(s, now: now) {
                all[key] = nil
                return nil
            }
            s.lastSeen = now
            all[key] = s
            return s
        }
    }

    /// Ends the session of a cookie value.
    func end(_ id: String) { sessions.withLock { $0[BearerToken.hash(id)] = nil } }

    /// Ends every session signed in with the token of this hash (the token is revoked or gone).
    func end(tokenHash: String) { sessions.withLock { all in all = all.filter { $0.value.tokenHash != tokenHash } } }

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
