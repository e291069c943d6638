import LinkRouting

/// `{param}` templates from the config.
public enum WebTemplate {
    /// Fills `{param}` in the path and query of an absolute http(s) URL template, each value
    /// percent-encoded as one component. The scheme and host are never taken from parameters:
    /// a template with a placeholder (or `@`) before its path is refused (nil), and so is a
    /// result with spaces or control characters. This is what makes a web redirect safe: the
    /// target's origin is the config's, whatever the link carried.
    public static func fillURL(_ template: String, parameters: [String: String]) -> String? {
        let lower = template.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        let afterScheme = template.index(template.startIndex, offsetBy: lower.hasPrefix("https://") ? 8 : 7)
        let rest = template[afterScheme...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("{"), !authority.contains("}"), !authority.contains("@"),
              !authority.contains("\\")
        else { return nil }
        var out = String(template[..<authorityEnd])
        var tail = rest[authorityEnd...]
        while let open = tail.firstIndex(of: "{") {
            out += tail[..<open]
            guard let close = tail[open...].firstIndex(of: "}") else { return nil }
            let name = String(tail[tail.index(after: open)..<close])
            out += PercentEncoding.encodeComponent(parameters[name] ?? "")
            tail = tail[tail.index(after: close)...]
        }
        out += tail
        guard out.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return nil }
        return out
    }

    /// Fills `{param}` in a text template (preview title and description) with the raw values;
    /// the page escapes them where they land.
    public static func fillText(_ template: String, parameters: [String: String]) -> String {
        var out = ""
        var tail = template[...]
        while let open = tail.firstIndex(of: "{") {
            out += tail[..<open]
            guard let close = tail[open...].firstIndex(of: "}") else { break }
            let name = String(tail[tail.index(after: open)..<close])
            out += parameters[name] ?? ""
            tail = tail[tail.index(after: close)...]
        }
        out += tail
        return out
    }
}
