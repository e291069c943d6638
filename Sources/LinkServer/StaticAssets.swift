import Foundation
import LandingPages
import MicroHTTP

/// The files of `public/` that are served as they are (CSS, images, robots.txt, favicon), read
/// into memory when a snapshot is built. Requests are looked up in a dictionary by their raw
/// path; no request ever becomes a file-system path.
public struct StaticAssets: Sendable {
    public let responses: [String: ConditionalResponse]
    /// Problems met while reading (unreadable or oversized files); the rest is served.
    public let warnings: [String]

    public static let cacheControl = "public, max-age=3600"

    public static let contentTypes: [String: String] = [
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "txt": "text/plain; charset=utf-8",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "svg": "image/svg+xml",
        "ico": "image/x-icon",
        "woff2": "font/woff2",
        "woff": "font/woff",
        "webmanifest": "application/manifest+json",
        "bin": "application/octet-stream",
    ]

    public init(responses: [String: ConditionalResponse] = [:], warnings: [String] = []) {
        self.responses = responses
        self.warnings = warnings
        var lengths = [Bool](repeating: false, count: Self.lengthLimit + 1)
        for path in responses.keys where path.utf8.count <= Self.lengthLimit { lengths[path.utf8.count] = true }
        pathLengths = lengths
        longest = responses.keys.map(\.utf8.count).max() ?? 0
    }

    /// The file served at `path`, if any. Most requests are links, not files: a path whose length
    /// no file has is answered without hashing it.
    public func response(_ path: Substring) -> ConditionalResponse? {
        guard mayHave(length: path.utf8.count) else { return nil }
        return responses[String(path)]
    }

    /// False when no file's path is `length` bytes long.
    public func mayHave(length: Int) -> Bool {
        length <= longest && (length > Self.lengthLimit || pathLengths[length])
    }

    /// Which path lengths (up to `lengthLimit` bytes) some file has; the longest one.
    private let pathLengths: [Bool]
    private let longest: Int
    private static let lengthLimit = 256

    /// Long-lived: the generated files' names carry their content hash.
    public static let immutableCacheControl = "public, max-age=31536000, immutable"

    /// Every file of the tree whose extension has a known content type (templates and string
    /// catalogs are not served), plus the generated files (brand stylesheets) by URL path.
    public init(files: AssetFiles, generated: [String: [UInt8]] = [:]) {
        var responses: [String: ConditionalResponse] = [:]
        var warnings: [String] = []
        for (relative, bytes) in files.files {
            let ext = (relative as NSString).pathExtension.lowercased()
            guard let type = Self.contentTypes[ext] else { continue }
            // Only names made of URL-safe characters get a URL (no escaping ambiguity).
            guard relative.utf8.allSatisfy(Self.isSafe) else {
                warnings.append("public/\(relative): the name has characters that need escaping in a URL; not served")
                continue
            }
            responses["/" + relative] = ConditionalResponse(body: bytes, contentType: type, cacheControl: Self.cacheControl)
        }
        for (path, bytes) in generated {
            let ext = (path as NSString).pathExtension.lowercased()
            responses[path] = ConditionalResponse(body: bytes, contentType: Self.contentTypes[ext] ?? "application/octet-stream",
                                                  cacheControl: Self.immutableCacheControl)
        }
        self.init(responses: responses, warnings: warnings)
    }

    static func isSafe(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || b == UInt8(ascii: "/") || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
    }
}
