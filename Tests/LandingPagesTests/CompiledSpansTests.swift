import Foundation
import Testing
@testable import LandingPages

@Suite("Compiled text as spans: each slot escaped once per escaper")
struct CompiledSpansTests {
    /// A text where slot 0 lands three times HTML-escaped, once percent-encoded, and slot 1 once.
    static let text: CompiledText = {
        let html: (String) -> String = { $0.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;") }
        let url: (String) -> String = { $0.addingPercentEncodingForTest() }
        return CompiledText.learn(characters: [CompiledText.allCharacters, CompiledText.allCharacters]) { v in
            Array("<a>\(html(v[0]))</a><b>\(html(v[0]))</b>?q=\(url(v[0]))<c>\(html(v[0]))|\(html(v[1]))</c>".utf8)
        }!
    }()

    static func body(_ text: CompiledText, _ written: [UInt8], _ spans: [Int32]) -> [UInt8] {
        let literal = text.literalStorage
        var out: [UInt8] = []
        for i in stride(from: 0, to: spans.count, by: 2) {
            let (start, end) = (Int(spans[i]), Int(spans[i + 1]))
            out += start < literal.count ? Array(literal[start..<end]) : Array(written[(start - literal.count)..<(end - literal.count)])
        }
        return out
    }

    @Test("the same bytes as writing it whole, with the repeated slot written once")
    func repeatedSlotWrittenOnce() throws {
        let values: [Substring] = ["a&b<c", "zz"]
        var written: [UInt8] = []
        let spans = try #require(Self.text.spans(values, written: &written))
        let whole = try #require(Self.text.bytes(values))
        #expect(Self.body(Self.text, written, spans) == whole)
        // "a&amp;b&lt;c" once (not three times), "a%26b%3Cc" once, "zz" once.
        #expect(String(decoding: written, as: UTF8.self) == "a&amp;b&lt;ca%26b%3Cczz")
        #expect(spans.count == 2 * (6 + 5), "six literal runs and five slot places")
    }

    @Test("an empty value leaves no span; an unlearned byte refuses the whole text")
    func emptyAndRefused() throws {
        var written: [UInt8] = []
        let spans = try #require(Self.text.spans(["", "zz"], written: &written))
        #expect(Self.body(Self.text, written, spans) == Self.text.bytes(["", "zz"]))
        #expect(String(decoding: written, as: UTF8.self) == "zz")
        let narrow = try #require(CompiledText.learn(characters: [["a", "b"]]) { Array("<p>\($0[0])</p><p>\($0[0])</p>".utf8) })
        var refused: [UInt8] = []
        let none = narrow.spans(["abc"], written: &refused)
        #expect(none == nil, "c was never learned")
        var kept: [UInt8] = []
        let some = try #require(narrow.spans(["ab"], written: &kept))
        #expect(Self.body(narrow, kept, some) == Array("<p>ab</p><p>ab</p>".utf8))
        #expect(kept == Array("ab".utf8))
    }
}

extension String {
    /// Percent-encodes everything but ASCII letters and digits (upper-case hex), byte by byte.
    func addingPercentEncodingForTest() -> String {
        var out = ""
        for b in utf8 {
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) {
                out.unicodeScalars.append(UnicodeScalar(b))
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }

    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
