"""Storage faults under load, against the real binary and a real SQLite file: the file replaced by
a rename, deleted, corrupted then restored, on a full tmpfs and on a read-only mount — while one
client writes links through the admin API and another reads short links, the association file
and the API. After each: every write answered 2xx is in the file and served after a restart; no
served short link disappeared while its row existed; the association file always answered 200.
Plus a locked file (503 + Retry-After, reads still 200), reads on a full or locked disk, 401s
that name no server path, and serve starting on a read-only store."""
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import ROOT, Server, curl, run_cli as cli

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"
SEEDED = [f"seed{i}" for i in range(20)]


def make_config(tmp_path, db):
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    text = text.replace('"$schema": "../linkwell.schema.json",',
                        f'"$schema": "../linkwell.schema.json", storage: {{ sqlite: "{db}", clicks: {{ flushSeconds: 0.5 }} }},')
    cfg = tmp_path / "linkwell.json5"
    cfg.write_text(text)
    return cfg


def api(server, method, path, token=None, body=None, timeout=30):
    h = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    req = urllib.request.Request(server.admin_url(path), data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, text = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, text = e.code, e.headers, e.read()
    return status, hdrs, (json.loads(text) if text and (hdrs.get("Content-Type") or "").startswith("application/json") else text)


def public(server, path):
    return curl("-H", "Host: fitconnect.app", "-A", IPHONE, server.url(path))[0]


def aasa(server):
    return curl("-H", "Host: fitconnect.app", server.url("/.well-known/apple-app-site-association"))[0]


def rows(db):
    """The codes in the file at `db` (read-only, as another process would)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {r[0] for r in con.execute("SELECT code FROM links")}
    finally:
        con.close()


def metric_lines(server, prefix):
    body = curl(server.admin_url("/metrics"))[2].decode()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in body.splitlines() if line.startswith(prefix)}


class Load:
    """A writer creating links w0, w1, … through the API (each status kept) and a reader going
    round the seeded short links, the newest acknowledged one, the AASA file and an
    authenticated API read."""

    def __init__(self, server, token, prefix="w"):
        self.server, self.token, self.prefix = server, token, prefix
        self.writes = []  # (code, status)
        self.times = {}  # code → (sent, answered), time.monotonic()
        self.public_failures = []  # (path, status) of a seeded link that was not served
        self.aasa_failures = []
        self.api_reads = []  # statuses of GET /api/v1/links?limit=1
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._write, daemon=True), threading.Thread(target=self._read, daemon=True)]

    def _write(self):
        i = 0
        while not self.stop.is_set():
            code = f"{self.prefix}{i}"
            sent = time.monotonic()
            status = api(self.server, "POST", "/api/v1/links", self.token,
                         {"code": code, "target": f"https://fitconnect.app/signup?referralCode={code}"})[0]
            self.times[code] = (sent, time.monotonic())
            self.writes.append((code, status))
            i += 1
            time.sleep(0.02)

    def _read(self):
        i = 0
        while not self.stop.is_set():
            # A seeded link, and the newest acknowledged one (served before its 201 was sent).
            acked = self.acknowledged
            for code in [SEEDED[i % len(SEEDED)]] + acked[-1:]:
                s = public(self.server, f"/{code}")
                if s != 200:
                    self.public_failures.append((code, s))
            s = aasa(self.server)
            if s != 200:
                self.aasa_failures.append(s)
            self.api_reads.append(api(self.server, "GET", "/api/v1/links?limit=1", self.token)[0])
            i += 1

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)

    @property
    def acknowledged(self):
        return [c for c, s in self.writes if 200 <= s < 300]

    def refused(self, status):
        return [c for c, s in self.writes if s == status]

    def wait_writes(self, n, timeout=30):
        start = len(self.writes)
        deadline = time.time() + timeout
        while len(self.writes) < start + n and time.time() < deadline:
            time.sleep(0.05)
        assert len(self.writes) >= start + n, "the writer is stuck"


def report(name, load, present):
    acked = load.acknowledged
    print(f"\n{name}: {len(load.writes)} writes, {len(acked)} answered 2xx, {len(set(acked) & present)} of them in the file; "
          f"other answers {sorted({s for _, s in load.writes if not 200 <= s < 300})}; "
          f"short links not served {len(load.public_failures)}; AASA not 200 {len(load.aasa_failures)}")


def check_after(config, db, load, start_server, server):
    """Every 2xx write is in the file now and after a restart (and served then)."""
    acked = load.acknowledged
    present = rows(db)
    assert not load.aasa_failures
    assert not load.public_failures, load.public_failures[:5]
    missing = [c for c in acked if c not in present]
    assert not missing, f"{len(missing)} writes answered 2xx are not in the file: {missing[:10]}"
    server.stop()
    again = start_server(config)
    assert set(acked) | set(SEEDED) <= rows(db)
    for code in acked[:: max(1, len(acked) // 25)] + SEEDED[:3]:
        assert public(again, f"/{code}") == 200, code
    listed = set()
    cursor = ""
    token = load.token
    while True:
        status, _, page = api(again, "GET", f"/api/v1/links?limit=1000{cursor}", token)
        assert status == 200
        listed |= {l["code"] for l in page["links"]}
        if not page["next"]:
            break
        cursor = f"&next={page['next']}"
    assert set(acked) <= listed
    return present, again


@pytest.fixture
def setup(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    db = data / "linkwell.db"
    config = make_config(tmp_path, db)
    token = cli(config, "tokens", "create", "--name", "load")
    for code in SEEDED:
        cli(config, "links", "add", "--code", code, "--target", f"https://fitconnect.app/signup?referralCode={code}")
    return config, db, token


def ready(server):
    status, _, body = curl(server.admin_url("/readyz"))
    return status, body.decode()


def test_file_replaced_by_a_rename_while_writing(setup, start_server):
    config, db, token = setup
    server = start_server(config)
    with Load(server, token) as load:
        load.wait_writes(20)
        for round in range(3):
            # A deploy script: copy the live file while holding its write lock, rename the copy
            # over it, release. Nothing is written in between, so nothing acknowledged may go.
            tmp = db.parent / f"replacement{round}.db"
            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")
            src, dst = sqlite3.connect(db), sqlite3.connect(tmp)
            src.backup(dst)
            src.close()
            dst.close()
            os.rename(tmp, db)
            lock.execute("ROLLBACK")
            lock.close()
            load.wait_writes(20)
    present = rows(db)
    report("replaced", load, present)
    assert len(load.acknowledged) == len(load.writes), {s for _, s in load.writes}
    assert all(s == 200 for s in load.api_reads)
    check_after(config, db, load, start_server, server)


def test_file_restored_by_a_rename_without_a_lock(setup, start_server):
    """A restore as most scripts do it: a copy taken while writes go on, renamed over the file a
    moment later. Writes answered before the copy and writes sent after the rename are all
    kept; those in between went to the file the operator replaced (counted, not asserted)."""
    config, db, token = setup
    server = start_server(config)
    with Load(server, token) as load:
        windows = []
        for round in range(3):
            load.wait_writes(15)
            tmp = db.parent / f"restore{round}.db"
            copied = time.monotonic()
            src, dst = sqlite3.connect(db), sqlite3.connect(tmp)
            src.backup(dst)
            src.close()
            dst.close()
            time.sleep(0.1)  # the script's own work: writes answered meanwhile are lost by the restore
            os.rename(tmp, db)
            windows.append((copied, time.monotonic()))
        load.wait_writes(15)
    present = rows(db)
    report("restored without a lock", load, present)
    assert len(load.acknowledged) == len(load.writes)
    in_window = [c for c in load.acknowledged if any(load.times[c][1] > a and load.times[c][0] < b for a, b in windows)]
    outside = [c for c in load.acknowledged if c not in in_window]
    # Answered before a copy: in that copy, hence in every later file; sent after the last rename: in the file.
    before_first = [c for c in outside if load.times[c][1] <= windows[0][0]]
    after_last = [c for c in outside if load.times[c][0] >= windows[-1][1]]
    assert before_first and after_last
    assert not [c for c in before_first + after_last if c not in present]
    assert not load.aasa_failures and not [c for c, _ in load.public_failures if c in SEEDED]
    server.stop()
    again = start_server(config)
    assert all(public(again, f"/{c}") == 200 for c in (before_first + after_last)[::3])
    print(f"restored without a lock: {len(in_window)} writes overlapped a copy-to-rename window, "
          f"{len([c for c in in_window if c not in present])} of them replaced by the restore")


def test_file_deleted_keeps_serving_is_not_recreated_then_restored(setup, start_server):
    config, db, token = setup
    server = start_server(config)
    saved = db.parent / "saved.db"
    with Load(server, token) as load:
        load.wait_writes(20)
        os.link(db, saved)  # the operator's way back
        db.unlink()
        before = len(load.writes)
        load.wait_writes(30)
        time.sleep(2)  # four click flushes (clicks are being counted: the reader's visits)
        assert not db.exists(), "the server re-created the deleted file"
        during = load.writes[before:]
        assert all(s == 503 for _, s in during[1:]), {s for _, s in during}
        status, body = ready(server)
        assert status == 200 and "links: unavailable: the link database" in body and "is gone (deleted or moved)" in body
        assert metric_lines(server, "linkwell_links_store_state")['linkwell_links_store_state{state="unavailable"}'] == 1
        assert metric_lines(server, "linkwell_links_served")["linkwell_links_served"] >= 40
        # An unauthenticated client learns nothing about the server's files.
        status, _, answer = api(server, "GET", "/api/v1/links", "lw_wrong")
        assert status == 401 and str(db.parent) not in json.dumps(answer) and str(config) not in json.dumps(answer)
        os.rename(saved, db)
        server.wait_for(lambda e: e.get("event") == "links_refresh_recovered", timeout=10)
        recovered = len(load.writes)
        load.wait_writes(20)
    present = rows(db)
    report("deleted", load, present)
    # The write in flight when the file went (during[0]) and the one in flight at recovery may go
    # either way; every write sent after recovery is answered.
    after = load.writes[recovered + 1:]
    assert load.refused(503) and len(after) >= 19 and all(200 <= s < 300 for _, s in after), after
    check_after(config, db, load, start_server, server)


def test_file_corrupted_then_restored_recovers_without_restart(setup, start_server):
    config, db, token = setup
    server = start_server(config)
    good = db.parent / "good.db"
    with Load(server, token) as load:
        load.wait_writes(20)
        garbage = db.parent / "garbage"
        garbage.write_bytes(b"not a database " * 1000)
        os.link(db, good)
        os.rename(garbage, db)  # the path now holds a corrupt file
        load.wait_writes(20)
        server.wait_for(lambda e: e.get("event") == "links_refresh_failed", timeout=10)
        status, body = ready(server)
        assert "links: unavailable: the link database" in body and "is not a valid SQLite database" in body
        os.rename(good, db)  # restored
        server.wait_for(lambda e: e.get("event") == "links_refresh_recovered", timeout=10)
        load.wait_writes(20)
        assert all(200 <= s < 300 for _, s in load.writes[-10:]), load.writes[-10:]
    present = rows(db)
    report("corrupted then restored", load, present)
    assert load.refused(503)
    check_after(config, db, load, start_server, server)


@contextmanager
def mounted(args, target):
    subprocess.run(["mount", *args, str(target)], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


def test_full_disk_is_507_with_the_fix_and_reads_still_work(tmp_path, start_server):
    data = tmp_path / "data"
    data.mkdir()
    with mounted(["-t", "tmpfs", "-o", "size=4m", "tmpfs"], data):
        db = data / "linkwell.db"
        config = make_config(tmp_path, db)
        token = cli(config, "tokens", "create", "--name", "load")
        for code in SEEDED:
            cli(config, "links", "add", "--code", code, "--target", f"https://fitconnect.app/signup?referralCode={code}")
        server = start_server(config)
        with Load(server, token) as load:
            load.wait_writes(20)
            filler = data / "filler"
            subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)  # until ENOSPC
            before = len(load.writes)
            load.wait_writes(30)
            # A few writes may still fit in space the database already holds (its WAL is reused
            # after a checkpoint); those are stored (checked below). Once that space is used,
            # every write is a 507.
            full = [s for _, s in load.writes[before:]]
            assert set(full) <= {201, 507} and full[-10:] == [507] * 10, full
            status, _, body = api(server, "POST", "/api/v1/links", token, {"code": "onfull", "target": "https://fitconnect.app/about"})
            assert status == 507 and body["error"]["code"] == "insufficient_storage"
            assert "is full" in body["error"]["message"] and "free space on the volume" in body["error"]["fix"]
            reads_before = len(load.api_reads)
            time.sleep(1)
            assert all(s == 200 for s in load.api_reads[reads_before:]) and len(load.api_reads) > reads_before
            filler.unlink()
            load.wait_writes(20)
            assert all(200 <= s < 300 for _, s in load.writes[-10:])
        present = rows(db)
        report("full disk", load, present)
        assert metric_lines(server, "linkwell_link_writes_refused_total")['linkwell_link_writes_refused_total{reason="full"}'] >= full.count(507)
        _, again = check_after(config, db, load, start_server, server)
        again.stop()


def test_read_only_mount_serves_links_refuses_writes_and_starts(setup, start_server):
    config, db, token = setup
    data = db.parent
    server = start_server(config)
    with Load(server, token) as load:
        load.wait_writes(20)
        subprocess.run(["mount", "--bind", str(data), str(data)], check=True)
        try:
            # The kernel refuses while a file there is open for writing (a request, a flush):
            # try again, as an operator would.
            deadline = time.time() + 10
            while (r := subprocess.run(["mount", "-o", "remount,bind,ro", str(data)], capture_output=True, text=True)).returncode != 0:
                assert "busy" in r.stderr and time.time() < deadline, r.stderr
                time.sleep(0.01)
            server.wait_for(lambda e: e.get("event") == "links_read_only", timeout=10)
            before = len(load.writes)
            load.wait_writes(20)
            during = [s for _, s in load.writes[before + 1:]]
            assert during and all(s == 503 for s in during), set(during)
            status, _, body = api(server, "POST", "/api/v1/links", token, {"code": "onro", "target": "https://fitconnect.app/about"})
            assert status == 503 and body["error"]["code"] == "links_read_only" and "read-only volume" in body["error"]["message"]
            status, text = ready(server)
            assert status == 200 and text.startswith("ready\nlinks: read-only: ") and "link writes are answered 503" in text
            time.sleep(1.5)  # clicks of the reader's visits are dropped, and counted
            assert metric_lines(server, "linkwell_clicks_dropped_total")["linkwell_clicks_dropped_total"] > 0
            assert server.wait_for(lambda e: e.get("event") == "clicks_dropped", timeout=5)
            reads = len(load.api_reads)
            time.sleep(0.5)
            assert all(s == 200 for s in load.api_reads[reads:])

            # A restart on the read-only volume: serve starts and says so.
            acked_so_far = load.acknowledged
            load.stop.set()
            for t in load.threads:
                t.join(timeout=60)
            server.stop()
            ro = start_server(config)
            event = ro.wait_for(lambda e: e.get("event") == "links_read_only", timeout=10)
            assert str(data) in event["reason"] and event["links"] == len(SEEDED) + len(acked_so_far)
            assert aasa(ro) == 200 and public(ro, f"/{SEEDED[0]}") == 200 and public(ro, f"/{acked_so_far[-1]}") == 200
            assert api(ro, "GET", "/api/v1/links?limit=5", token)[0] == 200
            assert api(ro, "POST", "/api/v1/links", token, {"code": "onro2", "target": "https://fitconnect.app/about"})[0] == 503
            assert metric_lines(ro, "linkwell_links_store_state")['linkwell_links_store_state{state="read-only"}'] == 1
        finally:
            subprocess.run(["umount", "-l", str(data)], check=True)
    ro.wait_for(lambda e: e.get("event") == "links_writable", timeout=10)
    assert api(ro, "POST", "/api/v1/links", token, {"code": "afterro", "target": "https://fitconnect.app/about"})[0] == 201
    present = rows(db)
    report("read-only", load, present)
    assert "afterro" in present
    check_after(config, db, load, start_server, ro)


def test_locked_file_is_503_with_retry_after_and_reads_still_work(setup, start_server):
    config, db, token = setup
    server = start_server(config)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE links SET target = target WHERE code = 'seed0'")
        status, headers, body = api(server, "POST", "/api/v1/links", token, {"code": "locked1", "target": "https://fitconnect.app/about"})
        assert status == 503 and headers["Retry-After"] == "2" and body["error"]["code"] == "database_locked"
        assert "is locked by another process" in body["error"]["message"]
        # Reads take no lock and write nothing (the token's last use is written later).
        assert api(server, "GET", "/api/v1/links?limit=3", token)[0] == 200
        assert api(server, "GET", "/api/v1/links/fitconnect/seed1", token)[0] == 200
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert api(server, "POST", "/api/v1/links", token, {"code": "locked1", "target": "https://fitconnect.app/about"})[0] == 201
    # The token's use reaches the database with the next click flush.
    deadline = time.time() + 5
    while time.time() < deadline:
        used = json.loads(cli(config, "tokens", "list", "--json"))[0]["lastUsedAt"]
        if used:
            break
        time.sleep(0.2)
    assert used


def test_401_answers_name_no_server_path(setup, start_server):
    config, db, token = setup
    server = start_server(config)
    for t in (None, "lw_wrong", "not-a-token"):
        status, _, body = api(server, "GET", "/api/v1/links", t)
        text = json.dumps(body)
        assert status == 401 and str(db) not in text and str(config) not in text and str(config.parent) not in text, text
    cli(config, "tokens", "revoke", "load")
    status, _, body = api(server, "GET", "/api/v1/links", token)
    assert status == 401 and str(config.parent) not in json.dumps(body)
