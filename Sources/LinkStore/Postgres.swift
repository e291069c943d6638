// The PostgreSQL side of `DatabaseConnection` (Database.swift), over libpq (CPostgres): connect
// with a libpq connection string, `?` placeholders sent as `$n` text parameters, rows streamed
// one at a time (single-row mode, so reading a million links never holds them all in libpq),
// and LISTEN/NOTIFY for the server's link-index refresher. Passwords never reach a message.

import CPostgres
import Foundation

/// One open PostgreSQL connection. Not shared between threads (the store serialises its use).
final class PostgresConnection: DatabaseConnection {
    /// `postgresql://user@host:port/dbname`, without password (messages, logs).
    let location: String
    var dialect: SQLDialect { .postgres }
    private var conn: OpaquePointer?
    private var lastChanges = 0
    /// The connection string's options without the password (for the fixes in messages).
    private let options: [String: String]

    /// Connects with `conninfo` (`postgresql://linkwell@127.0.0.1:5433/linkwell` or
    /// `host=… dbname=…`); `password` (from a file or the environment, see
    /// `StorageLocation`) is passed beside it, never inside a string that is shown.
    init(conninfo: String, password: String? = nil, connectTimeoutSeconds: Int = 5) throws(LinkStoreError) {
        try PostgresConnection.requireLibrary()
        location = PostgresConnection.redacted(conninfo)
        options = (PostgresConnection.parse(conninfo) ?? [:]).filter { $0.key != "password" }
        var keys = ["dbname", "fallback_application_name", "connect_timeout"]
        var values = [conninfo, "linkwell", String(connectTimeoutSeconds)]
        if let password {
            keys.append("password")
            values.append(password)
        }
        conn = PostgresConnection.connect(keys: keys, values: values)
        guard let conn, lw_PQstatus(conn) == CONNECTION_OK else {
            let message = conn.map { String(cString: lw_PQerrorMessage($0)) } ?? "out of memory"
            lw_PQfinish(conn)
            self.conn = nil
            throw PostgresConnection.connectError(message, location: location, options: options)
        }
        // Notices (e.g. "relation already exists, skipping") are not for the terminal.
        linkwell_pq_silence_notices(conn)
        try exec("SET client_min_messages = warning")
    }

    deinit { lw_PQfinish(conn) }

    private static func connect(keys: [String], values: [String]) -> OpaquePointer? {
        let k = keys.map { strdup($0) }
        let v = values.map { strdup($0) }
        defer { (k + v).forEach { free($0) } }
        var kp: [UnsafePointer<CChar>?] = k.map { UnsafePointer($0) } + [nil]
        var vp: [UnsafePointer<CChar>?] = v.map { UnsafePointer($0) } + [nil]
        return kp.withUnsafeMutableBufferPointer { kb in
            vp.withUnsafeMutableBufferPointer { vb in lw_PQconnectdbParams(kb.baseAddress, vb.baseAddress, 1) }
        }
    }

    /// A connection string's host, port, user and database as a URL with no password; the
    /// string itself when libpq cannot parse it.
    static func redacted(_ conninfo: String) -> String {
        guard let options = parse(conninfo) else { return "(an unreadable PostgreSQL connection string)" }
        let user = options["user"].map { "\($0)@" } ?? ""
        let host = options["host"] ?? options["hostaddr"] ?? "localhost"
        let port = options["port"].map { ":\($0)" } ?? ""
        let db = options["dbname"].map { "/\($0)" } ?? ""
        return "postgresql://\(user)\(host.contains(":") && !host.hasPrefix("/") ? "[\(host)]" : host)\(port)\(db)"
    }

    /// The options libpq reads from a connection string, or nil with libpq's reason.
    static func parse(_ conninfo: String) -> [String: String]? {
        (try? parseOrExplain(conninfo).get())
    }

    /// libpq is loaded at the first PostgreSQL connection (Sources/CPostgres/shim.h): fails, with
    /// the fix, when it is not installed.
    static func requireLibrary() throws(LinkStoreError) {
        if let why = linkwell_pq_load_error() {
            throw LinkStoreError(
                .unavailable,
                "storage.postgres needs libpq, which cannot be loaded (\(String(cString: why))). Install it: apt-get install -y libpq5 (the container image has it), or use storage.sqlite.")
        }
    }

