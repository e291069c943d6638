// Resolution over the URL's bytes: the URL is split into byte ranges (no `String` per part), the
// path's segments and the trie's candidates live in stack buffers sized before the walk, hosts
// and literal segments are found in open-addressing byte tables, and parameters are decoded only
// for the route that is returned. Text is compared as `String` compares it (canonical
// equivalence) wherever bytes could disagree with that: a byte mismatch involving non-ASCII text
// falls back to the `String` comparison, so the results are those of the string-based parser.

extension RouteTable {
    /// ``resolve(_:)`` on the URL's bytes, browser-normalised.
    func resolve(normalized b: Bytes, original url: String) -> LinkResolution {
        guard let u = RawURL(b) else { return .unsupported("'\(url)' is not an absolute URL") }
        let scheme = b.slice(u.scheme)
        if ByteText.equalsLowercased(scheme, "https") || ByteText.equalsLowercased(scheme, "http") {
            let host = b.slice(u.host)
            let s: Int
            if let i = hostTable.find(parent: 0, host, lowercasing: true) {
                s = i
            } else {
                let h = ByteText.lowercasedString(host)
                guard let site = site(forHost: h, fallbackToDefault: false) else { return .unknownHost(h) }
                s = site.index
            }
            return resolvers[s].resolve(path: b.slice(u.path), query: u.query.map(b.slice), fragment: u.fragment.map(b.slice), restrictTo: nil)
        }
        let schemeText = ByteText.lowercasedString(scheme)
        guard let s = schemeIndex[schemeText] else {
            return .unsupported("'\(schemeText)' is neither https nor a custom scheme of any configured app")
        }
        let site = sites[s]
        var path = RouteTable.customSchemePath(url: url, scheme: schemeText, site: site)
        let apps = site.schemes[schemeText] ?? ([], [])
        return path.withUTF8 { p in
            site.resolver.resolve(path: p, query: u.query.map(b.slice), fragment: u.fragment.map(b.slice), restrictTo: apps)
        }
    }
}
