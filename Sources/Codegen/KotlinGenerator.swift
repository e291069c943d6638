// The Kotlin target: a sealed class of the routes, pure Kotlin on the JVM standard library (so the
// JVM can test it; Kotlin 1.3 and later), with the server's matching rules; and a second,
// one-function file for apps that takes `android.net.Uri`.

import LinkRouting

enum KotlinGenerator {
    /// A Kotlin string literal; `$` escaped (string templates). `\u` takes four hex digits, so a
    /// character beyond U+FFFF is written as it is.
    static func literal(_ s: String) -> String {
        StringLiteral.quoted(s, extra: ["$": "\\$"]) { v in
            guard v <= 0xFFFF else { return nil }
            let h = String(v, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: 4 - h.count) + h
        }
    }

    /// KDoc text: Kotlin comments nest, so neither `/*` nor `*/` may appear inside one.
    static func kdoc(_ s: String) -> String { s.replacingAll("/*", with: "/ *").replacingAll("*/", with: "* /") }

    static func list(_ items: [String]) -> String { "listOf(" + items.map(literal).joined(separator: ", ") + ")" }

    static func mask(_ m: UInt64) -> String {
        if m & (1 << 63) != 0 { return "(0b\(String(m & ~(1 << 63), radix: 2))L or Long.MIN_VALUE)" }
        return "0b\(String(m, radix: 2))L"
    }

    static func packageLine(_ m: SiteModel) -> String { m.kotlinPackage.map { "package \($0)\n\n" } ?? "" }

    static func type(of p: SiteModel.Param, route: SiteModel.Route) -> String {
        let base = p.enumName.map { "\(route.kotlinClass).\($0)" } ?? "String"
        return p.isOptional ? base + "? = null" : base
    }

