/// A site's entries, trie and apps: all that resolution reads.
final class SiteResolver: Sendable {
    let name: String
    let entries: [CompiledEntry]
    let trie: PathTrie
    /// App IDs of the site's iOS apps, package names of its Android apps.
    let iosApps: [String]
    let androidApps: [String]
    /// Per entry, what deciding and answering need from its config.
    let facts: [Facts]

    struct Facts: Sendable {
        /// The route's name, or the exclusion's `exclude` pattern.
        var name: String
        /// The route's fragment parameter, or the fragment an exclusion is limited to.
        var fragment: String?
        /// How many parameters a match of the route can have at most (sizes its dictionary once).
        var parameterCount = 0
    }

    init(name: String, entries: [CompiledEntry], iosApps: [String], androidApps: [String]) {
        self.name = name
        self.entries = entries
        self.facts = entries.map { entry in
            switch entry.kind {
            case let .route(r):
                var count = entry.requiredQuery.count + entry.optionalQuery.count + (r.fragment == nil ? 0 : 1)
                for seg in entry.pattern.segments {
                    switch seg {
                    case .literal: continue
                    case .param: count += 1
                    case let .rest(name): count += name == "*" ? 0 : 1
                    }
                }
                return Facts(name: r.name, fragment: r.fragment, parameterCount: count)
            case let .exclusion(e): return Facts(name: e.exclude, fragment: e.fragment)
            }
        }
        self.trie = PathTrie(entries: entries)
        self.iosApps = iosApps
        self.androidApps = androidApps
    }

