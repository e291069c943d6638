// `linkwell validate`'s check of the stored short links: a code that a route, an exclusion or a
// served path now shadows (a new route, a changed prefix) and a target that no longer validates.

import Association
import Foundation
import LinkRouting
import LinkStore

enum ValidateLinks {
    /// One error per stored, enabled link that would not be served with `table`; nothing when
    /// the link database does not exist (validate never creates it).
    static func diagnostics(table: RouteTable, configPath: String) -> [Diagnostic] {
        let storage = table.config.storage
        let at = storage?.postgres == nil ? "storage.sqlite" : "storage.postgres"
        let links: [ShortLink]
        do throws(LinkStoreError) {
            let location = try StorageLocation.of(storage: storage, configPath: configPath)
            guard location.exists else { return [] }
            links = try LinkStore(location).links()
        } catch {
            return [Diagnostic(.error, at: at, "\(error)", fix: "fix or move the link database, then validate again")]
        }
        var out: [Diagnostic] = []
        for link in links where !link.disabled {
            guard let site = table.site(named: link.site) else {
                out.append(Diagnostic(.error, at: at, value: link.code,
                                      "stored short link '\(link.code)' belongs to site '\(link.site)', which the config no longer has",
                                      fix: "add the site back, or delete its links: linkwell links delete \(link.code) --site \(link.site) (with the old config)"))
                continue
            }
            let url = "https://\(site.canonicalHost)\(site.config.shortLinks?.effectivePrefix ?? "/")\(link.code)"
            if let reason = ShortCode.conflict(code: link.code, site: site, table: table) {
                out.append(Diagnostic(.error, at: "sites[\(site.index)]", value: link.code,
                                      "stored short link '\(link.code)' (\(url)) no longer answers: \(reason)",
                                      fix: "rename or remove what shadows it, or give the link another code: linkwell links delete \(link.code) --site \(site.name), then links add --code <new> --target '\(link.target)'"))
            } else if case let .failure(refusal) = ShortLinkValidator.check(link, table: table) {
                out.append(Diagnostic(.error, at: "sites[\(site.index)]", value: link.code,
                                      "stored short link '\(link.code)' (\(url)) no longer answers: \(refusal)",
                                      fix: "restore what its target needs in the config, or delete the link: linkwell links delete \(link.code) --site \(site.name)"))
            }
        }
        return out
    }
}

extension ValidateLinks {
    /// The paths of `--website-paths FILE`: one a line, a path (`/about`) or a URL whose path is
    /// taken (`https://www.example.com/about`); blank lines and `#` comments skipped.
    static func websitePaths(_ text: String) -> Set<String> {
        var out = Set<String>()
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            var path = line.hasPrefix("/") ? line : (URLParts(line)?.path ?? "")
            if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            if path.hasPrefix("/") { out.insert(path) }
        }
        return out
    }

    /// One warning per stored, enabled link whose code is a path of the website sharing its domain:
    /// behind the generated proxy Linkwell answers `/{code}` first, so visitors get the link and
    /// never the page. Only sites with a website upstream and codes at the root can collide.
    static func websiteShadows(table: RouteTable, configPath: String, websites: ProxyConfigOptions, paths: Set<String>) -> [Diagnostic] {
        guard let location = try? StorageLocation.of(storage: table.config.storage, configPath: configPath), location.exists,
              let links = try? LinkStore(location).links() else { return [] }
        var out: [Diagnostic] = []
        for link in links where !link.disabled {
            guard let site = table.site(named: link.site), websites.website(for: site) != nil,
                  (site.config.shortLinks?.effectivePrefix ?? "/") == "/", paths.contains("/" + link.code) else { continue }
            out.append(Diagnostic(
                .warning, at: "sites[\(site.index)]", value: link.code,
                "stored short link '\(link.code)' (https://\(site.canonicalHost)/\(link.code)) shadows the website's page /\(link.code): the generated proxy asks Linkwell first, so visitors get the link and never the page",
                fix: "give the link another code (linkwell links delete \(link.code) --site \(site.name), then links add --code <new> --target '\(link.target)'), or move the site's short links under a prefix: sites[\(site.index)].shortLinks.prefix: \"/l/\""))
        }
        return out
    }
}
