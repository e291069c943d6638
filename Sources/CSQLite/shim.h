// Debian libsqlite3-dev, reached through this module map for the short-link store (LinkStore).
#ifndef LINKWELL_CSQLITE_SHIM_H
#define LINKWELL_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind a copy of the text.
static inline int linkwell_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text) {
    return sqlite3_bind_text(stmt, index, text, -1, SQLITE_TRANSIENT);
}

// Text that stays alive until the statement is reset (SQLiteConnection.query binds every text
// value from one buffer it holds while the statement runs): no copy per value.
static inline int linkwell_sqlite3_bind_text_static(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_STATIC);
}
#endif
