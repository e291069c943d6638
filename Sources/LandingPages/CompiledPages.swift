import LinkRouting
import Synchronization

// Landing pages compiled per snapshot: one `CompiledLandingPage` per route × page variant
// (platform, crawler or not, in-app browser, language, which parameters are present), learned
// from the renderer itself (`CompiledText`), so the bytes are those `page(for:…)` renders. A
// request writes the literal bytes and escapes only its parameters; the QR code and the preview
// card stay per-URL caches behind `qrCode` and `previewCard`.

/// What a page's bytes depend on besides the parameter values.
public struct PageVariant: Hashable, Sendable {
    public var site: Int
    public var entry: Int
    public var platform: Platform
    public var crawler: Bool
    public var inAppBrowser: String?
    public var locale: String
    /// The parameter names present, and the values of the `oneOf` ones (a closed set, so part of
    /// the variant rather than slots), as one order-independent sum of seeded hashes: no array of
    /// names is made, sorted or hashed per request. Two sets of names that only this sum tells
    /// apart would share a compiled page (a 64-bit hash seeded at random per process: never on
    /// purpose); that page takes only its own names (`CompiledLandingPage.answer` checks them
    /// exactly), so the other set is rendered the slow way, never with the wrong page.
    public var parameters: Int

    public init(match: LinkMatch, site: CompiledSite, browser: BrowserFacts, locale: String) {
        self.site = site.index
        self.entry = match.entryIndex
        self.platform = browser.platform
        self.crawler = browser.crawler != nil
        self.inAppBrowser = browser.crawler == nil ? browser.inAppBrowser : nil
        self.locale = locale
        let segments = site.entries.indices.contains(match.entryIndex) ? site.entries[match.entryIndex].pattern.segments : []
        var sum = match.parameters.count
        for (name, value) in match.parameters {
            var hasher = Hasher()
            hasher.combine(name)
            if Self.isClosed(name, in: segments) {
                hasher.combine(true)
                hasher.combine(value)
            }
            sum &+= hasher.finalize()
        }
        self.parameters = sum
    }

    /// Whether parameter `name` has a closed set of values (`oneOf`) in `segments`.
    static func isClosed(_ name: String, in segments: [PathSegment]) -> Bool {
        for segment in segments {
            if case let .param(n, _, _, oneOf) = segment, oneOf != nil, n == name { return true }
        }
        return false
    }
}

/// A matched link's answer, compiled: the landing page or the fallback redirect.
public struct CompiledLandingPage: Sendable {
    public enum Answer: Sendable {
        /// The page: slots are `slotNames` in order, then the QR code's SVG and the card's path.
        case page(CompiledText)
        /// The fallback redirect's `Location`.
        case redirect(CompiledText)
    }

    public let route: String
    public let iosAppIDs: [String]
    public let androidPackages: [String]
    /// The parameters filled per request, in slot order.
    public let slotNames: [String]
    public let fixed: [String: String]
    public let answer: Answer
    /// Where the compiled redirect goes (the decision's kind: a store or the route's web page);
    /// nil for a page.
    public let redirectKind: FallbackDecision.RedirectKind?
    /// The link (`LandingLinks.canonical`), the QR code's label and the page title, when the
    /// page shows a QR code or a generated card (their inputs).
    let canonical: CompiledText?
    let qrLabel: CompiledText?
    let title: CompiledText?
    let usesQR: Bool
    let usesCard: Bool
    /// The route's first path segment when it is a parameter: a segment that reads as one of
    /// the site's hosts changes how a custom-scheme link is spelt.
    let firstSegment: FirstSegment?
    /// The QR code and card path of the last values asked for (`Extras`).
    let extras = Extras()

