/// A raw path's segments: byte ranges in stack memory. `""` and `"/"` have none; one leading and
/// one trailing slash are insignificant (as in AASA), so `/post/1/` is `post`, `1`.
struct PathSegments {
    let path: Bytes
    let bounds: UnsafeMutableBufferPointer<Int>  // start, end of each segment
    let count: Int

    /// Splits `path` into `bounds` (room for `2 × (slashes + 1)` values).
    init(_ path: Bytes, into bounds: UnsafeMutableBufferPointer<Int>) {
        self.path = path
        self.bounds = bounds
        let slash = UInt8(ascii: "/")
        var start = 0
        var end = path.count
        if start < end, path[start] == slash { start += 1 }
        if start < end, path[end - 1] == slash { end -= 1 }
        guard start < end else {
            count = 0
            return
        }
        var n = 0
        var segStart = start
        for i in start..<end where path[i] == slash {
            bounds[2 * n] = segStart
            bounds[2 * n + 1] = i
            n += 1
            segStart = i + 1
        }
        bounds[2 * n] = segStart
        bounds[2 * n + 1] = end
        count = n + 1
    }

    /// The number of `Int`s `init(_:into:)` needs for `path`.
    static func boundsCapacity(_ path: Bytes) -> Int {
        var slashes = 0
        for b in path where b == UInt8(ascii: "/") { slashes += 1 }
        return 2 * (slashes + 1)
    }

    @inline(__always)
    subscript(i: Int) -> Bytes { path.slice(bounds[2 * i]..<bounds[2 * i + 1]) }

    /// Segments `i…` with their slashes; empty when there are none.
    func tail(from i: Int) -> Bytes {
        i < count ? path.slice(bounds[2 * i]..<bounds[2 * count - 1]) : path.slice(0..<0)
    }

    /// Calls `body` with the segments of `path`.
    static func with<R>(_ path: Bytes, _ body: (PathSegments) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: boundsCapacity(path)) { body(PathSegments(path, into: $0)) }
    }
}
