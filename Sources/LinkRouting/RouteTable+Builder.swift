// The link builder: route name + parameters → the canonical https URL or a custom-scheme URL.
// The law, tested for every route of every example config: parse(build(r, p)) == (r, p).

/// Which kind of link ``RouteTable/build(site:route:parameters:form:)`` writes.
public enum LinkForm: Sendable, Equatable {
    /// The universal link, `https://<canonical host>/…`: the site's first exact domain.
    case https
    /// `<scheme>://…` — the given scheme, or the first one an app of the site registered.
    case customScheme(String?)
}

/// Why a link could not be built; ``description`` says what to pass instead.
public enum LinkBuildError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No site has this name (or exact domain); `known` lists the site names.
    case unknownSite(String, known: [String])
    /// The site (or, without a site name, no site) has no route of this name; `known` lists the route names.
    case unknownRoute(String, site: String, known: [String])
    /// A path parameter or required query parameter of the route was not given.
    case missingParameter(route: String, name: String)
    /// A parameter the route does not read was given; `accepted` lists the ones it does.
    case unknownParameter(route: String, name: String, accepted: [String])
    /// A value cannot be put in the link: empty where a value is needed, not one of `oneOf`, or
    /// a rest value with an empty segment; `reason` says which.
    case invalidValue(route: String, name: String, value: String, reason: String)
    /// ``LinkForm/customScheme(_:)`` without a scheme, and no app of the site registers one.
    case noScheme(site: String)

    /// One sentence naming what is wrong (the site, route or parameter) and what to pass instead.
    public var description: String {
        switch self {
        case let .unknownSite(s, known):
            return "no site named '\(s)'; the config has \(known.map { "'\($0)'" }.joined(separator: ", "))"
        case let .unknownRoute(r, site, known):
            return "site '\(site)' has no route '\(r)'; its routes are \(known.map { "'\($0)'" }.joined(separator: ", "))"
        case let .missingParameter(route, name):
            return "route '\(route)' needs the parameter '\(name)': add \(name)=VALUE"
        case let .unknownParameter(route, name, accepted):
            let list = accepted.isEmpty ? "none" : accepted.map { "'\($0)'" }.joined(separator: ", ")
            return "route '\(route)' has no parameter '\(name)'; it takes \(list)"
        case let .invalidValue(route, name, value, reason):
            return "route '\(route)': parameter '\(name)' cannot be '\(value)': \(reason)"
        case let .noScheme(site):
            return "no app of site '\(site)' registers a custom URL scheme; add 'schemes' to an app, or build the https link"
        }
    }
}

extension RouteTable {
    /// Builds a link to a route: the canonical `https` URL (on the site's first exact domain), or a
    /// custom-scheme URL. Values are percent-encoded; ``resolve(_:)`` of the result gives the same
    /// route and parameters back.
    ///
    /// Without `site`, the first site that has a route named `route` is used, so it may be
    /// omitted when the config has one site or the route name is unique.
    ///
    /// ```swift
    /// try table.build(route: "issue", parameters: ["id": "45"])                        // "https://ioscoffeebreak.com/issue?id=45"
    /// try table.build(route: "issue", parameters: ["id": "45"], form: .customScheme(nil)) // "ioscoffeebreakapp://issue?id=45"
    /// ```
    /// - Throws: ``LinkBuildError`` naming the unknown site or route, or the parameter that is
    ///   missing, unknown or not allowed.
    public func build(
        site siteName: String? = nil, route: String, parameters: [String: String], form: LinkForm = .https
    ) throws(LinkBuildError) -> String {
        let site: CompiledSite
        if let siteName {
            guard let s = self.site(named: siteName) else { throw .unknownSite(siteName, known: sites.map(\.name)) }
            site = s
        } else if let s = sites.first(where: { $0.entry(named: route) != nil }) {
            site = s
        } else {
            throw .unknownRoute(route, site: sites.first?.name ?? "-", known: sites.flatMap { $0.routes.compactMap(\.route?.name) })
        }
        guard let entry = site.entry(named: route), let config = entry.route else {
            throw .unknownRoute(route, site: site.name, known: site.routes.compactMap(\.route?.name))
        }
        let (path, query, fragment) = try RouteTable.encode(entry: entry, route: config, parameters: parameters)
        var tail = path
        if !query.isEmpty { tail += "?" + query }
        if let fragment { tail += "#" + fragment }
        switch form {
        case .https:
            return "https://\(site.canonicalHost)\(tail)"
        case let .customScheme(requested):
            guard let scheme = requested ?? RouteTable.preferredScheme(site: site, entry: entry) else { throw .noScheme(site: site.name) }
            // `scheme://post/42`: the first path segment takes the host's place, as apps expect
            // (`ioscoffeebreakapp://issue?id=45`); the root path is `scheme://`.
            let firstSegment = path.dropFirst().prefix { $0 != "/" }.lowercased()
            if !firstSegment.isEmpty, site.serves(host: firstSegment) {
                // The first segment would read as the host: spell the host out instead.
                return "\(scheme)://\(site.canonicalHost)\(tail)"
            }
            return "\(scheme)://\(tail.dropFirst())"
        }
    }

