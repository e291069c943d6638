// The migrations whose SQLite text cannot run on PostgreSQL as it is. Same tables, columns and
// keys; only storage details differ:
// - v1 ends in `WITHOUT ROWID`, a SQLite storage layout (the primary key is the table). A
//   PostgreSQL table is a heap with a separate primary-key index either way, so the clause is
//   left out. The SQLite migration is not edited: existing files keep their layout.
// - `INTEGER` in v1/v2 is 64 bits in SQLite but 32 in PostgreSQL (Unix times would end in 2038):
//   PostgreSQL gets `BIGINT` (in SQLite both are the same INTEGER affinity).
// - v6's triggers: PostgreSQL's syntax (a function, FOR EACH STATEMENT), and they also
//   `NOTIFY linkwell_links` so the other instances' listeners refresh at once.
// - v7 rebuilds SQLite's click tables `WITHOUT ROWID` (a SQLite layout): on PostgreSQL it only
//   records the version.
// v1/v2 are therefore the SQLite texts with exactly these two rewrites (DatabaseTests checks
// that they apply and leave nothing SQLite-only; tests/live/test_postgres.py the resulting
// columns on a real server).

extension LinkStore {
    /// The channel the links trigger notifies on.
    public static let postgresChannel = "linkwell_links"

    static let postgresMigrations: [Int: String] = [
        1: postgresText(ofSQLite: 1),
        2: postgresText(ofSQLite: 2),
        6: """
            CREATE TABLE links_revision (id BIGINT NOT NULL PRIMARY KEY, revision BIGINT NOT NULL);
            INSERT INTO links_revision (id, revision) VALUES (1, 0);
            CREATE FUNCTION linkwell_links_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE links_revision SET revision = revision + 1 WHERE id = 1;
                PERFORM pg_notify('\(postgresChannel)', '');
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER links_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON links
                FOR EACH STATEMENT EXECUTE FUNCTION linkwell_links_changed();
            """,
        auditMigration.version: auditMigrationPostgres,
        7: "COMMENT ON TABLE clicks_daily IS 'click counts per link, route and UTC day (linkwell)';",
        changeLogMigration.version: changeLogPostgres,
        12: linkListIndexPostgres,
    ]

    /// Migration `version`'s SQLite text with `WITHOUT ROWID` left out and INTEGER as BIGINT.
    static func postgresText(ofSQLite version: Int) -> String {
        let sqlite = migrations.first { $0.version == version }!.sql
        return sqlite.replacingOccurrences(of: ") WITHOUT ROWID;", with: ");").replacingOccurrences(of: " INTEGER", with: " BIGINT")
    }
}