    static func file(_ m: SiteModel, header: [String]) -> String {
        let t = m.typeName
        let table = "\(t)Table"
        var o = header.map { "// " + $0 }.joined(separator: "\n") + "\n\n" + packageLine(m)
        o += "/**\n * The links of site '\(kdoc(m.site.name))': \(kdoc(m.linkForms)).\n *\n"
        o += " * [parse] follows the server's route table exactly: entries in config order, the first that matches\n"
        o += " * decides, an exclusion yields null, values are percent-decoded. [toUrl] builds the canonical https\n"
        o += " * link, [toSchemeUrl] the custom-scheme one; `parse(route.toUrl()) == route`.\n */\n"
        o += "sealed class \(t) {\n"
        o += "    /** The route's name in the config. */\n    abstract val routeName: String\n\n"
        o += "    /** Decoded values by parameter name, as the server's parser reports them. */\n    abstract val parameters: Map<String, String>\n\n"
        o += "    /** The canonical https link (`https://\(m.site.canonicalHost)/…`), values percent-encoded. */\n"
        o += "    fun toUrl(): String = \(table).build(routeName, parameters, false, false) ?: \(literal("https://\(m.site.canonicalHost)/"))\n\n"
        o += "    /** The custom-scheme link (`scheme://…`) when an app of the route registers a scheme. */\n"
        o += "    fun toSchemeUrl(): String? = \(table).build(routeName, parameters, true, false)\n"
        for r in m.routes {
            o += "\n    /** `\(kdoc(r.display))` (routes[\(r.entry.index)])"
            if let c = r.config.comment { o += ": \(kdoc(c))" }
            o += " */\n"
            let nameLine = "        override val routeName: String get() = \(literal(r.config.name))\n"
            if r.params.isEmpty {
                o += "    object \(r.kotlinClass) : \(t)() {\n" + nameLine
                o += "        override val parameters: Map<String, String> get() = emptyMap()\n"
                o += "        override fun toString(): String = \(literal(r.kotlinClass))\n    }\n"
                continue
            }
            o += "    data class \(r.kotlinClass)(" + r.params.map { "val \($0.identifier): \(type(of: $0, route: r))" }.joined(separator: ", ") + ") : \(t)() {\n"
            o += nameLine
            func value(_ p: SiteModel.Param) -> String { p.enumName == nil ? p.identifier : "\(p.identifier).value" }
            let required = r.params.filter { !$0.isOptional }
            let optional = r.params.filter(\.isOptional)
            o += "        override val parameters: Map<String, String>\n            get() {\n"
            o += "                val p = linkedMapOf<String, String>(" + required.map { "\(literal($0.name)) to \(value($0))" }.joined(separator: ", ") + ")\n"
            for p in optional {
                o += "                if (\(p.identifier) != null) p[\(literal(p.name))] = \(p.enumName == nil ? p.identifier : "\(p.identifier).value")\n"
            }
            o += "                return p\n            }\n"
            for p in r.params {
                guard let oneOf = p.oneOf, let e = p.enumName else { continue }
                o += "\n        /** The values `{\(kdoc(p.name))}` takes. */\n"
                o += "        enum class \(e)(val value: String) {\n"
                o += oneOf.map { "            \($0.kotlinConstant)(\(literal($0.value)))" }.joined(separator: ",\n") + ";\n\n"
                o += "            companion object {\n"
                o += "                fun of(value: String): \(e)? = values().firstOrNull { \(table).same(it.value, value) }\n"
                o += "            }\n        }\n"
            }
            o += "    }\n"
        }
        o += """

                companion object {
                    /** Parses a universal link or a custom-scheme link; null when no route matches or an exclusion applies. */
                    @JvmStatic
                    fun parse(url: String): \(t)? {
                        val m = \(table).resolve(url) ?: return null
                        return make(m.first, m.second)
                    }

                    /** A route from its name and decoded parameters (a push payload, a Flutter method channel); null
                     *  when the route is unknown or a value could not be built, exactly as `linkwell link` refuses it. */
                    @JvmStatic
                    fun of(routeName: String, parameters: Map<String, String>): \(t)? {
                        if (\(table).build(routeName, parameters, false, true) == null) return null
                        return make(routeName, parameters)
                    }

                    private fun make(routeName: String, p: Map<String, String>): \(t)? {
                        when (routeName) {

            """
        for r in m.routes {
            o += "                \(literal(r.config.name)) -> {\n"
            var args: [String] = []
            for p in r.params {
                let get = "p[\(literal(p.name))]"
                let value = p.enumName.map { "\(get)?.let { \(r.kotlinClass).\($0).of(it) }" } ?? get
                if p.isOptional {
                    o += "                    val \(p.identifier) = \(value)\n"
                } else if p.kind == .rest {
                    o += "                    val \(p.identifier) = \(get) ?: \"\"\n"
                } else {
                    o += "                    val \(p.identifier) = \(value) ?: return null\n"
                }
                args.append(p.identifier)
            }
            o += "                    return " + (r.params.isEmpty ? r.kotlinClass : "\(r.kotlinClass)(" + args.joined(separator: ", ") + ")") + "\n"
            o += "                }\n"
        }
        o += "                else -> return null\n            }\n        }\n    }\n}\n"
        o += resolverSource(m, table: table) + "\n"
        o += reportOpenSource(m)
        o += tableSource(m, name: table)
        return o
    }

    static func androidFile(_ m: SiteModel, header: [String]) -> String {
        let t = m.typeName
        var o = header.map { "// " + $0 }.joined(separator: "\n") + "\n\n" + packageLine(m)
        o += "import android.net.Uri\n\n"
        o += "/** Parses the link an Intent carries (`intent.data`): `\(t).parse(uri)`; null when no route matches. */\n"
        o += "fun \(t).Companion.parse(uri: Uri): \(t)? = parse(uri.toString())\n"
        o += "\n/** What `intent.data` is, offline: a route, a short or long link to resolve, or neither. */\n"
        o += "fun \(t).Companion.incoming(uri: Uri): \(t)Incoming = incoming(uri.toString())\n"
        return o
    }

