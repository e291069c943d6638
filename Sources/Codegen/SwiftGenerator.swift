// The Swift target: one self-contained file per site, an enum of the routes that parses and
// builds links exactly as the server's RouteTable does. It uses Foundation's `URL` and nothing
// else, so it drops into an iOS 15+ app (or any Swift 5.7+ package) without Linkwell.

import LinkRouting

enum SwiftGenerator {
    /// A Swift string literal.
    static func literal(_ s: String) -> String {
        StringLiteral.quoted(s) { "\\u{\(String($0, radix: 16, uppercase: true))}" }
    }

    static func list(_ items: [String]) -> String { "[" + items.map(literal).joined(separator: ", ") + "]" }

    static func mask(_ m: UInt64) -> String { "0b" + String(m, radix: 2) }

    static func type(of p: SiteModel.Param, route: SiteModel.Route, model: SiteModel) -> String {
        let base = p.enumName.map { "\(model.typeName).\($0)" } ?? "String"
        return p.isOptional ? base + "?" : base
    }

    static func file(_ m: SiteModel, header: [String]) -> String {
        let t = m.typeName
        let table = "\(t)Table"
        var o = header.map { "// " + $0 }.joined(separator: "\n") + "\n\nimport Foundation\n#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n\n"
        o += """
            /// The links of site '\(m.site.name)': \(m.linkForms).
            ///
            /// `init?(url:)` follows the server's route table exactly: entries in config order, the first that
            /// matches decides, an exclusion yields nil, values are percent-decoded. `url` builds the canonical
            /// https link, `schemeURL` the custom-scheme one; `init?(url: route.url) == route`.
            public enum \(t): Hashable, Sendable {

            """
        for r in m.routes {
            o += "    /// `\(r.display)` (routes[\(r.entry.index)])"
            if let c = r.config.comment { o += ": \(c)" }
            o += "\n"
            let args = r.params.map { "\($0.identifier): \(type(of: $0, route: r, model: m))" }
            o += "    case \(r.swiftCase)" + (args.isEmpty ? "" : "(" + args.joined(separator: ", ") + ")") + "\n"
        }
        for r in m.routes {
            for p in r.params {
                guard let oneOf = p.oneOf, let e = p.enumName else { continue }
                o += "\n    /// The values `{\(p.name)}` of route '\(r.config.name)' takes.\n"
                o += "    public enum \(e): String, Hashable, Sendable, CaseIterable {\n"
                for v in oneOf { o += "        case \(v.swiftCase) = \(literal(v.value))\n" }
                o += "    }\n"
            }
        }
        o += """

                /// Parses a universal link (`https` on the site's domains) or a custom-scheme link; nil when no
                /// route matches or an exclusion applies.
                public init?(url: URL) {
                    self.init(string: Self.linkText(url))
                }

                /// The text a URL was made from. `URL(string:)` percent-encodes a whole part of it (path,
                /// query or fragment), its '%' signs included, when that part has a raw non-ASCII character
                /// or space (iOS 17+): "/caf%C3%A9/é" becomes "/caf%25C3%25A9/%C3%A9". Such a part is read
                /// with that layer decoded, when the text makes the same URL again.
                private static func linkText(_ url: URL) -> String {
                    let text = url.absoluteString
                    guard text.contains("%25") else { return text }
                    let hash = text.firstIndex(of: "#") ?? text.endIndex
                    let question = text[..<hash].firstIndex(of: "?") ?? hash
                    var parts = [String(text[..<question]), String(text[question..<hash]), String(text[hash...])]
                    for i in parts.indices where parts[i].contains("%25") {
                        guard let decoded = parts[i].removingPercentEncoding,
                            decoded.unicodeScalars.contains(where: { !$0.isASCII || $0 == " " })
                        else { continue }
                        var candidate = parts
                        candidate[i] = decoded
                        if URL(string: candidate.joined())?.absoluteString == text { parts = candidate }
                    }
                    return parts.joined()
                }

                /// Parses link text as a browser or a push payload has it (raw spaces and non-ASCII allowed).
                public init?(string: String) {
                    guard let m = \(table).resolve(string) else { return nil }
                    self.init(unchecked: m.route, m.parameters)
                }

                /// A route from its name and decoded parameters (a push payload, a Flutter method channel).
                /// nil when the route is unknown or a value could not be built, exactly as `linkwell link` refuses it.
                public init?(routeName: String, parameters: [String: String]) {
                    guard \(table).link(routeName, parameters, scheme: false) != nil else { return nil }
                    self.init(unchecked: routeName, parameters)
                }

                private init?(unchecked routeName: String, _ p: [String: String]) {
                    switch routeName {

            """
        for r in m.routes {
            o += "        case \(literal(r.config.name)):\n"
            var args: [String] = []
            for p in r.params {
                let get = "p[\(literal(p.name))]"
                let value = p.enumName.map { "\(get).flatMap(\($0).init(rawValue:))" } ?? get
                if p.isOptional {
                    args.append("\(p.identifier): \(value)")
                } else if p.kind == .rest {
                    // As the server's builder: an absent rest parameter is the empty rest.
                    args.append("\(p.identifier): \(get) ?? \"\"")
                } else {
                    o += "            guard let \(p.identifier) = \(value) else { return nil }\n"
                    args.append("\(p.identifier): \(p.identifier)")
                }
            }
            o += "            self = .\(r.swiftCase)" + (args.isEmpty ? "" : "(" + args.joined(separator: ", ") + ")") + "\n"
        }
        o += "        default:\n            return nil\n        }\n    }\n\n"
        o += "    /// The route's name in the config.\n    public var routeName: String {\n        switch self {\n"
        for r in m.routes { o += "        case .\(r.swiftCase): return \(literal(r.config.name))\n" }
        o += "        }\n    }\n\n"
        o += "    /// Decoded values by parameter name, as the server's parser reports them.\n"
        o += "    public var parameters: [String: String] {\n        switch self {\n"
        for r in m.routes {
            if r.params.isEmpty {
                o += "        case .\(r.swiftCase):\n            return [:]\n"
                continue
            }
            o += "        case let .\(r.swiftCase)(" + r.params.map(\.identifier).joined(separator: ", ") + "):\n"
            let required = r.params.filter { !$0.isOptional }
            let optional = r.params.filter(\.isOptional)
            func value(_ p: SiteModel.Param) -> String { p.enumName == nil ? p.identifier : "\(p.identifier).rawValue" }
            let dict = required.isEmpty ? "[:]" : "[" + required.map { "\(literal($0.name)): \(value($0))" }.joined(separator: ", ") + "]"
            if optional.isEmpty {
                o += "            return \(dict)\n"
            } else {
                o += "            var p: [String: String] = \(dict)\n"
                for p in optional { o += "            if let \(p.identifier) { p[\(literal(p.name))] = \(value(p)) }\n" }
                o += "            return p\n"
            }
        }
        o += "        }\n    }\n\n"
        o += """
                /// The canonical https link (`https://\(m.site.canonicalHost)/…`), values percent-encoded. A path value
                /// that is empty (or a rest value with an empty segment) yields a link no route accepts.
                public var url: URL {
                    URL(string: \(table).build(routeName, parameters, scheme: false, check: false) ?? "https://\(m.site.canonicalHost)/")!
                }

                /// The custom-scheme link (`scheme://…`) when an app of the route registers a scheme.
                public var schemeURL: URL? {
                    \(table).build(routeName, parameters, scheme: true, check: false).flatMap { URL(string: $0) }
                }
            }


            """
        o += resolverSource(m, table: table)
        o += firstLaunchSource(m)
        o += tableSource(m, name: table)
        return o
    }

