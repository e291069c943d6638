#if canImport(Glibc)
import Glibc
#endif
import LinkStore
import MicroHTTP
import Synchronization

/// Click counts in memory, between two flushes (see `ClickRecorder`).
///
/// Sharded like the access log: each request thread counts into its own shard (assigned
/// round-robin at its first click, one pthread mutex each, so the lock is uncontended), keyed by
/// (UTC day, site, code, route); a key holds the counts of the combinations it saw (platform ×
/// outcome × in-app × crawler) and of up to `referrerSlots` referrer hosts, the rest under
/// `(other)`. No database, no allocation once a key exists (a small string's host aside).
///
/// Bounded: at most `maxKeys` keys live across all shards; a click whose key would be one more
/// counts under its route's link `(other)` (route pages and not-found keys are bounded by the
/// config and always kept), and `overflowed` counts it.
public final class ClickCounter: Sendable {
    public static let shardCount = 16

    public struct Key: Hashable, Sendable {
        public var day: Int
        public var site: String
        public var code: String
        public var route: String
    }

    /// The counts of one key: `slot << 56 | count` per combination seen, referrer hosts with counts.
    public struct Entry: Sendable {
        var slots: [UInt64] = []
        var referrers: [(host: String, count: Int)] = []

        mutating func add(slot: Int, count: Int = 1) {
            let tag = UInt64(slot) << 56
            for i in slots.indices where slots[i] & ~Self.countMask == tag {
                slots[i] += UInt64(count)
                return
            }
            slots.append(tag | UInt64(count))
        }

        mutating func add(referrer: String, count: Int = 1, slotsAllowed: Int) {
            for i in referrers.indices where referrers[i].host == referrer {
                referrers[i].count += count
                return
            }
            if referrers.count < slotsAllowed || referrer == ReferrerHost.other {
                referrers.append((referrer, count))
            } else {
                add(referrer: ReferrerHost.other, count: count, slotsAllowed: slotsAllowed)
            }
        }

        mutating func merge(_ other: Entry, referrerSlots: Int) {
            for s in other.slots { add(slot: Int(s >> 56), count: Int(s & Self.countMask)) }
            for r in other.referrers { add(referrer: r.host, count: r.count, slotsAllowed: referrerSlots) }
        }

        static let countMask: UInt64 = (1 << 56) - 1

        /// (slot, count) of each combination.
        public var counts: [(slot: Int, count: Int)] { slots.map { (Int($0 >> 56), Int($0 & Self.countMask)) } }
        public var total: Int { slots.reduce(0) { $0 + Int($1 & Self.countMask) } }
        public var referrerCounts: [(host: String, count: Int)] { referrers }
    }

    struct Shard {
        var entries: [Key: Entry] = [:]
        /// The key counted last and its index in `entries`: the next click of the same link
        /// compares four fields instead of hashing two strings. Cleared whenever `entries`
        /// changes shape (an insert, a drain), which would make the index stale.
        var lastKey = Key(day: 0, site: "", code: "", route: "")
        /// nil: no last key (`lastKey` means nothing).
        var lastIndex: Dictionary<Key, Entry>.Index?
        /// Clicks of the last key, all with `pendingSlot` and `pendingReferrer`, not yet added to
        /// its entry: the same click again (one browser following links) is one addition here.
        /// Added (`settle`) before `entries` is read or changes shape, and before another click.
        var pending = 0
        var pendingSlot = 0
        var pendingReferrer = ""
        var pendingSlotsAllowed = 0

        mutating func settle() {
            guard pending > 0 else { return }
            if let i = lastIndex {
                entries.values[i].add(slot: pendingSlot, count: pending)
                entries.values[i].add(referrer: pendingReferrer, count: pending, slotsAllowed: pendingSlotsAllowed)
            }
            pending = 0
        }
    }

    private let shards: [Locked<Shard>]
    private let nextShard = Atomic<Int>(0)
    private let keys = Atomic<Int>(0)
    private let overflowCount = Atomic<Int>(0)
    private let maxKeyCount: Atomic<Int>
    private let referrerSlotCount: Atomic<Int>
    private let threadShard = ThreadShardKey()
    private let lastDay = Atomic<Int>(0)

    /// `referrerSlots`: hosts held per key between two flushes (beyond: `(other)`).
    public init(maxKeys: Int = 100_000, referrerSlots: Int = 20) {
        shards = (0..<Self.shardCount).map { _ in Locked(Shard()) }
        maxKeyCount = Atomic(maxKeys)
        referrerSlotCount = Atomic(referrerSlots)
    }

    /// New bounds (a reload); keys already held stay.
    public func configure(maxKeys: Int, referrerSlots: Int) {
        maxKeyCount.store(maxKeys, ordering: .relaxed)
        referrerSlotCount.store(referrerSlots, ordering: .relaxed)
    }

    public var maxKeys: Int { maxKeyCount.load(ordering: .relaxed) }
    public var referrerSlots: Int { referrerSlotCount.load(ordering: .relaxed) }
    /// Clicks counted under a route's `(other)` link because `maxKeys` keys were held.
    public var overflowed: Int { overflowCount.load(ordering: .relaxed) }
    /// Keys held now.
    public var keyCount: Int { keys.load(ordering: .relaxed) }

