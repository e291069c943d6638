// apple-app-site-association, generated from a site's routes. Deterministic bytes: sorted keys,
// stable component order, no escaped slashes, pretty-printed with a final newline.

import LinkRouting
import LinkwellJSON

public enum AASAGenerator {
    /// The AASA document for a site. The load pipeline generates it once per site, in
    /// `GeneratedSite`; use that site's `aasa` bytes rather than calling this again.
    public static func document(for site: CompiledSite) -> JSONValue {
        document(for: site, plan: ComponentPlan(site: site))
    }

    /// The AASA document from an already made plan of the same site.
    public static func document(for site: CompiledSite, plan: ComponentPlan) -> JSONValue {
        GenerationCounter.record(.aasa, site: site)
        let format = site.config.aasa?.format ?? .modern
        var applinks: [(key: String, value: JSONValue)] = []
        if format != .modern { applinks.append(("apps", .array([]))) }

        // Apps with the same entries share one `details` entry.
        var groups: [(appIDs: [String], entries: [Int])] = []
        for app in site.iosApps {
            let entries = site.entries.filter { $0.iosAppIDs.contains(app.appID) }.map(\.index)
            if let g = groups.firstIndex(where: { $0.entries == entries }) {
                groups[g].appIDs.append(app.appID)
            } else {
                groups.append(([app.appID], entries))
            }
        }
        var details: [JSONValue] = []
        for group in groups where !group.entries.isEmpty {
            let includes: (CompiledEntry) -> Bool = { $0.iosAppIDs.contains(group.appIDs[0]) }
            if format != .legacy {
                let components = plan.components(for: .apple, appliesTo: includes).map { $0.json(includeComment: true) }
                details.append(.object([("appIDs", .array(group.appIDs.map(JSONValue.string))), ("components", .array(components))]))
            }
            if format != .modern {
                // iOS 9–12: path only, `NOT ` excludes; one entry per app (`appID` is singular).
                let paths = legacyPaths(plan: plan, includes: includes)
                for id in group.appIDs {
                    details.append(.object([("appID", .string(id)), ("paths", .array(paths.map(JSONValue.string)))]))
                }
            }
        }
        applinks.append(("details", .array(details)))
        if !plan.substitutionVariables.isEmpty, format != .legacy {
            applinks.append(
                ("substitutionVariables", .object(plan.substitutionVariables.map { (key: $0.0, value: .array($0.1.map(JSONValue.string))) })))
        }
        var root: [(key: String, value: JSONValue)] = [("applinks", .object(applinks))]
        let credentials = site.iosApps.filter { $0.webcredentials == true }.map(\.appID)
        if !credentials.isEmpty { root.append(("webcredentials", ["apps": .array(credentials.map(JSONValue.string))])) }
        let clips = site.iosApps.compactMap { app in app.appClipBundleID.map { "\(app.teamID).\($0)" } }
        if !clips.isEmpty { root.append(("appclips", ["apps": .array(clips.map(JSONValue.string))])) }
        let continuation = site.iosApps.filter { $0.activityContinuation == true }.map(\.appID)
        if !continuation.isEmpty { root.append(("activitycontinuation", ["apps": .array(continuation.map(JSONValue.string))])) }
        return .object(root)
    }

    static func legacyPaths(plan: ComponentPlan, includes: (CompiledEntry) -> Bool) -> [String] {
        plan.orderedEntries(appliesTo: includes).flatMap { entry -> [String] in
            // Legacy paths cannot express query or fragment conditions: a query-only route
            // claims its whole path there (validate says so).
            var legacy = ComponentPlan.guardGlobs(entry.pattern).map { entry.isRoute ? "NOT \($0)" : $0 }
            if !entry.isRoute { legacy = [] }
            let path = "/" + entry.pattern.segments.map { ComponentPlan.appleGlobPiece($0, variable: nil) }.joined(separator: "/")
            if entry.isRoute {
                legacy.append(path)
            } else if entry.exclusionFragment == nil {
                legacy.append("NOT \(path)")
            }
            return legacy
        }
    }

    /// The bytes served at `/.well-known/apple-app-site-association`.
    public static func bytes(for site: CompiledSite) -> [UInt8] {
        bytes(for: site, plan: ComponentPlan(site: site))
    }

    public static func bytes(for site: CompiledSite, plan: ComponentPlan) -> [UInt8] {
        document(for: site, plan: plan).serializedBytes(.pretty)
    }

    /// Apple's limit on the uncompressed file.
    public static let sizeLimit = 128 * 1024
}
