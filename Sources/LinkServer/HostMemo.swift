#if canImport(Glibc)
import Glibc
#endif
import LinkRouting

/// The last Host value each request thread resolved to a site, and the snapshot it was resolved
/// under: a client (or a proxy) sends the same Host request after request, and comparing it with
/// the last one costs less than hashing it into the host table again. Per thread, so no lock and
/// no shared cache line; keyed by the snapshot's serial, so a reload is never answered from a
/// memo of the old table.
enum HostMemo {
    struct Entry {
        var serial: UInt64 = 0
        var host = ""
        var index: Int?
    }

    /// `snapshot.table.siteIndex(forHost: host)`, from this thread's memo when the last call
    /// asked the same of the same snapshot.
    static func siteIndex(_ snapshot: Snapshot, host: String) -> Int? {
        let entry = current
        if entry.pointee.serial == snapshot.serial && entry.pointee.host == host { return entry.pointee.index }
        let index = snapshot.table.siteIndex(forHost: host)
        entry.pointee = Entry(serial: snapshot.serial, host: host, index: index)
        return index
    }

    /// This thread's entry (made at its first request, freed when the thread ends). A pointer, not
    /// a class: its fields are read without the runtime's exclusivity checks.
    private static var current: UnsafeMutablePointer<Entry> {
        if let known = pthread_getspecific(key.key) { return known.assumingMemoryBound(to: Entry.self) }
        let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        entry.initialize(to: Entry())
        pthread_setspecific(key.key, entry)
        return entry
    }

    private struct Key: @unchecked Sendable {
        // @unchecked: a pthread key, created once and never changed.
        let key: pthread_key_t
    }

    private static let key: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let entry = pointer?.assumingMemoryBound(to: Entry.self) else { return }
            entry.deinitialize(count: 1)
            entry.deallocate()
        }
        return Key(key: key)
    }()
}
