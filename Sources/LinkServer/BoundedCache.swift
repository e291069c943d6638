// The one cache type of the server: everything a snapshot keeps to answer faster (the facts of each
// User-Agent, the language of each Accept-Language, compiled pages, not-found pages, stored links'
// answers, resolved short links, QR codes, preview cards) is a `BoundedCache` with a count and a
// byte budget, so no request header, link or card can make the server hold more than its budgets.

import MicroHTTP

/// A dictionary behind a lock within `capacity` entries and `byteBudget` bytes (each entry counts
/// what `cost` says). When a new entry would pass either budget the cache either stops growing
/// (`.keep`: new keys are made every time, as they were before there was a cache) or is emptied
/// first (`.empty`: hot entries come back on their next request); either way a flood of distinct
/// keys costs what making them costs, never memory. An entry larger than `largestEntry` is made
/// every time, never kept. Entries can belong to a generation of their source (a link index): a
/// newer generation empties the cache, and a request still on an older one keeps nothing.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    enum WhenFull: Sendable {
        case keep
        case empty
    }

    private struct State {
        /// The values themselves (a lookup copies nothing else); an entry's size is `cost`'s, again
        /// when it is replaced.
        var entries: [Key: Value] = [:]
        var bytes = 0
        /// The source generation the entries belong to (0: none given).
        var generation: UInt64 = 0
        /// The key found last and its value: the same key asked for again (the same page, the
        /// same language, one client's User-Agent) is compared, not hashed. Cleared by every
        /// change to `entries`.
        var lastKey: Key?
        var lastValue: Value?
    }

    private let state = Locked(State())
    let capacity: Int
    let byteBudget: Int
    let largestEntry: Int
    let whenFull: WhenFull
    private let cost: @Sendable (Key, Value) -> Int

    init(capacity: Int = .max, byteBudget: Int = .max, largestEntry: Int = .max, whenFull: WhenFull = .keep,
         cost: @escaping @Sendable (Key, Value) -> Int = { _, _ in 0 }) {
        self.capacity = capacity
        self.byteBudget = byteBudget
        self.largestEntry = largestEntry
        self.whenFull = whenFull
        self.cost = cost
    }

    /// At most `byteBudget` bytes, growing no further: each entry counts its key and value as
    /// stored inline, a dictionary slot's overhead, and `heapBytes(value)` for what the value holds
    /// on the heap.
    convenience init(byteBudget: Int, heapBytes: @escaping @Sendable (Value) -> Int = { _ in 0 }) {
        let inline = MemoryLayout<Key>.stride + MemoryLayout<Value>.stride + BoundedCache.slotOverhead
        self.init(byteBudget: byteBudget, cost: { _, value in inline + heapBytes(value) })
    }

    /// A dictionary's own bookkeeping per entry (hash table slot at its maximum load, metadata).
    static var slotOverhead: Int { 32 }

    /// The kept value of `key`, or `make()`'s (kept for the next request when it fits).
    func value(_ key: Key, make: () -> Value) -> Value {
        if let hit = cached(key) { return hit }
        let made = make()
        keep(key, made)
        return made
    }

    /// The value kept for `key` under `generation`, if any.
    func cached(_ key: Key, generation: UInt64 = 0) -> Value? {
        state.withLock { s in
            guard s.generation == generation else { return nil }
            if let last = s.lastKey, last == key { return s.lastValue }
            guard let found = s.entries[key] else { return nil }
            s.lastKey = key
            s.lastValue = found
            return found
        }
    }

    /// Keeps `value` for `key` if the budgets allow (see the type).
    func keep(_ key: Key, _ value: Value, generation: UInt64 = 0) {
        let size = cost(key, value)
        // Emptied states are freed after the lock is let go.
        var released: [State] = []
        state.withLock { s in
            s.lastKey = nil
            s.lastValue = nil
            if generation > s.generation {
                released.append(s)
                s = State(generation: generation)
            }
            guard generation == s.generation, size <= largestEntry else { return }
            if let old = s.entries[key] {
                // `.keep`: the first one stays (another request made the same value meanwhile).
                guard whenFull == .empty else { return }
                s.entries[key] = nil
                s.bytes -= cost(key, old)
            }
            if s.entries.count >= capacity || s.bytes + size > byteBudget {
                guard whenFull == .empty else { return }
                released.append(s)
                s = State(generation: generation)
            }
            s.entries[key] = value
            s.bytes += size
        }
        released.removeAll()
    }

    /// Entries and bytes held now.
    var count: Int { state.withLock { $0.entries.count } }
    var bytes: Int { state.withLock { $0.bytes } }
}