    /// The last QR code and card path this page made, with the slot values and language they
    /// were made for. The two are functions of those alone (the page fixes the site, route and
    /// variant), so a page asked again for the same link — one link shared widely, the common
    /// case — builds no link, label, title or card and makes no cache lookup; another link
    /// replaces the entry. An entry over `largestEntry` bytes (a long link's large QR code) is not
    /// kept: a snapshot holds at most 1,024 compiled pages, so at most 8 MiB of these.
    final class Extras: Sendable {
        static let largestEntry = 8 * 1024
        private struct Entry {
            var values: [String]
            var locale: String
            var qr: String
            var cardPath: String
        }
        private let last = Mutex<Entry?>(nil)

        func lookup(_ values: [Substring], locale: String) -> (qr: String, cardPath: String)? {
            last.withLock { entry in
                guard let entry, entry.values.count == values.count, entry.locale.utf8.elementsEqual(locale.utf8) else { return nil }
                for (kept, value) in zip(entry.values, values) where !kept.utf8.elementsEqual(value.utf8) { return nil }
                return (entry.qr, entry.cardPath)
            }
        }

        func keep(_ values: [Substring], locale: String, qr: String, cardPath: String) {
            let bytes = values.reduce(qr.utf8.count + cardPath.utf8.count + locale.utf8.count) { $0 + $1.utf8.count }
            guard bytes <= Self.largestEntry else { return }
            let entry = Entry(values: values.map(String.init), locale: locale, qr: qr, cardPath: cardPath)
            last.withLock { $0 = entry }
        }
    }

    struct FirstSegment: Sendable {
        var name: String
        var prefix: String
        var suffix: String
        var rest: Bool

        init?(_ entry: CompiledEntry) {
            switch entry.pattern.segments.first {
            case let .param(name, prefix, suffix, _)?: (self.name, self.prefix, self.suffix, self.rest) = (name, prefix, suffix, false)
            case let .rest(name)?: (self.name, self.prefix, self.suffix, self.rest) = (name, "", "", true)
            default: return nil
            }
        }

        func readsAsHost(_ value: String, site: CompiledSite) -> Bool {
            let part = rest ? String(value.prefix { $0 != "/" }) : value
            return site.serves(host: (prefix + part + suffix).lowercased())
        }
    }

    /// Parameters with a closed set of values (`oneOf`).
    static func closedParameters(_ entry: CompiledEntry) -> Set<String> {
        var names: Set<String> = []
        for segment in entry.pattern.segments {
            if case let .param(name, _, _, oneOf) = segment, oneOf != nil { names.insert(name) }
        }
        return names
    }

    /// The bytes to send for `match`; nil: render it the slow way (a value this page was not
    /// compiled for: empty, `.`/`..`, a byte never learned, a QR code or card that is not made).
    public func answer(match: LinkMatch, site: CompiledSite, renderer: LandingRenderer, locale: String) -> Outcome? {
        answer(match: match, site: site, display: renderer.parameterDisplay, qrCode: renderer.qrCode, previewCard: renderer.previewCard, locale: locale)
    }

