// Dynamic App Links (Android 15+): the `dynamic_app_link_components` of a handle_all_urls statement,
// turned into Android's UriRelativeFilterGroups and evaluated like
// DomainVerificationService.matchUriRelativeFilterGroups does:
//
// - no components → every URL is handled;
// - components are tried in order; the first whose filters ALL match decides
//   (`exclude: true` → not handled); a component with no filters never matches;
// - nothing matches → not handled;
// - `/` matches the decoded path, `#` the decoded fragment (absent fragment never matches),
//   each `?` entry `key: value` is the expression "key=value" matched against ANY one decoded
//   query item (items split on `&`, or on `;` when there is no `&`);
// - an expression the parser refuses (an empty string) discards every rule of the statement, so
//   everything is handled again;
// - an Android 15 advanced glob that PatternMatcher rejects (`/c++/.+`) is kept as text: the
//   matcher is built when a URL reaches the rule, and it throws there. The rules before it still
//   decide; a URL that reaches it is not handled (nothing in AOSP catches the exception).

import LinkwellJSON

/// What Android does with one URL after the Dynamic App Link rules: open the app or not, and
/// which component decided.
public struct AndroidURLDecision: Sendable, Equatable, CustomStringConvertible {
    /// Whether the URL opens the app.
    public var handled: Bool
    /// The index of the component that decided; `nil` when there are no (usable) rules
    /// (`handled` is then true) or when no component matched (`handled` is then false).
    public var ruleIndex: Int?
    /// The deciding component as compact JSON.
    public var rule: String?
    /// Set when the URL reached a rule whose pattern Android's PatternMatcher rejects: what it
    /// throws (the URL is then not handled, and `ruleIndex` is that rule).
    public var exception: String?

    /// Creates a decision (for tests; ``DynamicAppLinkRules/decide(url:)`` makes the real ones).
    public init(handled: Bool, ruleIndex: Int? = nil, rule: String? = nil, exception: String? = nil) {
        self.handled = handled
        self.ruleIndex = ruleIndex
        self.rule = rule
        self.exception = exception
    }

    /// `handled by component 0 {"/":"/signup"}`, `not handled (no component matched)`, `handled (no dynamic rules)`.
    public var description: String {
        if let exception, let ruleIndex, let rule {
            return "not handled: Android throws IllegalArgumentException (\(exception)) at component \(ruleIndex) \(rule)"
        }
        let verdict = handled ? "handled" : "not handled"
        if let ruleIndex, let rule { return "\(verdict) by component \(ruleIndex) \(rule)" }
        return handled ? "\(verdict) (no dynamic rules)" : "\(verdict) (no component matched)"
    }
}

/// One `?` entry of a component, in file order.
public struct DynamicAppLinkQueryItem: Sendable, Equatable {
    /// The query parameter name (the member's key).
    public var key: String
    /// The value expression (`*` any run, `?` one character), as written or as org.json turns a non-string into text.
    public var value: String
}

/// One compiled `UriRelativeFilter`: Android's test of one URL part for a Dynamic App Link component.
public struct AndroidURIRelativeFilter: Sendable, Equatable, CustomStringConvertible {
    /// The URL part a filter reads; the raw values name it as Android's `UriRelativeFilter` does.
    public enum Part: String, Sendable, Equatable {
        /// The percent-decoded path (`/`).
        case path = "PATH"
        /// Each percent-decoded query item (`?`); any one of them may match.
        case query = "QUERY"
        /// The percent-decoded fragment (`#`); a URL without one never matches.
        case fragment = "FRAGMENT"
    }
    /// Which part of the URL the filter reads.
    public var part: Part
    /// The compiled pattern (for a query filter, it is matched against each `key=value` item).
    public var matcher: AndroidPatternMatcher

    /// `PATH PatternMatcher{LITERAL: /signup}`.
    public var description: String { "\(part.rawValue) \(matcher)" }