    static func segment(_ s: PathSegment) -> String {
        switch s {
        case let .literal(l): return ".literal(\(literal(l)))"
        case let .param(name, prefix, suffix, oneOf):
            return ".param(\(literal(name)), prefix: \(literal(prefix)), suffix: \(literal(suffix)), oneOf: \(oneOf.map(list) ?? "nil"))"
        case let .rest(name): return ".rest(\(literal(name)))"
        }
    }

    static func tableSource(_ m: SiteModel, name: String) -> String {
        var o = "// MARK: - The route table of site '\(m.site.name)' and the server's matching rules (generated)\n\n"
        o += "private enum \(name) {\n"
        o += "    /// Bit i of an app mask: " + m.apps.enumerated().map { "\($0.offset) \($0.element)" }.joined(separator: ", ") + ".\n"
        o += "    static let allApps: UInt64 = \(mask(m.allMask))\n"
        o += "    static let canonicalHost = \(literal(m.site.canonicalHost))\n"
        o += "    /// Every exact domain of the config: true when this site serves it (the first site listing a domain owns it).\n"
        o += "    static let hosts: [String: Bool] = [" + (m.hostOwners.isEmpty ? ":" : m.hostOwners.map { "\(literal($0.host)): \($0.mine)" }.joined(separator: ", ")) + "]\n"
        o += "    /// Every wildcard domain of the config (`.example.com` for `*.example.com`), longest first.\n"
        o += "    static let wildcards: [(suffix: String, mine: Bool)] = [" + m.wildcards.map { "(\(literal($0.suffix)), \($0.mine))" }.joined(separator: ", ") + "]\n"
        o += "    static let ownDomains: [String] = \(list(m.site.exactDomains))\n"
        o += "    static let ownWildcards: [String] = \(list(m.site.wildcardSuffixes))\n"
        o += "    /// Custom schemes of this site's apps → the apps that registered them.\n"
        o += "    static let schemes: [String: UInt64] = [" + (m.schemes.isEmpty ? ":" : m.schemes.map { "\(literal($0.scheme)): \(mask($0.mask))" }.joined(separator: ", ")) + "]\n"
        o += "    /// Routes and exclusions in priority order (the config's `routes`).\n"
        o += "    static let entries: [Entry] = [\n"
        for e in m.entries {
            let ce = e.entry
            let route = ce.route.map { literal($0.name) } ?? "nil"
            let fragment = (ce.route?.fragment ?? ce.exclusion?.fragment).map(literal) ?? "nil"
            let scheme = ce.route != nil ? (SiteModel.preferredScheme(site: m.site, entry: ce).map(literal) ?? "nil") : "nil"
            o += "        // routes[\(ce.index)]: " + (ce.route.map { "route '\($0.name)' " } ?? "exclusion ") + ce.pattern.display + "\n"
            o += "        Entry(route: \(route), path: [" + ce.pattern.segments.map(segment).joined(separator: ", ") + "], "
            o += "requiredQuery: \(list(ce.requiredQuery)), optionalQuery: \(list(ce.optionalQuery)), fragment: \(fragment), apps: \(mask(e.mask)), scheme: \(scheme)),\n"
        }
        o += "    ]\n"
        return o + swiftEngine + shortLinkTableSource(m) + "}\n"
    }

