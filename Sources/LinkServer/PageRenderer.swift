import LinkRouting
import MicroHTTP

/// What a browser gets for a link that matched a route, and for one that did not. The landing
/// pages (module LandingPages) plug in here; `MinimalPageRenderer` is the default.
/// Called concurrently on daemon threads: implementations must be immutable.
public protocol PageRenderer: Sendable {
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse
}

/// HTML escaping for text and attribute values.
public enum HTML {
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
