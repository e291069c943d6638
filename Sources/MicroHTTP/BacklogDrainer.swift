import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Accepts every waiting connection of an MHD daemon's listen socket once more than a few are
/// queued, and hands each to the daemon (`MHD_add_connection`, which gives it to a polling thread at once
/// through the daemon's ITC).
///
/// Why: libmicrohttpd 0.9.75 in `poll` mode accepts **one** connection per pass of its loop, and
/// a pass serves every ready connection first. With 1000 clients connecting while 500 are being
/// served, the last ones wait in the kernel's accept queue for hundreds of passes, which adds a
/// second or more to their first request. nginx accepts in a loop; this does the same beside
/// MHD. Both accept from the same non-blocking socket (whoever takes a connection owns it), and
/// every connection still goes through MHD's accept policy (the connection limits) and
/// connection notifications.
final class BacklogDrainer: @unchecked Sendable {
    // @unchecked: `thread` is written in `start` and read in `stop`, both under the owner's lock.
    private let daemon: OpaquePointer
    private let listenSocket: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: pthread_t?

    /// nil when the daemon has no listen socket or a pipe cannot be made (MHD then accepts alone).
    init?(daemon: OpaquePointer) {
        let socket = CMicroHTTPD_get_listen_fd(daemon)
        guard socket >= 0 else { return nil }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.daemon = daemon
        self.listenSocket = socket
        self.wakeRead = fds[0]
        self.wakeWrite = fds[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    func start() {
        let unmanaged = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let drainer = Unmanaged<BacklogDrainer>.fromOpaque(raw!).takeRetainedValue()
            drainer.run()
            return nil
        }, unmanaged.toOpaque())
        if created == 0 {
            self.thread = thread
        } else {
            unmanaged.release()
        }
    }

    /// Stops accepting and joins the thread (before the daemon quiesces or stops).
    func stop() {
        guard let thread else { return }
        self.thread = nil
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        pthread_join(thread, nil)
    }

    private func run() {
        var fds = [pollfd(fd: listenSocket, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let queued = CMicroHTTPD_accept_queue_length(listenSocket)
            if queued < 0 || queued >= Self.backlogThreshold {
                drain()
            } else {
                // A short queue is MHD's to take (taking each connection here would cost a thread
                // hop per connection — twice the CPU of a `Connection: close` request); look
                // again in a millisecond, so a growing backlog is seen at once.
                var wake = [fds[1]]
                if poll(&wake, 1, 1) > 0 { return }
            }
        }
    }

    /// Connections waiting before this thread accepts them (MHD takes one per pass of its loop).
    static let backlogThreshold: Int32 = 8

    /// Accepts until the queue is empty.
    private func drain() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(listenSocket, $0, &length)
                }
            }
            if client < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: leave the rest to MHD's own accept (it logs and counts)
                    // and look again shortly, without spinning.
                    usleep(10_000)
                    return
                default:
                    return  // EAGAIN: the queue is empty (MHD took the rest)
                }
            }
            // Not inherited by a child process (MHD makes it non-blocking itself).
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // MHD owns the socket from here, and closes it itself when it refuses it.
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon, client, $0, length)
                }
            }
        }
    }
}