    /// `answer(match:site:renderer:locale:)` with only what it reads of the renderer (a caller that
    /// holds the renderer in a class passes these without copying the whole renderer).
    public func answer(match: LinkMatch, site: CompiledSite, display: ParameterDisplay, qrCode: (String, String) -> TrustedHTML?,
                       previewCard: ((PreviewCard) -> String?)?, locale: String, byReference: Bool = false) -> Outcome? {
        guard match.route == route, match.iosAppIDs == iosAppIDs, match.androidPackages == androidPackages,
              // Exactly this page's parameters: with the checks below (each slot's and fixed
              // one's name present), no other name is (`PageVariant.parameters` is a hash).
              match.parameters.count == slotNames.count + fixed.count else { return nil }
        for (name, value) in fixed where match.parameters[name] != value { return nil }
        // A value the page may not show in its text: rendered the slow way, with the app's name.
        guard display.shows(match, site: site) else { return nil }
        var values: [Substring] = []
        values.reserveCapacity(slotNames.count + 2)
        for name in slotNames {
            guard let value = match.parameters[name], Self.isPlain(value) else { return nil }
            if let first = firstSegment, name == first.name, first.readsAsHost(value, site: site) { return nil }
            values.append(Substring(value))
        }
        switch answer {
        case let .redirect(location):
            return location.string(values).map(Outcome.redirect)
        case let .page(body):
            var qr = ""
            var cardPath = ""
            if usesQR || usesCard, let kept = extras.lookup(values, locale: locale) {
                (qr, cardPath) = kept
            } else if usesQR || usesCard {
                guard let link = canonical?.string(values) else { return nil }
                if usesQR {
                    guard let label = qrLabel?.string(values), let svg = qrCode(link, label) else { return nil }
                    qr = svg.html
                }
                if usesCard {
                    guard let title = title?.string(values), let make = previewCard else { return nil }
                    let card = PreviewCard(site: site.name, route: route, link: link, appName: LandingRenderer.appName(site), title: title,
                                           themeColor: site.config.landing?.themeColor, icon: LandingRenderer.icon(site, platform: .desktop), locale: locale)
                    guard let path = make(card) else { return nil }
                    cardPath = path
                }
                extras.keep(values, locale: locale, qr: qr, cardPath: cardPath)
            }
            values.append(Substring(qr))
            values.append(Substring(cardPath))
            if byReference {
                var written: [UInt8] = []
                written.reserveCapacity(qr.utf8.count + 512)
                return body.spans(values, written: &written).map { .spans(literal: body.literalStorage, written: written, spans: $0) }
            }
            var out: [UInt8] = []
            out.reserveCapacity(body.literalBytes + qr.utf8.count + 512)
            return body.write(values, into: &out) ? .page(out) : nil
        }
    }

    public enum Outcome: Sendable, Equatable {
        case page([UInt8])
        /// The page as spans over the compiled literal and this request's bytes
        /// (`CompiledText.spans(_:written:)`); only with `byReference`.
        case spans(literal: [UInt8], written: [UInt8], spans: [Int32])
        case redirect(String)
    }