    static func segment(_ s: PathSegment) -> String {
        switch s {
        case let .literal(l): return "Segment(0, \(literal(l)))"
        case let .param(name, prefix, suffix, oneOf):
            return "Segment(1, \(literal(name)), \(literal(prefix)), \(literal(suffix)), \(oneOf.map(list) ?? "null"))"
        case let .rest(name): return "Segment(2, \(literal(name)))"
        }
    }

    static func tableSource(_ m: SiteModel, name: String) -> String {
        var o = "// The route table of site '\(m.site.name)' and the server's matching rules (generated).\n"
        o += "private object \(name) {\n"
        o += "    /** Bit i of an app mask: " + m.apps.enumerated().map { "\($0.offset) \($0.element)" }.joined(separator: ", ") + ". */\n"
        o += "    const val ALL_APPS: Long = \(mask(m.allMask))\n"
        o += "    const val CANONICAL_HOST: String = \(literal(m.site.canonicalHost))\n"
        o += "    /** Every exact domain of the config: true when this site serves it (the first site listing a domain owns it). */\n"
        o += "    val hosts: Map<String, Boolean> = mapOf(" + m.hostOwners.map { "\(literal($0.host)) to \($0.mine)" }.joined(separator: ", ") + ")\n"
        o += "    /** Every wildcard domain of the config (`.example.com` for `*.example.com`), longest first. */\n"
        o += "    val wildcards: List<Pair<String, Boolean>> = listOf(" + m.wildcards.map { "\(literal($0.suffix)) to \($0.mine)" }.joined(separator: ", ") + ")\n"
        o += "    val ownDomains: List<String> = \(list(m.site.exactDomains))\n"
        o += "    val ownWildcards: List<String> = \(list(m.site.wildcardSuffixes))\n"
        o += "    /** Custom schemes of this site's apps → the apps that registered them. */\n"
        o += "    val schemes: Map<String, Long> = mapOf(" + m.schemes.map { "\(literal($0.scheme)) to \(mask($0.mask))" }.joined(separator: ", ") + ")\n"
        o += "    /** Routes and exclusions in priority order (the config's `routes`). */\n"
        o += "    val entries: List<Entry> = listOf(\n"
        o += m.entries.map { e -> String in
            let ce = e.entry
            let route = ce.route.map { literal($0.name) } ?? "null"
            let fragment = (ce.route?.fragment ?? ce.exclusion?.fragment).map(literal) ?? "null"
            let scheme = ce.route != nil ? (SiteModel.preferredScheme(site: m.site, entry: ce).map(literal) ?? "null") : "null"
            return "        // routes[\(ce.index)]: " + (ce.route.map { "route '\($0.name)' " } ?? "exclusion ") + ce.pattern.display + "\n"
                + "        Entry(\(route), listOf(" + ce.pattern.segments.map(segment).joined(separator: ", ") + "), "
                + "\(list(ce.requiredQuery)), \(list(ce.optionalQuery)), \(fragment), \(mask(e.mask)), \(scheme))"
        }.joined(separator: ",\n")
        o += "\n    )\n"
        return o + kotlinEngine + shortLinkTableSource(m) + "}\n"
    }

    /// The matching and building rules of LinkRouting, in Kotlin. Strings that reach the matcher
    /// are ASCII (non-ASCII bytes are percent-encoded first), so String indices are byte offsets.
    static let kotlinEngine = #"""

            /** kind 0: literal `name`; 1: parameter with literal prefix/suffix and allowed values; 2: rest of the path. */
            class Segment(val kind: Int, val name: String, val prefix: String = "", val suffix: String = "", val oneOf: List<String>? = null)

            /** [route] null: an exclusion, whose [fragment] is the fragment it requires. */
            class Entry(
                val route: String?,
                val path: List<Segment>,
                val requiredQuery: List<String>,
                val optionalQuery: List<String>,
                val fragment: String?,
                val apps: Long,
                val scheme: String?
            )

            class Parts(val scheme: String, val host: String, val path: String, val query: String?, val fragment: String?)

