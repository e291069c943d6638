// The storage abstraction: one connection protocol over SQLite (SQLite.swift) and PostgreSQL
// (Postgres.swift). Callers write portable SQL with `?` placeholders (translated to `$1…` for
// libpq), bind `SQLValue`s and read rows by column index. Nothing outside these three files
// calls sqlite3_* or PQ*.

import Foundation

/// Which SQL engine a connection speaks (migrations that cannot be portable pick their text by it).
public enum SQLDialect: String, Sendable, Equatable, CaseIterable {
    case sqlite, postgres
}

/// A value bound to a `?` of a statement.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)

    static func text(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
    static func bool(_ b: Bool) -> SQLValue { .integer(b ? 1 : 0) }
    static func date(_ d: Date?) -> SQLValue { d.map { .integer(Int64($0.timeIntervalSince1970)) } ?? .null }
}

/// One open database connection. Not shared between threads: `LinkStore` serialises its use.
/// Every failure is a `LinkStoreError` that names the database and the fix.
protocol DatabaseConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Where the data is, for messages: the SQLite file, or the PostgreSQL connection string
    /// without its password.
    var location: String { get }
    /// Runs statements that return no rows (several, separated by `;`; no bindings).
    func exec(_ sql: String) throws(LinkStoreError)
    /// Runs one statement with `?` placeholders bound to `bindings`, calling `row` per result row.
    func query(_ sql: String, _ bindings: [SQLValue], row: (SQLRow) throws(LinkStoreError) -> Void) throws(LinkStoreError)
    /// Runs `body` in one transaction that takes the write lock up front (SQLite `BEGIN
    /// IMMEDIATE`, PostgreSQL `BEGIN`), rolled back when it throws.
    func transaction<T>(_ body: () throws(LinkStoreError) -> T) throws(LinkStoreError) -> T
    /// Rows changed by the last INSERT/UPDATE/DELETE run through `query`.
    var changes: Int { get }
}

extension DatabaseConnection {
    /// The same as `location` (the name the SQLite-only code used).
    var path: String { location }

    func query(_ sql: String, _ bindings: [SQLValue] = []) throws(LinkStoreError) {
        try query(sql, bindings, row: { _ in })
    }

    func query(_ sql: String, row: (SQLRow) throws(LinkStoreError) -> Void) throws(LinkStoreError) {
        try query(sql, [], row: row)
    }

    func transaction<T>(_ body: () throws(LinkStoreError) -> T) throws(LinkStoreError) -> T {
        // SQLite has its own (SQLiteConnection.transaction: BEGIN IMMEDIATE and file checks).
        try exec("BEGIN")
        do {
            let value = try body()
            try exec("COMMIT")
            return value
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }
}

/// The current row of a result, read by column index (0-based). Valid only inside the `row`
/// callback of `query`.
struct SQLRow {
    enum Source {
        case sqlite(OpaquePointer)
        /// A libpq result and the row number in it.
        case postgres(OpaquePointer, Int32)
        /// Values held in memory (the link index's records).
        case values([SQLValue])
    }
    let source: Source

    func text(_ i: Int32) -> String? {
        switch source {
        case let .sqlite(stmt): SQLiteConnection.columnText(stmt, i)
        case let .postgres(result, row): PostgresConnection.columnText(result, row, i)
        case let .values(v): if case let .text(t) = v[Int(i)] { t } else { nil }
        }
    }

    func integer(_ i: Int32) -> Int64? {
        switch source {
        case let .sqlite(stmt): SQLiteConnection.columnInteger(stmt, i)
        case let .postgres(result, row): PostgresConnection.columnInteger(result, row, i)
        case let .values(v): if case let .integer(n) = v[Int(i)] { n } else { nil }
        }
    }

    /// True when the column is NULL (cheaper than reading it).
    func isNull(_ i: Int32) -> Bool {
        switch source {
        case let .sqlite(stmt): SQLiteConnection.columnIsNull(stmt, i)
        case let .postgres(result, row): PostgresConnection.columnIsNull(result, row, i)
        case let .values(v): v[Int(i)] == .null
        }
    }

    func bool(_ i: Int32) -> Bool { (integer(i) ?? 0) != 0 }
    func date(_ i: Int32) -> Date? { integer(i).map { Date(timeIntervalSince1970: TimeInterval($0)) } }
}

/// SQL text rewriting between the dialects.
enum SQLTranslation {
    /// `?` placeholders → `$1`, `$2`, … (libpq's form), left to right. A `?` inside a string
    /// literal (`'…'`, `''` escapes), a quoted identifier (`"…"`), a dollar-quoted body
    /// (`$$…$$`, `$tag$…$tag$`) or a comment (`-- …`, `/* … */`) is kept as it is.
    /// Returns the text and the number of placeholders.
    static func postgresPlaceholders(_ sql: String) -> (sql: String, count: Int) {
        let s = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.count + 8)
        var n = 0
        var i = 0
        func copy(until end: Int) {
            out.append(contentsOf: s[i..<min(end, s.count)])
            i = min(end, s.count)
        }
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard needle.count <= s.count else { return nil }
            var j = start
            while j + needle.count <= s.count {
                if s[j] == needle[0] && Array(s[j..<(j + needle.count)]) == needle { return j }
                j += 1
            }
            return nil
        }
        while i < s.count {
            let c = s[i]
            switch c {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // Quoted: up to the closing quote; a doubled quote is an escaped one.
                var j = i + 1
                while j < s.count {
                    if s[j] == c {
                        if j + 1 < s.count && s[j + 1] == c { j += 2; continue }
                        break
                    }
                    j += 1
                }
                copy(until: j + 1)
            case UInt8(ascii: "-") where i + 1 < s.count && s[i + 1] == UInt8(ascii: "-"):
                copy(until: find([UInt8(ascii: "\n")], from: i) ?? s.count)
            case UInt8(ascii: "/") where i + 1 < s.count && s[i + 1] == UInt8(ascii: "*"):
                copy(until: (find(Array("*/".utf8), from: i + 2) ?? s.count) + 2)
            case UInt8(ascii: "$"):
                // $tag$ … $tag$ (tag: letters, digits, _); a bare $ or $1 is copied as it is.
                var j = i + 1
                while j < s.count, s[j] == UInt8(ascii: "_") || (s[j] >= 0x30 && s[j] <= 0x39) || (s[j] | 0x20 >= 0x61 && s[j] | 0x20 <= 0x7A) { j += 1 }
                let startsWithDigit = i + 1 < s.count && s[i + 1] >= 0x30 && s[i + 1] <= 0x39
                if j < s.count, s[j] == UInt8(ascii: "$"), !startsWithDigit {
                    let tag = Array(s[i...j])
                    copy(until: (find(tag, from: j + 1) ?? s.count) + tag.count)
                } else {
                    copy(until: j)
                }
            case UInt8(ascii: "?"):
                n += 1
                out.append(contentsOf: Array("$\(n)".utf8))
                i += 1
            default:
                out.append(c)
                i += 1
            }
        }
        return (String(decoding: out, as: UTF8.self), n)
    }
}
