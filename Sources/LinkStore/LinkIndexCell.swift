// The one place the server keeps the link index it serves: swapped by the link refresher
// (LinkServer's LinkRefresher) on its own, apart from the config snapshot, and read by every
// snapshot (`Snapshot.links`), bound to that snapshot's route table.

import Synchronization

/// The index being served and where it came from. Safe to share between threads.
public final class LinkIndexCell: Sendable {
    public struct State: Sendable {
        public var index: LinkIndex
        /// The store's change counter when the index was read (nil: never read).
        public var revision: Int64?
        /// The database it was read from (nil: none yet).
        public var source: StorageLocation?

        public init(index: LinkIndex, revision: Int64? = nil, source: StorageLocation? = nil) {
            self.index = index
            self.revision = revision
            self.source = source
        }
    }

    private let state: Mutex<State>

    public init(_ state: State = State(index: .empty)) {
        self.state = Mutex(state)
    }

    /// The index serving now.
    public var index: LinkIndex { state.withLock { $0.index } }

    public var current: State { state.withLock { $0 } }

    /// Swaps in a new state; the old index is freed when the last request using it is done.
    public func set(_ new: State) {
        let old = state.withLock { s in
            let old = s
            s = new
            return old
        }
        _ = old  // released here, outside the lock
    }
}