            // Parsing

            fun resolve(text: String): Pair<String, Map<String, String>>? {
                val normalized = browserNormalized(text)
                val parts = urlParts(normalized) ?: return null
                if (parts.scheme == "https" || parts.scheme == "http") {
                    if (!ownsHost(parts.host)) return null
                    return resolve(parts.path, parts.query, parts.fragment, ALL_APPS)
                }
                val allowed = schemes[parts.scheme] ?: return null
                return resolve(customSchemePath(normalized, parts.scheme), parts.query, parts.fragment, allowed)
            }

            private fun resolve(path: String, query: String?, fragment: String?, allowed: Long): Pair<String, Map<String, String>>? {
                val segs = segments(rawPunctuationEncoded(path))
                var excluded = 0L
                val items: List<Pair<String, String?>> = if (query == null) emptyList() else queryItems(query)
                for (entry in entries) {
                    val params = bind(entry.path, segs) ?: continue
                    val route = entry.route
                    if (route == null) {
                        if (entry.fragment != null && entry.fragment != fragment) continue
                        excluded = excluded or entry.apps
                        if ((allowed and excluded.inv()) == 0L) return null
                        continue
                    }
                    var ok = true
                    for (name in entry.requiredQuery) {
                        var found = false
                        for (item in items) {
                            if (!same(item.first, name) && !(item.first.contains('%') && same(decode(item.first), name))) continue
                            val v = item.second
                            if (v == null || v.length == 0) {
                                ok = false
                                break
                            }
                            if (!found) params[name] = decode(v)
                            found = true
                        }
                        if (!found) ok = false
                        if (!ok) break
                    }
                    if (!ok) continue
                    for (name in entry.optionalQuery) {
                        val item = items.firstOrNull { same(it.first, name) || (it.first.contains('%') && same(decode(it.first), name)) } ?: continue
                        params[name] = if (item.second == null) "" else decode(item.second!!)
                    }
                    if (entry.fragment != null && fragment != null) params[entry.fragment] = decode(fragment)
                    if ((entry.apps and excluded.inv() and allowed) == 0L) {
                        if (excluded != 0L) return null
                        continue
                    }
                    return Pair(route, params)
                }
                return null
            }

            private fun bind(pattern: List<Segment>, segs: List<String>): MutableMap<String, String>? {
                val params = linkedMapOf<String, String>()
                for ((i, seg) in pattern.withIndex()) {
                    when (seg.kind) {
                        0 -> if (i >= segs.size || segs[i] != seg.name) return null
                        1 -> {
                            if (i >= segs.size) return null
                            val raw = paramValue(segs[i], seg.prefix, seg.suffix) ?: return null
                            var value = decode(raw)
                            if (seg.oneOf != null) value = seg.oneOf.firstOrNull { same(it, value) } ?: return null
                            params[seg.name] = value
                        }
                        else -> {
                            val tail = if (segs.size > i) segs.subList(i, segs.size).joinToString("/") else ""
                            if (seg.name != "*") params[seg.name] = decode(tail)
                            return params
                        }
                    }
                }
                return if (segs.size == pattern.size) params else null
            }

            private fun paramValue(segment: String, prefix: String, suffix: String): String? {
                if (segment.length <= prefix.length + suffix.length) return null
                if (!segment.startsWith(prefix) || !segment.endsWith(suffix)) return null
                return segment.substring(prefix.length, segment.length - suffix.length)
            }

            /** Raw segments; one leading and one trailing '/' are insignificant. */
            private fun segments(path: String): List<String> {
                var body = path
                if (body.startsWith("/")) body = body.substring(1)
                if (body.endsWith("/")) body = body.substring(0, body.length - 1)
                if (body.length == 0) return emptyList()
                return body.split("/")
            }

            private fun queryItems(query: String): List<Pair<String, String?>> =
                query.split("&").filter { it.length > 0 }.map { part ->
                    val eq = part.indexOf('=')
                    if (eq < 0) Pair(part, null) else Pair(part.substring(0, eq), part.substring(eq + 1))
                }

