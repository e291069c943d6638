"""Linkwell on a real PostgreSQL server (Debian's, started by the tests in a temporary directory
on a free loopback port, as an unprivileged user; see pgserver.py): every `linkwell links`
command, two `serve` instances on one database — a link written through one process is served
by both within 2 s (NOTIFY, polled; no fixed sleep), disabled and gone again, also through one
instance's admin API — a server that goes
down and comes back while serving, and the errors for a server that is down, a wrong password
and a missing database."""
import itertools
import json
import sqlite3
import subprocess

import pytest

from conftest import BINARY, ROOT, Server, curl
from polling import status, within
from pgserver import PostgresServer

HOST = ("-H", "Host: fitconnect.app")
_names = itertools.count()


@pytest.fixture(scope="module")
def pg():
    server = PostgresServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def database(pg):
    """A fresh database per test, owned by the linkwell role."""
    name = f"lw_test_{next(_names)}"
    pg.psql(f"CREATE DATABASE {name} OWNER {pg.USER}")
    return name


def make_config(tmp_path, pg, database, password=PostgresServer.PASSWORD, url=None):
    (tmp_path / "pg.password").write_text(password + "\n")
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    url = url or f"postgresql://{pg.USER}@127.0.0.1:{pg.port}/{database}"
    cfg = tmp_path / "linkwell.json5"
    cfg.write_text(text.replace("{", f'{{ storage: {{ postgres: "{url}", passwordFile: "pg.password" }},', 1))
    return cfg


@pytest.fixture
def config(tmp_path, pg, database):
    return make_config(tmp_path, pg, database)


