// Example URLs drawn from a route: the ones it must accept and near misses it must not.
// Validation uses them for its example URLs, `check` for its explanations, and the invariant
// property test to compare the parser with the platform matchers.

extension CompiledEntry {
    /// Parameter values that fit the route: `oneOf` values, plain tokens, the given extra text.
    public func sampleParameters(variant: Int = 0) -> [String: String] {
        let tokens = ["a1", "Zed-42", "x_y.z~", "caf\u{E9} au lait", "50% off & more", "a?b#c=d+e", "日本語", "..", "p/q"]
        var params: [String: String] = [:]
        var k = variant
        for seg in pattern.segments {
            switch seg {
            case .literal: break
            case let .param(name, _, _, oneOf):
                if let oneOf, !oneOf.isEmpty {
                    params[name] = oneOf[k % oneOf.count]
                } else {
                    params[name] = tokens[k % tokens.count]
                }
                k += 1
            case let .rest(name):
                if name != "*" { params[name] = ["", "r1", "r1/r2", "deep/er/path"][k % 4] }
                k += 1
            }
        }
        for name in requiredQuery {
            params[name] = tokens[k % tokens.count]
            k += 1
        }
        return params
    }
}

extension RouteTable {
    /// Paths (encoded) for an entry: `accepted` the entry's pattern matches, `nearMisses` one
    /// edit away from it (a segment more or less, an empty segment, a changed literal, a
    /// trailing slash run).
    public static func samplePaths(for entry: CompiledEntry, variants: Int = 4) -> (accepted: [String], nearMisses: [String]) {
        var accepted: [String] = []
        var near: [String] = []
        for v in 0..<variants {
            let (path, parts, params) = samplePath(for: entry, variant: v)
            accepted.append(path)
            if v == 0 {
                accepted.append(path == "/" ? "/" : path + "/")
                if !entry.pattern.hasRest {
                    near.append(path == "/" ? "/extra" : path + "/extra")
                    near.append(path == "/" ? "/x/y" : path + "/x/y")
                }
                if !parts.isEmpty {
                    near.append("/" + parts.dropLast().joined(separator: "/"))
                    near.append("/" + parts.joined(separator: "//"))
                    near.append("/" + parts.map { $0.uppercased() == $0 ? $0.lowercased() : $0.uppercased() }.joined(separator: "/"))
                    near.append("/" + parts.joined(separator: "/") + "//")
                    near.append("/" + parts.joined(separator: "/") + "///")
                    near.append("//" + parts.joined(separator: "/"))
                    near.append(path + "%2Fx")  // an encoded '/' that Android reads as one more segment
                    if parts.count >= 2 {  // two segments joined by an encoded '/'
                        near.append("/" + (parts.dropLast(2) + [parts[parts.count - 2] + "%2F" + parts[parts.count - 1]]).joined(separator: "/"))
                        // a segment more after the first, behind an encoded '/' (another route's path on Android)
                        near.append("/" + ([parts[0] + "%2Fx"] + parts.dropFirst()).joined(separator: "/"))
                    }
                    if let dot = path.firstIndex(of: ".") {  // a literal '.' as another character
                        near.append(path[..<dot] + "x" + path[path.index(after: dot)...])
                    }
                    // A literal '?', '*' or '\' (which an Android rule cannot escape) as another character.
                    for escape in ["%3F", "%2A", "%5C"] {
                        if let r = path.range(of: escape, options: .caseInsensitive) { near.append(path.replacingCharacters(in: r, with: "x")) }
                    }
                    // The same text spelled differently: lower-case hex, a literal letter as `%XX`.
                    near.append("/" + parts.map(lowerHex).joined(separator: "/"))
                    for (i, seg) in entry.pattern.segments.enumerated() {
                        guard case let .literal(l) = seg, let spelled = encodeFirstLetter(l) else { continue }
                        var p = parts
                        p[i] = spelled
                        near.append("/" + p.joined(separator: "/"))
                    }
                    // The escapes decoded, as a person types it (`|` for `%7C`, raw Unicode).
                    if path.contains("%") { near.append(PercentEncoding.decode(path)) }
                } else {
                    // The root with a trailing slash run.
                    near += ["//", "///"]
                }
                for (i, seg) in entry.pattern.segments.enumerated() {
                    if case let .param(name, prefix, suffix, _) = seg {
                        var p = parts
                        p[i] = prefix + suffix  // empty value
                        near.append("/" + p.joined(separator: "/"))
                        p[i] = prefix + "a/b" + suffix  // a value spanning two segments
                        near.append("/" + p.joined(separator: "/"))
                        p[i] = prefix + "notlisted" + suffix
                        near.append("/" + p.joined(separator: "/"))
                        if let spelled = encodeFirstLetter(PercentEncoding.encodeComponent(params[name] ?? "v")) {
                            p[i] = prefix + spelled + suffix  // `%61rduino` for `arduino`
                            near.append("/" + p.joined(separator: "/"))
                        }
                        let value = PercentEncoding.encodeComponent(params[name] ?? "v")
                        if let spelled = encodeFirstLetter(suffix) {
                            p[i] = prefix + value + spelled  // `arduino.%68tml` for `arduino.html`
                            near.append("/" + p.joined(separator: "/"))
                        }
                        if let spelled = encodeFirstLetter(prefix) {
                            p[i] = spelled + value + suffix  // `%69tem-42` for `item-42`
                            near.append("/" + p.joined(separator: "/"))
                        }
                        p[i] = prefix + "p%2fq" + suffix  // an encoded '/', lower-case hex
                        near.append("/" + p.joined(separator: "/"))
                        p[i] = prefix + "caf\u{E9}" + suffix  // raw Unicode, as typed (browsers encode it)
                        near.append("/" + p.joined(separator: "/"))
                    }
                }
            }
        }
        return (accepted, near.filter { !accepted.contains($0) })
    }

