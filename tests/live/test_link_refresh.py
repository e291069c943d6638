"""The served link index follows the SQLite store without a reload: `linkwell links` in another
process while `serve` runs is served within 2 s (polled, no fixed sleep); links survive a
restart; a corrupted or locked file is reported once, the last good index keeps serving, and
the recovery is logged. PostgreSQL: test_postgres.py."""
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from conftest import curl
from polling import status, within
from test_links import links, ok_json

HOST = ("-H", "Host: fitconnect.app")


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "linkwell.json5"
    shutil.copy(Path(__file__).resolve().parents[2] / "config" / "examples" / "fitconnect.json5", cfg)
    return cfg




def events(server, name):
    return [e for e in server.events() if e.get("event") == name]


def reload_and_wait(server):
    """SIGHUP, and wait for its 'reloaded' (a reload also checks the store, after the swap)."""
    before = len(events(server, "reloaded"))
    server.signal(signal.SIGHUP)
    server.wait_for(lambda e: e.get("event") == "reloaded" and len(events(server, "reloaded")) > before, timeout=15)


def test_links_survive_a_restart(config, start_server):
    ok_json(config, "add", "--code", "keep1", "--target", "https://fitconnect.app/signup?referralCode=K1")
    first = start_server(config)
    assert status(first, "/keep1") == 200
    first.stop()
    second = start_server(config)
    assert status(second, "/keep1") == 200
    assert status(second, "/nope1") == 404


def test_cli_writes_while_serving_are_served_within_2_s_without_reload(config, start_server):
    # No database yet: serve starts with no links and does not create the file.
    server = start_server(config)
    db = config.parent / "linkwell.db"
    assert status(server, "/late1") == 404 and not db.exists()

    ok_json(config, "add", "--code", "late1", "--target", "https://fitconnect.app/signup?referralCode=L1")
    within(2, lambda: status(server, "/late1") == 200)
    ok_json(config, "add", "--code", "late2", "--target", "https://fitconnect.app/about", "--forced-redirect")
    within(2, lambda: status(server, "/late2") == 302)
    ok_json(config, "disable", "late1")
    within(2, lambda: status(server, "/late1") == 404)
    links(config, "delete", "late2")
    within(2, lambda: status(server, "/late2") == 404)
    assert not events(server, "reloaded") and not events(server, "links_refresh_failed")
    refreshed = events(server, "links_refreshed")
    assert refreshed and all(e["storage"] == str(db) for e in refreshed)
    assert refreshed[-1]["links"] == 0  # late1 disabled (left out), late2 deleted


def test_a_corrupted_file_is_reported_once_and_the_last_good_index_keeps_serving(config, start_server):
    ok_json(config, "add", "--code", "good1", "--target", "https://fitconnect.app/signup?referralCode=G1")
    server = start_server(config)
    assert status(server, "/good1") == 200
    db = config.parent / "linkwell.db"
    backup = config.parent / "backup.db"
    with sqlite3.connect(db) as src, sqlite3.connect(backup) as dst:
        src.backup(dst)

    for extra in ("-wal", "-shm"):
        Path(str(db) + extra).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    failed = server.wait_for(lambda e: e.get("event") == "links_refresh_failed", timeout=10)
    assert f"the link database {db} is not a valid SQLite database" in failed["error"]
    assert f"mv {db} {db}.broken" in failed["error"]
    assert failed["serving"].startswith("the last good index (1 link)")
    assert status(server, "/good1") == 200
    # Later checks (every reload checks too) do not log it again; the config still reloads.
    reload_and_wait(server)
    reload_and_wait(server)
    assert len(events(server, "links_refresh_failed")) == 1
    assert status(server, "/good1") == 200

    shutil.copy(backup, db)
    recovered = server.wait_for(lambda e: e.get("event") == "links_refresh_recovered", timeout=10)
    assert recovered["storage"] == str(db) and recovered["outage_seconds"] >= 0
    ok_json(config, "add", "--code", "good2", "--target", "https://fitconnect.app/about")
    within(2, lambda: status(server, "/good2") == 302)
    assert status(server, "/good1") == 200


def test_a_locked_file_is_reported_once_and_the_last_good_index_keeps_serving(config, start_server):
    ok_json(config, "add", "--code", "lock1", "--target", "https://fitconnect.app/signup?referralCode=LK")
    server = start_server(config)
    db = config.parent / "linkwell.db"
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        # An exclusive lock held open (as a stuck maintenance script would): readers get SQLITE_BUSY.
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("UPDATE links SET target = target")
        failed = server.wait_for(lambda e: e.get("event") == "links_refresh_failed", timeout=10)
        assert f"the link database {db} is locked by another process" in failed["error"]
        assert status(server, "/lock1") == 200
        reload_and_wait(server)
        assert len(events(server, "links_refresh_failed")) == 1
        assert status(server, "/lock1") == 200
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    server.wait_for(lambda e: e.get("event") == "links_refresh_recovered", timeout=10)
    ok_json(config, "disable", "lock1")
    within(2, lambda: status(server, "/lock1") == 404)


def test_a_deleted_file_keeps_the_last_good_index(config, start_server):
    ok_json(config, "add", "--code", "gone1", "--target", "https://fitconnect.app/signup?referralCode=G")
    server = start_server(config)
    db = config.parent / "linkwell.db"
    for f in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")):
        f.unlink(missing_ok=True)
    failed = server.wait_for(lambda e: e.get("event") == "links_refresh_failed", timeout=10)
    assert f"the link database {db} is gone (deleted or moved)" in failed["error"]
    assert not db.exists()  # serve does not create it
    assert status(server, "/gone1") == 200
    ok_json(config, "add", "--code", "new1", "--target", "https://fitconnect.app/about")  # a new file
    within(2, lambda: status(server, "/new1") == 302)
    assert status(server, "/gone1") == 404
    assert events(server, "links_refresh_recovered")
