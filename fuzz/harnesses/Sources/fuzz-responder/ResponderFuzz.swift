// The request-handling path without a socket: raw request bytes → request facts → the pure
// responder over the shipped config's snapshot (landing pages, redirects, association files,
// static assets, proxy trust). Properties: a status in 100…599; no response header carries
// CR/LF/NUL or a non-token name (response splitting); a redirect has a Location; the association
// files are the snapshot's bytes whatever else the request says.
import FuzzSupport
import LinkServer
import MicroHTTP

let snapshot = loadShippedSnapshot()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count <= 32 * 1024 else { return -1 }
    // Half the inputs come from a trusted proxy (loopback), half from a public address.
    let peer = bytes.count % 2 == 0 ? "127.0.0.1" : "203.0.113.9"
    guard let facts = requestFacts(fromRaw: bytes, peerAddress: peer) else { return 0 }
    let result = Responder.respond(snapshot, facts)
    let response = result.response
    fuzzCheck((100...599).contains(response.status), "status \(response.status) for \(facts)")
    if let bad = malformedHeader(response.headers) { fuzzFail("malformed response header \(bad) for \(facts)") }
    if (300...399).contains(response.status), response.status != 304 {
        fuzzCheck(response.header("Location").map { !$0.isEmpty } == true, "\(response.status) without Location for \(facts)")
    }
    if result.kind == .aasa, response.status == 200, let site = result.site,
       let aasa = snapshot.sites.first(where: { $0.name == site })?.aasa {
        fuzzCheck(response.body == aasa.respond(ifNoneMatch: nil).body, "AASA body differs for \(facts)")
    }
    return 0
}
