// API tokens: SHA-256 against the NIST vectors, token shape, constant-time comparison, the
// Authorization header, and create/list/revoke/authenticate on a real SQLite file.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite struct APITokenTests {
    // FIPS 180-2 appendix B and the NIST CAVP short-message vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        // 55, 56 and 64 bytes: the padding edges (one block, two blocks).
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func sha256(message: String, hex: String) {
        #expect(SHA256.hex(Array(message.utf8)) == hex)
    }

    @Test func sha256OfAMillionAs() {
        #expect(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func tokensArePrefixedBase62WithMoreThan128Bits() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let token = BearerToken.generate()
            #expect(token.hasPrefix("lw_"))
            #expect(token.count == 3 + BearerToken.randomLength)
            #expect(token.dropFirst(3).allSatisfy { ShortCode.alphabet.contains($0) })
            seen.insert(token)
        }
        #expect(seen.count == 200)
        #expect(Double(BearerToken.randomLength) * log2(62) >= 128)
    }

    @Test(arguments: [
        ([UInt8]("abc".utf8), [UInt8]("abc".utf8), true),
        ([UInt8]("abc".utf8), [UInt8]("abd".utf8), false),
        ([UInt8]("abc".utf8), [UInt8]("xbc".utf8), false),
        ([UInt8]("abc".utf8), [UInt8]("abcd".utf8), false),
        ([], [], true),
    ])
    func constantTimeEqual(a: [UInt8], b: [UInt8], equal: Bool) {
        #expect(BearerToken.constantTimeEqual(a, b) == equal)
    }

    @Test(arguments: [
        ("Bearer lw_abc", "lw_abc"),
        ("bearer lw_abc", "lw_abc"),
        ("BEARER   lw_abc  ", "lw_abc"),
        ("Basic dXNlcjpwYXNz", nil),
        ("Bearer ", nil),
        ("Bearerlw_abc", nil),
        ("", nil),
    ] as [(String, String?)])
    func authorizationHeader(header: String, token: String?) {
        #expect(BearerToken.fromAuthorization(header) == token)
    }

    @Test func createListRevokeAuthenticate() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("t.db"))
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        let (ci, secret) = try store.createToken(name: "ci", now: now)
        let (auto, _) = try store.createToken(now: now)
        #expect(ci.name == "ci" && auto.name == "token-1")
        #expect(ci.hash == BearerToken.hash(secret) && ci.hash.count == 64)
        // Only the hash is stored: the secret appears nowhere in the file.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.path("t.db")))
            + ((try? Data(contentsOf: URL(fileURLWithPath: dir.path("t.db-wal")))) ?? Data())
        #expect(bytes.range(of: Data(secret.utf8)) == nil)

        #expect(try store.authenticate(secret) == .valid(name: "ci", scope: .admin))
        #expect(try store.authenticate(secret + "x") == .unknown)
        #expect(try store.authenticate("") == .unknown)
        // Checking reads only; the use is recorded in a batch, and an older time never wins.
        #expect(try store.tokens().first { $0.name == "ci" }?.lastUsedAt == nil)
        try store.recordTokenUse(["ci": now.addingTimeInterval(60), "nobody": now])
        try store.recordTokenUse(["ci": now.addingTimeInterval(30)])
        #expect(try store.tokens().first { $0.name == "ci" }?.lastUsedAt == now.addingTimeInterval(60))
        #expect(try store.revokeToken(name: "ci"))
        #expect(try store.authenticate(secret) == .revoked(name: "ci"))
        #expect(try !store.revokeToken(name: "nope"))
        #expect(try store.tokens().map { "\($0.name):\($0.revoked)" } == ["ci:true", "token-1:false"])

        #expect(throws: LinkStoreError.self) { try store.createToken(name: "ci") }
        #expect(throws: LinkStoreError.self) { try store.createToken(name: "bad name") }
    }

    @Test func scopesIncludeTheLowerOnesAndOldTokensKeepFullRights() throws {
        #expect(TokenScope.admin.allows(.write) && TokenScope.write.allows(.read) && TokenScope.read.allows(.read))
        #expect(!TokenScope.read.allows(.write) && !TokenScope.write.allows(.admin))
        let dir = try TempDir()
        let path = dir.path("old.db")
        // A token stored before scopes existed (schema 7) is an admin token after the migration.
        let old = try LinkStore(path: path, upTo: LinkStore.auditMigration.version - 1)
        let (_, oldSecret) = try old.createTokenWithoutScope(name: "legacy")
        let store = try LinkStore(path: path)
        #expect(try store.authenticate(oldSecret) == .valid(name: "legacy", scope: .admin))
        let (reader, secret) = try store.createToken(name: "dash", scope: .read)
        #expect(reader.scope == .read)
        #expect(try store.authenticate(secret) == .valid(name: "dash", scope: .read))
        #expect(try store.tokens().map { "\($0.name):\($0.scope.rawValue)" } == ["dash:read", "legacy:admin"])
    }

    @Test func auditEntriesAreKeptNewestFirstAndPaged() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("a.db"))
        let at = Date(timeIntervalSince1970: 1_764_000_000)
        try store.appendAudit((0..<5).map { i in
            AuditEntry(at: at, actor: "ci", via: "token", action: "link.create", site: "s", code: "c\(i)", detail: ["n": .number(String(i))], client: "192.0.2.1")
        })
        let first = try store.audit(limit: 2)
        #expect(first.map(\.code) == ["c4", "c3"])
        #expect(first[0].detail == ["n": .number("4")] && first[0].client == "192.0.2.1" && first[0].at == at && first[0].outcome == "ok")
        #expect(try store.audit(before: first[1].id, limit: 10).map(\.code) == ["c2", "c1", "c0"])
    }
}

