// `server` keys: one reading (MicroHTTP's ListenAddress and IPNetwork, the parsers the daemon and
// the proxy trust use), reported by `linkwell validate` at the config path with the fix.

import Association
import Foundation
import LinkRouting
import Testing
@testable import LinkServer
import MicroHTTP

@Suite("ServerConfiguration")
struct ServerConfigurationTests {
    static func load(server: String) throws -> (LoadedConfig?, ValidationReport) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("linkwell.json5")
        try """
            {
              server: { \(server) },
              sites: [{ domains: ["example.com"], ios: [{ teamID: "ABCDE12345", bundleID: "com.example.app" }], routes: [{ name: "post", path: "/post/{id}" }] }],
            }
            """.write(to: file, atomically: true, encoding: .utf8)
        return LoadedConfig.load(path: file.path, platformCheck: true)
    }

    struct Mistake: CustomTestStringConvertible, Sendable {
        var name: String
        var server: String
        var path: String
        var mustMention: [String]
        var testDescription: String { name }
    }

    static let mistakes: [Mistake] = [
        Mistake(name: "a listen address without a port", server: #"listen: ["localhost"]"#,
                path: "server.listen[0]", mustMention: ["'localhost' is not HOST:PORT", "missing ':port'", "127.0.0.1:8080"]),
        Mistake(name: "a host name, which the daemon does not resolve", server: #"listen: ["127.0.0.1:80", "localhost:8080"]"#,
                path: "server.listen[1]", mustMention: ["'localhost:8080' is not HOST:PORT", "not a numeric IPv4 address"]),
        Mistake(name: "IPv6 without brackets", server: #"admin: "::1:9090""#,
                path: "server.admin", mustMention: ["needs brackets", "[::1]:8080"]),
        Mistake(name: "a port out of range", server: #"listen: ["0.0.0.0:65536"]"#,
                path: "server.listen[0]", mustMention: ["'65536' is not a port number"]),
        Mistake(name: "a trusted proxy that is not a CIDR", server: #"trustedProxies: ["10.0.0.0/33"]"#,
                path: "server.trustedProxies[0]", mustMention: ["'10.0.0.0/33'", "10.0.0.0/8"]),
        Mistake(name: "a trusted proxy with a leading zero", server: #"trustedProxies: ["::1/128", "010.0.0.1"]"#,
                path: "server.trustedProxies[1]", mustMention: ["'010.0.0.1' is not an IP address or CIDR range"]),
    ]

    @Test(arguments: mistakes)
    func catches(m: Mistake) throws {
        let (loaded, report) = try Self.load(server: m.server)
        #expect(loaded == nil)
        let found = report.errors.filter { $0.path == m.path }
        #expect(found.count == 1, "\(report.diagnostics.map(\.description))")
        let text = found.map(\.description).joined(separator: "\n")
        for needle in m.mustMention { #expect(text.contains(needle), "\(text) does not mention \(needle)") }
        #expect(found.allSatisfy { $0.file?.hasSuffix("linkwell.json5") == true })
    }

    @Test("every key over the defaults, parsed once into the server's own types")
    func reads() throws {
        let (loaded, report) = try Self.load(server: #"""
            listen: ["0.0.0.0:8443", "[::]:8443"], admin: "off", threads: 3, trustedProxies: ["10.0.0.0/8", "fd00::/8"],
            associationCacheControl: "no-cache", connectionLimit: 10, perIPConnectionLimit: 2, connectionTimeoutSeconds: 5,
            requestHeaderMemoryBytes: 16384, shutdownDeadlineSeconds: 2.5, logQueryStrings: true,
            requestHeadBytes: 8192, requestHeadTimeoutSeconds: 3
            """#)
        let server = try #require(loaded?.server, "\(report.errors)")
        #expect(server.listen == [ListenAddress(host: "0.0.0.0", port: 8443), ListenAddress(host: "::", port: 8443)])
        #expect(server.admin == nil)
        #expect(server.adminDaemonOptions() == nil)
        #expect(server.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8"])
        #expect(server.threads == 3 && server.connectionLimit == 10 && server.perIPConnectionLimit == 2)
        #expect(server.connectionTimeoutSeconds == 5 && server.requestHeaderMemoryBytes == 16384)
        #expect(server.requestHeadBytes == 8192 && server.requestLineBytes == 8192 && server.requestHeadTimeoutSeconds == 3)
        #expect(server.shutdownDeadlineSeconds == 2.5 && server.logQueryStrings && server.associationCacheControl == "no-cache")
        let options = server.daemonOptions()
        #expect(options.listen == server.listen && options.threads == 3 && options.connectionMemoryLimit == 16384)
    }

    @Test("no server keys: the documented defaults")
    func defaults() throws {
        let (loaded, report) = try Self.load(server: "")
        let server = try #require(loaded?.server, "\(report.errors)")
        #expect(server.listen.map(\.description) == ["127.0.0.1:8080"])
        #expect(server.admin?.description == "127.0.0.1:9090")
        #expect(server.trustedProxies.map(\.description) == ["127.0.0.0/8", "::1/128"])
        #expect(server.connectionLimit == 4096 && server.perIPConnectionLimit == 128 && server.connectionTimeoutSeconds == 30)
        #expect(server.requestHeadBytes == 16384 && server.requestHeadTimeoutSeconds == 10)
        #expect(server.requestHeaderMemoryBytes == nil && server.shutdownDeadlineSeconds == 10 && !server.logQueryStrings)
        #expect(server.associationCacheControl == "public, max-age=300" && server.accessLog)
        #expect(server == ServerConfiguration())
    }
}
