// Debian libpq-dev, reached through this module map for the PostgreSQL link store (LinkStore).
#ifndef LINKWELL_CPOSTGRES_SHIM_H
#define LINKWELL_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

// Waits until the connection's socket is readable or `timeout_ms` passed: 1 readable, 0 timeout, -1 error.
static inline int linkwell_pq_wait_readable(PGconn *conn, int timeout_ms) {
    int fd = PQsocket(conn);
    if (fd < 0) return -1;
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    int rc = poll(&p, 1, timeout_ms);
    if (rc < 0) return -1;
    return rc > 0 ? 1 : 0;
}
// libpq prints server notices (and "terminating connection" at a shutdown) on stderr by default;
// linkwell reports what matters through its own errors and log.
static void linkwell_pq_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void linkwell_pq_silence_notices(PGconn *conn) { PQsetNoticeProcessor(conn, linkwell_pq_ignore_notice, NULL); }
#endif
