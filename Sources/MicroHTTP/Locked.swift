#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex: the daemon's and the server's shared mutable state (connection
/// tracking, the serving snapshot, the metrics, the caches). Not `Synchronization.Mutex`, because on Linux that locks with futexes
/// inside the uninstrumented standard library, which ThreadSanitizer cannot see: every access
/// under it is reported as a race, so `make tsan` could check nothing. ThreadSanitizer intercepts
/// `pthread_mutex_lock`, and uncontended it costs the same.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // The value lives behind a pointer, not in a stored `var`: only the mutex orders its
    // accesses, so the runtime's exclusivity check on a class property (`swift_beginAccess`, ~80
    // instructions a lock) would add nothing. Inlinable: callers in other modules get `withLock`
    // specialised to their value and closure instead of a generic call.
    @usableFromInline let value: UnsafeMutablePointer<Value>
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: consuming Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; keep it short.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Runs `body` only if the lock is free right now; nil when another thread holds it.
    @inlinable
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
