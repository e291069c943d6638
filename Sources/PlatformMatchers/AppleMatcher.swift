// A stand-in for Apple's `swcutil verify` that runs anywhere: given an apple-app-site-association
// document and a URL as a browser sends it, which apps open the link, and which are kept out by an
// `exclude` rule.
//
// Semantics (the conformance vectors in Tests/PlatformMatchersTests/Fixtures/conformance/, whose
// README says where each rule comes from):
// - Modern form: `applinks.details[].appIDs` with `components`, tried in order; the first component
//   whose present keys (`/`, `?`, `#`) all match decides, `exclude: true` making it a block. An
//   absent key is `*`.
// - Legacy form: `details[].appID` with `paths`, in order, `NOT ` excluding, path only. An entry
//   with both uses `components` only, as iOS 13+ does.
// - For each app ID, the first `details` entry that decides wins; an entry where nothing matches
//   leaves the app to later entries.
// - `caseSensitive` and `percentEncoded` come from the component, else the entry's `defaults`,
//   else `applinks.defaults`, else `true`. With `percentEncoded: true` the path, query string and
//   fragment are compared as the browser sent them (percent-encoded, escapes' hex case as
//   written); with `false` they are decoded first. Query-item values are always compared decoded
//   (as iOS reads `URLComponents.queryItems`), and with `percentEncoded: true` the item's pattern
//   is read as percent-encoded text too, so `a%20b` and `a b` both stand for "a b".
// - `?` matches one character of the compared text: with `percentEncoded: true` an escape such as
//   `%20` is three characters. Characters are Unicode scalars; no normalisation is applied.

import LinkwellJSON

/// Decides, per app ID, whether an apple-app-site-association document claims a URL.
///
/// iOS downloads `https://<domain>/.well-known/apple-app-site-association` (through Apple's CDN)
/// when an app that lists `applinks:<domain>` is installed, and opens a tapped link in the app
/// only when the file's `applinks.details` claims the link for the app's ID (`TEAMID.bundle.id`).
/// This type answers that question the way iOS does, without a device.
///
/// ```swift
/// let matcher = try AppleMatcher(json: """
///     {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"],
///       "components": [{"/": "/post/drafts/*", "exclude": true}, {"/": "/post/*"}]}]}}
///     """)
/// matcher.verdicts(for: "https://example.com/post/42")         // ["ABCDE12345.com.example.app": .match]
/// matcher.verdicts(for: "https://example.com/post/drafts/1")   // ["ABCDE12345.com.example.app": .block]
/// matcher.verdicts(for: "https://example.com/about")           // [:] — no app claims it
/// ```
///
/// All patterns are compiled once in `init`; matching a URL then costs time linear in the URL's
/// length for each pattern tried.
public struct AppleMatcher: Sendable {
    /// One `details` entry: the apps it speaks for and its rules, in order.
    struct Entry: Sendable {
        var detailsIndex: Int
        var appIDs: [String]
        var rules: [Rule]
    }

    /// One component (modern form) or one path (legacy form).
    struct Rule: Sendable {
        var index: Int
        var exclude: Bool
        var description: String
        var path: Pattern?
        var query: QueryPredicate?
        var fragment: Pattern?

        func matches(_ url: TargetURL, counting steps: inout some MatchStepCounter) -> Bool {
            if let path, !path.matches(url.path.text(for: path), counting: &steps) { return false }
            if let query {
                switch query {
                case let .text(pattern):
                    if !pattern.matches(url.query.text(for: pattern), counting: &steps) { return false }
                case let .items(items):
                    for item in items {
                        // A missing item counts as one empty value; a repeated one must match every time.
                        for value in url.queryItems[item.name] ?? [.empty]
                        where !item.pattern.matches(value.text(for: item.pattern), counting: &steps) {
                            return false
                        }
                    }
                }
            }
            if let fragment, !fragment.matches(url.fragment.text(for: fragment), counting: &steps) { return false }
            return true
        }
    }

    enum QueryPredicate: Sendable {
        /// `"?": "pattern"`: the whole query text.
        case text(Pattern)
        /// `"?": {"name": "pattern", …}`: every named item.
        case items([QueryItemPredicate])
    }

    struct QueryItemPredicate: Sendable {
        var name: String
        var pattern: Pattern
    }

    let entries: [Entry]

    /// Every app ID the document names under `applinks.details`, in document order, without repeats.
    public let appIDs: [String]

    /// What iOS tolerates but a person should fix: ignored keys and values of the wrong type,
    /// undefined substitution variables, entries that name no app, patterns that can never match.
    /// Each starts with the key path it concerns (`applinks.details[0].components[2]: …`).
    public let warnings: [String]

    /// Compiles every pattern of the document.
    /// - Throws: `AASAFormatError` when iOS could not use the document at all: it is not an object,
    ///   it has no `applinks` object, or `applinks` has no `details`.
    public init(aasa: JSONValue) throws(AASAFormatError) {
        var compiler = DocumentCompiler()
        entries = try compiler.compile(aasa)
        warnings = compiler.warnings
        var seen: Set<String> = []
        appIDs = entries.flatMap(\.appIDs).filter { seen.insert($0).inserted }
    }

    /// Parses strict JSON text (what Apple's CDN accepts) and compiles it.
    /// - Throws: `AASAFormatError` for a syntax error (with its line and column) or an unusable document.
    public init(json text: String) throws(AASAFormatError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw AASAFormatError(location: "", message: "not strict JSON: \(error)")
        }
        try self.init(aasa: value)
    }

    /// The deciding rule for each app ID that the URL matches or that an `exclude` rule blocks, in
    /// document order. Empty when no app claims the URL, or when the URL is not an absolute
    /// `http`/`https` URL with a host.
    public func decisions(for url: String) -> [AppleDecision] {
        var steps = NoMatchSteps()
        return decisions(for: url, counting: &steps)
    }

    /// `decisions(for:)`, adding the matching work to `steps` (tests prove with it that the work
    /// is linear in the URL, `AppleMatcherTests`).
    func decisions(for url: String, counting steps: inout some MatchStepCounter) -> [AppleDecision] {
        guard let target = TargetURL(url) else { return [] }
        var decided: Set<String> = []
        var decisions: [AppleDecision] = []
        for entry in entries {
            guard entry.appIDs.contains(where: { !decided.contains($0) }),
                let rule = entry.rules.first(where: { $0.matches(target, counting: &steps) })
            else { continue }
            for appID in entry.appIDs where decided.insert(appID).inserted {
                decisions.append(
                    AppleDecision(
                        appID: appID, verdict: rule.exclude ? .block : .match, detailsIndex: entry.detailsIndex,
                        componentIndex: rule.index, rule: rule.description))
            }
        }
        return decisions
    }

    /// `decisions(for:)` as app ID → verdict; an app that claims nothing is absent.
    public func verdicts(for url: String) -> [String: AppleVerdict] {
        Dictionary(decisions(for: url).map { ($0.appID, $0.verdict) }, uniquingKeysWith: { first, _ in first })
    }
}