    /// The link `(other)`: where clicks of links beyond `maxKeys` are counted.
    public static let overflowCode = "(other)"

    /// Counts one click on the calling thread's shard. `referrer`: a ``ReferrerHost`` value.
    public func record(_ click: ClickEvent, referrer: String, unixSeconds: Int) {
        let day = day(unixSeconds)
        let slot = click.slot
        let referrerSlots = referrerSlotCount.load(ordering: .relaxed)
        shards[shardIndex()].withLock { s in
            // The click's fields against the last key's, in place: no key made to compare.
            if s.lastIndex != nil, s.lastKey.day == day, s.lastKey.site == click.site, s.lastKey.code == click.code,
               s.lastKey.route == click.route {
                if s.pending > 0, s.pendingSlot == slot, s.pendingSlotsAllowed == referrerSlots, s.pendingReferrer == referrer {
                    s.pending += 1
                    return
                }
                s.settle()
                s.pending = 1
                s.pendingSlot = slot
                s.pendingReferrer = referrer
                s.pendingSlotsAllowed = referrerSlots
                return
            }
            s.settle()
            var key = Key(day: day, site: click.site, code: click.code, route: click.route)
            if let i = s.entries.index(forKey: key) {
                s.entries.values[i].add(slot: slot)
                s.entries.values[i].add(referrer: referrer, slotsAllowed: referrerSlots)
                s.lastKey = key
                s.lastIndex = i
                return
            }
            var overflowed = false
            if !key.code.isEmpty {
                if keys.add(1, ordering: .relaxed).newValue > maxKeyCount.load(ordering: .relaxed) {
                    keys.subtract(1, ordering: .relaxed)
                    overflowCount.add(1, ordering: .relaxed)
                    key.code = Self.overflowCode
                    overflowed = true
                }
            } else {
                keys.add(1, ordering: .relaxed)
            }
            var entry = Entry()
            entry.add(slot: slot)
            entry.add(referrer: referrer, slotsAllowed: referrerSlots)
            if let i = s.entries.index(forKey: key) {
                s.entries.values[i].merge(entry, referrerSlots: referrerSlots)
            } else {
                // A route's `(other)` entry is held like any other key: counted, so that `drain`
                // (which subtracts every entry it takes) leaves the count at zero.
                if overflowed { keys.add(1, ordering: .relaxed) }
                s.entries[key] = entry
            }
            s.lastKey = key
            s.lastIndex = s.entries.index(forKey: key)
        }
    }

    /// `ClickDay.of(unixSeconds:)`, from the last day computed while the UTC day is the same (the
    /// civil date's arithmetic once a day, not once a click): one word, epoch days above yyyymmdd.
    private func day(_ unixSeconds: Int) -> Int {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let last = lastDay.load(ordering: .relaxed)
        if last != 0, last >> 32 == days { return last & 0xFFFF_FFFF }
        let day = ClickDay.fromEpochDays(days)
        if days >= 0 { lastDay.store(days << 32 | day, ordering: .relaxed) }
        return day
    }

    /// Takes every count out (the shards are empty afterwards), merged across shards.
    public func drain() -> [Key: Entry] {
        var out: [Key: Entry] = [:]
        let referrerSlots = referrerSlotCount.load(ordering: .relaxed)
        for shard in shards {
            var taken: [Key: Entry] = [:]
            shard.withLock { s in
                s.settle()
                swap(&taken, &s.entries)
                s.lastIndex = nil
            }
            keys.subtract(taken.count, ordering: .relaxed)
            if out.isEmpty {
                out = taken
                continue
            }
            for (k, e) in taken {
                if let i = out.index(forKey: k) { out.values[i].merge(e, referrerSlots: referrerSlots) } else { out[k] = e }
            }
        }
        return out
    }

    /// Calls `body` with every key and entry held now, shard by shard (under each shard's lock).
    public func forEach(_ body: (Key, Entry) -> Void) {
        for shard in shards {
            shard.withLock { s in
                s.settle()
                for (k, e) in s.entries { body(k, e) }
            }
        }
    }

    private func shardIndex() -> Int {
        if let i = threadShard.get() { return i }
        let index = nextShard.add(1, ordering: .relaxed).oldValue % Self.shardCount
        threadShard.set(index)
        return index
    }
}

/// A pthread key holding a small index per thread.
final class ThreadShardKey: @unchecked Sendable {
    private let key = UnsafeMutablePointer<pthread_key_t>.allocate(capacity: 1)
    init() { pthread_key_create(key, nil) }
    // A process has at most PTHREAD_KEYS_MAX (1,024) keys: give this one back with its counter
    // (LeakSanitizer found one key and its storage kept per ClickCounter).
    deinit {
        pthread_key_delete(key.pointee)
        key.deallocate()
    }
    func get() -> Int? { pthread_getspecific(key.pointee).map { Int(bitPattern: $0) - 1 } }
    func set(_ index: Int) { pthread_setspecific(key.pointee, UnsafeRawPointer(bitPattern: index + 1)) }
}