    /// The options of a connection string, or libpq's reason it cannot be read.
    static func parseOrExplain(_ conninfo: String) -> Result<[String: String], LinkStoreError> {
        do throws(LinkStoreError) { try requireLibrary() } catch { return .failure(error) }
        var err: UnsafeMutablePointer<CChar>?
        guard let options = lw_PQconninfoParse(conninfo, &err) else {
            let why = err.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            lw_PQfreemem(err)
            return .failure(LinkStoreError(
                .invalid,
                "storage.postgres is not a libpq connection string (\(why)). Write it as postgresql://USER@HOST:PORT/DBNAME or 'host=HOST port=PORT user=USER dbname=DBNAME'."))
        }
        defer { lw_PQconninfoFree(options) }
        var out: [String: String] = [:]
        var p = options
        while let key = p.pointee.keyword {
            if let value = p.pointee.val { out[String(cString: key)] = String(cString: value) }
            p += 1
        }
        return .success(out)
    }

    /// libpq's connection failure, sorted into server down / authentication / missing database /
    /// missing role, each with the fix.
    static func connectError(_ message: String, location: String, options: [String: String]) -> LinkStoreError {
        let host = options["host"] ?? options["hostaddr"] ?? "localhost"
        let port = options["port"] ?? "5432"
        let user = options["user"] ?? "USER"
        let db = options["dbname"] ?? user
        let text = oneLine(message)
        let lower = text.lowercased()
        if lower.contains("password authentication failed") || lower.contains("no password supplied")
            || lower.contains("authentication failed") {
            return LinkStoreError(
                .cannotOpen,
                "PostgreSQL at \(location) refused the login (\(text)). Put the password in the file named by storage.passwordFile or in the LINKWELL_POSTGRES_PASSWORD environment variable (libpq's PGPASSWORD and ~/.pgpass work too), and check the user in storage.postgres.")
        }
        if lower.contains("database") && lower.contains("does not exist") {
            return LinkStoreError(
                .cannotOpen,
                "PostgreSQL at \(location) has no such database (\(text)). Create it once, e.g. 'createdb -h \(host) -p \(port) -U postgres -O \(user) \(db)' (as a PostgreSQL superuser); linkwell creates its tables itself.")
        }
        if lower.contains("role") && lower.contains("does not exist") {
            return LinkStoreError(
                .cannotOpen,
                "PostgreSQL at \(location) has no such user (\(text)). Create it, e.g. 'createuser -h \(host) -p \(port) -U postgres -P \(user)', or correct the user in storage.postgres.")
        }
        if lower.contains("connection refused") || lower.contains("could not connect") || lower.contains("no such file or directory")
            || lower.contains("timeout expired") || lower.contains("could not translate host name") {
            return LinkStoreError(
                .unavailable,
                "cannot reach PostgreSQL at \(location) (\(text)). Start the server (e.g. 'systemctl start postgresql', or 'pg_ctl -D DATADIR start'), or correct the host and port in storage.postgres; 'pg_isready -h \(host) -p \(port)' checks it.")
        }
        return LinkStoreError(.cannotOpen, "cannot connect to PostgreSQL at \(location): \(text)")
    }

    /// libpq's multi-line messages (with tabs) on one line, for a log field or a terminal.
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    // MARK: Statements

    /// A lost connection (the server restarted) is opened again before the next statement.
    private func ensureConnected() throws(LinkStoreError) {
        guard let conn else { throw LinkStoreError(.unavailable, "the PostgreSQL connection to \(location) is closed") }
        if lw_PQstatus(conn) == CONNECTION_OK { return }
        lw_PQreset(conn)
        guard lw_PQstatus(conn) == CONNECTION_OK else {
            throw PostgresConnection.connectError(String(cString: lw_PQerrorMessage(conn)), location: location, options: options)
        }
    }