    /// The https link of a route with its sample parameters, on its own site's host (what
    /// `build(site:route:parameters:)` returns for it, without looking the site up by name).
    static func exampleURL(site: CompiledSite, entry: CompiledEntry) throws(LinkBuildError) -> String? {
        guard let config = entry.route else { return nil }
        let (path, query, fragment) = try RouteTable.encode(entry: entry, route: config, parameters: entry.sampleParameters())
        var tail = path
        if !query.isEmpty { tail += "?" + query }
        if let fragment { tail += "#" + fragment }
        return "https://\(site.canonicalHost)\(tail)"
    }

    static func preferredScheme(site: CompiledSite, entry: CompiledEntry) -> String? {
        for app in site.iosApps where entry.iosAppIDs.contains(app.appID) { if let s = app.schemes?.first { return s } }
        for app in site.androidApps where entry.androidPackages.contains(app.package) { if let s = app.schemes?.first { return s } }
        return nil
    }

    /// Encoded path, query text and fragment of a route with its parameters.
    static func encode(entry: CompiledEntry, route: RouteConfig, parameters: [String: String]) throws(LinkBuildError) -> (String, String, String?) {
        let accepted = entry.pattern.parameterNames + entry.requiredQuery + entry.optionalQuery + (route.fragment.map { [$0] } ?? [])
        for name in parameters.keys.sorted() where !accepted.contains(name) {
            throw .unknownParameter(route: route.name, name: name, accepted: accepted)
        }
        var path = ""
        for seg in entry.pattern.segments {
            switch seg {
            case let .literal(l):
                path += "/" + l
            case let .param(name, prefix, suffix, oneOf):
                guard let value = parameters[name] else { throw .missingParameter(route: route.name, name: name) }
                guard !value.isEmpty else {
                    throw .invalidValue(route: route.name, name: name, value: value, reason: "a path parameter needs at least one character")
                }
                if let oneOf, !oneOf.contains(value) {
                    throw .invalidValue(
                        route: route.name, name: name, value: value,
                        reason: "it must be one of \(oneOf.map { "'\($0)'" }.joined(separator: ", "))")
                }
                path += "/" + prefix + PercentEncoding.encodeComponent(value) + suffix
            case let .rest(name):
                let value = parameters[name] ?? ""
                if value.isEmpty { break }
                let parts = value.split(separator: "/", omittingEmptySubsequences: false)
                if parts.contains(where: \.isEmpty) {
                    throw .invalidValue(
                        route: route.name, name: name, value: value,
                        reason: "a rest parameter is '/'-separated segments, none of them empty")
                }
                path += "/" + parts.map { PercentEncoding.encodeComponent(String($0)) }.joined(separator: "/")
            }
        }
        if path.isEmpty { path = "/" }
        var items: [String] = []
        for name in entry.requiredQuery {
            guard let value = parameters[name] else { throw .missingParameter(route: route.name, name: name) }
            guard !value.isEmpty else {
                throw .invalidValue(route: route.name, name: name, value: value, reason: "a required query parameter cannot be empty")
            }
            items.append(PercentEncoding.encodeComponent(name) + "=" + PercentEncoding.encodeComponent(value))
        }
        for name in entry.optionalQuery {
            if let value = parameters[name] {
                items.append(PercentEncoding.encodeComponent(name) + "=" + PercentEncoding.encodeComponent(value))
            }
        }
        let fragment = route.fragment.flatMap { parameters[$0] }.map(PercentEncoding.encodeComponent)
        return (path, items.joined(separator: "&"), fragment)
    }
}