    /// The matching and building rules of LinkRouting (RouteTable.resolve, URLParts,
    /// PercentEncoding, RouteTable.build), written once for every generated file.
    static let swiftEngine = #"""

            enum Segment: Sendable {
                case literal(String)
                case param(String, prefix: String, suffix: String, oneOf: [String]?)
                case rest(String)
            }

            struct Entry: Sendable {
                /// nil for an exclusion.
                var route: String?
                var path: [Segment]
                var requiredQuery: [String]
                var optionalQuery: [String]
                /// A route's fragment parameter; the fragment an exclusion requires.
                var fragment: String?
                var apps: UInt64
                /// The custom scheme its links use.
                var scheme: String?
            }

            // MARK: Parsing

            static func resolve(_ text: String) -> (route: String, parameters: [String: String])? {
                let normalized = browserNormalized(text)
                guard let parts = URLParts(normalized) else { return nil }
                if parts.scheme == "https" || parts.scheme == "http" {
                    guard ownsHost(parts.host) else { return nil }
                    return resolve(path: parts.path, query: parts.query, fragment: parts.fragment, allowed: allApps)
                }
                guard let allowed = schemes[parts.scheme] else { return nil }
                let path = customSchemePath(normalized, scheme: parts.scheme)
                return resolve(path: path, query: parts.query, fragment: parts.fragment, allowed: allowed)
            }

