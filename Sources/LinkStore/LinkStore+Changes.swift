// The links change log: every write of `links` (by any process, through triggers) bumps the
// change counter (`links_revision`) and records the site and code it touched under the new
// number in `links_changes`. The server's link refresher then reads only the links changed
// since the revision its index was read at (`changes(since:)`) and patches its index
// (LinkIndex+Patch.swift) instead of reading every link again.
//
// Why the numbers can be trusted as a prefix: a write takes the row lock of `links_revision`
// (its UPDATE) and holds it until it commits, so writes commit in the order of their numbers,
// and one statement (the refresher's read) sees all the changes up to some number and none
// after. The log keeps the last `changeLogWindow` revisions (older entries are deleted by the
// same triggers); a reader further behind — or one that finds a truncate — reads everything.
//
// SQLite: row triggers (SQLite has no others), replacing migration 6's counter-only ones.
// PostgreSQL: statement triggers with transition tables (one counter bump per statement, as
// migration 6's, so a bulk insert does not update the counter row a million times), replacing
// migration 6's trigger; they still `NOTIFY linkwell_links`.

import Foundation
import LinkRouting

extension LinkStore {
    /// How many revisions the log keeps.
    public static let changeLogWindow = 10_000
    /// The most log entries a refresh patches in; more (a large import) and it reads every link.
    public static let changeReadLimit = 50_000

    static let changeLogMigration: (version: Int, name: String, sql: String) = (
        8, "links change log",
        """
        CREATE TABLE links_changes (revision INTEGER NOT NULL, site TEXT, code TEXT);
        CREATE INDEX links_changes_revision ON links_changes (revision);
        DROP TRIGGER links_revision_insert;
        DROP TRIGGER links_revision_update;
        DROP TRIGGER links_revision_delete;
        CREATE TRIGGER links_changes_insert AFTER INSERT ON links BEGIN
            UPDATE links_revision SET revision = revision + 1 WHERE id = 1;
            INSERT INTO links_changes (revision, site, code) SELECT revision, NEW.site, NEW.code FROM links_revision WHERE id = 1;
            DELETE FROM links_changes WHERE revision <= (SELECT revision FROM links_revision WHERE id = 1) - \(changeLogWindow);
        END;
        CREATE TRIGGER links_changes_update AFTER UPDATE ON links BEGIN
            UPDATE links_revision SET revision = revision + 1 WHERE id = 1;
            INSERT INTO links_changes (revision, site, code) SELECT revision, OLD.site, OLD.code FROM links_revision WHERE id = 1;
            INSERT INTO links_changes (revision, site, code) SELECT revision, NEW.site, NEW.code FROM links_revision
                WHERE id = 1 AND (NEW.site <> OLD.site OR NEW.code <> OLD.code);
            DELETE FROM links_changes WHERE revision <= (SELECT revision FROM links_revision WHERE id = 1) - \(changeLogWindow);
        END;
        CREATE TRIGGER links_changes_delete AFTER DELETE ON links BEGIN
            UPDATE links_revision SET revision = revision + 1 WHERE id = 1;
            INSERT INTO links_changes (revision, site, code) SELECT revision, OLD.site, OLD.code FROM links_revision WHERE id = 1;
            DELETE FROM links_changes WHERE revision <= (SELECT revision FROM links_revision WHERE id = 1) - \(changeLogWindow);
        END;
        """
    )

    static let changeLogPostgres = """
        CREATE TABLE links_changes (revision BIGINT NOT NULL, site TEXT, code TEXT);
        CREATE INDEX links_changes_revision ON links_changes (revision);
        DROP TRIGGER links_changed ON links;
        DROP FUNCTION linkwell_links_changed();
        CREATE FUNCTION linkwell_links_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE r BIGINT;
        BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                UPDATE links_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision INTO r;
                INSERT INTO links_changes (revision, site, code) VALUES (r, NULL, NULL);
            ELSIF TG_OP = 'INSERT' THEN
                IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
                UPDATE links_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision INTO r;
                INSERT INTO links_changes (revision, site, code) SELECT r, site, code FROM new_rows;
            ELSIF TG_OP = 'DELETE' THEN
                IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
                UPDATE links_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision INTO r;
                INSERT INTO links_changes (revision, site, code) SELECT r, site, code FROM old_rows;
            ELSE
                IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
                UPDATE links_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision INTO r;
                INSERT INTO links_changes (revision, site, code)
                    SELECT r, site, code FROM old_rows UNION SELECT r, site, code FROM new_rows;
            END IF;
            DELETE FROM links_changes WHERE revision <= r - \(changeLogWindow);
            PERFORM pg_notify('\(postgresChannel)', '');
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER links_changes_insert AFTER INSERT ON links REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION linkwell_links_logged();
        CREATE TRIGGER links_changes_update AFTER UPDATE ON links REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION linkwell_links_logged();
        CREATE TRIGGER links_changes_delete AFTER DELETE ON links REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION linkwell_links_logged();
        CREATE TRIGGER links_changes_truncate AFTER TRUNCATE ON links
            FOR EACH STATEMENT EXECUTE FUNCTION linkwell_links_logged();
        """
}

