// The generated Kotlin's app-open beacon: `reportOpen` tells the site, once per open, that a link
// opened the app (JVM standard library only: java.net.HttpURLConnection on a daemon thread).

extension KotlinGenerator {
    static func reportOpenSource(_ m: SiteModel) -> String {
        let t = m.typeName
        return """

            /** What opened the app, for [\(t).Companion.reportOpen]. */
            enum class \(t)OpenKind(val wire: String) {
                /** The first launch after an install (a deferred deep link, e.g. from the Play install referrer). */
                FIRST_OPEN("first_open"),
                /** The app was installed already. */
                REOPEN("reopen")
            }

            /** Tells the site, once per open, that [link] opened the app: one `POST` to [endpoint] that only adds one
             *  to an aggregate count (no identifiers). Fire-and-forget on a daemon thread: a failure changes nothing
             *  for the user; [onDone], if given, gets true when the server counted it. */
            fun \(t).Companion.reportOpen(
                link: String, kind: \(t)OpenKind,
                endpoint: String = \(literal("https://\(m.site.canonicalHost)/.well-known/linkwell/opens")),
                timeoutMillis: Int = 10_000, onDone: ((Boolean) -> Unit)? = null
            ) {
                val body = "{\\"link\\":" + openBeaconJson(link) + ",\\"kind\\":\\"" + kind.wire + "\\"}"
                val thread = Thread {
                    val counted = try {
                        val connection = java.net.URL(endpoint).openConnection() as java.net.HttpURLConnection
                        connection.connectTimeout = timeoutMillis
                        connection.readTimeout = timeoutMillis
                        connection.requestMethod = "POST"
                        connection.doOutput = true
                        connection.setRequestProperty("Content-Type", "application/json")
                        connection.outputStream.use { it.write(body.toByteArray(Charsets.UTF_8)) }
                        val status = connection.responseCode
                        connection.disconnect()
                        status == 204
                    } catch (e: java.io.IOException) {
                        false
                    }
                    onDone?.invoke(counted)
                }
                thread.isDaemon = true
                thread.start()
            }

            private fun openBeaconJson(text: String): String {
                val out = StringBuilder("\\"")
                for (c in text) {
                    when {
                        c == '"' || c == '\\\\' -> out.append('\\\\').append(c)
                        c < ' ' -> out.append(String.format("\\\\u%04x", c.toInt()))
                        else -> out.append(c)
                    }
                }
                return out.append('"').toString()
            }

            """
    }
}
