// Debian libpq (libpq5), for the PostgreSQL link store (LinkStore). The library is loaded with
// dlopen at the first PostgreSQL connection, not linked: a server on SQLite — the default —
// never maps libpq and the ~5 MB of its dependencies (OpenSSL, GnuTLS, Kerberos, LDAP).
// The types and prototypes are libpq's own header (Debian libpq-dev, included by path so the
// build needs no pkg-config flags); every call goes through a `lw_` wrapper that resolves the
// function once with dlsym. Check `linkwell_pq_load_error()` before the first call.
#ifndef LINKWELL_CPOSTGRES_SHIM_H
#define LINKWELL_CPOSTGRES_SHIM_H
#include "/usr/include/postgresql/libpq-fe.h"
#include <dlfcn.h>
#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>

#define LINKWELL_PQ_SONAME "libpq.so.5"

// The library handle, opened once (NULL when it cannot be loaded; then dlerror() says why).
static inline void *linkwell_pq_handle(void) {
    static _Atomic(void *) handle = NULL;
    void *h = atomic_load_explicit(&handle, memory_order_acquire);
    if (h == NULL) {
        h = dlopen(LINKWELL_PQ_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL) atomic_store_explicit(&handle, h, memory_order_release);
    }
    return h;
}

// NULL when libpq is loaded (every function found), else why not.
static inline const char *linkwell_pq_load_error(void) {
    if (linkwell_pq_handle() != NULL && dlsym(linkwell_pq_handle(), "PQconnectdbParams") != NULL) return NULL;
    const char *why = dlerror();
    return why != NULL ? why : LINKWELL_PQ_SONAME " has no PQconnectdbParams";
}

// One function pointer per libpq function, resolved at its first call.
#define LINKWELL_PQ_RESOLVE(name) \
    static _Atomic(void *) slot = NULL; \
    void *f = atomic_load_explicit(&slot, memory_order_acquire); \
    if (f == NULL) { f = dlsym(linkwell_pq_handle(), #name); atomic_store_explicit(&slot, f, memory_order_release); } \
    __typeof__(&name) fn = (__typeof__(&name))f;

static inline PGconn *lw_PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    LINKWELL_PQ_RESOLVE(PQconnectdbParams) return fn(keywords, values, expand_dbname);
}
static inline void lw_PQfinish(PGconn *conn) { LINKWELL_PQ_RESOLVE(PQfinish) fn(conn); }
static inline PQconninfoOption *lw_PQconninfoParse(const char *conninfo, char **errmsg) {
    LINKWELL_PQ_RESOLVE(PQconninfoParse) return fn(conninfo, errmsg);
}
static inline void lw_PQconninfoFree(PQconninfoOption *options) { LINKWELL_PQ_RESOLVE(PQconninfoFree) fn(options); }
static inline void lw_PQreset(PGconn *conn) { LINKWELL_PQ_RESOLVE(PQreset) fn(conn); }
static inline ConnStatusType lw_PQstatus(const PGconn *conn) { LINKWELL_PQ_RESOLVE(PQstatus) return fn(conn); }
static inline char *lw_PQerrorMessage(const PGconn *conn) { LINKWELL_PQ_RESOLVE(PQerrorMessage) return fn(conn); }
static inline int lw_PQsocket(const PGconn *conn) { LINKWELL_PQ_RESOLVE(PQsocket) return fn(conn); }
static inline PGresult *lw_PQexec(PGconn *conn, const char *query) { LINKWELL_PQ_RESOLVE(PQexec) return fn(conn, query); }
static inline int lw_PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                                       const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    LINKWELL_PQ_RESOLVE(PQsendQueryParams) return fn(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
static inline int lw_PQsetSingleRowMode(PGconn *conn) { LINKWELL_PQ_RESOLVE(PQsetSingleRowMode) return fn(conn); }
static inline PGresult *lw_PQgetResult(PGconn *conn) { LINKWELL_PQ_RESOLVE(PQgetResult) return fn(conn); }
static inline int lw_PQconsumeInput(PGconn *conn) { LINKWELL_PQ_RESOLVE(PQconsumeInput) return fn(conn); }
static inline PGnotify *lw_PQnotifies(PGconn *conn) { LINKWELL_PQ_RESOLVE(PQnotifies) return fn(conn); }
static inline ExecStatusType lw_PQresultStatus(const PGresult *res) { LINKWELL_PQ_RESOLVE(PQresultStatus) return fn(res); }
static inline char *lw_PQresultErrorMessage(const PGresult *res) { LINKWELL_PQ_RESOLVE(PQresultErrorMessage) return fn(res); }
static inline char *lw_PQresultErrorField(const PGresult *res, int fieldcode) { LINKWELL_PQ_RESOLVE(PQresultErrorField) return fn(res, fieldcode); }
static inline char *lw_PQcmdTuples(PGresult *res) { LINKWELL_PQ_RESOLVE(PQcmdTuples) return fn(res); }
static inline char *lw_PQgetvalue(const PGresult *res, int row, int field) { LINKWELL_PQ_RESOLVE(PQgetvalue) return fn(res, row, field); }
static inline int lw_PQgetisnull(const PGresult *res, int row, int field) { LINKWELL_PQ_RESOLVE(PQgetisnull) return fn(res, row, field); }
static inline void lw_PQclear(PGresult *res) { LINKWELL_PQ_RESOLVE(PQclear) fn(res); }
static inline void lw_PQfreemem(void *ptr) { LINKWELL_PQ_RESOLVE(PQfreemem) fn(ptr); }
static inline PQnoticeProcessor lw_PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    LINKWELL_PQ_RESOLVE(PQsetNoticeProcessor) return fn(conn, proc, arg);
}

// Waits until the connection's socket is readable or `timeout_ms` passed: 1 readable, 0 timeout, -1 error.
static inline int linkwell_pq_wait_readable(PGconn *conn, int timeout_ms) {
    int fd = lw_PQsocket(conn);
    if (fd < 0) return -1;
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    int rc = poll(&p, 1, timeout_ms);
    if (rc < 0) return -1;
    return rc > 0 ? 1 : 0;
}
// libpq prints server notices (and "terminating connection" at a shutdown) on stderr by default;
// linkwell reports what matters through its own errors and log.
static void linkwell_pq_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void linkwell_pq_silence_notices(PGconn *conn) { lw_PQsetNoticeProcessor(conn, linkwell_pq_ignore_notice, NULL); }
#endif
