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

    private static let entries = ThreadEntries { Entry() }
    private static var current: UnsafeMutablePointer<Entry> { entries.current }
}

/// One `Entry` per thread (made at the thread's first use, freed when the thread ends), reached
/// through a pointer: no lock, no shared cache line, and its fields read without the runtime's
/// exclusivity checks (which a class's stored `var`s get).
final class ThreadEntries<Entry>: @unchecked Sendable {
    // @unchecked: the key is created once and never changed; each entry is its thread's alone.
    private final class Box {
        let pointer: UnsafeMutablePointer<Entry>
        init(_ entry: Entry) {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: entry)
        }
        deinit {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
    }

    private let key: pthread_key_t
    private let make: @Sendable () -> Entry

    init(_ make: @escaping @Sendable () -> Entry) {
        var key = pthread_key_t()
        // The thread's box, released when the thread ends.
        pthread_key_create(&key) { raw in
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
        }
        self.key = key
        self.make = make
    }

    /// The calling thread's entry.
    var current: UnsafeMutablePointer<Entry> {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Box>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.pointer }
        }
        let box = Box(make())
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return box.pointer
    }
}
