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

    /// The AASA document from an already made plan of the same site: the served bytes, read back.
    public static func document(for site: CompiledSite, plan: ComponentPlan) -> JSONValue {
        do {
            return try JSONValue.parse(bytes(for: site, plan: plan))
        } catch {
            preconditionFailure("the generated apple-app-site-association is not JSON (\(error)): a Linkwell bug")
        }
    }

    /// Writes the document straight to bytes, each object's keys in the serialiser's order
    /// (sorted by their UTF-8 bytes: `JSONValue.serializedBytes(.pretty)` of the same document).
    static func write(_ site: CompiledSite, plan: ComponentPlan) -> [UInt8] {
        GenerationCounter.record(.aasa, site: site)
        let format = site.config.aasa?.format ?? .modern

        let groups = appGroups(site)
        var w = JSONPrettyWriter(capacity: 256 * site.entries.count + 1024)
        w.beginObject()
        // Keys in byte order: activitycontinuation, appclips, applinks, webcredentials.
        let continuation = site.iosApps.filter { $0.activityContinuation == true }.map(\.appID)
        if !continuation.isEmpty { appsObject("activitycontinuation", continuation, &w) }
        let clips = site.iosApps.compactMap { app in app.appClipBundleID.map { "\(app.teamID).\($0)" } }
        if !clips.isEmpty { appsObject("appclips", clips, &w) }
        w.key("applinks")
        w.beginObject()
        if format != .modern {
            w.key("apps")
            w.strings([])
        }
        w.key("details")
        w.beginArray()
        for group in groups where !group.entries.isEmpty {
            let includes: (CompiledEntry) -> Bool = { $0.iosAppIDs.contains(group.appIDs[0]) }
            if format != .legacy {
                w.beginObject()
                w.key("appIDs")
                w.strings(group.appIDs)
                w.key("components")
                w.beginArray()
                for c in plan.components(for: .apple, appliesTo: includes) { c.write(to: &w, includeComment: true) }
                w.endArray()
                w.endObject()
            }
            if format != .modern {
                // iOS 9–12: path only, `NOT ` excludes; one entry per app (`appID` is singular).
                let paths = legacyPaths(plan: plan, includes: includes)
                for id in group.appIDs {
                    w.beginObject()
                    w.key("appID")
                    w.string(id)
                    w.key("paths")
                    w.strings(paths)
                    w.endObject()
                }
            }
        }
        w.endArray()
        if !plan.substitutionVariables.isEmpty, format != .legacy {
            w.key("substitutionVariables")
            w.beginObject()
            for (name, values) in JSONPrettyWriter.sortedByUTF8(plan.substitutionVariables, key: \.0) {
                w.key(name)
                w.strings(values)
            }
            w.endObject()
        }
        w.endObject()
        let credentials = site.iosApps.filter { $0.webcredentials == true }.map(\.appID)
        if !credentials.isEmpty { appsObject("webcredentials", credentials, &w) }
        w.endObject()
        return w.finish()
    }

    /// Apps with the same entries share one `details` entry: the groups, in app order.
    static func appGroups(_ site: CompiledSite) -> [(appIDs: [String], entries: [Int])] {
        var groups: [(appIDs: [String], entries: [Int])] = []
        for app in site.iosApps {
            let entries = site.entries.filter { $0.iosAppIDs.contains(app.appID) }.map(\.index)
            if let g = groups.firstIndex(where: { $0.entries == entries }) {
                groups[g].appIDs.append(app.appID)
            } else {
                groups.append(([app.appID], entries))
            }
        }
        return groups
    }

    /// `"key": { "apps": [ids] }`.
    private static func appsObject(_ key: String, _ ids: [String], _ w: inout JSONPrettyWriter) {
        w.key(key)
        w.beginObject()
        w.key("apps")
        w.strings(ids)
        w.endObject()
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
        write(site, plan: plan)
    }

    /// Apple's limit on the uncompressed file.
    public static let sizeLimit = 128 * 1024
}