            static func resolve(path: String, query: String?, fragment: String?, allowed: UInt64) -> (route: String, parameters: [String: String])? {
                let segs = segments(rawPunctuationEncoded(path))
                var excluded: UInt64 = 0
                let items = query.map(queryItems) ?? []
                for entry in entries {
                    guard var params = bind(entry.path, segs) else { continue }
                    guard let route = entry.route else {
                        if let f = entry.fragment, f != fragment { continue }
                        excluded |= entry.apps
                        if allowed & ~excluded == 0 { return nil }
                        continue
                    }
                    var ok = true
                    for name in entry.requiredQuery where ok {
                        var found = false
                        for item in items where item.name == name || (item.name.contains("%") && decode(item.name) == name) {
                            guard let v = item.value, !v.isEmpty else {
                                ok = false
                                break
                            }
                            if !found { params[name] = decode(v) }
                            found = true
                        }
                        if !found { ok = false }
                    }
                    guard ok else { continue }
                    for name in entry.optionalQuery {
                        if let item = items.first(where: { $0.name == name || ($0.name.contains("%") && decode($0.name) == name) }) {
                            params[name] = item.value.map(decode) ?? ""
                        }
                    }
                    if let f = entry.fragment, let fragment { params[f] = decode(fragment) }
                    if entry.apps & ~excluded & allowed == 0 {
                        if excluded != 0 { return nil }
                        continue
                    }
                    return (route, params)
                }
                return nil
            }

            static func bind(_ pattern: [Segment], _ segs: [Substring]) -> [String: String]? {
                var params: [String: String] = [:]
                for (i, seg) in pattern.enumerated() {
                    switch seg {
                    case let .literal(l):
                        guard i < segs.count, segs[i] == l else { return nil }
                    case let .param(name, prefix, suffix, oneOf):
                        guard i < segs.count, let raw = paramValue(segs[i], prefix: prefix, suffix: suffix) else { return nil }
                        var value = decode(raw)
                        if let oneOf {
                            guard let listed = oneOf.first(where: { $0 == value }) else { return nil }
                            value = listed
                        }
                        params[name] = value
                    case let .rest(name):
                        let tail = segs.count > i ? segs[i...].joined(separator: "/") : ""
                        if name != "*" { params[name] = decode(tail) }
                        return params
                    }
                }
                return segs.count == pattern.count ? params : nil
            }

            static func paramValue(_ segment: Substring, prefix: String, suffix: String) -> Substring? {
                let u = segment.utf8
                guard u.count > prefix.utf8.count + suffix.utf8.count else { return nil }
                guard u.starts(with: prefix.utf8), u.reversed().starts(with: suffix.utf8.reversed()) else { return nil }
                let from = u.index(u.startIndex, offsetBy: prefix.utf8.count)
                let to = u.index(u.endIndex, offsetBy: -suffix.utf8.count)
                return segment[from..<to]
            }

            /// Raw segments; one leading and one trailing '/' are insignificant.
            static func segments(_ path: String) -> [Substring] {
                var body = Substring(path)
                if body.hasPrefix("/") { body = body.dropFirst() }
                if body.hasSuffix("/") { body = body.dropLast() }
                if body.isEmpty { return [] }
                return body.split(separator: "/", omittingEmptySubsequences: false)
            }

            static func queryItems(_ query: String) -> [(name: Substring, value: Substring?)] {
                query.split(separator: "&").map { part in
                    guard let eq = part.firstIndex(of: "=") else { return (part, nil) }
                    return (part[..<eq], part[part.index(after: eq)...])
                }
            }

