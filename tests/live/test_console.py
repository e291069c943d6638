"""The console on the admin listener, driven over HTTP as a browser with JavaScript off would:
sign in with a token posted in a form (a cookie session: HttpOnly, SameSite=Strict, Secure only
over https from a trusted proxy), CSRF secrets and the Origin check on every form, the sign-in
rate limit, a token in a query string refused (and kept out of the access log), a read token that
cannot write, disable → the public listener answers 404, revocation and sign-out ending the
session at once, every refusal in the audit log or the access log."""
import re

import pytest
import requests

from conftest import ROOT
from test_api import api, cli


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "linkwell.json5"
    cfg.write_text((ROOT / "config" / "examples" / "fitconnect.json5").read_text())
    return cfg


def csrf_of(html):
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def sign_in(server, token, headers=None):
    """A new browser: load the sign-in form, post the token; returns (session, response)."""
    s = requests.Session()
    s.headers.update(headers or {})
    form = s.get(server.admin_url("/"))
    r = s.post(server.admin_url("/console/sign-in"), data={"token": token, "csrf": csrf_of(form.text)},
               headers={"Origin": f"{(headers or {}).get('X-Forwarded-Proto', 'http')}://{server.admin}"}, allow_redirects=False)
    return s, r


def public_status(server, path):
    return requests.get(server.url(path), allow_redirects=False, headers={
        "Host": "fitconnect.app", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"}).status_code


def test_console_sign_in_forms_and_refusals(config, start_server):
    writer = cli(config, "tokens", "create", "--name", "marketing", "--scope", "write")
    reader = cli(config, "tokens", "create", "--name", "dash", "--scope", "read")
    admin = cli(config, "tokens", "create", "--name", "ops")
    server = start_server(config)
    assert api(server, "POST", "/api/v1/links", token=writer, body={"code": "spring", "target": "https://fitconnect.app/signup?referralCode=SPRING26", "previewTitle": "Spring"})[0] == 201
    assert public_status(server, "/spring") == 200

    # The sign-in page: a form posting `token`, no script, a strict CSP, a pre-session CSRF cookie.
    page = requests.get(server.admin_url("/"))
    assert page.status_code == 200 and 'name="token"' in page.text and 'method="post"' in page.text
    assert "<script" not in page.text
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert "script-src" not in page.headers["Content-Security-Policy"]
    assert "HttpOnly" in page.headers["Set-Cookie"] and "SameSite=Strict" in page.headers["Set-Cookie"]
    assert "Secure" not in page.headers["Set-Cookie"]
    css = requests.get(server.admin_url("/console/console.css"))
    assert css.status_code == 200 and css.headers["Content-Type"].startswith("text/css")
    # The public listener has no path to the console.
    for path in ("/console/console.css", "/console/audit"):
        r = requests.get(server.url(path), headers={"Host": "fitconnect.app"}, allow_redirects=False)
        assert r.status_code == 404 and "Linkwell console" not in r.text and "text/css" not in r.headers.get("Content-Type", "")

    # A token in a query string is refused on the console and the API, and kept out of the log.
    for path in (f"/?token={writer}", f"/api/v1/links?access_token={writer}", f"/console/audit?x={writer}"):
        r = requests.get(server.admin_url(path))
        assert r.status_code == 400 and r.json()["error"]["code"] == "token_in_url", path
    server.wait_for(lambda e: e.get("event") == "admin_request" and e.get("path") == "/console/audit" and e["status"] == 400)
    assert not any(writer in line for line in server.lines)

    # The sign-in form without its CSRF secret, or from another origin: refused.
    s = requests.Session()
    form = s.get(server.admin_url("/"))
    assert s.post(server.admin_url("/console/sign-in"), data={"token": writer}, allow_redirects=False).status_code == 403
    r = s.post(server.admin_url("/console/sign-in"), data={"token": writer, "csrf": csrf_of(form.text)},
               headers={"Origin": "https://evil.example"}, allow_redirects=False)
    assert r.status_code == 403 and "lw_session" not in r.headers.get("Set-Cookie", "")

    # Wrong tokens: 401, then 429 after five from one client (here a client a trusted proxy names).
    elsewhere = {"X-Forwarded-For": "198.51.100.7"}
    statuses = [sign_in(server, "lw_" + "x" * 40, headers=elsewhere)[1].status_code for _ in range(6)]
    assert statuses == [401] * 5 + [429]
    _, r = sign_in(server, writer, headers=elsewhere)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1

    # Signed in with a write token: an HttpOnly, SameSite=Strict session cookie, no secret in the URL.
    browser, r = sign_in(server, writer)
    assert r.status_code == 303 and r.headers["Location"] == "/"
    cookie = r.headers["Set-Cookie"]
    assert "lw_session=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    home = browser.get(server.admin_url("/"))
    assert home.status_code == 200 and "<code>spring</code>" in home.text and "marketing" in home.text
    csrf = csrf_of(home.text)
    toggle = {"site": "fitconnect", "code": "spring", "action": "disable"}
    origin = {"Origin": f"http://{server.admin}"}

    # A form without the CSRF secret, or from another origin, changes nothing.
    assert browser.post(server.admin_url("/console/links/toggle"), data=toggle, headers=origin, allow_redirects=False).status_code == 403
    assert browser.post(server.admin_url("/console/links/toggle"), data={**toggle, "csrf": csrf},
                        headers={"Origin": "https://evil.example"}, allow_redirects=False).status_code == 403
    assert public_status(server, "/spring") == 200
    assert api(server, "GET", "/api/v1/links/fitconnect/spring", token=admin)[2]["status"] == "live"

    # A read token cannot write through the console either.
    viewer, _ = sign_in(server, reader)
    view = viewer.get(server.admin_url("/"))
    assert "read only" in view.text and "Disable" not in view.text
    r = viewer.post(server.admin_url("/console/links/toggle"), data={**toggle, "csrf": csrf_of(view.text)}, headers=origin, allow_redirects=False)
    assert r.status_code == 403 and "cannot change links" in r.text
    assert public_status(server, "/spring") == 200

    # With the secret and from the console itself: disabled, and the public listener answers 404.
    r = browser.post(server.admin_url("/console/links/toggle"), data={**toggle, "csrf": csrf}, headers=origin)
    assert r.status_code == 200 and "Link spring disabled." in r.text
    assert public_status(server, "/spring") == 404

    # The audit log (an admin session): the write and the refusals, with who and from where.
    boss, _ = sign_in(server, admin)
    audit = boss.get(server.admin_url("/console/audit"))
    assert audit.status_code == 200
    assert browser.get(server.admin_url("/console/audit")).status_code == 403  # a write token
    entries = api(server, "GET", "/api/v1/audit", token=admin)[2]["entries"]
    assert [(e["actor"], e["via"], e["action"], e["outcome"]) for e in entries[:4]] == [
        ("marketing", "console", "link.update", "ok"),
        ("dash", "console", "refused", "refused: insufficient_scope (read scope)"),
        ("marketing", "console", "refused", "refused: origin"),
        ("marketing", "console", "refused", "refused: csrf"),
    ]
    assert entries[0]["detail"] == {"disabled": {"before": False, "after": True}, "status": {"before": "live", "after": "disabled"}}
    assert "marketing" in audit.text and "link.update" in audit.text

    # Behind a trusted proxy that says https, the cookies are Secure.
    # (requests keeps Secure cookies off plain http: the pre-session cookie is sent by hand.)
    https = {"X-Forwarded-Proto": "https"}
    form = requests.get(server.admin_url("/"), headers=https)
    assert "Secure" in form.headers["Set-Cookie"]
    pre = form.headers["Set-Cookie"].split(";")[0]
    r = requests.post(server.admin_url("/console/sign-in"), data={"token": admin, "csrf": csrf_of(form.text)}, allow_redirects=False,
                      headers={**https, "Cookie": pre, "Origin": f"https://{server.admin}"})
    assert r.status_code == 303 and "lw_session=" in r.headers["Set-Cookie"] and "; Secure" in r.headers["Set-Cookie"]

    # Revoking the token ends its sessions at once; sign-out ends a session at once.
    cli(config, "tokens", "revoke", "dash")
    assert 'name="token"' in viewer.get(server.admin_url("/")).text
    kept = dict(boss.cookies)
    r = boss.post(server.admin_url("/console/sign-out"), data={"csrf": csrf_of(audit.text)}, headers=origin, allow_redirects=False)
    assert r.status_code == 303 and "Max-Age=0" in r.headers["Set-Cookie"]
    replay = requests.Session()
    replay.cookies.update(kept)
    assert 'name="token"' in replay.get(server.admin_url("/")).text
    assert replay.get(server.admin_url("/console/audit"), allow_redirects=False).status_code == 303
    r = replay.post(server.admin_url("/console/links/toggle"), data={**toggle, "action": "enable", "csrf": csrf}, headers=origin, allow_redirects=False)
    assert r.status_code == 401 and public_status(server, "/spring") == 404


def test_console_counts_are_the_numbers_of_linkwell_stats(config, start_server):
    import json
    import signal
    writer = cli(config, "tokens", "create", "--name", "marketing", "--scope", "read")
    ci = cli(config, "tokens", "create", "--name", "ci", "--scope", "write")
    server = start_server(config)
    assert api(server, "POST", "/api/v1/links", token=ci, body={"code": "spring", "target": "https://fitconnect.app/signup?referralCode=S"})[0] == 201
    # Known clicks on the public listener: 3 from an iPhone, 2 from Android, 1 to a missing link.
    android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
    for _ in range(3):
        assert public_status(server, "/spring") == 200
    for _ in range(2):
        requests.get(server.url("/spring"), headers={"Host": "fitconnect.app", "User-Agent": android}, allow_redirects=False)
    public_status(server, "/nope-missing")
    server.signal(signal.SIGHUP)  # flushes the counts
    server.wait_for(lambda e: e.get("event") == "reloaded")
    report = json.loads(cli(config, "stats", "--json", "--site", "fitconnect"))
    assert report["total"] >= 5

    browser, _ = sign_in(server, writer)
    page = browser.get(server.admin_url("/console/stats?site=fitconnect&range=7"))
    assert page.status_code == 200 and '<svg class="chart"' in page.text and "<title id=\"chart-title\">Clicks per day" in page.text
    # The chart's table alternative: every day of the range, its clicks split by platform, the
    # same as stats --json's days (which list only days with clicks).
    days = {d: [int(n) for n in rest] for d, *rest in re.findall(
        r'<tr><td data-label="Day">([0-9-]+)</td><td data-label="Clicks">(\d+)</td><td data-label="iOS">(\d+)</td>'
        r'<td data-label="Android">(\d+)</td><td data-label="Desktop">(\d+)</td><td data-label="Other">(\d+)</td></tr>', page.text)}
    assert len(days) == 7
    assert {d: c for d, c in days.items() if c[0]} == {
        d["day"]: [d["clicks"]] + [d["platform"][p] for p in ("ios", "android", "desktop", "other")] for d in report["days"]}
    today = [d for d in report["days"]][-1]
    assert today["platform"]["ios"] >= 3 and today["platform"]["android"] == 2
    assert int(re.search(r'id="days-total">(\d+)<', page.text).group(1)) == report["total"]
    assert int(re.search(r'id="days-android">(\d+)<', page.text).group(1)) == report["platform"]["android"]
    # The chart stacks each day's platforms: one rect per platform with clicks, tallest day highest.
    assert page.text.count('class="bar p-android"') == sum(1 for d in report["days"] if d["platform"]["android"])
    # The funnel and the top routes, as stats --json counts them.
    assert int(re.search(r'id="funnel-clicks">(\d+)<', page.text).group(1)) == report["funnel"]["clicks"]
    assert int(re.search(r'id="funnel-app-opens">(\d+)<', page.text).group(1)) == report["funnel"]["appOpens"]
    assert int(re.search(r'id="funnel-first-opens">(\d+)<', page.text).group(1)) == report["funnel"]["firstOpens"]
    top_routes = dict(re.findall(r'<td data-label="Route">([^<]+)</td><td data-label="Clicks">(\d+)</td>', page.text))
    assert {k: int(v) for k, v in top_routes.items()} == {r["route"]: r["clicks"] for r in report["routes"]} and "signup" in top_routes
    platforms = dict(re.findall(r'<td data-label="Platform">([^<]+)</td><td data-label="Clicks">(\d+)</td>', page.text))
    assert {k: int(v) for k, v in platforms.items()} == report["platform"]
    outcomes = dict(re.findall(r'<td data-label="Outcome">([^<]+)</td><td data-label="Clicks">(\d+)</td>', page.text))
    assert {k: int(v) for k, v in outcomes.items()} == report["outcome"]
    # One link's counts: the same as stats --link.
    page = browser.get(server.admin_url("/console/stats?site=fitconnect&range=30&link=spring"))
    one = json.loads(cli(config, "stats", "--json", "--site", "fitconnect", "--link", "spring"))
    assert int(re.search(r'id="days-total">(\d+)<', page.text).group(1)) == one["total"] == 5
    # One route over a custom range: the same as stats --route --since --until.
    day = report["days"][-1]["day"]
    page = browser.get(server.admin_url(f"/console/stats?site=fitconnect&route=signup&since={day}&until={day}"))
    route = json.loads(cli(config, "stats", "--json", "--site", "fitconnect", "--route", "signup", "--since", day, "--until", day))
    assert page.status_code == 200 and '<option value="signup" selected>' in page.text
    assert int(re.search(r'id="days-total">(\d+)<', page.text).group(1)) == route["total"] >= 5
    assert len(re.findall(r'<td data-label="Day">', page.text)) == 1
    assert re.search(rf'id="totals">Site fitconnect, route signup, {day} to {day} \(UTC\): <strong id="total">', page.text)
    text = cli(config, "stats", "--site", "fitconnect", "--since", day, "--until", day)
    split = r"\s+".join(str(report["days"][-1]["platform"][p]) for p in ("ios", "android", "desktop", "other"))
    assert re.search(rf'^{day}\s+{report["days"][-1]["clicks"]}\s+{split}$', text, re.M), text


def test_console_imports_the_takeout_sample_with_its_report(tmp_path, start_server):
    import json
    import shutil
    fdl = ROOT / "tests" / "live" / "fdl"
    config = tmp_path / "links.json5"
    shutil.copy(fdl / "links.json5", config)
    writer = cli(config, "tokens", "create", "--name", "growth", "--scope", "write")
    # What the command line would do with the same file on the same database.
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(config, copy / "links.json5")
    shutil.copy(tmp_path / "linkwell.db", copy / "linkwell.db")
    import subprocess
    from conftest import BINARY
    cli_report = json.loads(subprocess.run([str(BINARY), "links", "import", "--fdl-takeout", str(fdl / "takeout.csv"), "--site", "example", "--json",
                                            "--config", str(copy / "links.json5")], capture_output=True, text=True, timeout=60).stdout)
    server = start_server(config)
    browser, _ = sign_in(server, writer)
    form = browser.get(server.admin_url("/console/import"))
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.text
    origin = {"Origin": f"http://{server.admin}"}
    upload = {"file": ("takeout.csv", (fdl / "takeout.csv").read_bytes(), "text/csv")}
    # Without the CSRF secret: refused, nothing imported.
    r = browser.post(server.admin_url("/console/import"), data={"site": "example"}, files=upload, headers=origin)
    assert r.status_code == 403
    r = browser.post(server.admin_url("/console/import"), data={"site": "example", "archived": "disable", "csrf": csrf_of(form.text)}, files=upload, headers=origin)
    assert r.status_code == 200, r.text
    count = lambda name: int(re.search(rf'id="{name}">(\d+)<', r.text).group(1))
    assert count("imported") == len(cli_report["imported"]) > 0
    assert count("skipped") == len(cli_report["skipped"]) and count("errors") == len(cli_report["errors"])
    for skip in cli_report["skipped"]:
        assert skip["reason"].replace('"', "&quot;").replace("'", "&#39;")[:30] in r.text or skip["reason"][:30] in r.text
    # The links are served at once; a second upload imports nothing new.
    code = cli_report["imported"][0]["code"]
    assert f"<code>{code}</code>" in r.text
    again = browser.post(server.admin_url("/console/import"), data={"site": "example", "csrf": csrf_of(form.text)}, files=upload, headers=origin)
    assert int(re.search(r'id="imported">(\d+)<', again.text).group(1)) == 0
    assert int(re.search(r'id="unchanged">(\d+)<', again.text).group(1)) == len(cli_report["imported"])


def test_a_token_in_a_logged_query_string_is_redacted(tmp_path, start_server):
    import json

    import json5
    cfg = json5.loads((ROOT / "config" / "examples" / "fitconnect.json5").read_text())
    cfg.setdefault("server", {})["logQueryStrings"] = True
    config = tmp_path / "linkwell.json5"
    config.write_text(json.dumps(cfg))
    token = cli(config, "tokens", "create", "--name", "leaky")
    server = start_server(config)
    assert requests.get(server.admin_url(f"/api/v1/links?site=fitconnect&access_token={token}")).status_code == 400
    assert requests.get(server.admin_url("/api/v1/links?site=fitconnect"), headers={"Authorization": f"Bearer {token}"}).status_code == 200
    line = server.wait_for(lambda e: e.get("event") == "admin_request" and e["status"] == 400)
    assert line["path"] == "/api/v1/links?[redacted]"
    server.wait_for(lambda e: e.get("event") == "admin_request" and e.get("path") == "/api/v1/links?site=fitconnect")
    assert not any(token in l for l in server.lines)


def test_console_routes_page_answers_as_linkwell_check(config, start_server):
    import html
    import json
    reader = cli(config, "tokens", "create", "--name", "support", "--scope", "read")
    server = start_server(config)
    browser, _ = sign_in(server, reader)
    assert 'href="/console/routes"' in browser.get(server.admin_url("/")).text

    # A route URL: the route, parameters and each app's component, as check --json says them.
    url = "https://fitconnect.app/signup?referralCode=SPRING"
    check = json.loads(cli(config, "check", "--json", url))
    page = browser.get(server.admin_url("/console/routes"), params={"url": url})
    assert page.status_code == 200 and "<script" not in page.text
    assert re.search(r'id="result" data-status="([a-z_]+)"', page.text).group(1) == check["status"] == "matched"
    assert re.search(r'id="route">([^<]+)<', page.text).group(1) == check["route"]
    params = dict(re.findall(r'<td data-label="Name">([^<]+)</td><td data-label="Value">([^<]*)</td>', page.text))
    assert params == check["parameters"]
    claims = [(p, a, html.unescape(v)) for p, a, v in re.findall(
        r'<td data-label="Platform">([^<]+)</td><td data-label="App">([^<]+)</td><td data-label="Verdict">([^<]+)</td>', page.text)]
    apple = check["apple"][0]
    assert ("iOS", apple["appID"], f"claimed by component #{apple['component']} {apple['rule']}") in claims
    for label, key in (("Android 16", "android"), ("Android 15", "android15")):
        a = check[key][0]
        assert a["handled"] and (label, a["package"], f"handled through component #{a['component']} {a['rule']}") in claims
    # What a browser gets: the public listener's own answer to an iPhone.
    answers = dict(re.findall(r'<td data-label="Browser">([^<]+)</td><td data-label="Answer">([^<]+)</td>', page.text))
    assert answers["iPhone"].split()[0] == str(public_status(server, "/signup?referralCode=SPRING")) == "200"

    # A miss: no route, no app claims it, the browser gets the not-found answer.
    miss = "https://fitconnect.app/workout/abc123"
    check = json.loads(cli(config, "check", "--json", miss))
    page = browser.get(server.admin_url("/console/routes"), params={"url": miss})
    assert re.search(r'id="result" data-status="([a-z_]+)"', page.text).group(1) == check["status"] == "no_route"
    assert 'id="route"' not in page.text
    assert "not claimed (no component matches)" in page.text and "not handled: no component matches" in page.text
    answers = dict(re.findall(r'<td data-label="Browser">([^<]+)</td><td data-label="Answer">([^<]+)</td>', page.text))
    assert answers["iPhone"].split()[0] == str(public_status(server, "/workout/abc123")) == "404"

    # The route table, and the association files byte-equal to what the public listener serves.
    assert re.search(r'<td data-label="Route">signup</td><td data-label="Path"><code>/signup</code>', page.text)
    for name, path in (("aasa", "/.well-known/apple-app-site-association"), ("assetlinks", "/.well-known/assetlinks.json")):
        shown = html.unescape(re.search(rf'<pre id="file-{name}" tabindex="0">(.*?)</pre>', page.text, re.S).group(1))
        served = requests.get(server.url(path), headers={"Host": "fitconnect.app"})
        assert served.status_code == 200 and shown.encode() == served.content
    # The offline doctor checks on what this server serves, and the exact commands for the rest.
    checks = [html.unescape(re.sub(r"<[^>]+>", "", li)) for li in re.findall(r'<li class="(?:pass|warn|fail)">(.*?)</li>', page.text)]
    assert checks and all(c.startswith("PASS ") for c in checks), checks
    for app in check_apps(config):
        assert any(app in c and ("lists" in c or "verifies" in c) for c in checks), (app, checks)
    routes = set(re.findall(r'<td data-label="Route">([^<(]+)</td><td data-label="Path">', page.text))
    claimed = {re.search(r"route '([^']+)' https://fitconnect\.app/\S* opens", c).group(1) for c in checks if " opens " in c}
    assert routes and claimed == routes, (routes, claimed)
    assert f"linkwell doctor https://fitconnect.app --config {config} --site fitconnect --offline" in html.unescape(page.text)


def check_apps(config):
    import json5
    cfg = json5.loads(config.read_text())
    site = cfg["sites"][0]
    return [f'{a["teamID"]}.{a["bundleID"]}' for a in site["ios"]] + [a["package"] for a in site["android"]]


def test_console_sessions_are_stored_hashed_survive_a_restart_and_are_shared(config, start_server):
    """Sessions live in the link database: the cookie works on a second instance on the same
    database and after a restart; the table holds the id's SHA-256, never the id; revoking the
    token with the CLI deletes its sessions at once; sign-out deletes the row."""
    import hashlib
    import sqlite3
    writer = cli(config, "tokens", "create", "--name", "marketing", "--scope", "write")
    reader = cli(config, "tokens", "create", "--name", "dash", "--scope", "read")
    first = start_server(config)
    second = start_server(config)  # another instance on the same database
    browser, r = sign_in(first, writer)
    assert r.status_code == 303
    cookie = browser.cookies["lw_session"]
    db = sqlite3.connect(config.parent / "linkwell.db")
    rows = db.execute("SELECT id_hash, name, scope FROM console_sessions").fetchall()
    assert rows == [(hashlib.sha256(cookie.encode()).hexdigest(), "marketing", "write")]
    assert not any(cookie in str(v) for row in db.execute("SELECT * FROM console_sessions") for v in row)

    def signed_in(server, jar):
        page = requests.get(server.admin_url("/"), cookies=jar, allow_redirects=False)
        return page.status_code == 200 and 'name="token"' not in page.text and "marketing" in page.text

    assert signed_in(second, {"lw_session": cookie})
    # A write through the second instance with the form secret the first one issued.
    page = requests.get(second.admin_url("/console/links/new"), cookies={"lw_session": cookie})
    assert page.status_code == 200 and csrf_of(page.text)
    first.stop()
    restarted = start_server(config)
    assert signed_in(restarted, {"lw_session": cookie})

    # Revocation with the CLI (no server involved) ends the session at once, on every instance.
    cli(config, "tokens", "revoke", "marketing")
    assert db.execute("SELECT COUNT(*) FROM console_sessions WHERE name = 'marketing'").fetchone()[0] == 0
    for server in (second, restarted):
        assert 'name="token"' in requests.get(server.admin_url("/"), cookies={"lw_session": cookie}).text

    # Sign-out deletes the row; the cookie is dead on the other instance too.
    other, _ = sign_in(second, reader)
    dead = other.cookies["lw_session"]
    assert db.execute("SELECT COUNT(*) FROM console_sessions").fetchone()[0] == 1
    page = other.get(second.admin_url("/"))
    r = other.post(second.admin_url("/console/sign-out"), data={"csrf": csrf_of(page.text)},
                   headers={"Origin": f"http://{second.admin}"}, allow_redirects=False)
    assert r.status_code == 303
    assert db.execute("SELECT COUNT(*) FROM console_sessions").fetchone()[0] == 0
    assert 'name="token"' in requests.get(restarted.admin_url("/"), cookies={"lw_session": dead}).text


def test_console_counts_and_sessions_on_postgresql(tmp_path, start_server):
    """Migration 11 on PostgreSQL: two instances share a console session; counts flushed by both
    are in the per-site tables, and the counts page equals `linkwell stats`."""
    import json
    import signal
    from pgserver import PostgresServer
    from test_postgres import make_config
    pg = PostgresServer()
    try:
        pg.psql(f"CREATE DATABASE lw_console OWNER {pg.USER}")
        config = make_config(tmp_path, pg, "lw_console")
        writer = cli(config, "tokens", "create", "--name", "growth", "--scope", "write")
        one, two = start_server(config), start_server(config)
        assert api(one, "POST", "/api/v1/links", token=writer, body={"code": "spring", "target": "https://fitconnect.app/signup?referralCode=S"})[0] == 201
        android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
        for server in (one, two):  # each instance has read the new link (the other learns it within a refresh)
            server.wait_for(lambda e: e.get("event") == "links_refreshed" and e.get("links", 0) >= 1, timeout=10)
        for server, agent, n in ((one, android, 2), (two, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)", 3)):
            for i in range(n):  # a short link (its day's top links) and a route page
                path = "/spring" if i % 2 == 0 else "/signup?referralCode=X"
                requests.get(server.url(path), headers={"Host": "fitconnect.app", "User-Agent": agent}, allow_redirects=False)
            server.signal(signal.SIGHUP)
            server.wait_for(lambda e: e.get("event") == "reloaded")
            assert not [e for e in server.events() if e.get("event", "").startswith("clicks_")], server.events()
        browser, r = sign_in(one, writer)
        assert r.status_code == 303
        page = browser.get(two.admin_url("/console/stats?site=fitconnect&range=7"))  # the session from one, on two
        assert page.status_code == 200 and 'name="token"' not in page.text
        report = json.loads(cli(config, "stats", "--json", "--site", "fitconnect"))
        assert report["total"] == 5 and report["platform"]["android"] == 2 and report["routes"] == [{"site": "fitconnect", "route": "signup", "clicks": 5}]
        assert int(re.search(r'id="days-total">(\d+)<', page.text).group(1)) == 5
        assert int(re.search(r'id="days-ios">(\d+)<', page.text).group(1)) == 3
        # The top links read from each day's top list: spring, with its exact count.
        assert re.search(r'<td data-label="Link">spring \(signup\)</td><td data-label="Clicks">3</td>', page.text), page.text
    finally:
        pg.close()
