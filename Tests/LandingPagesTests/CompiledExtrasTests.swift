import Testing
@testable import LandingPages

@Suite("Compiled page: the kept QR code and card path")
struct CompiledExtrasTests {
    @Test("kept for the same values and language only, and never over its size limit")
    func keptWithinLimit() {
        let extras = CompiledLandingPage.Extras()
        extras.keep(["123"], locale: "en", qr: "<svg/>", cardPath: "/static/og/a.png")
        #expect(extras.lookup(["123"], locale: "en")?.qr == "<svg/>")
        #expect(extras.lookup(["124"], locale: "en") == nil)
        #expect(extras.lookup(["123"], locale: "de") == nil)
        #expect(extras.lookup(["123", "x"], locale: "en") == nil)
        let big = String(repeating: "q", count: CompiledLandingPage.Extras.largestEntry)
        extras.keep(["456"], locale: "en", qr: big, cardPath: "")
        #expect(extras.lookup(["456"], locale: "en") == nil, "an entry over the limit is not kept")
        #expect(extras.lookup(["123"], locale: "en")?.cardPath == "/static/og/a.png", "nor does it replace the kept one")
    }
}