    func exec(_ sql: String) throws(LinkStoreError) {
        try ensureConnected()
        let result = lw_PQexec(conn, sql)
        defer { lw_PQclear(result) }
        let status = lw_PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(result) }
    }

    func query(_ sql: String, _ bindings: [SQLValue], row: (SQLRow) throws(LinkStoreError) -> Void) throws(LinkStoreError) {
        try ensureConnected()
        let translated = SQLTranslation.postgresPlaceholders(sql).sql
        let texts: [UnsafeMutablePointer<CChar>?] = bindings.map { value in
            switch value {
            case .null: nil
            case let .integer(v): strdup(String(v))
            case let .text(v): strdup(v)
            }
        }
        defer { texts.forEach { free($0) } }
        var params: [UnsafePointer<CChar>?] = texts.map { $0.map { UnsafePointer($0) } }
        let sent = params.withUnsafeMutableBufferPointer { p in
            lw_PQsendQueryParams(conn, translated, Int32(bindings.count), nil, p.baseAddress, nil, nil, 0)
        }
        guard sent == 1 else { throw error(nil) }
        lw_PQsetSingleRowMode(conn)
        // Every result must be read (and cleared) before the next statement, even after a
        // failure in `row`.
        var failure: LinkStoreError?
        while let result = lw_PQgetResult(conn) {
            defer { lw_PQclear(result) }
            if failure != nil { continue }
            switch lw_PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                do throws(LinkStoreError) { try row(SQLRow(source: .postgres(result, 0))) } catch { failure = error }
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                lastChanges = Int(String(cString: lw_PQcmdTuples(result))) ?? 0
            default:
                failure = error(result)
            }
        }
        if let failure { throw failure }
    }

    var changes: Int { lastChanges }

    static func columnText(_ result: OpaquePointer, _ row: Int32, _ i: Int32) -> String? {
        guard lw_PQgetisnull(result, row, i) == 0, let p = lw_PQgetvalue(result, row, i) else { return nil }
        return String(cString: p)
    }

    static func columnIsNull(_ result: OpaquePointer, _ row: Int32, _ i: Int32) -> Bool {
        lw_PQgetisnull(result, row, i) != 0
    }

    static func columnInteger(_ result: OpaquePointer, _ row: Int32, _ i: Int32) -> Int64? {
        guard lw_PQgetisnull(result, row, i) == 0, let p = lw_PQgetvalue(result, row, i) else { return nil }
        switch p.pointee {
        case CChar(UInt8(ascii: "t")): return 1  // a boolean column
        case CChar(UInt8(ascii: "f")): return 0
        default: return strtoll(p, nil, 10)
        }
    }

    // MARK: LISTEN / NOTIFY

    /// Subscribes this connection to `channel` (a plain identifier).
    func listen(_ channel: String) throws(LinkStoreError) {
        try exec("LISTEN \(channel)")
    }

    /// Waits up to `milliseconds` for notifications; returns how many arrived (0 on timeout).
    /// Throws when the connection is lost (the caller reconnects).
    func waitForNotifications(milliseconds: Int32) throws(LinkStoreError) -> Int {
        guard let conn, lw_PQstatus(conn) == CONNECTION_OK else {
            throw LinkStoreError(.unavailable, "lost the PostgreSQL connection to \(location)")
        }
        var count = drainNotifications()
        if count > 0 { return count }
        let ready = linkwell_pq_wait_readable(conn, milliseconds)
        if ready < 0 { throw LinkStoreError(.unavailable, "lost the PostgreSQL connection to \(location)") }
        if ready == 0 { return 0 }
        guard lw_PQconsumeInput(conn) == 1, lw_PQstatus(conn) == CONNECTION_OK else {
            throw LinkStoreError(
                .unavailable, "lost the PostgreSQL connection to \(location) (\(String(cString: lw_PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)))")
        }
        count = drainNotifications()
        return count
    }

    private func drainNotifications() -> Int {
        var n = 0
        while let note = lw_PQnotifies(conn) {
            lw_PQfreemem(note)
            n += 1
        }
        return n
    }

    // MARK: Errors

    func error(_ result: OpaquePointer?) -> LinkStoreError {
        let message = (result.flatMap { lw_PQresultErrorMessage($0) }.map { String(cString: $0) }).flatMap { $0.isEmpty ? nil : $0 }
            ?? String(cString: lw_PQerrorMessage(conn))
        let text = PostgresConnection.oneLine(message)
        let state = result.flatMap { lw_PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        // 57P01–57P03: the server is shutting down, crashed or starting; 08…: connection errors.
        if lw_PQstatus(conn) != CONNECTION_OK || state.hasPrefix("57P") || state.hasPrefix("08") {
            return LinkStoreError(
                .unavailable,
                "lost the connection to PostgreSQL at \(location) (\(text)). Check that the server is running ('pg_isready'); linkwell reconnects on the next statement.")
        }
        switch state {
        case "23505", "23502", "23503", "23514":
            return LinkStoreError(.constraint, "the link database \(location) refused the change: \(text)")
        case "40001", "40P01", "55P03", "57014":
            return LinkStoreError(
                .locked, "the link database \(location) is busy (\(text)). Another linkwell may be writing a large change; try again.")
        case "42501":
            return LinkStoreError(
                .cannotOpen,
                "the PostgreSQL user of \(location) may not do this (\(text)). Make it the owner of the database ('ALTER DATABASE DBNAME OWNER TO USER').")
        default:
            return LinkStoreError(.other, "the link database \(location) failed: \(text)\(state.isEmpty ? "" : " (SQLSTATE \(state))")")
        }
    }
}
