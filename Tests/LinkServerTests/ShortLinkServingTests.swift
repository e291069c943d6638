// `GET /{code}` answers exactly as the short link's target would: the same landing page or
// redirect, from the snapshot's in-memory index.

import Foundation
import LinkRouting
import LinkStore
import MicroHTTP
import Testing

@testable import LinkServer

@Suite("Responder: short links")
struct ShortLinkServingTests {
    static let links = [
        ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/42"),
        ShortLink(code: "web1", site: "shop", target: "https://shop.example.com/about"),
        ShortLink(code: "fast", site: "shop", target: "https://shop.example.com/item/7", forcedRedirect: true),
        ShortLink(code: "off1", site: "shop", target: "https://shop.example.com/item/1", disabled: true),
        ShortLink(code: "goes", site: "shop", target: "https://shop.example.com/go/x"),
    ]
    // Per use, not a `static let` (see ClickCountingTests.snapshot: LeakSanitizer and Swift's
    // tagged enum payloads).
    static var snapshot: Snapshot { try! Snapshot(table: Fixture.table([Fixture.shop()]), publicDirectory: Fixture.publicDir, links: links) }

    @Test(arguments: [
        ("/sale", "/item/42", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"),
        ("/sale", "/item/42", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"),
        ("/sale", "/item/42", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"),
        ("/goes", "/go/x", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"),
    ])
    func answersAsTheTarget(code: String, target: String, userAgent: String) {
        let short = Responder.respond(Self.snapshot, RequestFacts(rawTarget: code, host: "shop.example.com", userAgent: userAgent))
        let direct = Responder.respond(Self.snapshot, RequestFacts(rawTarget: target, host: "shop.example.com", userAgent: userAgent))
        #expect(short.response.status == direct.response.status)
        #expect(short.response.header("Location") == direct.response.header("Location"))
        // The target's page under the link's own URL (its canonical link, og:url and card).
        let body = { (r: ResponderResult) in String(decoding: r.response.body ?? [], as: UTF8.self) }
        #expect(Self.asTarget(body(short), link: code, target: target) == Self.asTarget(body(direct), link: code, target: target))
        #expect(short.kind == direct.kind && short.route == direct.route)
    }

    /// A page with a short link's own URL (and its generated card's) written as its target's.
    static func asTarget(_ html: String, link: String, target: String) -> String {
        html.replacingOccurrences(of: "https://shop.example.com\(link)\"", with: "https://shop.example.com\(target)\"")
            .replacingOccurrences(of: ">https://shop.example.com\(link)<", with: ">https://shop.example.com\(target)<")
            .replacing(/\/static\/og\/[0-9a-f]{16}\.png\?l=[^&"]*/, with: "/static/og/CARD")
    }

    @Test func webPagesAndForcedRedirectsRedirectToTheTarget() {
        for (code, location) in [("/web1", "https://shop.example.com/about"), ("/fast", "https://shop.example.com/item/7")] {
            let r = Responder.respond(Self.snapshot, RequestFacts(rawTarget: code, host: "shop.example.com"))
            #expect(r.kind == .redirect)
            #expect(r.response.header("Location") == location)
        }
    }

    @Test(arguments: ["/off1", "/nope", "/sale/x", "/SALE"])
    func unknownDisabledOrDeeperPathsAreNotFound(path: String) {
        let r = Responder.respond(Self.snapshot, RequestFacts(rawTarget: path, host: "shop.example.com"))
        #expect(r.kind == .notFound && r.response.status == 404)
    }
}
