// Sites are independent: their checks, plans and files are made on every core.

import LinkRouting

enum ParallelMap {
    /// ``ConcurrentMap/map(_:_:)``; the caller's `GenerationCounter` counts the calls made on
    /// the other threads too.
    static func map<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let counter = GenerationCounter.current
        return ConcurrentMap.map(count) { i in GenerationCounter.$current.withValue(counter) { body(i) } }
    }
}
