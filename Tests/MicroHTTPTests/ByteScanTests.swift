import Testing
@testable import MicroHTTP

/// The head check's byte tables and `memchr` scans give the verdicts of the per-byte predicates
/// they replace, for every byte and for many generated targets and hosts.
@Suite("Byte scans of the head check")
struct ByteScanTests {
    @Test func byteSetsAgreeWithTheirPredicatesForEveryByte() {
        for b in 0...255 {
            let byte = UInt8(b)
            #expect(RequestHeadCheck.tokenBytes.contains(byte) == RequestHeadCheck.isTokenByte(byte), "token \(b)")
            #expect(RequestHeadCheck.hostBytes.contains(byte) == RequestHeadCheck.isHostByte(byte), "host \(b)")
            #expect(RequestHeadCheck.valueBytes.contains(byte) == ((byte >= 0x20 || byte == 0x09) && byte != 0x7F), "value \(b)")
        }
        let odd = ByteSet { $0 % 2 == 1 }
        #expect((0...255).filter { odd.contains(UInt8($0)) }.count == 128)
        #expect(!odd.contains(0) && odd.contains(255) && !odd.contains(64) && odd.contains(63))
    }

    /// The per-byte walk the `memchr` version replaced, kept here as the reference.
    static func referencePathEscapeProblem(_ bytes: [UInt8]) -> String? {
        var i = 0
        while i < bytes.count, bytes[i] != UInt8(ascii: "?") {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let high = RequestHeadCheck.hexValue(bytes[i + 1]),
                      let low = RequestHeadCheck.hexValue(bytes[i + 2]) else {
                    return "the path has a '%' that is not followed by two hex digits"
                }
                if high == 0 && low == 0 { return "the request-target has %00 in its path" }
                i += 3
                continue
            }
            i += 1
        }
        return nil
    }

    @Test func pathEscapesAgreeWithTheByteWalk() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("/a%0?2fFzZ.-".utf8)
        var problems = 0
        for _ in 0..<20_000 {
            let target = [UInt8(ascii: "/")] + (0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let expected = Self.referencePathEscapeProblem(target)
            #expect(RequestHeadCheck.pathEscapeProblem(String(decoding: target, as: UTF8.self)) == expected, "\(target)")
            if expected != nil { problems += 1 }
        }
        #expect(problems > 1000, "the generated targets include refused ones")
    }

    @Test func hostsOnRawBytesAgreeWithTheGenericCheck() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("a.:[]1 -\t@/%é".utf8)
        var valid = 0
        for _ in 0..<20_000 {
            let host = (0..<Int.random(in: 0...10, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let expected = RequestHeadCheck.isValidHost(host)
            let got = host.withUnsafeBytes { RequestHeadCheck.isValidHost($0) }
            #expect(got == expected, "\(host)")
            if expected { valid += 1 }
        }
        #expect(valid > 1000, "the generated hosts include valid ones")
    }
}