    /// Non-empty, and no `/`-separated part `.` or `..` (percent-encoding spells those out whole)
    /// or empty (a rest parameter refuses those).
    public static func isPlain(_ value: String) -> Bool {
        var part = 0
        var dots = 0
        var any = false
        for b in value.utf8 {
            any = true
            if b == UInt8(ascii: "/") {
                if part == 0 || (part == dots && dots <= 2) { return false }
                part = 0
                dots = 0
            } else {
                part += 1
                if b == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return any && part > 0 && !(part == dots && dots <= 2)
    }
}

/// Records what a probe rendering asked for.
final class ProbeLog: @unchecked Sendable {
    // @unchecked: used on one thread, during one compilation.
    var qrCalled = false
    var cardCalled = false
}

extension LandingRenderer {
    /// Compiles the answer for `match`'s variant; nil when it cannot be compiled exactly (then
    /// every request of the variant is rendered by `page(for:…)`).
    public func compilePage(match: LinkMatch, site: CompiledSite, browser: BrowserFacts, catalog: StringCatalog) -> CompiledLandingPage? {
        guard site.entries.indices.contains(match.entryIndex) else { return nil }
        let entry = site.entries[match.entryIndex]
        let closed = CompiledLandingPage.closedParameters(entry)
        let slotNames = match.parameters.keys.filter { !closed.contains($0) }.sorted()
        let fixed = match.parameters.filter { closed.contains($0.key) }
        func probe(_ values: [String]) -> LinkMatch {
            var m = match
            m.parameters = fixed
            for (name, value) in zip(slotNames, values) { m.parameters[name] = value }
            return m
        }
        let paramChars = Array(repeating: CompiledText.allCharacters, count: slotNames.count)
        // Probes are long strings of every character: learned without the display bounds, which
        // each request checks before it takes the compiled bytes.
        var unbounded = self
        unbounded.parameterDisplay = .unbounded
        func decision(_ m: LinkMatch) -> FallbackDecision {
            LandingChoice(table: table, site: site, match: m, overrides: nil, browser: browser, iPad: false).decision
        }
        let firstParam = CompiledLandingPage.FirstSegment(entry)
        if case let .redirect(kind, _, _) = decision(probe(slotNames.map { _ in "q" })) {
            guard let location = CompiledText.learn(characters: paramChars, render: { values in
                decision(probe(values)).target.map { Array($0.utf8) }
            }) else { return nil }
            return CompiledLandingPage(route: match.route, iosAppIDs: match.iosAppIDs, androidPackages: match.androidPackages,
                                       slotNames: slotNames, fixed: fixed, answer: .redirect(location), redirectKind: kind, canonical: nil, qrLabel: nil,
                                       title: nil, usesQR: false, usesCard: false, firstSegment: firstParam)
        }
        // The page, with the QR code and the card's path as two more slots.
        let log = ProbeLog()
        guard let body = CompiledText.learn(characters: paramChars + [CompiledText.allCharacters, CompiledText.urlCharacters], render: { values in
            var probeRenderer = unbounded
            let qr = values[values.count - 2]
            let card = values[values.count - 1]
            probeRenderer.qrCode = { _, _ in
                log.qrCalled = true
                return TrustedHTML(uncheckedHTML: qr)
            }
            if previewCard != nil {
                probeRenderer.previewCard = { _ in
                    log.cardCalled = true
                    return card
                }
            }
            let m = probe(Array(values.dropLast(2)))
            guard case .landing = decision(m) else { return nil }
            return probeRenderer.templates[site.index].landing.renderBytes(
                probeRenderer.pageContext(site: site, match: m, browser: browser, catalog: catalog))
        }) else { return nil }
        guard let inputs = learnInputs(qr: log.qrCalled, card: log.cardCalled, site: site, catalog: catalog, unbounded: unbounded,
                                       characters: paramChars, probe: probe) else { return nil }
        return CompiledLandingPage(route: match.route, iosAppIDs: match.iosAppIDs, androidPackages: match.androidPackages,
                                   slotNames: slotNames, fixed: fixed, answer: .page(body), redirectKind: nil, canonical: inputs.canonical,
                                   qrLabel: inputs.qrLabel, title: inputs.title, usesQR: log.qrCalled, usesCard: log.cardCalled, firstSegment: firstParam)
    }

    /// The inputs of the QR code and the generated card, when the page shows them: the link, the
    /// code's label and the page title, learned like the page; nil when one cannot be learned.
    func learnInputs(qr: Bool, card: Bool, site: CompiledSite, catalog: StringCatalog, unbounded: LandingRenderer,
                     characters: [[String]], probe: ([String]) -> LinkMatch) -> (canonical: CompiledText?, qrLabel: CompiledText?, title: CompiledText?)? {
        var canonical: CompiledText?
        var qrLabel: CompiledText?
        var title: CompiledText?
        if qr || card {
            canonical = CompiledText.learn(characters: characters) { Array(LandingLinks(table: table, site: site, match: probe($0)).canonical.utf8) }
            guard canonical != nil else { return nil }
        }
        if qr {
            qrLabel = CompiledText.learn(characters: characters) { values in
                let link = LandingLinks(table: table, site: site, match: probe(values)).canonical
                return Array(catalog.text("qrLabel", ["url": link]).utf8)
            }
            guard qrLabel != nil else { return nil }
        }
        if card {
            title = CompiledText.learn(characters: characters) { Array(unbounded.title(site: site, match: probe($0), tag: catalog.tag).utf8) }
            guard title != nil else { return nil }
        }
        return (canonical, qrLabel, title)
    }

    /// The not-found page of `site` for `platform` in `catalog`'s language (it depends on nothing
    /// else, so the server keeps one per variant).
    public func notFound(site: CompiledSite, platform: Platform, catalog: StringCatalog) -> LandingResponse {
        notFound(site: site, browser: BrowserFacts(platform: platform), catalog: catalog)
    }
}