    /// Resolves a raw path (still encoded) with its query and fragment on this site.
    func resolve(path rawPath: Bytes, query: Bytes?, fragment: Bytes?, restrictTo apps: (ios: [String], android: [String])?) -> LinkResolution {
        if rawPath.contains(where: PercentEncoding.isRawPathPunctuation) {
            let encoded = PercentEncoding.rawPunctuationEncoded(rawPath)
            return encoded.withUnsafeBufferPointer { resolve(path: $0, query: query, fragment: fragment, restrictTo: apps) }
        }
        return PathSegments.with(rawPath) { segments in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: trie.maxCandidates) { buffer in
                let n = trie.collect(segments, into: buffer)
                if n == 0 { return .noRoute(site: name) }
                let candidates = UnsafeMutableBufferPointer(rebasing: buffer[0..<n])
                if n > 1 {
                    // Insertion sort: a handful of candidates.
                    for i in 1..<n {
                        let x = candidates[i]
                        var j = i
                        while j > 0 && candidates[j - 1] > x {
                            candidates[j] = candidates[j - 1]
                            j -= 1
                        }
                        candidates[j] = x
                    }
                }
                return decide(UnsafeBufferPointer(candidates), segments, query: query, fragment: fragment, restrictTo: apps)
            }
        }
    }

    /// The first candidate (in priority order) that decides: an exclusion that leaves no app, or
    /// a route whose path, oneOf values and required query match.
    private func decide(
        _ candidates: UnsafeBufferPointer<Int>, _ segments: PathSegments, query: Bytes?, fragment: Bytes?,
        restrictTo apps: (ios: [String], android: [String])?
    ) -> LinkResolution {
        var excludedIOS: [String] = []
        var excludedAndroid: [String] = []
        for c in candidates {
            let shape = trie.entryShapes[c]
            if !shape.isRoute {
                if let f = facts[c].fragment {
                    guard let fragment, ByteText.equals(fragment, f) else { continue }
                }
                for id in entries[c].iosAppIDs where !excludedIOS.contains(id) { excludedIOS.append(id) }
                for p in entries[c].androidPackages where !excludedAndroid.contains(p) { excludedAndroid.append(p) }
                let iosLeft = apps.map { $0.ios.contains { !excludedIOS.contains($0) } } ?? iosApps.contains { !excludedIOS.contains($0) }
                let androidLeft =
                    apps.map { $0.android.contains { !excludedAndroid.contains($0) } } ?? androidApps.contains { !excludedAndroid.contains($0) }
                if !iosLeft && !androidLeft {
                    return .excluded(site: name, entryIndex: entries[c].index, pattern: facts[c].name)
                }
                continue
            }
            let pathOK = trie.pathMatches(c, segments) { i, value in
                guard case let .param(_, _, _, oneOf?) = entries[c].pattern.segments[i] else { return true }
                let decoded = PercentEncoding.decode(value)
                return oneOf.contains { $0 == decoded }
            }
            guard pathOK else { continue }
            if shape.hasQuery {
                guard let query, SiteResolver.hasRequired(entries[c].requiredQuery, in: query) else { continue }
            }
            var ios = entries[c].iosAppIDs
            var android = entries[c].androidPackages
            if !excludedIOS.isEmpty || !excludedAndroid.isEmpty {
                ios = ios.filter { !excludedIOS.contains($0) }
                android = android.filter { !excludedAndroid.contains($0) }
            }
            if let apps {
                ios = ios.filter(apps.ios.contains)
                android = android.filter(apps.android.contains)
            }
            if ios.isEmpty && android.isEmpty {
                if !excludedIOS.isEmpty || !excludedAndroid.isEmpty {
                    return .excluded(site: name, entryIndex: entries[c].index, pattern: entries[c].pattern.source)
                }
                continue
            }
            return .matched(
                LinkMatch(
                    site: name, route: facts[c].name, parameters: parameters(c, segments, query: query, fragment: fragment),
                    iosAppIDs: ios, androidPackages: android, entryIndex: entries[c].index))
        }
        return .noRoute(site: name)
    }

    /// Every required name is present, and every item of that name has a non-empty value.
    private static func hasRequired(_ names: [String], in query: Bytes) -> Bool {
        for name in names {
            var found = false
            var ok = true
            QueryBytes.forEach(query) { itemName, value in
                guard QueryBytes.hasName(itemName, name) else { return true }
                guard let value, !value.isEmpty else {
                    ok = false
                    return false
                }
                found = true
                return true
            }
            if !ok || !found { return false }
        }
        return true
    }

    /// The first item named `name`: whether there is one, and its value (nil without `=`).
    private static func firstItem(_ name: String, in query: Bytes) -> (found: Bool, value: Bytes?) {
        var found = false
        var value: Bytes? = nil
        QueryBytes.forEach(query) { itemName, itemValue in
            guard QueryBytes.hasName(itemName, name) else { return true }
            found = true
            value = itemValue
            return false
        }
        return (found, value)
    }

    /// The decoded parameters of the route that matched (path, then query, then fragment).
    private func parameters(_ c: Int, _ segments: PathSegments, query: Bytes?, fragment: Bytes?) -> [String: String] {
        var params = [String: String](minimumCapacity: facts[c].parameterCount)
        for (i, seg) in entries[c].pattern.segments.enumerated() {
            switch seg {
            case .literal:
                continue
            case let .param(name, prefix, suffix, oneOf):
                let s = segments[i]
                var value = PercentEncoding.decode(s.slice(prefix.utf8.count..<(s.count - suffix.utf8.count)))
                // Strings compare by canonical equivalence: report the config's spelling of the
                // value (as the generated routers' enums do), not the link's.
                if let oneOf, let listed = oneOf.first(where: { $0 == value }) { value = listed }
                params[name] = value
            case let .rest(name):
                if name != "*" { params[name] = PercentEncoding.decode(segments.tail(from: i)) }
            }
        }
        if let query {
            for name in entries[c].requiredQuery {
                let item = SiteResolver.firstItem(name, in: query)
                if let value = item.value { params[name] = PercentEncoding.decode(value) }
            }
            for name in entries[c].optionalQuery {
                let item = SiteResolver.firstItem(name, in: query)
                if item.found { params[name] = item.value.map { PercentEncoding.decode($0) } ?? "" }
            }
        }
        if let f = facts[c].fragment, let fragment { params[f] = PercentEncoding.decode(fragment) }
        return params
    }
}