            private fun ownsHost(raw: String): Boolean {
                hosts[raw]?.let { return it }
                var host = raw
                if (host.startsWith("[")) {
                    val close = host.indexOf(']')
                    if (close >= 0) host = host.substring(0, close + 1)
                } else {
                    val colon = host.lastIndexOf(':')
                    if (colon >= 0) host = host.substring(0, colon)
                }
                if (host.endsWith(".")) host = host.substring(0, host.length - 1)
                val h = lower(host)
                hosts[h]?.let { return it }
                for (w in wildcards) if (h.length > w.first.length && h.endsWith(w.first)) return w.second
                for (w in wildcards) if (h.length == w.first.length - 1 && h == w.first.substring(1)) return w.second
                return false
            }

            private fun serves(host: String): Boolean =
                ownDomains.contains(host) || ownWildcards.any { host.endsWith(it) && host.length > it.length }

            /** `scheme://X/rest`: when X is one of the site's domains the path is `/rest`, otherwise `/X/rest`. */
            private fun customSchemePath(normalized: String, scheme: String): String {
                var rest = normalized.substring(scheme.length + 1)
                val cut = rest.indexOfFirst { it == '?' || it == '#' }
                if (cut >= 0) rest = rest.substring(0, cut)
                if (!rest.startsWith("//")) return if (rest.startsWith("/")) rest else "/$rest"
                rest = rest.substring(2)
                val slash = rest.indexOf('/').let { if (it < 0) rest.length else it }
                val first = rest.substring(0, slash)
                val tail = rest.substring(slash)
                var host = lower(first)
                val colon = host.lastIndexOf(':')
                if (colon >= 0 && swiftInt(host.substring(colon + 1)) != null) host = host.substring(0, colon)
                if (first.length == 0 || serves(host)) return if (tail.length == 0) "/" else tail
                return "/$first$tail"
            }

            /** scheme, host, path, query, fragment as written (nothing decoded), as the server splits them. */
            private fun urlParts(text: String): Parts? {
                val colon = text.indexOf(':')
                if (colon <= 0) return null
                val scheme = text.substring(0, colon)
                fun letter(c: Char) = (c - '\u0000') or 0x20 in 0x61..0x7A
                if (!letter(scheme[0]) || !scheme.all { letter(it) || it in '0'..'9' || it == '+' || it == '-' || it == '.' }) return null
                var rest = text.substring(colon + 1)
                var fragment: String? = null
                var query: String? = null
                val hash = rest.indexOf('#')
                if (hash >= 0) {
                    fragment = rest.substring(hash + 1)
                    rest = rest.substring(0, hash)
                }
                val q = rest.indexOf('?')
                if (q >= 0) {
                    query = rest.substring(q + 1)
                    rest = rest.substring(0, q)
                }
                if (!rest.startsWith("//")) return Parts(lower(scheme), "", rest, query, fragment)
                rest = rest.substring(2)
                val slash = rest.indexOf('/').let { if (it < 0) rest.length else it }
                var authority = rest.substring(0, slash)
                val at = authority.lastIndexOf('@')
                if (at >= 0) authority = authority.substring(at + 1)
                var hostText = authority
                if (authority.startsWith("[")) {
                    val close = authority.indexOf(']')
                    if (close < 0) return null
                    hostText = authority.substring(0, close + 1)
                } else {
                    val c = authority.lastIndexOf(':')
                    if (c >= 0) {
                        hostText = authority.substring(0, c)
                        val portText = authority.substring(c + 1)
                        if (portText.length > 0) {
                            val port = swiftInt(portText) ?: return null
                            if (port < 0 || port > 65535) return null
                        }
                    }
                }
                var h = lower(hostText)
                if (h.endsWith(".")) h = h.substring(0, h.length - 1)
                return Parts(lower(scheme), h, rest.substring(slash), query, fragment)
            }