/// The links written since a revision: each touched site and code once, with the link as it is
/// now (`changed`, disabled ones included) or gone (`removed`).
public struct LinkChanges: Sendable {
    /// The revision the index is at once these are applied.
    public var revision: Int64
    public var changed: [ShortLink]
    public var removed: [(site: String, code: String)]
}

extension LinkStore {
    /// The links changed after `revision` up to `through` (the counter read just before: every
    /// change up to it is committed), read in one statement; nil when the log cannot say (the
    /// database has no log yet, the log no longer reaches back to `revision`, or the table was
    /// truncated): read every link then. A link changed again after `through` comes as it is now,
    /// and again with the next read (applying it twice is the same as once).
    public func changes(since revision: Int64, through: Int64? = nil) throws(LinkStoreError) -> LinkChanges? {
        try withDB { db throws(LinkStoreError) -> LinkChanges? in
            var hasLog = false
            let probe = db.dialect == .postgres
                ? "SELECT 1 WHERE to_regclass('links_changes') IS NOT NULL"
                : "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'links_changes'"
            try db.query(probe) { _ in hasLog = true }
            guard hasLog else { return nil }
            let columns = LinkStore.columns.split(separator: ",").map { "l." + $0.trimmingCharacters(in: .whitespaces) }
            let extra = Int32(columns.count)
            // The log's entries first (through its index, however stale the planner's statistics
            // are after a bulk import: ORDER BY … LIMIT), then each link by its primary key
            // (PostgreSQL: LATERAL, so a few changes never hash-join the whole table).
            // The upper bound also lets the planner see a narrow range when it has no statistics
            // yet (right after a bulk import), so it takes the index instead of scanning the log.
            let entries = "(SELECT revision, site, code FROM links_changes WHERE revision > ? AND revision <= ? ORDER BY revision LIMIT ?) c"
            let link = db.dialect == .postgres
                ? "LEFT JOIN LATERAL (SELECT * FROM links WHERE links.site = c.site AND links.code = c.code) l ON true"
                : "LEFT JOIN links l ON l.site = c.site AND l.code = c.code"
            let sql = "SELECT " + columns.joined(separator: ", ") + ", c.revision, c.site, c.code FROM \(entries) \(link) ORDER BY c.revision"
            var rows = 0
            var first: Int64?
            var last = revision
            var complete = true
            // Site, code → the link now (nil: deleted); the order of first appearance.
            var now: [String: ShortLink?] = [:]
            var keys: [(site: String, code: String)] = []
            try db.query(sql, [.integer(revision), .integer(through ?? Int64.max), .integer(Int64(LinkStore.changeReadLimit))]) { row in
                rows += 1
                let r = row.integer(extra) ?? 0
                if first == nil { first = r }
                last = max(last, r)
                guard let site = row.text(extra + 1), let code = row.text(extra + 2) else {
                    complete = false  // a truncate
                    return
                }
                let key = site + "\u{0}" + code
                if now[key] == nil { keys.append((site, code)) }
                now[key] = row.isNull(1) ? .some(nil) : .some(LinkStore.link(row))
            }
            // A truncate, or more entries than worth patching (the last revision may be cut off).
            guard complete, rows < LinkStore.changeReadLimit else { return nil }
            if let first, first != revision + 1 { return nil }  // older entries were pruned
            if let through, last != through { return nil }  // the log does not account for every change
            var out = LinkChanges(revision: last, changed: [], removed: [])
            for key in keys {
                if case let .some(.some(link)) = now[key.site + "\u{0}" + key.code] { out.changed.append(link) } else { out.removed.append(key) }
            }
            return out
        }
    }
}
