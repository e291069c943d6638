#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex: the daemon's and the server's shared mutable state (connection
/// tracking, the serving snapshot, the metrics, the caches). Not `Synchronization.Mutex`, because on Linux that locks with futexes
/// inside the uninstrumented standard library, which ThreadSanitizer cannot see: every access
/// under it is reported as a race, so `make tsan` could check nothing. ThreadSanitizer intercepts
/// `pthread_mutex_lock`, and uncontended it costs the same.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: consuming Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; keep it short.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` only if the lock is free right now; nil when another thread holds it.
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
