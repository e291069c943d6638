// Why a value cannot be read as an apple-app-site-association file at all.

/// An apple-app-site-association document that iOS could not use: not an object, no `applinks`,
/// no `details`, or not JSON. Oddities that iOS tolerates are not errors; `AppleMatcher.warnings`
/// lists them.
public struct AASAFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the document the problem is, as a key path (`applinks.details`); empty for the whole document.
    public var location: String
    /// What is wrong, and how to fix it.
    public var message: String

    /// Creates the error; `location` is a key path such as `applinks.details`, or empty.
    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    /// `apple-app-site-association: <location>: <message>` (without the location when it is empty).
    public var description: String {
        location.isEmpty
            ? "apple-app-site-association: \(message)"
            : "apple-app-site-association: \(location): \(message)"
    }
}
