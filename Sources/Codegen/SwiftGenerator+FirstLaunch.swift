// The generated Swift's first-launch code: the one-shot clipboard hand-off check (the landing page
// of an opt-in site copies the link when the visitor taps the App Store button) and the app-open
// beacon. The decision is plain Foundation, so it runs on Linux; only the pasteboard access is
// UIKit, behind `#if canImport(UIKit)`.

extension SwiftGenerator {
    static func firstLaunchSource(_ m: SiteModel) -> String {
        let t = m.typeName
        return """
            // MARK: - First launch: the clipboard hand-off and app-open counts

            extension \(t) {
                /// Where the first-launch check records that it has looked at the pasteboard, so it never looks again.
                public struct FirstLaunchStore {
                    public var hasLooked: () -> Bool
                    public var markLooked: () -> Void

                    public init(hasLooked: @escaping () -> Bool, markLooked: @escaping () -> Void) {
                        self.hasLooked = hasLooked
                        self.markLooked = markLooked
                    }

                    /// A flag in `defaults` (the app's `UserDefaults.standard` unless told otherwise).
                    public static func userDefaults(_ defaults: UserDefaults = .standard, key: String = "linkwell.firstLaunch.pasteboardChecked") -> FirstLaunchStore {
                        FirstLaunchStore(hasLooked: { defaults.bool(forKey: key) }, markLooked: { defaults.set(true, forKey: key) })
                    }
                }

                /// The link of the clipboard hand-off, if `text` is one: an http(s) link of this site (a route link,
                /// a short link or a long link, as `incoming(_:)` decides). Anything else (another site's URL,
                /// plain text) is nil.
                public static func firstLaunchLink(in text: String?) -> URL? {
                    guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
                          !text.contains(where: { $0.isWhitespace }), let url = URL(string: text),
                          let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return nil }
                    switch incoming(url) {
                    case .route, .resolveOnServer: return url
                    case .openInBrowser: return nil
                    }
                }

                /// The one-shot first-launch decision: nil without calling `pasteboard` when `store` says the check
                /// already ran; otherwise marks the store first, then reads `pasteboard` once and keeps the text only
                /// when it is a link of this site (`firstLaunchLink(in:)`).
                public static func firstLaunchLink(pasteboard: () -> String?, store: FirstLaunchStore) -> URL? {
                    if store.hasLooked() { return nil }
                    store.markLooked()
                    return firstLaunchLink(in: pasteboard())
                }

                /// What opened the app, for `reportOpen(link:kind:)`.
                public enum OpenKind: String, Hashable, Sendable {
                    /// The first launch after an install (a deferred deep link).
                    case firstOpen = "first_open"
                    /// The app was installed already.
                    case reopen
                }

                /// The site's app-open beacon.
                public static let opensEndpoint = URL(string: \(literal("https://\(m.site.canonicalHost)/.well-known/linkwell/opens")))!

                /// Tells the site, once per open, that `link` opened the app: one `POST` that only adds one to an
                /// aggregate count (no identifiers). Fire-and-forget: nothing waits for it and a failure changes
                /// nothing for the user; `completion`, if given, gets true when the server counted it.
                public static func reportOpen(
                    link: URL, kind: OpenKind, endpoint: URL = opensEndpoint, timeout: TimeInterval = 10,
                    completion: (@Sendable (Bool) -> Void)? = nil
                ) {
                    var request = URLRequest(url: endpoint, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
                    request.httpMethod = "POST"
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    request.httpBody = try? JSONSerialization.data(withJSONObject: ["link": link.absoluteString, "kind": kind.rawValue])
                    let configuration = URLSessionConfiguration.ephemeral
                    configuration.timeoutIntervalForRequest = timeout
                    configuration.timeoutIntervalForResource = timeout
                    let session = URLSession(configuration: configuration)
                    session.dataTask(with: request) { _, response, _ in
                        session.finishTasksAndInvalidate()
                        completion?((response as? HTTPURLResponse)?.statusCode == 204)
                    }.resume()
                }
            }

            #if canImport(UIKit) && !os(tvOS) && !os(watchOS)
            import UIKit

            extension \(t) {
                /// The first-launch check of the clipboard hand-off; call it once when the app starts. The first time
                /// only, it asks whether the pasteboard holds a web URL without reading it (no paste prompt), reads
                /// it only if so (iOS 16+ then asks the user to allow the paste), and gives the link when it is a
                /// link of this site; every later call gives nil at once and touches nothing.
                @MainActor
                public static func checkPasteboardAtFirstLaunch(
                    store: FirstLaunchStore = .userDefaults(), completion: @escaping @MainActor (URL?) -> Void
                ) {
                    if store.hasLooked() { return completion(nil) }
                    store.markLooked()
                    if #available(iOS 14.0, *) {
                        UIPasteboard.general.detectPatterns(for: [.probableWebURL]) { result in
                            let found = (try? result.get())?.contains(.probableWebURL) == true
                            Task { @MainActor in completion(found ? firstLaunchLink(in: pasteboardText()) : nil) }
                        }
                    } else {
                        completion(UIPasteboard.general.hasURLs ? firstLaunchLink(in: pasteboardText()) : nil)
                    }
                }

                @MainActor
                private static func pasteboardText() -> String? {
                    UIPasteboard.general.url?.absoluteString ?? UIPasteboard.general.string
                }
            }
            #endif


            """
    }
}
