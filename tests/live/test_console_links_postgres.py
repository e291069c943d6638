"""The console's links list on a real PostgreSQL server (pgserver.py): the migration creates
pg_trgm (a trusted extension: the database's owner may) and the GIN index the search reads
(EXPLAIN shows it chosen for the list's own condition), recent clicks sorted from link_list,
searches long and short as on SQLite; and a role that may not create the extension gets the
scanning search and one start-up warning with the fix, then the index once a superuser created it."""
import itertools
import re
import signal

from conftest import Server
from pgserver import PostgresServer
from polling import within
from test_api import api, cli
from test_console import public_status, sign_in
from test_console_links import codes_of
from test_postgres import make_config, pg  # noqa: F401 (the PostgreSQL server fixture)

_names = itertools.count()
# The list's search condition (the planner weighs it against the site's other indexes by the
# statistics; on a handful of rows it would walk those, so they are left out here).
SEARCH = ("SET enable_seqscan = off; EXPLAIN SELECT code FROM links WHERE (LOWER(links.code) LIKE '%summer%' "
          "OR LOWER(links.target) LIKE '%summer%' OR LOWER(COALESCE(links.preview_title, '')) LIKE '%summer%')")


def fill(server, writer):
    for i in range(12):
        assert api(server, "POST", "/api/v1/links", token=writer, body={
            "code": f"p{i:02d}", "target": f"https://fitconnect.app/signup?referralCode=P{i:02d}", "previewTitle": f"Promo {i:02d}"})[0] == 201
    for code in ("spring", "summer"):
        assert api(server, "POST", "/api/v1/links", token=writer, body={
            "code": code, "target": f"https://fitconnect.app/signup?referralCode={code.upper()}", "previewTitle": f"{code} offer"})[0] == 201


def test_list_on_postgres_reads_the_trigram_index(pg, tmp_path):
    database = f"lw_list_{next(_names)}"
    pg.psql(f"CREATE DATABASE {database} OWNER {PostgresServer.USER}")
    config = make_config(tmp_path, pg, database)
    writer = cli(config, "tokens", "create", "--name", "w", "--scope", "write")
    assert pg.psql("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'", database).strip() == "pg_trgm"
    plan = pg.psql(SEARCH, database)
    assert "links_search_trgm" in plan, plan
    server = Server(config)
    try:
        fill(server, writer)
        # The maintenance at start set the 7-day window; then clicks flushed add to link_list.
        within(10, lambda: pg.psql("SELECT subtracted_through FROM link_list_window", database).strip() != "")
        for path, n in (("/summer", 3), ("/p05", 2), ("/spring", 1)):
            for _ in range(n):
                assert public_status(server, path) == 200
        server.signal(signal.SIGHUP)
        server.wait_for(lambda e: e.get("event") == "reloaded")
        within(10, lambda: pg.psql("SELECT clicks_7d FROM link_list WHERE code = 'summer'", database).strip() == "3")
        browser, _ = sign_in(server, writer)
        assert codes_of(browser.get(server.admin_url("/links?site=fitconnect&sort=clicks&dir=desc")).text)[:4] == ["summer", "p05", "spring", "p00"]
        assert codes_of(browser.get(server.admin_url("/links?site=fitconnect&q=SUMMER")).text) == ["summer"]
        assert codes_of(browser.get(server.admin_url("/links?site=fitconnect&q=promo&sort=clicks&dir=desc")).text)[:2] == ["p05", "p00"]
        short = browser.get(server.admin_url("/links?site=fitconnect&q=S")).text
        assert codes_of(short) == ["spring", "summer"] and "start of the code only" in short
        assert not any(e.get("event") == "links_search_unindexed" for e in server.events())
        # A deleted link leaves link_list.
        assert api(server, "DELETE", "/api/v1/links/fitconnect/p05", token=writer)[0] in (200, 204)
        assert pg.psql("SELECT COUNT(*) FROM link_list WHERE code = 'p05'", database).strip() == "0"
    finally:
        server.stop()


def test_a_role_without_the_extension_scans_and_is_told_the_fix(pg, tmp_path):
    database = f"lw_list_{next(_names)}"
    # Owned by the superuser: the linkwell role may create tables in public, not extensions.
    pg.psql(f"CREATE DATABASE {database}")
    pg.psql(f"GRANT ALL ON SCHEMA public TO {PostgresServer.USER}", database)
    config = make_config(tmp_path, pg, database)
    writer = cli(config, "tokens", "create", "--name", "w", "--scope", "write")
    assert pg.psql("SELECT COUNT(*) FROM pg_extension WHERE extname = 'pg_trgm'", database).strip() == "0"
    server = Server(config)
    try:
        warning = server.wait_for(lambda e: e.get("event") == "links_search_unindexed")
        assert "CREATE EXTENSION pg_trgm;" in warning["reason"] and "superuser" in warning["reason"]
        fill(server, writer)
        browser, _ = sign_in(server, writer)
        assert codes_of(browser.get(server.admin_url("/links?site=fitconnect&q=referralcode%3Dsum")).text) == ["summer"]
    finally:
        server.stop()
    assert sum(1 for e in server.events() if e.get("event") == "links_search_unindexed") == 1
    pg.psql("CREATE EXTENSION pg_trgm", database)
    server = Server(config)
    try:
        within(10, lambda: "links_search_trgm" in pg.psql(SEARCH, database))
        assert not any(e.get("event") == "links_search_unindexed" for e in server.events())
    finally:
        server.stop()
