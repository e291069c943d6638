// The generated Swift's resolver: any incoming link (route link, short link, FDL long link,
// custom scheme) to the typed route. Routes are read offline by the route table; a short or long
// link of the site, which only the server can read, is resolved with one request to its
// `/.well-known/linkwell/resolve` endpoint (URLSession; FoundationNetworking on Linux).

import LinkRouting

extension SwiftGenerator {
    /// The table's short-link facts and the offline decision "this link needs the server".
    static func shortLinkTableSource(_ m: SiteModel) -> String {
        let short = m.site.config.shortLinks
        var o = "\n    // MARK: Short and long links (`shortLinks`)\n\n"
        o += "    /// Where the codes start (`shortLinks.prefix`).\n"
        o += "    static let linkPrefix = \(literal(short?.effectivePrefix ?? "/"))\n"
        o += "    /// `shortLinks.openApp`: the association files claim the short links, so the app gets them.\n"
        o += "    static let claimsShortLinks = \(short?.claimsShortLinks == true)\n"
        o += "    /// `shortLinks.linkDomain`: every path but the reserved ones is a link.\n"
        o += "    static let linkDomain = \(short?.claimsWholeDomain == true)\n"
        o += #"""

            /// True for a link of this site that no route reads but the server may: an FDL long link
            /// (`{prefix}?link=…`) or, where the site claims them, a short link.
            static func needsServer(_ text: String) -> Bool {
                guard let parts = URLParts(browserNormalized(text)), parts.scheme == "https" || parts.scheme == "http",
                      ownsHost(parts.host) else { return false }
                let path = parts.path
                let bare = linkPrefix == "/" ? "/" : String(linkPrefix.dropLast())
                if path == linkPrefix || path == bare, let q = parts.query, queryItems(q).contains(where: { decode($0.name) == "link" }) {
                    return true
                }
                guard claimsShortLinks else { return false }
                if linkDomain {
                    func under(_ dir: String) -> Bool { path == dir || path.hasPrefix(dir + "/") }
                    return !(under("/.well-known") || under("/static") || under("/apple-app-site-association"))
                }
                guard path.hasPrefix(linkPrefix) else { return false }
                var code = path.dropFirst(linkPrefix.count)
                if code.hasSuffix("/") { code = code.dropLast() }
                return !code.isEmpty && !code.contains("/")
            }

        """#
        return o
    }

    /// The public resolver: `incoming(_:)` offline, `resolve(_:)` with one request for the rest.
    static func resolverSource(_ m: SiteModel, table: String) -> String {
        let t = m.typeName
        return """
            // MARK: - Incoming links: routes offline, short and long links through the server

            extension \(t) {
                /// What an incoming link is, decided offline.
                public enum Incoming: Hashable, Sendable {
                    /// A route link or custom-scheme link: show the route.
                    case route(\(t))
                    /// A short link or FDL long link of this site: only the server knows its route; call
                    /// `\(t).resolve(_:)` (one HTTPS request).
                    case resolveOnServer(URL)
                    /// Not a link this app handles: open it in the browser.
                    case openInBrowser(URL)
                }

                /// What `resolve(_:)` found.
                public enum Resolved: Hashable, Sendable {
                    /// Show the route; `campaign` holds the link's `utm_*` and App Store `at`, `ct`, `mt`, `pt` fields.
                    case route(\(t), campaign: [String: String])
                    /// An unknown, disabled or expired code, or a link to a web page: open this URL in the browser.
                    case openInBrowser(URL)
                }

                /// Why `resolve(_:)` has no answer; the link still works in the browser.
                public enum ResolveError: Error, Hashable, Sendable {
                    /// The server did not answer within the timeout.
                    case timedOut
                    /// No connection (offline, DNS, TLS): the system's message.
                    case network(String)
                    /// The server answered something other than the resolve endpoint's JSON (status code).
                    case badResponse(status: Int)
                }

                /// The site's resolve endpoint.
                public static let resolveEndpoint = URL(string: \(literal("https://\(m.site.canonicalHost)/.well-known/linkwell/resolve")))!

                /// Decides offline what `url` is: a route, a link only the server can read, or neither.
                public static func incoming(_ url: URL) -> Incoming {
                    if let route = \(t)(url: url) { return .route(route) }
                    if \(table).needsServer(url.absoluteString) { return .resolveOnServer(url) }
                    return .openInBrowser(url)
                }

                /// Any incoming link to its route: a route link offline (no request), a short or long link with
                /// one request to `endpoint`. `completion` runs on a background queue.
                public static func resolve(
                    _ url: URL, endpoint: URL = resolveEndpoint, timeout: TimeInterval = 10,
                    completion: @escaping @Sendable (Result<Resolved, ResolveError>) -> Void
                ) {
                    switch incoming(url) {
                    case let .route(route): return completion(.success(.route(route, campaign: [:])))
                    case .openInBrowser: return completion(.success(.openInBrowser(url)))
                    case .resolveOnServer: break
                    }
                    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
                    let query = "link=" + (url.absoluteString.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
                    guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
                        return completion(.failure(.badResponse(status: 0)))
                    }
                    components.percentEncodedQuery = query
                    guard let requestURL = components.url else { return completion(.failure(.badResponse(status: 0))) }
                    var request = URLRequest(url: requestURL, cachePolicy: .useProtocolCachePolicy, timeoutInterval: timeout)
                    request.setValue("application/json", forHTTPHeaderField: "Accept")
                    let configuration = URLSessionConfiguration.ephemeral
                    configuration.timeoutIntervalForRequest = timeout
                    configuration.timeoutIntervalForResource = timeout
                    let session = URLSession(configuration: configuration)
                    session.dataTask(with: request) { data, response, error in
                        session.finishTasksAndInvalidate()
                        completion(answer(url, data: data, response: response, error: error))
                    }.resume()
                }

                /// `resolve(_:endpoint:timeout:completion:)` for async code.
                @available(iOS 13.0, macOS 10.15, *)
                public static func resolve(_ url: URL, endpoint: URL = resolveEndpoint, timeout: TimeInterval = 10) async throws -> Resolved {
                    try await withCheckedThrowingContinuation { continuation in
                        resolve(url, endpoint: endpoint, timeout: timeout) { continuation.resume(with: $0) }
                    }
                }

                private static func answer(_ url: URL, data: Data?, response: URLResponse?, error: Error?) -> Result<Resolved, ResolveError> {
                    if let error = error as? URLError {
                        return .failure(error.code == .timedOut ? .timedOut : .network(error.localizedDescription))
                    }
                    if let error { return .failure(.network(error.localizedDescription)) }
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    if status == 404 { return .success(.openInBrowser(url)) }
                    guard status == 200, let data, let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                          let link = object["url"] as? String else { return .failure(.badResponse(status: status)) }
                    var campaign: [String: String] = [:]
                    for (key, value) in object where !["url", "site", "route", "parameters"].contains(key) {
                        if let text = value as? String { campaign[key] = text }
                    }
                    if let name = object["route"] as? String, let parameters = object["parameters"] as? [String: String],
                       let route = \(t)(routeName: name, parameters: parameters) {
                        return .success(.route(route, campaign: campaign))
                    }
                    return .success(.openInBrowser(URL(string: link) ?? url))
                }
            }


            """
    }
}