extension LinkStore {
    /// A token row as schema 7 wrote it (no scope column yet).
    func createTokenWithoutScope(name: String) throws -> (Void, String) {
        let secret = BearerToken.generate()
        try withDB { db throws(LinkStoreError) in
            try db.query("INSERT INTO api_tokens (name, hash, created_at, last_used_at, revoked) VALUES (?, ?, 0, NULL, 0)",
                         [.text(name), .text(BearerToken.hash(secret))])
        }
        return ((), secret)
    }
}

@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("2027-01-31T00:00:00Z", 1_801_353_600.0),
        ("2027-01-31t00:00:00z", 1_801_353_600.0),
        ("2027-01-31T01:00:00+01:00", 1_801_353_600.0),
        ("2027-01-30T23:00:00.25-01:00", 1_801_353_600.25),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59Z", -1),
        ("2000-02-29T12:00:00Z", 951_825_600),
        ("0001-01-01T00:00:00Z", -62_135_596_800),
    ])
    func parses(text: String, seconds: Double) {
        #expect(RFC3339.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "2027-01-31", "2027-01-31T00:00Z", "2027-13-01T00:00:00Z", "2027-02-29T00:00:00Z", "2027-01-31T24:00:00Z",
        "2027-01-31T00:00:60Z", "2027-01-31T00:00:00", "2027-01-31T00:00:00.Z", "2027-01-31T00:00:00+0100", "2027-01-31 00:00:00Z",
        "2027-01-31T00:00:00Zjunk", "x027-01-31T00:00:00Z",
    ])
    func refuses(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test(arguments: [0.0, -1, 1_801_353_600, -62_135_596_800, 253_402_300_799, 951_825_600])
    func formatsAndReadsBack(seconds: Double) {
        let text = RFC3339.format(Date(timeIntervalSince1970: seconds))
        #expect(text.count == 20 && text.hasSuffix("Z"))
        #expect(RFC3339.parse(text)?.timeIntervalSince1970 == seconds)
    }
}

@Suite struct WebURLTests {
    @Test(arguments: [
        ("https://fitconnect.app", true), ("http://x", true), ("https://apps.apple.com/app/id1?x=1#y", true), ("https://h:8080/p", true),
        ("https://", false), ("ftp://x", false), ("https://[::1]/", false), ("https://h/a b", false), ("https://h:/p", false),
        ("https://h\u{7F}/", false), ("https://h/\u{0}", false), ("javascript:alert(1)", false), ("https://h@evil/", false),
    ])
    func webURL(url: String, ok: Bool) {
        #expect(ShortLinkValidator.isWebURL(url) == ok)
        // The pattern the OpenAPI document publishes says the same.
        #expect((url.range(of: ShortLinkValidator.webURLPattern, options: .regularExpression) != nil) == ok)
    }
}
