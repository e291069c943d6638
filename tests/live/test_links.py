"""`linkwell links` end to end against a real SQLite file in a temporary config directory:
add, list, show, disable, delete, reopen (every command is a new process), and the refusals."""
import json
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".build" / "debug" / "linkwell"


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "linkwell.json5"
    shutil.copy(ROOT / "config" / "examples" / "fitconnect.json5", cfg)
    return cfg


def links(config, *args, cwd=None):
    return subprocess.run([str(BIN), "links", *args, "--config", str(config)], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=60)


def ok_json(config, *args):
    r = links(config, *args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_add_list_reopen_disable_delete(config):
    db = config.parent / "linkwell.db"
    assert not db.exists()
    added = ok_json(config, "add", "--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=SPRING26",
                    "--title", "Spring offer", "--ios-fallback", "https://fitconnect.app/ios", "--forced-redirect",
                    "--expires", "2030-01-31T00:00:00Z")
    assert db.exists()  # linkwell.db beside the config, created on first use
    assert added["url"] == "https://fitconnect.app/spring" and added["route"] == "signup"
    assert added["previewTitle"] == "Spring offer" and added["forcedRedirect"] is True
    assert added["expiresAt"] == "2030-01-31T00:00:00Z" and added["status"] == "live"
    short = ok_json(config, "add", "--target", "https://fitconnect.app/about")
    assert len(short["code"]) == 4 and short["code"].isalnum() and short["route"] is None
    secret = ok_json(config, "add", "--unguessable", "--target", "https://fitconnect.app/about")
    assert len(secret["code"]) == 17 and secret["code"].isalnum()

    # Every command is a new process reopening the file: the links are still there.
    listed = ok_json(config, "list")
    assert sorted(l["code"] for l in listed) == sorted(["spring", short["code"], secret["code"]])
    assert ok_json(config, "show", "spring") == added
    text = links(config, "list").stdout.splitlines()
    assert text[0].split() == ["SITE", "CODE", "STATUS", "TARGET"]
    assert any(line.split()[:3] == ["fitconnect", "spring", "live"] for line in text[1:])

    assert ok_json(config, "disable", "spring")["status"] == "disabled"
    assert ok_json(config, "show", "spring")["disabled"] is True
    r = links(config, "delete", short["code"])
    assert r.returncode == 0 and r.stdout.strip() == f"Deleted https://fitconnect.app/{short['code']}."
    assert sorted(l["code"] for l in ok_json(config, "list")) == sorted(["spring", secret["code"]])

    # The schema is the versioned one, in WAL mode.
    with sqlite3.connect(db) as con:
        assert [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY version")] == list(range(1, 13))
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("args, message", [
    (["add", "--code", "signup", "--target", "https://fitconnect.app/x"],
     "Error: cannot add 'signup' to site 'fitconnect': '/signup' is already route 'signup' of site 'fitconnect'; a short link there would hide it"),
    (["add", "--code", "apple-app-site-association", "--target", "https://fitconnect.app/x"],
     "Error: cannot add 'apple-app-site-association' to site 'fitconnect': '/apple-app-site-association' is served by linkwell itself"),
    (["add", "--code", "ok1", "--target", "https://evil.example/x"],
     "the target host 'evil.example' is not a domain of site 'fitconnect' (fitconnect.app)"),
    (["add", "--code", "a.b", "--target", "https://fitconnect.app/x"], "the code 'a.b' contains '.'"),
    (["show", "nope"], "Error: site 'fitconnect' has no short link 'nope'"),
    (["delete", "nope"], "Error: site 'fitconnect' has no short link 'nope'"),
])
def test_refusals_exit_1_with_the_reason(config, args, message):
    r = links(config, *args)
    assert r.returncode == 1, r.stdout
    assert message in r.stderr
    assert ok_json(config, "list") == []


def test_duplicate_code(config):
    ok_json(config, "add", "--code", "dup1", "--target", "https://fitconnect.app/a")
    r = links(config, "add", "--code", "dup1", "--target", "https://fitconnect.app/b")
    assert r.returncode == 1
    assert "site 'fitconnect' already has a short link 'dup1'" in r.stderr


@pytest.mark.parametrize("args", [["add"], ["frob"], [], ["show"], ["add", "--target", "https://fitconnect.app/a", "--length", "2"],
                                  ["add", "--target", "https://fitconnect.app/a", "--expires", "tomorrow"]])
def test_usage_errors_exit_64(config, args):
    r = links(config, *args)
    assert r.returncode == 64 and r.stderr.startswith("Error: "), (r.returncode, r.stderr)


def test_storage_block_and_corrupted_file(config):
    text = config.read_text()
    config.write_text(text.replace("{", '{ storage: { sqlite: "data/links.db" },', 1))
    (config.parent / "data").mkdir()
    ok_json(config, "add", "--code", "here", "--target", "https://fitconnect.app/a")
    assert (config.parent / "data" / "links.db").exists() and not (config.parent / "linkwell.db").exists()
    # From another working directory the path is still relative to the config file.
    assert [l["code"] for l in ok_json(config, "list")] == ["here"]
    assert [l["code"] for l in json.loads(links(config, "list", "--json", cwd="/").stdout)] == ["here"]

    broken = config.parent / "data" / "links.db"
    for extra in ("-wal", "-shm"):
        Path(str(broken) + extra).unlink(missing_ok=True)
    broken.write_bytes(b"not a database" * 400)
    r = links(config, "list")
    assert r.returncode == 1
    assert f"the link database {broken} is not a valid SQLite database" in r.stderr
    assert f"mv {broken} {broken}.broken" in r.stderr


IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"


def test_served_by_the_server_like_its_target(config, start_server):
    from conftest import curl
    ok_json(config, "add", "--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=SPRING26")
    ok_json(config, "add", "--code", "quick", "--target", "https://fitconnect.app/signup?referralCode=Q1", "--forced-redirect")
    ok_json(config, "add", "--code", "off1", "--target", "https://fitconnect.app/signup?referralCode=OFF")
    ok_json(config, "disable", "off1")
    server = start_server(config)
    for ua in (IPHONE, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"):
        short = curl("-H", "Host: fitconnect.app", "-A", ua, server.url("/spring"))
        direct = curl("-H", "Host: fitconnect.app", "-A", ua, server.url("/signup?referralCode=SPRING26"))
        assert short[0] == direct[0] == 200
        # The target's page, under the link's own URL (canonical link, og:url, its generated card).
        def as_target(body):
            body = body.replace(b'https://fitconnect.app/spring"', b'https://fitconnect.app/signup?referralCode=SPRING26"')
            body = body.replace(b">https://fitconnect.app/spring<", b">https://fitconnect.app/signup?referralCode=SPRING26<")
            return re.sub(rb"/static/og/[0-9a-f]{16}\.png\?l=[^&\"]*", b"/static/og/CARD", body)
        assert b'<link rel="canonical" href="https://fitconnect.app/spring">' in short[2]
        assert as_target(short[2]) == as_target(direct[2]) and b"SPRING26" in short[2]
    status, headers, _ = curl("-H", "Host: fitconnect.app", server.url("/quick"))
    assert status == 302 and headers["location"] == "https://fitconnect.app/signup?referralCode=Q1"
    assert curl("-H", "Host: fitconnect.app", server.url("/off1"))[0] == 404
    assert curl("-H", "Host: fitconnect.app", server.url("/nope"))[0] == 404
