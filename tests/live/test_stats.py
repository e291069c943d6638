"""Click counts end to end: the real server on a temp config, a known number of requests of each
kind (iPhone, Android, desktop, no User-Agent, an in-app browser, a crawler, referrers, short
links, forced redirects, not-found, and requests that are no clicks), then SIGTERM, SIGHUP or a
periodic flush, and `linkwell stats --json` must add up exactly; two runs on one file add up; a
locked database keeps the counts and says so once."""
import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import curl

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".build" / "debug" / "linkwell"

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
INSTAGRAM = IPHONE + " Instagram 312.0.0.22.114"
SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"


def make_config(tmp_path, flush_seconds=3600):
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    text = text.replace('"$schema": "../linkwell.schema.json",',
                        f'"$schema": "../linkwell.schema.json", storage: {{ clicks: {{ flushSeconds: {flush_seconds} }} }},')
    text = text.replace('comment: "a trainer\'s referral link",',
                        'comment: "a trainer\'s referral link", fallback: { android: "store", desktop: "web", web: "https://www.fitconnect.app/join?code={referralCode}" },')
    cfg = tmp_path / "linkwell.json5"
    cfg.write_text(text)
    return cfg


def cli(config, *args):
    return subprocess.run([str(BIN), *args, "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)


def stats(config, *args):
    r = cli(config, "stats", "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def config(tmp_path):
    cfg = make_config(tmp_path)
    for args in (("--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=SPRING26"),
                 ("--code", "quick", "--target", "https://fitconnect.app/signup?referralCode=Q1", "--forced-redirect")):
        assert cli(cfg, "links", "add", *args).returncode == 0
    return cfg


# (path, user agent or None for none, referer or None, times, expected (platform, outcome, inApp, crawler))
CLICKS = [
    ("/signup?referralCode=A", IPHONE, None, 3, ("ios", "app_page", False, False)),
    ("/signup?referralCode=A", ANDROID, "https://mail.google.com/mail/u/0", 2, ("android", "store", False, False)),
    ("/signup?referralCode=A", DESKTOP, "https://News.Example.com:8443/a?b", 4, ("desktop", "web", False, False)),
    ("/signup?referralCode=A", "", None, 1, ("other", "web", False, False)),
    ("/signup?referralCode=A", INSTAGRAM, "https://l.instagram.com/?u=x", 2, ("ios", "app_page", True, False)),
    ("/signup?referralCode=A", SLACK, None, 1, ("desktop", "app_page", False, True)),
    ("/spring", IPHONE, "https://mail.google.com/", 2, ("ios", "app_page", False, False)),
    ("/spring", ANDROID, "android-app://com.google.android.gm/", 1, ("android", "store", False, False)),
    ("/quick", IPHONE, None, 2, ("ios", "redirect", False, False)),
    ("/nope", DESKTOP, "http://192.168.1.7/x", 3, ("desktop", "not_found", False, False)),
]
TOTAL = sum(c[3] for c in CLICKS)
NO_CLICKS = [("-I", "/spring"), ("", "/.well-known/apple-app-site-association"), ("", "/.well-known/assetlinks.json"), ("", "/robots.txt")]


def send_clicks(server):
    for path, ua, referer, times, _ in CLICKS:
        for _ in range(times):
            args = ["-H", "Host: fitconnect.app", "-A", ua]
            if referer:
                args += ["-e", referer]
            status = curl(*args, server.url(path))[0]
            assert status in (200, 302, 404), (path, status)
    for flag, path in NO_CLICKS:
        args = ["-H", "Host: fitconnect.app", "-A", IPHONE] + ([flag] if flag else [])
        curl(*args, server.url(path))


def expected(runs=1):
    platform, outcome = {}, {}
    in_app = crawlers = 0
    for _, _, _, times, (p, o, app, crawler) in CLICKS:
        platform[p] = platform.get(p, 0) + times * runs
        outcome[o] = outcome.get(o, 0) + times * runs
        in_app += times * runs if app else 0
        crawlers += times * runs if crawler else 0
    for p in ("ios", "android", "desktop", "other"):
        platform.setdefault(p, 0)
    for o in ("app_page", "store", "web", "redirect", "not_found"):
        outcome.setdefault(o, 0)
    return platform, outcome, in_app, crawlers


def check_report(report, runs=1):
    platform, outcome, in_app, crawlers = expected(runs)
    assert report["total"] == TOTAL * runs
    assert report["platform"] == platform
    assert report["outcome"] == outcome
    assert report["inAppBrowser"] == {"yes": in_app, "no": TOTAL * runs - in_app}
    assert report["crawler"] == {"yes": crawlers, "no": TOTAL * runs - crawlers}
    referrers = {r["host"]: r["clicks"] for r in report["referrers"]}
    assert referrers == {"": 7 * runs, "mail.google.com": 4 * runs, "news.example.com": 4 * runs, "l.instagram.com": 2 * runs,
                         "com.google.android.gm": 1 * runs, "(ip)": 3 * runs}
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert report["days"] == [{"day": today, "clicks": TOTAL * runs, "platform": platform}]
    links = {(l["code"], l["route"]): l["clicks"] for l in report["links"]}
    assert links == {("", "signup"): 13 * runs, ("spring", "signup"): 3 * runs, ("quick", "signup"): 2 * runs, ("", ""): 3 * runs}


def test_sigterm_loses_nothing_and_two_runs_add_up(config, start_server):
    for run in (1, 2):
        server = start_server(config)
        send_clicks(server)
        metrics = curl(server.admin_url("/metrics"))[2].decode()
        assert f'linkwell_clicks_total{{site="fitconnect",route="signup",platform="ios",outcome="app_page"}} 7\n' in metrics
        assert 'linkwell_link_clicks_total{site="fitconnect",link="spring"} 3\n' in metrics
        assert f"linkwell_clicks_unwritten {TOTAL}\n" in metrics
        server.signal(signal.SIGTERM)
        assert server.proc.wait(timeout=20) == 0
        server._reader.join(timeout=5)
        assert not [e for e in server.events() if e.get("event", "").startswith("clicks_")], server.events()
        check_report(stats(config), runs=run)
    # Filters: a link, a route (its pages and the short links to it), a day range.
    assert stats(config, "--link", "spring")["total"] == 6
    assert stats(config, "--route", "signup")["total"] == 2 * (TOTAL - 3)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert stats(config, "--since", today, "--until", "today")["total"] == 2 * TOTAL
    assert stats(config, "--until", "2020-01-01")["total"] == 0


def test_periodic_flush_writes_while_serving(tmp_path, start_server):
    config = make_config(tmp_path, flush_seconds=0.5)
    server = start_server(config)
    for i in range(7):
        assert curl("-H", "Host: fitconnect.app", "-A", ANDROID, server.url(f"/signup?referralCode=P{i}"))[0] == 302
    deadline = time.time() + 15
    while time.time() < deadline:
        if (config.parent / "linkwell.db").exists() and stats(config)["total"] == 7:
            break
        time.sleep(0.2)
    report = stats(config)
    assert report["total"] == 7 and report["outcome"]["store"] == 7
    metrics = curl(server.admin_url("/metrics"))[2].decode()
    assert "linkwell_clicks_unwritten 0\n" in metrics
    assert 'linkwell_clicks_flushes_total{result="failure"} 0\n' in metrics
    # A crash now loses nothing already flushed.
    server.proc.kill()
    server.proc.wait(timeout=10)
    assert stats(config)["total"] == 7


def test_sighup_flushes_before_the_reload(config, start_server):
    server = start_server(config)
    for _ in range(5):
        curl("-H", "Host: fitconnect.app", "-A", IPHONE, server.url("/spring"))
    server.signal(signal.SIGHUP)
    server.wait_for(lambda e: e.get("event") == "reloaded", timeout=15)
    assert stats(config, "--link", "spring")["total"] == 5


def test_a_locked_database_keeps_the_counts_and_says_so_once(tmp_path, start_server):
    config = make_config(tmp_path, flush_seconds=0.3)
    db = config.parent / "linkwell.db"
    assert cli(config, "links", "add", "--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=S").returncode == 0
    holder = sqlite3.connect(db, isolation_level=None, timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    server = start_server(config)
    for _ in range(4):
        curl("-H", "Host: fitconnect.app", "-A", IPHONE, server.url("/spring"))
    failed = server.wait_for(lambda e: e.get("event") == "clicks_flush_failed", timeout=20)
    assert failed["pending_clicks"] == 4 and str(db) in failed["database"] and "locked" in failed["message"]
    for _ in range(3):
        curl("-H", "Host: fitconnect.app", "-A", IPHONE, server.url("/spring"))
    time.sleep(3)  # several more failed intervals (each waits out the 2 s busy timeout)
    assert sum(1 for e in server.events() if e.get("event") == "clicks_flush_failed") == 1
    holder.execute("COMMIT")
    holder.close()
    recovered = server.wait_for(lambda e: e.get("event") == "clicks_flush_recovered", timeout=20)
    assert recovered["clicks"] == 7 and recovered["failed_attempts"] >= 2
    assert stats(config)["total"] == 7


def test_text_output_and_usage_errors(config, start_server):
    server = start_server(config)
    send_clicks(server)
    server.signal(signal.SIGTERM)
    assert server.proc.wait(timeout=20) == 0
    r = cli(config, "stats")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"Clicks in {config.parent / 'linkwell.db'}"
    assert f"total {TOTAL}: humans {TOTAL - 1}, crawlers 1, in-app browsers 2" in lines
    assert any(l.split()[:2] == ["ios", "9"] for l in lines)
    assert any(l.split()[:2] == ["mail.google.com", "4"] for l in lines)
    for args, message in [(("--since", "2026-02-30"), "--since '2026-02-30' is not a date"),
                          (("--route", "signup2"), "Did you mean 'signup'?"),
                          (("--site", "nope"), "there is no site 'nope'"),
                          (("--since", "2026-12-02", "--until", "2026-12-01"), "is after --until 2026-12-01; swap them")]:
        r = cli(config, "stats", *args)
        assert r.returncode == 64 and message in r.stderr, r.stderr


def test_no_database_yet(tmp_path):
    config = make_config(tmp_path)
    r = cli(config, "stats")
    assert r.returncode == 0 and "No clicks yet: the database does not exist" in r.stdout
    assert not (config.parent / "linkwell.db").exists()
    assert json.loads(cli(config, "stats", "--json").stdout)["total"] == 0


def test_two_instances_on_one_postgresql_database_add_up(tmp_path, start_server, monkeypatch):
    from pgserver import PostgresServer
    pg = PostgresServer()
    try:
        monkeypatch.setenv("LINKWELL_POSTGRES_PASSWORD", PostgresServer.PASSWORD)
        config = make_config(tmp_path)
        config.write_text(config.read_text().replace("storage: {", f'storage: {{ postgres: "{pg.url}",', 1))
        for args in (("--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=SPRING26"),
                     ("--code", "quick", "--target", "https://fitconnect.app/signup?referralCode=Q1", "--forced-redirect")):
            r = cli(config, "links", "add", *args)
            assert r.returncode == 0, r.stderr
        servers = [start_server(config), start_server(config)]
        for server in servers:
            send_clicks(server)
        for server in servers:
            server.signal(signal.SIGTERM)
            assert server.proc.wait(timeout=20) == 0
            server._reader.join(timeout=5)
            # The first flush also ran the maintenance (window functions, INSERT … SELECT upserts).
            assert not [e for e in server.events() if e.get("event", "").startswith("clicks_")], server.events()
        check_report(stats(config), runs=2)
        assert not (config.parent / "linkwell.db").exists()
        # The rows are where the SQL says, with PostgreSQL's own types.
        assert pg.psql("SELECT SUM(p_ios + p_android + p_desktop + p_other) FROM clicks_daily", database="linkwell").strip() == str(2 * TOTAL)
        # The per-site sums and the links' 7-day clicks, written by both flushes, equal the per-link
        # rows summed from scratch.
        total = "p_ios + p_android + p_desktop + p_other"
        counts = "p_ios, p_android, p_desktop, p_other, o_app_page, o_store, o_web, o_redirect, o_not_found, in_app, crawler"
        sums = ", ".join(f"SUM({c})" for c in counts.split(", "))
        for stored, scratch in [
            (f"SELECT site, route, day, {counts} FROM clicks_site_daily ORDER BY 1, 2, 3",
             f"SELECT site, route, day, {sums} FROM clicks_daily GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"),
            ("SELECT site, route, day, referrer, count FROM click_referrers_site_daily ORDER BY 1, 2, 3, 4",
             "SELECT site, route, day, referrer, SUM(count) FROM click_referrers_daily GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"),
            ("SELECT site, code, clicks_7d FROM link_list ORDER BY 1, 2",
             f"""SELECT l.site, l.code, COALESCE(SUM({total}), 0) FROM link_list l LEFT JOIN clicks_daily d
                 ON d.site = l.site AND d.code = l.code AND d.day > (SELECT subtracted_through FROM link_list_window)
                 GROUP BY 1, 2 ORDER BY 1, 2"""),
        ]:
            assert pg.psql(stored, database="linkwell") == pg.psql(scratch, database="linkwell"), stored
        assert pg.psql("SELECT COUNT(*) FROM link_list WHERE clicks_7d > 0", database="linkwell").strip() == "2"
    finally:
        pg.close()


def test_the_admin_api_serves_the_same_report(config, start_server):
    r = cli(config, "tokens", "create", "--name", "stats")
    assert r.returncode == 0, r.stderr
    token = r.stdout.strip()
    server = start_server(config)
    send_clicks(server)
    server.signal(signal.SIGHUP)  # writes the counts before the reload
    server.wait_for(lambda e: e.get("event") == "reloaded", timeout=15)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    for query, args in [("", ()), (f"?link=spring&since={today}", ("--link", "spring", "--since", today)), ("?route=signup", ("--route", "signup"))]:
        status, _, body = curl("-H", f"Authorization: Bearer {token}", server.admin_url("/api/v1/stats" + query))
        assert status == 200, body
        assert json.loads(body) == stats(config, *args)
    check_report(json.loads(curl("-H", f"Authorization: Bearer {token}", server.admin_url("/api/v1/stats"))[2]))
    status, _, body = curl("-H", f"Authorization: Bearer {token}", server.admin_url("/api/v1/stats?since=2026-02-30"))
    assert status == 400 and "since '2026-02-30' is not a date" in json.loads(body)["error"]["message"]
    assert curl(server.admin_url("/api/v1/stats"))[0] == 401
