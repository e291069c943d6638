// A live daemon fed over loopback: the shipped config served in-process by the real HTTP layer
// (libmicrohttpd, MicroHTTP, the public handler with metrics and the JSON access log), on
// 127.0.0.1 and an OS-chosen port, with one polling thread (inputs come one at a time: a pool of
// two only adds a wake-up of the idle thread per connection, 1.6x the wall time per input). Each
// input is written to a fresh connection as raw bytes, then the write side is closed and the
// reply read. Properties: whatever comes back starts with
// an HTTP/1.x status line; every 256 inputs, a normal request still gets the identical AASA bytes.
import Foundation
import FuzzSupport
import LinkServer
import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

final class LiveServer: Sendable {
    let runtime: ServerRuntime
    let daemon: HTTPDaemon
    /// A normal request for the first iOS site's AASA, and the bytes it must get.
    let aasaRequest: [UInt8]
    let aasaBody: [UInt8]

    init() {
        let snapshot = loadShippedSnapshot()
        let logFD = open("/dev/null", O_WRONLY)
        runtime = ServerRuntime(
            configPath: shippedConfigPath, initial: snapshot, version: "fuzz",
            log: EventLog(format: .json, fileDescriptor: logFD), accessLog: true)
        do {
            let runtime = runtime
            daemon = try HTTPDaemon(
                options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: 1, connectionTimeoutSeconds: 5),
                handler: runtime.handler, onRequestCompleted: { runtime.requestCompleted($0) })
        } catch {
            fuzzFail("cannot start the daemon: \(error)")
        }
        guard let ios = snapshot.table.sites.first(where: { !$0.iosApps.isEmpty }), let aasa = snapshot.site(ios).aasa else {
            fuzzFail("\(shippedConfigPath) has no site with an iOS app")
        }
        aasaRequest = Array("GET /.well-known/apple-app-site-association HTTP/1.1\r\nHost: \(ios.canonicalHost)\r\nConnection: close\r\n\r\n".utf8)
        aasaBody = aasa.respond(ifNoneMatch: nil).body
    }

    /// Sends `bytes` on a new connection, half-closes, and returns everything read until the
    /// server closes (or 5 s pass without a byte).
    func exchange(_ bytes: [UInt8]) -> [UInt8] {
        do {
            return try RawClient.exchange(bytes, to: daemon.boundAddresses[0], halfClose: true)
        } catch {
            fuzzFail("the daemon stopped accepting connections: \(error)")
        }
    }
}

let server = LiveServer()
nonisolated(unsafe) var inputs = 0

func aasaStillServed() {
    let reply = server.exchange(server.aasaRequest)
    guard let end = reply.firstRange(of: Array("\r\n\r\n".utf8)) else { fuzzFail("no response head to a normal AASA request: \(text(reply).debugDescription)") }
    fuzzCheck(reply.starts(with: Array("HTTP/1.1 200".utf8)), "normal AASA request: \(text(reply[..<end.lowerBound]))")
    fuzzCheck(Array(reply[end.upperBound...]) == server.aasaBody, "the AASA bytes changed")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDaemon(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count <= 64 * 1024 else { return -1 }
    if inputs % 256 == 0 { aasaStillServed() }
    inputs += 1
    let reply = server.exchange(bytes)
    if !reply.isEmpty {
        fuzzCheck(reply.starts(with: Array("HTTP/1.".utf8)), "reply does not start with a status line: \(text(reply.prefix(200)).debugDescription)")
    }
    return 0
}