            /** Swift's `Int(text)`: an optional sign, then ASCII digits, within 64 bits. */
            private fun swiftInt(s: String): Long? {
                var i = 0
                var negative = false
                if (s.startsWith("+") || s.startsWith("-")) {
                    negative = s[0] == '-'
                    i = 1
                }
                if (i >= s.length) return null
                var v = 0L
                while (i < s.length) {
                    val d = s[i] - '0'
                    if (d < 0 || d > 9) return null
                    if (v < (Long.MIN_VALUE + d) / 10) return null
                    v = v * 10 - d
                    i++
                }
                if (negative) return v
                return if (v == Long.MIN_VALUE) null else -v
            }

            private fun lower(s: String): String {
                val b = StringBuilder(s.length)
                for (c in s) b.append(if (c in 'A'..'Z') c + 32 else c)
                return b.toString()
            }

            /** Swift's String equality: canonical equivalence. */
            fun same(a: String, b: String): Boolean =
                a == b || java.text.Normalizer.normalize(a, java.text.Normalizer.Form.NFC) == java.text.Normalizer.normalize(b, java.text.Normalizer.Form.NFC)

            // Percent-encoding

            private const val HEX = "0123456789ABCDEF"

            /** `|`, `^`, `[`, `]` percent-encoded in a path: literals hold them encoded, browsers send them raw. */
            private fun rawPunctuationEncoded(path: String): String {
                val out = StringBuilder()
                for (c in path) {
                    if (c == '|' || c == '^' || c == '[' || c == ']') out.append('%').append(HEX[c.toInt() shr 4]).append(HEX[c.toInt() and 0xF])
                    else out.append(c)
                }
                return out.toString()
            }

            /** Raw non-ASCII bytes, controls, space, `"`, `<`, `>`, backtick and braces percent-encoded, as a browser sends them. */
            private fun browserNormalized(s: String): String {
                val out = StringBuilder()
                for (byte in s.toByteArray(Charsets.UTF_8)) {
                    val b = byte.toInt() and 0xFF
                    if (b >= 0x80 || b <= 0x20 || b == 0x7F || b == 0x22 || b == 0x3C || b == 0x3E || b == 0x60 || b == 0x7B || b == 0x7D) {
                        out.append('%').append(HEX[b shr 4]).append(HEX[b and 0xF])
                    } else {
                        out.append('\u0000' + b)
                    }
                }
                return out.toString()
            }

            private fun hexValue(c: Char): Int = when (c) {
                in '0'..'9' -> c - '0'
                in 'a'..'f' -> c - 'a' + 10
                in 'A'..'F' -> c - 'A' + 10
                else -> -1
            }

            /** `%XX` decoded; a lone `%` stays; `+` stays; invalid UTF-8 becomes U+FFFD (as Swift repairs it). */
            private fun decode(s: String): String {
                val out = java.io.ByteArrayOutputStream()
                var i = 0
                while (i < s.length) {
                    if (s[i] == '%' && i + 2 < s.length && hexValue(s[i + 1]) >= 0 && hexValue(s[i + 2]) >= 0) {
                        out.write(hexValue(s[i + 1]) * 16 + hexValue(s[i + 2]))
                        i += 3
                    } else {
                        out.write(s[i] - '\u0000')
                        i++
                    }
                }
                return utf8(out.toByteArray())
            }

