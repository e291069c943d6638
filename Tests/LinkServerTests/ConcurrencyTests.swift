import Foundation
import Synchronization
import LinkRouting
import MicroHTTP
import Testing
@testable import LinkServer
#if canImport(Glibc)
import Glibc
#endif

// The shared state of a running server, all at once: requests on the daemon's threads, reloads
// swapping the snapshot, and /metrics-style reads. Run under ThreadSanitizer by
// `swift test --sanitize=thread` (docs/dev/fuzzing.md); without it, it still checks that no request is
// lost or answered from a half-built snapshot, and that the counters add up.

@Suite("Concurrency: requests, snapshot swaps and metrics at once")
struct ConcurrencyTests {
    static let clients = 3
    static let requestsPerClient = 60
    static let reloads = 10

    @Test("every request gets the identical AASA bytes while reloads swap the snapshot and metrics are read")
    func swapsRequestsMetrics() throws {
        let config = Fixture.root.appendingPathComponent("config/linkwell.json5").path
        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: config)
        let snapshot = try #require(loaded, "\(report.diagnostics)")
        let log = EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY))
        let runtime = ServerRuntime(configPath: config, initial: snapshot, version: "test", log: log)
        let daemon = try HTTPDaemon(
            options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: 4, connectionTimeoutSeconds: 10),
            handler: runtime.handler, onRequestCompleted: { runtime.requestCompleted($0) })
        defer { daemon.stop() }
        let address = daemon.boundAddresses[0]
        let ios = try #require(snapshot.table.sites.first { !$0.iosApps.isEmpty })
        let expected = try #require(snapshot.site(ios).aasa).respond(ifNoneMatch: nil).body
        let request = Array("GET /.well-known/apple-app-site-association HTTP/1.1\r\nHost: \(ios.canonicalHost)\r\nConnection: close\r\n\r\n".utf8)

        // Plain threads, not concurrentPerform (which runs as many workers as there are cores,
        // so on a small machine the clients would only start after the reloads). The readers keep
        // going until the reloads are done, so swaps happen while requests and reads are in flight.
        let failures = Mutex<[String]>([])
        let reloadsDone = Atomic<Bool>(false)
        let answered = Atomic<Int>(0)
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread { body(); group.leave() }.start()
        }
        spawn {
            for i in 0..<Self.reloads where !runtime.reload(reason: "test \(i)") {
                failures.withLock { $0.append("reload \(i) failed") }
            }
            reloadsDone.store(true, ordering: .releasing)
        }
        spawn {
            var reads = 0
            while !reloadsDone.load(ordering: .acquiring) || reads < Self.requestsPerClient {
                let text = runtime.metrics.render()
                let current = runtime.snapshot
                if !text.contains("linkwell_reloads_total") || current.sites.count != snapshot.sites.count {
                    failures.withLock { $0.append("metrics or snapshot read mid-update") }
                }
                reads += 1
            }
        }
        for _ in 0..<Self.clients {
            spawn {
                var sent = 0
                while !reloadsDone.load(ordering: .acquiring) || sent < Self.requestsPerClient {
                    sent += 1
                    let reply = (try? RawClient.exchange(request, to: address)) ?? []
                    guard let head = reply.firstRange(of: Array("\r\n\r\n".utf8)),
                          reply.starts(with: Array("HTTP/1.1 200".utf8)), Array(reply[head.upperBound...]) == expected
                    else {
                        failures.withLock { $0.append("bad reply: \(String(decoding: reply.prefix(80), as: UTF8.self).debugDescription)") }
                        continue
                    }
                    answered.add(1, ordering: .relaxed)
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(runtime.snapshot !== snapshot, "the reloads did not swap the snapshot")
        #expect(runtime.metrics.render().contains("linkwell_reloads_total{result=\"success\"} \(Self.reloads)\n"))
        func countedAASA() -> Int {
            runtime.metrics.render().split(separator: "\n")
                .filter { $0.hasPrefix("linkwell_requests_total{") && $0.contains("kind=\"aasa\",status=\"200\"") }
                .compactMap { Int($0.split(separator: " ").last!) }.reduce(0, +)
        }
        // A request may be counted just after its reply arrives (from the daemon's completion
        // hook): give the last ones a moment, then every answered request is counted once.
        var counted = countedAASA()
        for _ in 0..<500 where counted < answered.load(ordering: .relaxed) {
            usleep(10_000)
            counted = countedAASA()
        }
        #expect(counted == answered.load(ordering: .relaxed))
        #expect(counted >= Self.clients * Self.requestsPerClient)
    }
}