            static func ownsHost(_ raw: String) -> Bool {
                if let mine = hosts[raw] { return mine }
                var host = Substring(raw)
                if host.hasPrefix("[") {
                    if let close = host.firstIndex(of: "]") { host = host[...close] }
                } else if let colon = host.lastIndex(of: ":") {
                    host = host[..<colon]
                }
                if host.hasSuffix(".") { host = host.dropLast() }
                let h = host.lowercased()
                if let mine = hosts[h] { return mine }
                for w in wildcards where h.utf8.count > w.suffix.utf8.count && h.hasSuffix(w.suffix) { return w.mine }
                for w in wildcards where h.utf8.count == w.suffix.utf8.count - 1 && h == String(w.suffix.dropFirst()) { return w.mine }
                return false
            }

            static func serves(_ host: String) -> Bool {
                ownDomains.contains(host) || ownWildcards.contains { host.hasSuffix($0) && host.utf8.count > $0.utf8.count }
            }

            /// `scheme://X/rest`: when X is one of the site's domains the path is `/rest`, otherwise `/X/rest`.
            static func customSchemePath(_ normalized: String, scheme: String) -> String {
                var rest = Substring(normalized).dropFirst(scheme.utf8.count + 1)
                if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
                guard rest.hasPrefix("//") else { return rest.hasPrefix("/") ? String(rest) : "/" + rest }
                rest = rest.dropFirst(2)
                let slash = rest.firstIndex(of: "/") ?? rest.endIndex
                let first = rest[..<slash]
                let tail = rest[slash...]
                var host = first.lowercased()
                if let colon = host.lastIndex(of: ":"), Int(host[host.index(after: colon)...]) != nil { host = String(host[..<colon]) }
                if first.isEmpty || serves(host) { return tail.isEmpty ? "/" : String(tail) }
                return "/" + first + tail
            }

            /// scheme, host, path, query, fragment as written (nothing decoded), as the server splits them.
            struct URLParts {
                var scheme: String
                var host: String
                var path: String
                var query: String?
                var fragment: String?

