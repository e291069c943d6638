"""The link index follows writes by reading only the changed links (the store's change log) and
patching the served index; every link is read only at start and after an outage. On a real
PostgreSQL server (tests/live/pgserver.py): writes by the CLI (another process), a restart of
PostgreSQL while serving, and a TRUNCATE (the one write the log cannot name links for).
The same on SQLite: Tests/LinkServerTests/LinkRefresherPatchTests.swift."""
import re
import urllib.request

from polling import status, within
from test_postgres import config, database, ok_json, pg, serve, servers  # noqa: F401 (fixtures)


def counters(server):
    text = urllib.request.urlopen(server.admin_url("/metrics"), timeout=10).read().decode()
    out = {m[0]: int(m[1]) for m in re.findall(r'^linkwell_links_full_reads_total\{reason="(\w+)"\} (\d+)$', text, re.M)}
    out["patches"] = int(re.search(r"^linkwell_links_patches_total (\d+)$", text, re.M)[1])
    return out


def full_reads(server):
    return {k: v for k, v in counters(server).items() if k != "patches" and v}


def test_postgres_writes_are_patched_in_and_full_reads_happen_only_at_start_and_after_an_outage(config, pg, database, servers):
    ok_json(config, "add", "--code", "keep1", "--target", "https://fitconnect.app/signup?referralCode=K1")
    ok_json(config, "add", "--code", "gone1", "--target", "https://fitconnect.app/signup?referralCode=G1")
    server = serve(config, servers)
    assert status(server, "/keep1") == status(server, "/gone1") == 200
    assert full_reads(server) == {"start": 1}

    # Insert, disable, delete, enable: each is read alone and patched in.
    ok_json(config, "add", "--code", "new1", "--target", "https://fitconnect.app/signup?referralCode=N1")
    within(3, lambda: status(server, "/new1") == 200)
    ok_json(config, "disable", "keep1")
    within(3, lambda: status(server, "/keep1") == 404)
    ok_json(config, "delete", "gone1")
    within(3, lambda: status(server, "/gone1") == 404)
    ok_json(config, "enable", "keep1")
    within(3, lambda: status(server, "/keep1") == 200)
    assert status(server, "/new1") == 200
    assert full_reads(server) == {"start": 1}
    assert counters(server)["patches"] >= 4
    patched = [e for e in server.events() if e.get("event") == "links_refreshed" and e.get("read") == "changed links"]
    assert patched and all(e["changed"] + e["removed"] >= 1 for e in patched)

    # An outage: PostgreSQL restarted. The index keeps serving; once back, one full read.
    pg.stop()
    try:
        server.wait_for(lambda e: e.get("event") == "links_refresh_failed", timeout=20)
        assert status(server, "/new1") == 200
    finally:
        pg.start()
    server.wait_for(lambda e: e.get("event") == "links_refresh_recovered", timeout=30)
    within(5, lambda: full_reads(server) == {"start": 1, "outage": 1})
    before = counters(server)["patches"]
    ok_json(config, "add", "--code", "after1", "--target", "https://fitconnect.app/signup?referralCode=A1")
    within(3, lambda: status(server, "/after1") == 200)
    assert counters(server)["patches"] > before
    assert full_reads(server) == {"start": 1, "outage": 1}

    # A TRUNCATE names no links: the log says so and the server reads everything.
    pg.psql("TRUNCATE links", database=database)
    within(3, lambda: status(server, "/after1") == 404)
    assert full_reads(server) == {"start": 1, "outage": 1, "change_log": 1}