    /// The `accepted` paths of ``samplePaths(for:variants:)``, without making the near misses.
    public static func acceptedSamplePaths(for entry: CompiledEntry, variants: Int = 4) -> [String] {
        var accepted: [String] = []
        for v in 0..<variants {
            let path = samplePath(for: entry, variant: v).path
            accepted.append(path)
            if v == 0 { accepted.append(path == "/" ? "/" : path + "/") }
        }
        return accepted
    }

    /// One accepted path of an entry (encoded), its segments and the parameters it was made from.
    static func samplePath(for entry: CompiledEntry, variant v: Int) -> (path: String, parts: [String], params: [String: String]) {
        let params = entry.sampleParameters(variant: v)
        var parts: [String] = []
        for seg in entry.pattern.segments {
            switch seg {
            case let .literal(l): parts.append(l)
            case let .param(name, prefix, suffix, _):
                parts.append(prefix + PercentEncoding.encodeComponent(params[name] ?? "v") + suffix)
            case let .rest(name):
                let value = params[name] ?? "r1/r2"
                if !value.isEmpty {
                    parts.append(contentsOf: value.split(separator: "/").map { PercentEncoding.encodeComponent(String($0)) })
                }
            }
        }
        return ("/" + parts.joined(separator: "/"), parts, params)
    }

    /// `%c3%a9` for `%C3%A9`: the same bytes, the hex in lower case.
    static func lowerHex(_ s: String) -> String {
        var out = ""
        var left = 0
        for c in s {
            if c == "%" {
                left = 2
                out.append(c)
            } else if left > 0 {
                left -= 1
                out += c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// `%70ost` for `post`: the first ASCII letter of a literal percent-encoded.
    static func encodeFirstLetter(_ literal: String) -> String? {
        guard let i = literal.firstIndex(where: { $0.isASCII && $0.isLetter }) else { return nil }
        let hex = String(literal[i].asciiValue!, radix: 16, uppercase: true)
        return literal[..<i] + "%" + hex + literal[literal.index(after: i)...]
    }

    /// Query strings to try with a route's paths: all required items, each one missing, empty,
    /// repeated with an empty value, and extra unrelated items.
    public static func sampleQueries(for entry: CompiledEntry) -> [String?] {
        let params = entry.sampleParameters()
        let full = entry.requiredQuery.map { "\($0)=\(PercentEncoding.encodeComponent(params[$0] ?? "v"))" }
        var out: [String?] = [full.isEmpty ? nil : full.joined(separator: "&"), (full + ["utm_source=x"]).joined(separator: "&")]
        for (i, name) in entry.requiredQuery.enumerated() {
            var missing = full
            missing.remove(at: i)
            out.append(missing.isEmpty ? nil : missing.joined(separator: "&"))
            var empty = full
            empty[i] = "\(name)="
            out.append(empty.joined(separator: "&"))
            var bare = full
            bare[i] = name
            out.append(bare.joined(separator: "&"))
            out.append((full + ["\(name)="]).joined(separator: "&"))
            out.append((["\(name)="] + full).joined(separator: "&"))
            out.append((full + ["\(name)=second"]).joined(separator: "&"))
            // The name percent-encoded (both platforms decode names), and `;` as the separator.
            var encodedName = full
            encodedName[i] = (encodeFirstLetter(name) ?? name) + "=" + PercentEncoding.encodeComponent(params[name] ?? "v")
            out.append(encodedName.joined(separator: "&"))
            out.append((["utm_source=x"] + full).joined(separator: ";"))
        }
        for name in entry.optionalQuery {
            out.append((full + ["\(name)=opt"]).joined(separator: "&"))
        }
        var seen = Set<String>()
        return out.filter { seen.insert($0 ?? "\u{0}").inserted }
    }
}