    func matches(_ uri: AndroidURI) -> Bool {
        switch part {
        case .path: return matcher.matches(units: uri.path)
        case .fragment: return matcher.matches(units: uri.fragment)
        case .query:
            // UriRelativeFilter.matchQuery
            guard let query = uri.query else { return false }
            var items = AndroidURI.javaSplit(query, on: Unit.ampersand)
            if items.count == 1 { items = AndroidURI.javaSplit(query, on: Unit.semicolon) }
            return items.contains { matcher.matches(units: $0) }
        }
    }
}

/// One entry of `dynamic_app_link_components`, as StatementParser reads it.
public struct DynamicAppLinkComponent: Sendable, Equatable {
    /// `exclude` (org.json `optBoolean`: `true`, or the string "true" in any case).
    public var exclude: Bool
    /// `/`, when present (a non-string is turned into its JSON text, as org.json does).
    public var path: String?
    /// The `?` member's entries (query parameter name and value expression), when `?` is an object.
    public var query: [DynamicAppLinkQueryItem]?
    /// The `#` expression, matched against the fragment, when present.
    public var fragment: String?
    /// `comments`, for people; Android ignores it (empty when absent).
    public var comments: String
    /// The component as compact JSON, for messages.
    public var json: String
    /// The compiled filters (empty when Android could not compile them, see `DynamicAppLinkRules`).
    public var filters: [AndroidURIRelativeFilter]

    /// UriRelativeFilterGroup.matchData: at least one filter, and all of them match; each
    /// filter builds its PatternMatcher when it is tried, so a rejected pattern throws there.
    func matches(_ uri: AndroidURI) throws(AndroidPatternError) -> Bool {
        if filters.isEmpty { return false }
        for filter in filters {
            if let rejection = filter.matcher.rejection { throw rejection }
            if !filter.matches(uri) { return false }
        }
        return true
    }

    /// What Android throws for the first filter whose pattern it rejects, if any.
    public var rejection: AndroidPatternError? { filters.lazy.compactMap(\.matcher.rejection).first }
}

/// A statement's Dynamic App Link rules (Android 15+): which of a verified domain's URLs open the app.
///
/// An assetlinks.json statement may carry `dynamic_app_link_components`: objects with `/`
/// (path), `?` (query items) and `#` (fragment) expressions, where `*` is any run of characters
/// and `?` one character, and optionally `"exclude": true`. Android tries them in order; the
/// first component whose expressions all match decides, and a URL that none matches does not
/// open the app. Without components every URL of the domain opens it.
///
/// ```swift
/// let rules = DynamicAppLinkRules(components: try JSONValue.parse("""
///     [{"/": "/signup", "?": {"referralCode": "*"}}, {"/": "*", "exclude": true}]
///     """))
/// rules.decide(url: "https://fitconnect.app/signup?referralCode=T1").handled   // true (component 0)
/// rules.decide(url: "https://fitconnect.app/settings").handled                 // false (component 1 excludes)
/// ```
public struct DynamicAppLinkRules: Sendable, Equatable {
    /// The Android version whose parser compiled the rules.
    public let generation: AndroidParserGeneration
    /// The components in file order; the first whose filters all match decides.
    public let components: [DynamicAppLinkComponent]
    /// Set when Android throws every rule away (a malformed field); everything is then handled.
    public let discardReason: String?

    /// No rules at all: every URL is handled.
    public static func none(_ generation: AndroidParserGeneration = .android16) -> DynamicAppLinkRules {
        DynamicAppLinkRules(generation: generation, components: [], discardReason: nil)
    }

    private init(generation: AndroidParserGeneration, components: [DynamicAppLinkComponent], discardReason: String?) {
        self.generation = generation
        self.components = components
        self.discardReason = discardReason
    }

