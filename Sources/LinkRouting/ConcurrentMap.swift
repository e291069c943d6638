// Independent pieces of a load (one site's text, one site's routes) are done on every core: a
// first load of many sites is otherwise one core's work while the others idle.

import Dispatch

package enum ConcurrentMap {
    /// `(0..<count).map(body)`, the calls spread over the cores; the results in index order.
    package static func map<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard count > 1 else { return (0..<count).map(body) }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each iteration writes its own slot, once.
            nonisolated(unsafe) let slots = buffer.baseAddress!
            DispatchQueue.concurrentPerform(iterations: count) { i in
                (slots + i).initialize(to: body(i))
            }
            initialized = count
        }
    }
}
