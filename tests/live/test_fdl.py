"""Firebase Dynamic Links compatibility end to end: the Takeout importer on sample files (every
column, archived links, bad rows, codes colliding with routes, re-import, dry run), Linkwell's own
export/import, `validate` on stored codes after a config change, imported links served with their
overrides, the `/l/` prefix, legacy long links for every parameter and hostile values, `d=1`, and
Chromium on the short-link and long-link pages (screenshots like test_landing's)."""
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import ROOT, curl

BIN = ROOT / ".build" / "debug" / "linkwell"
FDL = Path(__file__).resolve().parent / "fdl"
HOST = "links.example.com"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", cfg)
    return cfg


def run(config, *args):
    return subprocess.run([str(BIN), *args, "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=120)


def takeout(config, *extra, file=FDL / "takeout.csv"):
    return run(config, "links", "import", "--fdl-takeout", str(file), "--site", "example", *extra)


def report(config, *extra, file=FDL / "takeout.csv"):
    r = takeout(config, *extra, "--json", file=file)
    return r.returncode, json.loads(r.stdout)


def codes(rows):
    return sorted(r["code"] for r in rows)


VALID = ["ann", "blog1", "fast", "old1", "post42"]


def test_takeout_report_every_row_accounted_for(config):
    r = takeout(config)
    assert r.returncode == 1, r.stderr  # there are bad rows
    out = r.stdout
    assert "13 row(s)" in out
    assert "  imported:  5 (1 archived in Firebase, imported disabled" in out
    assert "  skipped:   2" in out and "  errors:    6" in out
    assert "Open in the app — the target matches a route (4):" in out
    assert "  route 'post': 3 link(s)" in out and "  route 'profile': 1 link(s)" in out
    assert "  row 5: https://links.example.com/blog1 → https://www.example.com/blog/1" in out
    assert "row 7, code 'welcome': '/welcome' is already route 'welcome' of site 'example'" in out
    assert "row 8, code 'elsewhere': the target host 'evil.example' is not a domain of site 'example'" in out
    err = r.stderr
    for line in [
        "row 9 (line 10), column 'efr': 'yes' is not 1 or 0",
        "row 10 (line 11), column 'Short link': the host 'other.example.com' is not a domain of site 'example'",
        "row 11 (line 12), column 'Creation timestamp': 'next tuesday' is not a time",
        "row 12 (line 13), column 'isi': 'abc' is not a numeric App Store ID",
        "row 13 (line 14): the row has 27 fields, the header 29",
        "row 14 (line 15), column 'afl': 'javascript:alert(1)' is not an http(s) URL",
    ]:
        assert line in err, (line, err)


def test_takeout_json_report_and_every_column_stored(config):
    rc, rep = report(config)
    assert rc == 1
    assert codes(rep["imported"]) == VALID
    opens = {r["code"]: r["route"] for r in rep["imported"]}
    assert opens == {"ann": "profile", "blog1": None, "fast": "post", "old1": "post", "post42": "post"}
    assert [s["code"] for s in rep["skipped"]] == ["welcome", "elsewhere"]
    assert [(e["row"], e["column"]) for e in rep["errors"]] == [
        (9, "efr"), (10, "Short link"), (11, "Creation timestamp"), (12, "isi"), (13, None), (14, "afl")]
    assert all(e["fix"] for e in rep["errors"])

    show = json.loads(run(config, "links", "show", "post42", "--json").stdout)
    assert show["target"] == "https://www.example.com/post/42" and show["route"] == "post"
    assert show["previewTitle"] == "Post 42, the sequel"
    assert show["previewDescription"] == 'A "quoted" description\r\non two lines'  # embedded CRLF and quotes
    assert show["previewImage"] == "https://cdn.example.net/42.png"
    assert show["createdAt"] == "2021-03-04T05:06:07Z"
    assert show["fdl"] == {"apn": "com.example.app", "amv": "12", "ibi": "com.example.app", "ius": "example", "isi": "123456789",
                           "imv": "1.2", "utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "spring", "utm_term": "shoes",
                           "utm_content": "hero", "at": "aff1", "ct": "camp1", "mt": "8", "pt": "prov1", "linkName": "Spring newsletter",
                           "archived": False}
    ann = json.loads(run(config, "links", "show", "ann", "--json").stdout)
    assert (ann["iosFallback"], ann["androidFallback"], ann["desktopFallback"]) == (
        "https://www.example.com/ios-help", "https://www.example.com/android-help", "https://www.example.com/desktop")
    assert ann["fdl"]["ipfl"] == "https://www.example.com/ipad-help" and ann["fdl"]["ipbi"] == "com.example.ipad"
    assert ann["createdAt"] == "2021-03-04T05:06:07Z"  # Unix seconds
    assert json.loads(run(config, "links", "show", "fast", "--json").stdout)["forcedRedirect"] is True
    old = json.loads(run(config, "links", "show", "old1", "--json").stdout)
    assert old["status"] == "disabled" and old["fdl"]["archived"] is True


def test_reimport_is_idempotent_and_dry_run_writes_nothing(config):
    db = config.parent / "linkwell.db"
    rc, dry = report(config, "--dry-run")
    assert rc == 1 and codes(dry["imported"]) == VALID and dry["dryRun"] is True
    assert json.loads(run(config, "links", "list", "--json").stdout) == []  # nothing written
    text = takeout(config, "--dry-run").stdout
    assert "— nothing written" in text and "would be imported:  5" in text

    report(config)
    with sqlite3.connect(db) as con:
        before = con.execute("SELECT * FROM links ORDER BY code").fetchall()
    rc, again = report(config)
    assert codes(again["unchanged"]) == VALID and again["imported"] == [] and again["updated"] == []
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT * FROM links ORDER BY code").fetchall() == before

    # A changed row updates that link only.
    changed = config.parent / "changed.csv"
    changed.write_bytes((FDL / "takeout.csv").read_bytes().replace(b",Blog,", b",Blog (new title),"))
    rc, upd = report(config, file=changed)
    assert codes(upd["updated"]) == ["blog1"] and len(upd["unchanged"]) == 4
    assert json.loads(run(config, "links", "show", "blog1", "--json").stdout)["previewTitle"] == "Blog (new title)"


@pytest.mark.parametrize("policy, status, skipped", [("disable", "disabled", False), ("serve", "live", False), ("skip", None, True)])
def test_archived_policy(config, policy, status, skipped):
    rc, rep = report(config, "--archived", policy)
    assert ("old1" in [s["code"] for s in rep["skipped"]]) == skipped
    shown = run(config, "links", "show", "old1", "--json")
    if status is None:
        assert shown.returncode == 1
    else:
        assert json.loads(shown.stdout)["status"] == status


def test_takeout_needs_its_columns_and_valid_csv(config, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("name,url\r\nx,y\r\n")
    r = takeout(config, file=bad)
    assert r.returncode == 1 and "the header has no 'Short link' column" in r.stderr
    bad.write_text('Short link,link\r\n"https://links.example.com/a,https://links.example.com/post/1\r\n')
    r = takeout(config, file=bad)
    assert r.returncode == 1 and "is not valid CSV at line 2, column 1" in r.stderr and "never closed" in r.stderr


def test_export_import_round_trip(config, tmp_path):
    takeout(config)
    for fmt in ("csv", "json"):
        exported = run(config, "links", "export", "--format", fmt)
        assert exported.returncode == 0, exported.stderr
        file = tmp_path / f"links.{fmt}"
        file.write_text(exported.stdout)
        other = tmp_path / fmt / "links.json5"
        other.parent.mkdir()
        shutil.copy(config, other)
        r = run(other, "links", "import", str(file))
        assert r.returncode == 0, r.stderr
        assert "imported:  5" in r.stdout
        assert run(other, "links", "export", "--format", fmt).stdout == exported.stdout
        assert "unchanged: 5" in run(other, "links", "import", str(file)).stdout
    out = tmp_path / "out.json"
    assert run(config, "links", "export", "--output", str(out)).returncode == 0
    assert len(json.loads(out.read_text())) == 5


def test_validate_reports_stored_codes_a_config_change_shadows(config):
    takeout(config)
    assert run(config, "validate").returncode == 0
    text = config.read_text().replace('{ name: "welcome", path: "/welcome" },', '{ name: "welcome", path: "/welcome" },\n        { name: "blog", path: "/blog1" },')
    config.write_text(text)
    r = run(config, "validate")
    assert r.returncode == 1
    assert "stored short link 'blog1' (https://links.example.com/blog1) no longer answers: '/blog1' is already route 'blog' of site 'example'" in r.stderr
    assert "linkwell links delete blog1 --site example" in r.stderr


def test_prefix_config_and_validate(config, start_server):
    text = config.read_text().replace('shortLinks: { allowedHosts: ["www.example.com"] }',
                                      'shortLinks: { prefix: "/l/", allowedHosts: ["www.example.com"] }')
    config.write_text(text)
    prefixed = config.parent / "prefixed.csv"
    prefixed.write_bytes((FDL / "takeout.csv").read_bytes().replace(b"\nhttps://links.example.com/", b"\nhttps://links.example.com/l/"))
    rc, rep = report(config, file=prefixed)
    # Under the prefix `/l/welcome` no longer collides with the route `/welcome`.
    assert "welcome" in codes(rep["imported"])
    assert json.loads(run(config, "links", "show", "welcome", "--json").stdout)["url"] == "https://links.example.com/l/welcome"
    server = start_server(config)
    assert curl("-H", f"Host: {HOST}", "-A", SLACK, server.url("/l/welcome"))[0] == 200
    assert curl("-H", f"Host: {HOST}", "-A", SLACK, server.url("/welcome"))[0] == 200  # the route itself
    assert curl("-H", f"Host: {HOST}", "-A", SLACK, server.url("/ann"))[0] == 404
    assert curl("-H", f"Host: {HOST}", "-A", SLACK, server.url("/l/ann"))[0] == 200
    status, _, body = curl("-H", f"Host: {HOST}", "-A", SLACK, server.url("/l/?link=" + quote("https://links.example.com/post/3", safe="") + "&st=Three"))
    assert status == 200 and b'content="Three"' in body

    bad = config.read_text().replace('prefix: "/l/"', 'prefix: "l"')
    config.write_text(bad)
    r = run(config, "validate")
    assert r.returncode == 1 and "short-link prefix 'l' does not start and end with '/'" in r.stderr


def serve_imported(config, start_server):
    takeout(config, "--archived", "disable")
    return start_server(config)


def get(server, path, ua):
    return curl("-H", f"Host: {HOST}", "-A", ua, server.url(path))


def test_imported_links_serve_with_their_overrides(config, start_server):
    server = serve_imported(config, start_server)
    status, _, body = get(server, "/post42", SLACK)
    assert status == 200
    for tag in (b'<meta property="og:title" content="Post 42, the sequel">', b'<meta property="og:image" content="https://cdn.example.net/42.png">',
                b'<meta name="twitter:title" content="Post 42, the sequel">', b"<title>Post 42, the sequel</title>",
                b'<link rel="canonical" href="https://links.example.com/post42">',
                b'<meta property="og:url" content="https://links.example.com/post42">'):
        assert tag in body, tag
    _, _, desktop = get(server, "/post42", DESKTOP)
    assert b"referrer=utm_source%3Dnewsletter%26utm_medium%3Demail%26utm_campaign%3Dspring%26utm_term%3Dshoes%26utm_content%3Dhero%26linkwell_link" in desktop
    assert b"https://apps.apple.com/app/id123456789?pt=prov1&amp;ct=camp1&amp;mt=8&amp;at=aff1" in desktop
    # ann: per-platform fallbacks on the route's page.
    _, _, ios = get(server, "/ann", IPHONE)
    assert b'href="https://www.example.com/ios-help"' in ios and b'id="app-store"' not in ios
    _, _, ipad = get(server, "/ann", IPAD)
    assert b'href="https://www.example.com/ipad-help"' in ipad
    _, _, android = get(server, "/ann", ANDROID)
    assert b"S.browser_fallback_url=https%3A%2F%2Fwww.example.com%2Fandroid-help;end" in android
    _, _, desk = get(server, "/ann", DESKTOP)
    assert b'href="https://www.example.com/desktop"' in desk
    # fast: efr=1, straight to ifl on iOS, to the target elsewhere; crawlers still get the page.
    status, headers, _ = get(server, "/fast", IPHONE)
    assert status == 302 and headers["location"] == "https://www.example.com/ios-fast"
    status, headers, _ = get(server, "/fast", ANDROID)
    assert status == 302 and headers["location"] == "https://links.example.com/post/7"
    assert get(server, "/fast", SLACK)[0] == 200
    # Archived → disabled → not found; enabling serves it.
    assert get(server, "/old1", IPHONE)[0] == 404
    assert run(config, "links", "enable", "old1").returncode == 0
    # Web-page target.
    status, headers, _ = get(server, "/blog1", IPHONE)
    assert status == 302 and headers["location"] == "https://www.example.com/blog/1"


def long_link(**params):
    return "/?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())


DEEP = "https://links.example.com/post/42"


# Every long-link parameter: (parameters besides link, user agent, what the answer holds).
@pytest.mark.parametrize("params, ua, status, expect", [
    ({}, SLACK, 200, b'<meta property="og:title" content="Post 42">'),  # link: the route's page
    ({"link": "https://www.example.com/post/42"}, SLACK, 200, b'<link rel="canonical" href="https://links.example.com/post/42">'),
    ({"st": "Social title"}, SLACK, 200, b'<meta property="og:title" content="Social title">'),
    ({"sd": "Social description"}, SLACK, 200, b'<meta property="og:description" content="Social description">'),
    ({"si": "https://www.example.com/s.png"}, SLACK, 200, b'<meta property="og:image" content="https://www.example.com/s.png">'),
    ({"ifl": "https://www.example.com/i"}, IPHONE, 200, b'href="https://www.example.com/i"'),
    ({"ipfl": "https://www.example.com/ip"}, IPAD, 200, b'href="https://www.example.com/ip"'),
    ({"afl": "https://www.example.com/a"}, ANDROID, 200, b"S.browser_fallback_url=https%3A%2F%2Fwww.example.com%2Fa;end"),
    ({"ofl": "https://www.example.com/o"}, DESKTOP, 200, b'href="https://www.example.com/o"'),
    ({"efr": "1"}, IPHONE, 302, "https://links.example.com/post/42"),
    ({"efr": "1", "ifl": "https://www.example.com/i"}, IPHONE, 302, "https://www.example.com/i"),
    ({"efr": "0"}, IPHONE, 200, b'id="open-in-app"'),
    ({"utm_source": "s1", "utm_medium": "m1", "utm_campaign": "c1", "utm_term": "t1", "utm_content": "x1"}, DESKTOP, 200,
     b"referrer=utm_source%3Ds1%26utm_medium%3Dm1%26utm_campaign%3Dc1%26utm_term%3Dt1%26utm_content%3Dx1%26linkwell_link"),
    ({"at": "a1", "ct": "c1", "mt": "8", "pt": "p1"}, DESKTOP, 200, b"https://apps.apple.com/app/id123456789?pt=p1&amp;ct=c1&amp;mt=8&amp;at=a1"),
    ({"apn": "com.example.app", "amv": "12", "ibi": "com.example.app", "ius": "example", "ipbi": "com.example.ipad", "isi": "123456789", "imv": "1.0"},
     IPHONE, 200, b'id="open-in-app" href="example://post/42"'),
])
def test_long_link_parameters(config, start_server, params, ua, status, expect):
    server = start_server(config)
    args = {"link": DEEP, **params}
    got, headers, body = get(server, long_link(**args), ua)
    assert got == status, body[:300]
    if status == 302:
        assert headers["location"] == expect
    else:
        assert expect in body
    # d=1 lists every parameter given, with what Linkwell does with it.
    _, _, explained = get(server, long_link(**args, d="1"), ua)
    for name in args:
        assert f'id="param-{name}"'.encode() in explained, name


@pytest.mark.parametrize("query, parameter, message", [
    (long_link(link="https://evil.example/login"), "link", b"leads to the host &#39;evil.example&#39;, which is neither a domain"),
    (long_link(link=DEEP, afl="https://evil.example/a"), "afl", b"evil.example"),
    (long_link(link=DEEP, ifl="https://links.example.com.evil.example/"), "ifl", b"links.example.com.evil.example"),
    (long_link(link=DEEP, ofl="https://links.example.com@evil.example/"), "ofl", b"evil.example"),
    (long_link(link=DEEP, ipfl="//evil.example/"), "ipfl", b"is not an http(s) URL"),
    (long_link(link="javascript:alert(document.domain)"), "link", b"is not an http(s) URL"),
    (long_link(link=DEEP, afl="javascript:alert(1)"), "afl", b"is not an http(s) URL"),
    (long_link(link=DEEP, ifl="data:text/html,<script>alert(1)</script>"), "ifl", b"is not an http(s) URL"),
    (long_link(link=DEEP + "\r\nSet-Cookie: a=b"), "link", b"control character U+000D"),
    (long_link(link=DEEP, ofl="https://www.example.com/\nx"), "ofl", b"control character U+000A"),
    (long_link(link=DEEP + "?" + "a" * 4000), "link", b"more than 2048"),
    (long_link(link=DEEP, efr="yes"), "efr", b"is not 1 or 0"),
], ids=["other-host", "afl-other-host", "ifl-suffix-trick", "ofl-userinfo-trick", "ipfl-scheme-relative", "javascript-link",
        "javascript-afl", "data-ifl", "crlf-link", "lf-ofl", "oversized", "bad-efr"])
def test_hostile_long_links_get_a_400_page_that_says_why(config, start_server, query, parameter, message):
    server = start_server(config)
    for ua in (IPHONE, SLACK):
        status, headers, body = get(server, query, ua)
        assert status == 400 and "location" not in headers
        assert headers["content-type"].startswith("text/html")
        assert f'<code id="parameter">{parameter}</code>'.encode() in body
        assert message in body, body
        assert b"For the site's owner:" in body
        assert b"<script" not in body


def test_long_link_xss_in_texts_is_escaped(config, start_server):
    server = start_server(config)
    q = long_link(link=DEEP, st="<script>alert(1)</script>", sd='"><img src=x onerror=alert(1)>')
    for extra in ("", "&d=1"):
        status, _, body = get(server, q + extra, SLACK)
        assert status == 200
        assert b"<script>alert" not in body and b"<img src=x" not in body
        assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in body
    status, _, body = get(server, long_link(link=DEEP, afl="https://evil.example/<script>"), SLACK)
    assert status == 400 and b"<script>" not in body


def test_debug_page_explains_each_visitor(config, start_server):
    server = start_server(config)
    status, headers, body = get(server, long_link(link="https://www.example.com/post/7", ifl="https://www.example.com/i", efr="1", d="1", xyz="1"), IPHONE)
    assert status == 200 and "location" not in headers
    assert b'<strong id="route">post</strong>' in body
    assert b"forced redirect (efr=1): the link&#39;s ios fallback (ifl)" in body
    assert b'<tr id="visitor-crawler">' in body and b"never a redirect" in body
    assert b"Ignored (not FDL parameters): <code>xyz</code>" in body


# --- Chromium: the pages as a browser shows them -------------------------------------------

SHOTS = [
    # (screenshot stem, path, look)
    ("short-link-iphone", "/post42", "iphone"),
    ("short-link-android", "/ann", "android"),
    ("long-link-desktop", long_link(link=DEEP, st="Post 42 — shared from the newsletter", ofl="https://www.example.com/post/42"), "desktop"),
    ("long-link-debug", long_link(link=DEEP, ifl="https://www.example.com/i", d="1"), "desktop"),
    ("long-link-refused", long_link(link="https://evil.example/login"), "iphone"),
]


@pytest.mark.parametrize("stem, path, look", SHOTS)
def test_short_and_long_link_pages_in_chromium(config, start_server, tmp_path, stem, path, look):
    from selenium.webdriver.common.by import By
    from test_landing import LOOKS, make_driver, visit
    server = serve_imported(config, start_server)
    driver = make_driver(look)
    try:
        visit(driver, server, look, HOST, path)
        # The refused page's own 400 is logged as a failed load; anything else (CSP, stylesheet) is an error.
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]
                  and not e["message"].startswith(server.url(path) + " - Failed to load resource: the server responded with a status of 400")]
        assert errors == [], errors  # no CSP violation, no failed stylesheet
        if stem == "short-link-iphone":
            assert driver.title == "Post 42, the sequel"
            assert driver.find_element(By.ID, "open-in-app").get_attribute("href") == "example://post/42"
            store = driver.find_element(By.ID, "app-store").get_attribute("href")
            assert store.startswith("https://apps.apple.com/app/id123456789?pt=prov1")
            assert driver.find_element(By.CSS_SELECTOR, 'meta[property="og:image"]').get_attribute("content") == "https://cdn.example.net/42.png"
        elif stem == "short-link-android":
            assert "browser_fallback_url=https%3A%2F%2Fwww.example.com%2Fandroid-help" in driver.find_element(By.ID, "open-in-app").get_attribute("href")
            assert [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a.web")][0] == "https://www.example.com/android-help"
        elif stem == "long-link-desktop":
            assert driver.title == "Post 42 — shared from the newsletter"
            assert "https://www.example.com/post/42" in [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a.web")]
            assert driver.find_element(By.CSS_SELECTOR, "svg, img.qr, .qr") is not None
        elif stem == "long-link-debug":
            assert driver.find_element(By.ID, "route").text == "post"
            assert "https://www.example.com/i" in driver.find_element(By.ID, "visitor-ios").text
        else:
            assert driver.find_element(By.ID, "parameter").text == "link"
            assert "evil.example" in driver.find_element(By.ID, "reason").text
        # The shipped stylesheet applied (the page is laid out, not raw HTML).
        assert driver.execute_script("return getComputedStyle(document.body).margin") is not None
        shot = tmp_path / f"{stem}.png"
        driver.save_screenshot(str(shot))
        from PIL import Image
        with Image.open(shot) as im:
            assert im.width == LOOKS[look]["width"]
        if os.environ.get("LINKWELL_UPDATE_SCREENSHOTS") == "1":
            dest = ROOT / "docs" / "screenshots"
            with Image.open(shot) as im:
                im.convert("P", palette=Image.Palette.ADAPTIVE, colors=96).save(dest / shot.name, optimize=True)
    finally:
        driver.quit()