                init?(_ text: String) {
                    let bytes = Array(text.utf8)
                    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
                    let schemeBytes = bytes[..<colon]
                    func letter(_ b: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b | 0x20) }
                    guard let first = schemeBytes.first, letter(first), schemeBytes.allSatisfy({ b in
                        letter(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
                    }) else { return nil }
                    scheme = String(decoding: schemeBytes, as: UTF8.self).lowercased()
                    var rest = bytes[(colon + 1)...]
                    fragment = nil
                    query = nil
                    if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
                        fragment = String(decoding: rest[(hash + 1)...], as: UTF8.self)
                        rest = rest[..<hash]
                    }
                    if let q = rest.firstIndex(of: UInt8(ascii: "?")) {
                        query = String(decoding: rest[(q + 1)...], as: UTF8.self)
                        rest = rest[..<q]
                    }
                    guard rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) else {
                        host = ""
                        path = String(decoding: rest, as: UTF8.self)
                        return
                    }
                    rest = rest.dropFirst(2)
                    let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
                    var authority = rest[..<slash]
                    if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
                    var hostBytes = authority
                    if authority.first == UInt8(ascii: "[") {
                        guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
                        hostBytes = authority[authority.startIndex...close]
                    } else if let c = authority.lastIndex(of: UInt8(ascii: ":")) {
                        hostBytes = authority[..<c]
                        let portText = String(decoding: authority[(c + 1)...], as: UTF8.self)
                        if !portText.isEmpty {
                            guard let p = Int(portText), (0...65535).contains(p) else { return nil }
                        }
                    }
                    var h = String(decoding: hostBytes, as: UTF8.self).lowercased()
                    if h.hasSuffix(".") { h.removeLast() }
                    host = h
                    path = String(decoding: rest[slash...], as: UTF8.self)
                }
            }

            // MARK: Percent-encoding

            static let hex = Array("0123456789ABCDEF".utf8)

            /// `|`, `^`, `[`, `]` percent-encoded in a path: literals hold them encoded, browsers send them raw.
            static func rawPunctuationEncoded(_ path: String) -> String {
                var out: [UInt8] = []
                for b in path.utf8 {
                    if b == UInt8(ascii: "|") || b == UInt8(ascii: "^") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]") {
                        out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
                    } else {
                        out.append(b)
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }

            /// Raw non-ASCII bytes, controls, space, `"`, `<`, `>`, backtick and braces percent-encoded, as a browser sends them.
            static func browserNormalized(_ s: String) -> String {
                var out: [UInt8] = []
                for b in s.utf8 {
                    if b >= 0x80 || b <= 0x20 || b == 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
                        || b == UInt8(ascii: "`") || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") {
                        out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
                    } else {
                        out.append(b)
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }

            static func hexValue(_ b: UInt8) -> UInt8? {
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
                default: return nil
                }
            }

            /// `%XX` decoded; a lone `%` stays; `+` stays; invalid UTF-8 becomes U+FFFD.
            static func decode<S: StringProtocol>(_ s: S) -> String {
                let u = Array(s.utf8)
                var out: [UInt8] = []
                var i = 0
                while i < u.count {
                    if u[i] == UInt8(ascii: "%"), i + 2 < u.count, let hi = hexValue(u[i + 1]), let lo = hexValue(u[i + 2]) {
                        out.append(hi << 4 | lo)
                        i += 3
                    } else {
                        out.append(u[i])
                        i += 1
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }

            static func encode(_ s: String) -> String {
                if s == "." { return "%2E" }
                if s == ".." { return "%2E%2E" }
                var out: [UInt8] = []
                for b in s.utf8 {
                    switch b {
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                        out.append(b)
                    default:
                        out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }

            // MARK: Building

            /// The link text, or nil when `linkwell link` would refuse the values.
            static func link(_ route: String, _ params: [String: String], scheme: Bool) -> String? {
                build(route, params, scheme: scheme, check: true)
            }

            static func build(_ route: String, _ params: [String: String], scheme useScheme: Bool, check: Bool) -> String? {
                guard let entry = entries.first(where: { $0.route == route }) else { return nil }
                var accepted: [String] = entry.requiredQuery + entry.optionalQuery + (entry.fragment.map { [$0] } ?? [])
                for seg in entry.path {
                    if case let .param(name, _, _, _) = seg { accepted.append(name) }
                    if case let .rest(name) = seg { accepted.append(name) }
                }
                if check, params.keys.contains(where: { !accepted.contains($0) }) { return nil }
                var path = ""
                for seg in entry.path {
                    switch seg {
                    case let .literal(l):
                        path += "/" + l
                    case let .param(name, prefix, suffix, oneOf):
                        guard let value = params[name] else { return nil }
                        if check, value.isEmpty { return nil }
                        if check, let oneOf, !oneOf.contains(value) { return nil }
                        path += "/" + prefix + encode(value) + suffix
                    case let .rest(name):
                        let value = params[name] ?? ""
                        if value.isEmpty { break }
                        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
                        if check, parts.contains(where: \.isEmpty) { return nil }
                        path += "/" + parts.map { encode(String($0)) }.joined(separator: "/")
                    }
                }
                if path.isEmpty { path = "/" }
                var items: [String] = []
                for name in entry.requiredQuery {
                    guard let value = params[name] else { return nil }
                    if check, value.isEmpty { return nil }
                    items.append(encode(name) + "=" + encode(value))
                }
                for name in entry.optionalQuery {
                    if let value = params[name] { items.append(encode(name) + "=" + encode(value)) }
                }
                var tail = path
                if !items.isEmpty { tail += "?" + items.joined(separator: "&") }
                if let f = entry.fragment, let value = params[f] { tail += "#" + encode(value) }
                guard useScheme else { return "https://" + canonicalHost + tail }
                guard let scheme = entry.scheme else { return nil }
                let firstSegment = path.dropFirst().prefix { $0 != "/" }.lowercased()
                if !firstSegment.isEmpty, serves(firstSegment) { return scheme + "://" + canonicalHost + tail }
                return scheme + "://" + tail.dropFirst()
            }

        """#
}
