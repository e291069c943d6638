import Foundation
import MicroHTTP

/// The files of `public/` that are served as they are (CSS, images, robots.txt, favicon), read
/// into memory when a snapshot is built. Requests are looked up in a dictionary by their raw
/// path; no request ever becomes a file-system path.
public struct StaticAssets: Sendable {
    public let responses: [String: ConditionalResponse]
    /// Problems met while reading (unreadable or oversized files); the rest is served.
    public let warnings: [String]

    public static let cacheControl = "public, max-age=3600"
    /// Largest file served from memory.
    public static let maxFileBytes = 16 * 1024 * 1024

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
    }

    /// Reads every regular file under `directory` whose extension has a known content type
    /// (templates and other files are not served). A missing directory yields no assets.
    public init(directory: String?) {
        guard let directory else {
            self.init()
            return
        }
        var responses: [String: ConditionalResponse] = [:]
        var warnings: [String] = []
        let fm = FileManager.default
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        guard let walker = fm.enumerator(atPath: root.path) else {
            self.init(warnings: ["public directory \(directory) cannot be read"])
            return
        }
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            let ext = (name as NSString).pathExtension.lowercased()
            guard let type = Self.contentTypes[ext] else { continue }
            let full = root.appendingPathComponent(relative).path
            guard let attributes = try? fm.attributesOfItem(atPath: full),
                  attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size <= Self.maxFileBytes else {
                warnings.append("\(full) is \(size) bytes, more than \(Self.maxFileBytes); not served")
                continue
            }
            // Only names made of URL-safe characters get a URL (no escaping ambiguity).
            guard relative.utf8.allSatisfy(Self.isSafe) else {
                warnings.append("\(full): the name has characters that need escaping in a URL; not served")
                continue
            }
            guard let data = fm.contents(atPath: full) else {
                warnings.append("\(full) cannot be read")
                continue
            }
            responses["/" + relative] = ConditionalResponse(body: [UInt8](data), contentType: type, cacheControl: Self.cacheControl)
        }
        self.init(responses: responses, warnings: warnings)
    }

    static func isSafe(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || b == UInt8(ascii: "/") || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
    }
}