def links(config, *args):
    return subprocess.run([str(BINARY), "links", *args, "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)


def ok_json(config, *args):
    r = links(config, *args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)




@pytest.fixture
def servers():
    started = []
    yield started
    for s in started:
        s.stop()


def serve(config, servers):
    s = Server(config)
    servers.append(s)
    return s


def test_every_links_command_on_postgres(config, pg, database):
    added = ok_json(config, "add", "--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=SPRING26",
                    "--title", "Spring offer", "--forced-redirect", "--expires", "2030-01-31T00:00:00Z")
    assert added["route"] == "signup" and added["previewTitle"] == "Spring offer" and added["expiresAt"] == "2030-01-31T00:00:00Z"
    short = ok_json(config, "add", "--target", "https://fitconnect.app/about")
    assert len(short["code"]) == 4
    assert sorted(l["code"] for l in ok_json(config, "list")) == sorted(["spring", short["code"]])
    assert ok_json(config, "show", "spring") == added
    r = links(config, "add", "--code", "spring", "--target", "https://fitconnect.app/x")
    assert r.returncode == 1 and "site 'fitconnect' already has a short link 'spring'" in r.stderr
    assert ok_json(config, "disable", "spring")["status"] == "disabled"
    assert links(config, "delete", short["code"]).returncode == 0
    assert [l["code"] for l in ok_json(config, "list")] == ["spring"]
    text = links(config, "list").stdout
    assert text.splitlines()[0].split() == ["SITE", "CODE", "STATUS", "TARGET"]

    # The schema: the same migrations as SQLite, 64-bit integers, the NOTIFY trigger.
    versions = [int(v) for v in pg.psql("SELECT version FROM schema_migrations ORDER BY version", database).split()]
    assert versions[:2] == [1, 2] and 6 in versions  # 3–5 belong to other features (tokens, clicks, FDL columns)
    # The same versions as a new SQLite file gets.
    lite = config.parent / "lite" / "linkwell.json5"
    lite.parent.mkdir()
    lite.write_text((ROOT / "config" / "examples" / "fitconnect.json5").read_text())
    assert links(lite, "list").returncode == 0
    with sqlite3.connect(lite.parent / "linkwell.db") as con:
        assert [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY version")] == versions
    types = dict(line.split("|") for line in pg.psql(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'links'", database).split())
    assert types["created_at"] == types["expires_at"] == types["disabled"] == "bigint" and types["target"] == "text"
    # The change log's statement triggers (they bump links_revision and NOTIFY, as migration 6's did).
    assert pg.psql("SELECT tgname FROM pg_trigger WHERE tgname LIKE 'links_changes_%' ORDER BY tgname", database).split() == [
        "links_changes_delete", "links_changes_insert", "links_changes_truncate", "links_changes_update"]
    assert int(pg.psql("SELECT revision FROM links_revision", database)) >= 4


def test_two_instances_serve_what_either_writes_within_2_s(config, servers):
    a = serve(config, servers)
    b = serve(config, servers)
    assert status(a, "/shared1") == status(b, "/shared1") == 404

    ok_json(config, "add", "--code", "shared1", "--target", "https://fitconnect.app/signup?referralCode=SH1")
    within(2, lambda: status(b, "/shared1") == 200)
    within(2, lambda: status(a, "/shared1") == 200)
    page_a, page_b = (curl(*HOST, s.url("/shared1"))[2] for s in (a, b))
    assert page_a == page_b and b"SH1" in page_b

    ok_json(config, "disable", "shared1")
    within(2, lambda: status(b, "/shared1") == 404)
    within(2, lambda: status(a, "/shared1") == 404)
    for s in (a, b):
        refreshed = [e for e in s.events() if e.get("event") == "links_refreshed"]
        assert refreshed and {e["reason"] for e in refreshed} <= {"notified", "changed"}
        assert not [e for e in s.events() if e.get("event") == "links_refresh_failed"]
        assert PostgresServer.PASSWORD not in "".join(s.lines)


def test_postgres_down_while_serving_keeps_the_last_good_index(config, pg, servers):
    ok_json(config, "add", "--code", "stay1", "--target", "https://fitconnect.app/signup?referralCode=ST")
    server = serve(config, servers)
    assert status(server, "/stay1") == 200
    pg.stop()
    try:
        failed = server.wait_for(lambda e: e.get("event") == "links_refresh_failed", timeout=20)
        assert "PostgreSQL at postgresql://linkwell@127.0.0.1" in failed["error"] or "lost the connection" in failed["error"]
        assert failed["serving"].startswith("the last good index (1 link)")
        assert status(server, "/stay1") == 200
    finally:
        pg.start()
    server.wait_for(lambda e: e.get("event") == "links_refresh_recovered", timeout=30)
    assert len([e for e in server.events() if e.get("event") == "links_refresh_failed"]) == 1
    ok_json(config, "add", "--code", "back1", "--target", "https://fitconnect.app/about")
    within(2, lambda: status(server, "/back1") == 302)
    assert status(server, "/stay1") == 200


@pytest.mark.parametrize("case", ["down", "password", "database"])
def test_connection_errors_name_the_fix(tmp_path, pg, database, case):
    if case == "down":
        with __import__("socket").socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        cfg = make_config(tmp_path, pg, database, url=f"postgresql://linkwell@127.0.0.1:{port}/{database}")
        expected = [f"cannot reach PostgreSQL at postgresql://linkwell@127.0.0.1:{port}/{database}", f"'pg_isready -h 127.0.0.1 -p {port}'"]
    elif case == "password":
        cfg = make_config(tmp_path, pg, database, password="wrong-password")
        expected = [f"PostgreSQL at postgresql://linkwell@127.0.0.1:{pg.port}/{database} refused the login", "password authentication failed",
                    "storage.passwordFile", "LINKWELL_POSTGRES_PASSWORD"]
    else:
        cfg = make_config(tmp_path, pg, database, url=f"postgresql://linkwell@127.0.0.1:{pg.port}/nosuchdb")
        expected = ["has no such database", f"'createdb -h 127.0.0.1 -p {pg.port} -U postgres -O linkwell nosuchdb'"]
    r = links(cfg, "list")
    assert r.returncode == 1
    for text in expected:
        assert text in r.stderr, r.stderr
    assert "wrong-password" not in r.stderr and PostgresServer.PASSWORD not in r.stderr
    started = subprocess.run([str(BINARY), "serve", "--config", str(cfg), "--listen", "127.0.0.1:0", "--admin", "off"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert started.returncode == 1 and expected[0] in started.stderr and "nothing was started" in started.stderr


def test_the_password_may_come_from_the_environment(tmp_path, pg, database):
    cfg = tmp_path / "linkwell.json5"
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    cfg.write_text(text.replace("{", f'{{ storage: {{ postgres: "postgresql://{pg.USER}@127.0.0.1:{pg.port}/{database}" }},', 1))
    env = {"PATH": "/usr/bin:/bin", "LINKWELL_POSTGRES_PASSWORD": PostgresServer.PASSWORD}
    r = subprocess.run([str(BINARY), "links", "list", "--config", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and "No short links" in r.stdout, r.stderr
    r = subprocess.run([str(BINARY), "links", "list", "--config", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert r.returncode == 1 and "refused the login" in r.stderr and "no password supplied" in r.stderr


def test_a_link_created_through_one_instances_api_is_served_by_the_other_within_2_s(config, servers):
    from test_api import api
    token = subprocess.run([str(BINARY), "tokens", "create", "--name", "pg-test", "--config", str(config)],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert token.returncode == 0, token.stderr
    token = token.stdout.strip()
    a = serve(config, servers)
    b = serve(config, servers)
    status_code, _, body = api(a, "POST", "/api/v1/links", token=token,
                               body={"code": "viaapi", "target": "https://fitconnect.app/signup?referralCode=API"})
    assert status_code == 201, body
    assert status(a, "/viaapi") == 200  # the writing instance: at once (linksChanged)
    within(2, lambda: status(b, "/viaapi") == 200)
    status_code, _, _ = api(a, "DELETE", "/api/v1/links/fitconnect/viaapi", token=token)
    assert status_code in (200, 204)
    assert status(a, "/viaapi") == 404
    within(2, lambda: status(b, "/viaapi") == 404)