            /** UTF-8 with each maximal invalid subpart replaced by one U+FFFD. */
            private fun utf8(bytes: ByteArray): String {
                val sb = StringBuilder()
                var i = 0
                val n = bytes.size
                scan@ while (i < n) {
                    val b0 = bytes[i].toInt() and 0xFF
                    if (b0 < 0x80) {
                        sb.append('\u0000' + b0)
                        i++
                        continue@scan
                    }
                    var need: Int
                    var cp: Int
                    var lowest = 0x80
                    var highest = 0xBF
                    when (b0) {
                        in 0xC2..0xDF -> { need = 1; cp = b0 and 0x1F }
                        in 0xE0..0xEF -> { need = 2; cp = b0 and 0x0F; if (b0 == 0xE0) lowest = 0xA0; if (b0 == 0xED) highest = 0x9F }
                        in 0xF0..0xF4 -> { need = 3; cp = b0 and 0x07; if (b0 == 0xF0) lowest = 0x90; if (b0 == 0xF4) highest = 0x8F }
                        else -> { sb.append('\uFFFD'); i++; continue@scan }
                    }
                    var j = i + 1
                    var ok = true
                    while (need > 0) {
                        if (j >= n) { ok = false; break }
                        val b = bytes[j].toInt() and 0xFF
                        if (b < lowest || b > highest) { ok = false; break }
                        lowest = 0x80
                        highest = 0xBF
                        cp = (cp shl 6) or (b and 0x3F)
                        j++
                        need--
                    }
                    if (ok) sb.appendCodePoint(cp) else sb.append('\uFFFD')
                    i = j
                }
                return sb.toString()
            }

            private fun encode(s: String): String {
                if (s == ".") return "%2E"
                if (s == "..") return "%2E%2E"
                val out = StringBuilder()
                for (byte in s.toByteArray(Charsets.UTF_8)) {
                    val b = byte.toInt() and 0xFF
                    val c = '\u0000' + b
                    if (c in 'A'..'Z' || c in 'a'..'z' || c in '0'..'9' || c == '-' || c == '.' || c == '_' || c == '~') {
                        out.append(c)
                    } else {
                        out.append('%').append(HEX[b shr 4]).append(HEX[b and 0xF])
                    }
                }
                return out.toString()
            }

            // Building

            /** The link text; null when the route is unknown, or (with [check]) when `linkwell link` would refuse the values. */
            fun build(route: String, params: Map<String, String>, useScheme: Boolean, check: Boolean): String? {
                val entry = entries.firstOrNull { it.route == route } ?: return null
                val accepted = ArrayList<String>(entry.requiredQuery + entry.optionalQuery)
                if (entry.fragment != null) accepted.add(entry.fragment)
                for (seg in entry.path) if (seg.kind != 0) accepted.add(seg.name)
                if (check && params.keys.any { !accepted.contains(it) }) return null
                val path = StringBuilder()
                for (seg in entry.path) {
                    when (seg.kind) {
                        0 -> path.append('/').append(seg.name)
                        1 -> {
                            val value = params[seg.name] ?: return null
                            if (check && value.length == 0) return null
                            if (check && seg.oneOf != null && seg.oneOf.none { same(it, value) }) return null
                            path.append('/').append(seg.prefix).append(encode(value)).append(seg.suffix)
                        }
                        else -> {
                            val value = params[seg.name] ?: ""
                            if (value.length > 0) {
                                val parts = value.split("/")
                                if (check && parts.any { it.length == 0 }) return null
                                path.append('/').append(parts.joinToString("/") { encode(it) })
                            }
                        }
                    }
                }
                if (path.length == 0) path.append('/')
                val items = ArrayList<String>()
                for (name in entry.requiredQuery) {
                    val value = params[name] ?: return null
                    if (check && value.length == 0) return null
                    items.add(encode(name) + "=" + encode(value))
                }
                for (name in entry.optionalQuery) {
                    val value = params[name] ?: continue
                    items.add(encode(name) + "=" + encode(value))
                }
                var tail = path.toString()
                if (items.isNotEmpty()) tail += "?" + items.joinToString("&")
                val fragmentValue = entry.fragment?.let { params[it] }
                if (fragmentValue != null) tail += "#" + encode(fragmentValue)
                if (!useScheme) return "https://$CANONICAL_HOST$tail"
                val scheme = entry.scheme ?: return null
                val firstSegment = lower(path.substring(1).substringBefore('/'))
                if (firstSegment.length > 0 && serves(firstSegment)) return "$scheme://$CANONICAL_HOST$tail"
                return "$scheme://" + tail.substring(1)
            }

        """#
}
