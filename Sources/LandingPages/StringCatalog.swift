import LinkwellJSON

/// The page strings of one language (`public/locales/<tag>.json`): a flat JSON object of
/// key → text, where `{name}` is filled with a value (`{appName}`, `{inApp}`, `{website}`).
public struct StringCatalog: Sendable, Equatable {
    /// BCP 47 tag as written in the file name (`pt-BR`).
    public let tag: String
    public let strings: [String: String]

    /// Every key a catalog must have; `LandingAssets` refuses a catalog that misses one.
    public static let requiredKeys: [String] = [
        "openInApp", "appStoreEyebrow", "appStore", "playStoreEyebrow", "playStore", "webPage", "home",
        "availableOnIOS", "availableOnAndroid", "availableOnBoth", "inAppNote", "qrCaption", "qrLabel",
        "link", "actions", "notFoundTitle", "notFoundHeading", "notFoundBody", "imageAlt",
    ]

    public init(tag: String, strings: [String: String]) {
        self.tag = tag
        self.strings = strings
    }

    /// Parses a catalog file; the error names the key or position.
    public init(tag: String, json bytes: [UInt8]) throws(CatalogError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw CatalogError(message: "not valid JSON (\(error))")
        }
        guard let members = value.objectValue else { throw CatalogError(message: "must be a JSON object of key → text") }
        var strings: [String: String] = [:]
        for (key, v) in members {
            guard let s = v.stringValue else { throw CatalogError(message: "'\(key)' must be a string") }
            strings[key] = s
        }
        let missing = Self.requiredKeys.filter { strings[$0] == nil }
        guard missing.isEmpty else {
            throw CatalogError(message: "misses \(missing.joined(separator: ", "))", fix: "copy the keys from the shipped public/locales/en.json and translate them")
        }
        self.init(tag: tag, strings: strings)
    }

    public struct CatalogError: Error, Sendable {
        public var message: String
        public var fix: String?
    }

    /// The text of `key` with `{name}` filled from `values` (raw; the page escapes it).
    public func text(_ key: String, _ values: [String: String] = [:]) -> String {
        WebTemplate.fillText(strings[key] ?? key, parameters: values)
    }
}
