// The generated Kotlin's resolver: any incoming link (route link, short link, FDL long link,
// custom scheme) to the typed route, routes offline, short and long links with one request to the
// site's `/.well-known/linkwell/resolve` (java.net.HttpURLConnection: the JVM's standard library,
// nothing else); and the Play install referrer of a link to its route.

import LinkRouting

extension KotlinGenerator {
    /// Members of the table object: the short-link facts, the offline decision, a small JSON reader.
    static func shortLinkTableSource(_ m: SiteModel) -> String {
        let short = m.site.config.shortLinks
        var o = "\n    // Short and long links (`shortLinks`)\n\n"
        o += "    /** Where the codes start (`shortLinks.prefix`). */\n"
        o += "    const val LINK_PREFIX: String = \(literal(short?.effectivePrefix ?? "/"))\n"
        o += "    /** `shortLinks.openApp`: the association files claim the short links, so the app gets them. */\n"
        o += "    const val CLAIMS_SHORT_LINKS: Boolean = \(short?.claimsShortLinks == true)\n"
        o += "    /** `shortLinks.linkDomain`: every path but the reserved ones is a link. */\n"
        o += "    const val LINK_DOMAIN: Boolean = \(short?.claimsWholeDomain == true)\n"
        o += "    const val RESOLVE_ENDPOINT: String = \(literal("https://\(m.site.canonicalHost)/.well-known/linkwell/resolve"))\n"
        o += #"""

            /** True for a link of this site that no route reads but the server may: an FDL long link
             *  (`{prefix}?link=…`) or, where the site claims them, a short link. */
            fun needsServer(text: String): Boolean {
                val parts = urlParts(browserNormalized(text)) ?: return false
                if ((parts.scheme != "https" && parts.scheme != "http") || !ownsHost(parts.host)) return false
                val path = parts.path
                val bare = if (LINK_PREFIX == "/") "/" else LINK_PREFIX.substring(0, LINK_PREFIX.length - 1)
                val query = parts.query
                if ((path == LINK_PREFIX || path == bare) && query != null && queryItems(query).any { decode(it.first) == "link" }) return true
                if (!CLAIMS_SHORT_LINKS) return false
                if (LINK_DOMAIN) {
                    fun under(dir: String) = path == dir || path.startsWith("$dir/")
                    return !(under("/.well-known") || under("/static") || under("/apple-app-site-association"))
                }
                if (!path.startsWith(LINK_PREFIX)) return false
                var code = path.substring(LINK_PREFIX.length)
                if (code.endsWith("/")) code = code.substring(0, code.length - 1)
                return code.isNotEmpty() && !code.contains('/')
            }

            /** The link a Play install referrer carries (`linkwell_link=…`, as the landing page's Play
             *  button writes it beside the link's `utm_*` tags), or null. */
            fun referrerLink(referrer: String): String? {
                var text = referrer
                // The Install Referrer library gives the value decoded once; the `referrer` parameter of
                // a Play Store URL is still encoded once more.
                if (!text.contains("linkwell_link=") && text.contains("linkwell_link%3D", ignoreCase = true)) text = decode(text.replace("+", "%20"))
                for (item in queryItems(text)) {
                    if (decode(item.first) == "linkwell_link") return item.second?.let { decode(it.replace("+", "%20")) }
                }
                return null
            }

            /** A JSON value: Map, List, String, Double, Boolean or null (the resolve endpoint's answer). */
            fun parseJson(s: String): Any? {
                val p = intArrayOf(0)
                val v = jsonValue(s, p)
                jsonSpace(s, p)
                require(p[0] == s.length) { "text after the JSON value" }
                return v
            }

            private fun jsonSpace(s: String, p: IntArray) {
                while (p[0] < s.length && (s[p[0]] == ' ' || s[p[0]] == '\n' || s[p[0]] == '\r' || s[p[0]] == '\t')) p[0]++
            }

            private fun jsonValue(s: String, p: IntArray): Any? {
                jsonSpace(s, p)
                require(p[0] < s.length) { "unexpected end of JSON" }
                when (s[p[0]]) {
                    '{' -> {
                        p[0]++
                        val m = linkedMapOf<String, Any?>()
                        jsonSpace(s, p)
                        if (p[0] < s.length && s[p[0]] == '}') { p[0]++; return m }
                        while (true) {
                            jsonSpace(s, p)
                            val key = jsonString(s, p)
                            jsonSpace(s, p)
                            require(p[0] < s.length && s[p[0]] == ':') { "':' expected" }
                            p[0]++
                            m[key] = jsonValue(s, p)
                            jsonSpace(s, p)
                            require(p[0] < s.length) { "unexpected end of JSON" }
                            if (s[p[0]] == ',') { p[0]++; continue }
                            require(s[p[0]] == '}') { "'}' expected" }
                            p[0]++
                            return m
                        }
                    }
                    '[' -> {
                        p[0]++
                        val a = mutableListOf<Any?>()
                        jsonSpace(s, p)
                        if (p[0] < s.length && s[p[0]] == ']') { p[0]++; return a }
                        while (true) {
                            a.add(jsonValue(s, p))
                            jsonSpace(s, p)
                            require(p[0] < s.length) { "unexpected end of JSON" }
                            if (s[p[0]] == ',') { p[0]++; continue }
                            require(s[p[0]] == ']') { "']' expected" }
                            p[0]++
                            return a
                        }
                    }
                    '"' -> return jsonString(s, p)
                    else -> {
                        for ((word, value) in listOf("null" to null, "true" to true, "false" to false)) {
                            if (s.startsWith(word, p[0])) { p[0] += word.length; return value }
                        }
                        val start = p[0]
                        while (p[0] < s.length && "+-.eE0123456789".indexOf(s[p[0]]) >= 0) p[0]++
                        require(p[0] > start) { "unexpected character in JSON" }
                        return s.substring(start, p[0]).toDouble()
                    }
                }
            }

            private fun jsonString(s: String, p: IntArray): String {
                require(p[0] < s.length && s[p[0]] == '"') { "'\"' expected" }
                p[0]++
                val b = StringBuilder()
                while (true) {
                    require(p[0] < s.length) { "unterminated string" }
                    val c = s[p[0]++]
                    when (c) {
                        '"' -> return b.toString()
                        '\\' -> {
                            val e = s[p[0]++]
                            when (e) {
                                'n' -> b.append('\n')
                                't' -> b.append('\t')
                                'r' -> b.append('\r')
                                'b' -> b.append('\b')
                                'f' -> b.append('\u000C')
                                'u' -> { b.append(s.substring(p[0], p[0] + 4).toInt(16).toChar()); p[0] += 4 }
                                else -> b.append(e)
                            }
                        }
                        else -> b.append(c)
                    }
                }
            }

        """#
        return o
    }

    /// The public resolver, as extensions of the companion (plain JVM; the Android file adds `Uri` overloads).
    static func resolverSource(_ m: SiteModel, table: String) -> String {
        let t = m.typeName
        return """

            /** What an incoming link is, decided offline ([\(t).Companion.incoming]). */
            sealed class \(t)Incoming {
                /** A route link or custom-scheme link: show the route. */
                data class Route(val route: \(t)) : \(t)Incoming()
                /** A short link or FDL long link of this site: only the server knows its route; call [\(t).Companion.resolve]. */
                data class ResolveOnServer(val url: String) : \(t)Incoming()
                /** Not a link this app handles: open it in the browser. */
                data class OpenInBrowser(val url: String) : \(t)Incoming()
            }

            /** What [\(t).Companion.resolve] found. */
            sealed class \(t)Resolved {
                /** Show the route; [campaign] holds the link's `utm_*` and App Store `at`, `ct`, `mt`, `pt` fields. */
                data class Route(val route: \(t), val campaign: Map<String, String>) : \(t)Resolved()
                /** An unknown, disabled or expired code, or a link to a web page: open this URL in the browser. */
                data class OpenInBrowser(val url: String) : \(t)Resolved()
            }

            /** Why [\(t).Companion.resolve] has no answer; the link still works in the browser. */
            class \(t)ResolveException(val kind: Kind, message: String, val status: Int = 0) : java.io.IOException(message) {
                enum class Kind { TIMED_OUT, NETWORK, BAD_RESPONSE }
            }

            /** Decides offline what [url] is: a route, a link only the server can read, or neither. */
            fun \(t).Companion.incoming(url: String): \(t)Incoming {
                parse(url)?.let { return \(t)Incoming.Route(it) }
                if (\(table).needsServer(url)) return \(t)Incoming.ResolveOnServer(url)
                return \(t)Incoming.OpenInBrowser(url)
            }

            /** Any incoming link to its route: a route link offline, a short or long link with one request to
             *  [endpoint]. Blocks: call it off the main thread (a coroutine on Dispatchers.IO, an executor). */
            @Throws(\(t)ResolveException::class)
            fun \(t).Companion.resolve(url: String, endpoint: String = \(literal("https://\(m.site.canonicalHost)/.well-known/linkwell/resolve")), timeoutMillis: Int = 10_000): \(t)Resolved {
                when (val incoming = incoming(url)) {
                    is \(t)Incoming.Route -> return \(t)Resolved.Route(incoming.route, emptyMap())
                    is \(t)Incoming.OpenInBrowser -> return \(t)Resolved.OpenInBrowser(url)
                    is \(t)Incoming.ResolveOnServer -> {}
                }
                val connection = try {
                    java.net.URL(endpoint + "?link=" + java.net.URLEncoder.encode(url, "UTF-8")).openConnection() as java.net.HttpURLConnection
                } catch (e: java.io.IOException) {
                    throw \(t)ResolveException(\(t)ResolveException.Kind.NETWORK, e.toString())
                }
                connection.connectTimeout = timeoutMillis
                connection.readTimeout = timeoutMillis
                connection.setRequestProperty("Accept", "application/json")
                try {
                    val status = connection.responseCode
                    if (status == 404) return \(t)Resolved.OpenInBrowser(url)
                    fun bad(): \(t)ResolveException =
                        \(t)ResolveException(\(t)ResolveException.Kind.BAD_RESPONSE, "the resolve endpoint answered $status, not its JSON", status)
                    if (status != 200) throw bad()
                    val body = connection.inputStream.use { String(it.readBytes(), Charsets.UTF_8) }
                    val o = (try { \(table).parseJson(body) } catch (e: IllegalArgumentException) { null }) as? Map<*, *> ?: throw bad()
                    val link = o["url"] as? String ?: throw bad()
                    val campaign = linkedMapOf<String, String>()
                    for ((key, value) in o) {
                        if (key is String && value is String && key !in listOf("url", "site", "route", "parameters")) campaign[key] = value
                    }
                    val name = o["route"] as? String
                    val parameters = (o["parameters"] as? Map<*, *>)?.entries?.mapNotNull { e ->
                        val k = e.key as? String
                        val v = e.value as? String
                        if (k != null && v != null) k to v else null
                    }?.toMap()
                    val route = if (name != null && parameters != null) of(name, parameters) else null
                    return if (route != null) \(t)Resolved.Route(route, campaign) else \(t)Resolved.OpenInBrowser(link)
                } catch (e: java.net.SocketTimeoutException) {
                    throw \(t)ResolveException(\(t)ResolveException.Kind.TIMED_OUT, "the resolve endpoint did not answer within $timeoutMillis ms")
                } catch (e: \(t)ResolveException) {
                    throw e
                } catch (e: java.io.IOException) {
                    throw \(t)ResolveException(\(t)ResolveException.Kind.NETWORK, e.toString())
                } finally {
                    connection.disconnect()
                }
            }

            /** The route of the link a Play install referrer carries: pass the string the Install Referrer
             *  library gives (`ReferrerDetails.installReferrer`) on the first launch; null when it carries no
             *  link of this site's routes (then, for a short link, [resolve] the link it carries). */
            fun \(t).Companion.fromInstallReferrer(referrer: String): \(t)? =
                \(table).referrerLink(referrer)?.let { parse(it) }

            /** The link a Play install referrer carries (`linkwell_link=…`), or null. */
            fun \(t).Companion.installReferrerLink(referrer: String): String? = \(table).referrerLink(referrer)

            """
    }
}
