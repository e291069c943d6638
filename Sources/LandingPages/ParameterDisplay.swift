import Foundation
import LinkRouting

/// What a landing page may show of the parameter values a visitor wrote into the link: each
/// value at most `maxLength` characters (default ``ParamConfig/defaultMaxLength``) and, when the
/// route gives one, matching its `pattern`. A page for a link with any other value shows the
/// app's name and no description (`/signup?referralCode=Your account is locked. Call …` must not
/// become the page's sentence); the link still matches its route and opens the app.
public struct ParameterDisplay: Sendable {
    struct Bound: @unchecked Sendable {  // NSRegularExpression is immutable and thread-safe
        var maxLength: Int
        var pattern: NSRegularExpression?
    }

    /// Per site, per route, per parameter with its own settings; others take the default cap.
    let bounds: [[String: [String: Bound]]]
    /// false: every value is shown (what compiling a page learns with).
    let bounded: Bool

    /// Shows every value (for compiling pages from probe strings).
    static let unbounded = ParameterDisplay(bounds: [], bounded: false)

    init(bounds: [[String: [String: Bound]]], bounded: Bool) {
        self.bounds = bounds
        self.bounded = bounded
    }

    public init(table: RouteTable) {
        bounded = true
        bounds = table.sites.map { site in
            var routes: [String: [String: Bound]] = [:]
            for entry in site.routes {
                guard let route = entry.route else { continue }
                var perParameter: [String: Bound] = [:]
                let specs = (route.params ?? [:]).map { ($0.key, $0.value.maxLength, $0.value.pattern) }
                    + (route.query ?? [:]).map { ($0.key, $0.value.maxLength, $0.value.pattern) }
                for (name, maxLength, pattern) in specs where maxLength != nil || pattern != nil {
                    let regex = pattern.flatMap { try? NSRegularExpression(pattern: "^(?:\($0))$") }
                    perParameter[name] = Bound(maxLength: maxLength ?? ParamConfig.defaultMaxLength, pattern: regex)
                }
                if !perParameter.isEmpty { routes[route.name] = perParameter }
            }
            return routes
        }
    }

    /// Whether every parameter value of `match` may be shown in page text.
    public func shows(_ match: LinkMatch, site: CompiledSite) -> Bool {
        guard bounded else { return true }
        let own = site.index < bounds.count ? bounds[site.index][match.route] : nil
        for (name, value) in match.parameters where !shows(value, bound: own?[name]) { return false }
        return true
    }

    func shows(_ value: String, bound: Bound?) -> Bool {
        let max = bound?.maxLength ?? ParamConfig.defaultMaxLength
        // Cheap first: UTF-8 length bounds the character count from above.
        if value.utf8.count > max, value.count > max { return false }
        guard let pattern = bound?.pattern else { return true }
        let range = NSRange(value.startIndex..., in: value)
        return pattern.firstMatch(in: value, options: [], range: range) != nil
    }
}
