// LinkStore.create — what `links add` and the admin API share: all or nothing, every bad item
// named with its index and field, codes unique within a request and against the store — and
// keyset pages that walk every link once.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite struct LinkCreationTests {
    static let table = ShortLinkValidatorTests.table

    static func new(_ code: String, _ target: String = "https://fitconnect.app/w/1", site: String = "fit") -> NewShortLink {
        NewShortLink(link: ShortLink(code: code, site: site, target: target))
    }

    @Test func aBatchIsAllOrNothingAndNamesEveryBadItem() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("c.db"))
        guard case .created = try store.create([Self.new("taken")], table: Self.table) else { Issue.record("seed link refused"); return }
        let batch = [
            Self.new("ok1"), Self.new("taken"), Self.new("evil", "https://evil.example/"), Self.new("dup"), Self.new("dup"),
            NewShortLink(link: ShortLink(code: "ok2", site: "fit", target: "https://fitconnect.app/a", iosFallback: "ftp://x")),
            Self.new("static"), Self.new(""), Self.new("nosite", site: "nope"),
        ]
        guard case let .refused(errors) = try store.create(batch, table: Self.table) else { Issue.record("bad batch was stored"); return }
        #expect(errors.map { "\($0.index) \($0.field) \($0.kind.rawValue)" } == [
            "1 code code_taken", "2 target invalid", "4 code code_taken", "5 iosFallback invalid", "6 code code_conflict", "8 site invalid",
        ])
        #expect(errors[0].message.contains("already has a short link 'taken'"))
        #expect(errors[2].message.contains("also given to item 3"))
        #expect(errors[4].message == "'/static' is served by linkwell itself (association files, assets)")
        #expect(try store.links().map(\.code) == ["taken"])
    }

    @Test func generatedCodesAreFreeAndDistinct() throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("g.db"))
        let batch = (0..<500).map { i in
            NewShortLink(link: ShortLink(code: "", site: "fit", target: "https://fitconnect.app/p/\(i)"), style: i % 2 == 0 ? .short : .unguessable)
        }
        guard case let .created(links) = try store.create(batch, table: Self.table) else { Issue.record("refused"); return }
        #expect(Set(links.map(\.code)).count == 500)
        #expect(links.enumerated().allSatisfy { $0.offset % 2 == 0 ? $0.element.code.count >= 4 : $0.element.code.count == 17 })
        #expect(try store.links().count == 500)
    }

    @Test(arguments: [1, 7, 100, 1000])
    func pagesWalkEveryLinkOnce(limit: Int) throws {
        let dir = try TempDir()
        let store = try LinkStore(path: dir.path("p.db"))
        let batch = (0..<250).map { Self.new("c\($0)") } + (0..<50).map { Self.new("c\($0)", "https://blog.example/x", site: "blog") }
        guard case .created = try store.create(batch, table: Self.table) else { Issue.record("refused"); return }
        for site in [nil, "fit", "blog"] as [String?] {
            var seen: [String] = []
            var after: (site: String, code: String)?
            while true {
                let page = try store.links(site: site, after: after, limit: limit)
                #expect(page.count <= limit)
                seen += page.map { "\($0.site)/\($0.code)" }
                guard page.count == limit, let last = page.last else { break }
                after = (last.site, last.code)
            }
            #expect(seen == (try store.links(site: site)).map { "\($0.site)/\($0.code)" })
            #expect(Set(seen).count == seen.count && seen.count == [nil: 300, "fit": 250, "blog": 50][site])
        }
    }
}