    /// Evaluates a bare `dynamic_app_link_components` array (what Linkwell generates), with the
    /// same reading as inside an assetlinks.json. Something that would make Android reject the
    /// whole file (a null, a number, a non-object component) is reported in `discardReason`.
    public init(components: JSONValue, generation: AndroidParserGeneration = .android16) {
        guard case let .array(elements) = components else {
            self.init(
                generation: generation, components: [],
                discardReason: "dynamic_app_link_components is \(components.kindDescription), not an array; Android ignores it")
            return
        }
        var parsed: [(AndroidJSONObject, String)] = []
        for (i, element) in elements.enumerated() {
            guard case .object = element else {
                self.init(
                    generation: generation, components: [],
                    discardReason: "component \(i) is \(element.kindDescription), not an object; Android rejects the whole assetlinks.json")
                return
            }
            switch AndroidJSON.from(element, inArray: false, path: "component \(i)") {
            case let .success(.object(object)):
                parsed.append((object, element.serialized(.compact, sortKeys: false)))
            case let .failure(error):
                self.init(
                    generation: generation, components: [],
                    discardReason: "\(error.message); Android rejects the whole assetlinks.json")
                return
            case .success:
                preconditionFailure("an object converts to an object")
            }
        }
        self.init(parsed: parsed, generation: generation)
    }

    /// From the org.json objects of an assetlinks.json statement.
    init(parsed: [(object: AndroidJSONObject, json: String)], generation: AndroidParserGeneration) {
        var components: [DynamicAppLinkComponent] = []
        var discardReason: String?
        for (i, entry) in parsed.enumerated() {
            let o = entry.object
            var component = DynamicAppLinkComponent(
                exclude: o.optBoolean("exclude", fallback: false),
                path: o.opt("/")?.javaString,
                query: o.optObject("?").map { $0.members.map { DynamicAppLinkQueryItem(key: $0.key, value: $0.value.javaString) } },
                fragment: o.opt("#")?.javaString,
                comments: o.optString("comments"),
                json: entry.json,
                filters: [])
            // StatementUtils.createUriRelativeFilterGroup: fragment, path, then one QUERY filter
            // per entry, each from parseMatchingExpression.
            var sources: [(AndroidURIRelativeFilter.Part, String, String)] = []
            if let f = component.fragment { sources.append((.fragment, f, "#")) }
            if let p = component.path { sources.append((.path, p, "/")) }
            for item in component.query ?? [] { sources.append((.query, item.key + "=" + item.value, "?." + item.key)) }
            for (part, expression, field) in sources {
                do {
                    let matcher = try AndroidPatternMatcher.dynamicAppLinkPattern(for: expression, generation: generation)
                    if !component.filters.contains(where: { $0.part == part && $0.matcher == matcher }) {
                        component.filters.append(AndroidURIRelativeFilter(part: part, matcher: matcher))
                    }
                } catch {
                    if discardReason == nil {
                        discardReason = "component \(i) field '\(field)' (\(Self.quoted(expression))): \(error.message); Android drops every dynamic rule of this statement, so every URL opens the app"
                    }
                }
            }
            components.append(component)
        }
        if discardReason != nil {
            for i in components.indices { components[i].filters = [] }
        }
        self.init(generation: generation, components: components, discardReason: discardReason)
    }

    private static func quoted(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, into: &out)
        return out
    }

    /// Whether Android applies no rule at all (none given, or all discarded).
    public var appliesNoRules: Bool { components.isEmpty || discardReason != nil }

    /// What Android does with `url` (an absolute URL on the statement's host; the host itself is
    /// not checked here). Path, query and fragment are percent-decoded before matching.
    public func decide(url: String) -> AndroidURLDecision {
        if appliesNoRules { return AndroidURLDecision(handled: true) }
        let uri = AndroidURI(url)
        for (i, component) in components.enumerated() {
            do {
                guard try component.matches(uri) else { continue }
            } catch {
                return AndroidURLDecision(handled: false, ruleIndex: i, rule: component.json, exception: error.message)
            }
            return AndroidURLDecision(handled: !component.exclude, ruleIndex: i, rule: component.json)
        }
        return AndroidURLDecision(handled: false)
    }

    /// The components whose pattern Android's PatternMatcher rejects, with what it throws: every
    /// URL that reaches one is not handled.
    public var rejectedComponents: [(index: Int, json: String, reason: String)] {
        components.enumerated().compactMap { i, c in c.rejection.map { (i, c.json, $0.message) } }
    }
}
