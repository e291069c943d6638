"""`GET /.well-known/linkwell/resolve?link=…`: the JSON an app gets for a link it was opened with.

On the FDL sample site with its Takeout imported: a stored short link (with its campaign fields),
a route link, a long link, a custom-scheme link; 404 for an unknown, a disabled, an expired code
and an excluded path (the page's rules); ETag and Cache-Control; and a burst from one address past
the limit is refused with 429 and Retry-After.
"""
import http.client
import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import BINARY, ROOT

FDL = Path(__file__).parent / "fdl"
HOST = "links.example.com"


@pytest.fixture
def server(tmp_path, start_server):
    config = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", config)

    def cli(*args, ok=(0,)):
        r = subprocess.run([str(BINARY), *args, "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode in ok, r.stderr
    # (The sample Takeout has broken rows on purpose: exit 1, the valid rows imported.)
    cli("links", "import", "--fdl-takeout", str(FDL / "takeout.csv"), "--site", "example", ok=(0, 1))
    cli("links", "add", "--target", f"https://{HOST}/post/5", "--code", "gone", "--expires", "2021-01-01T00:00:00Z")
    cli("links", "add", "--target", f"https://{HOST}/post/6", "--code", "off")
    cli("links", "disable", "off")
    return start_server(config)


def get(server, link, headers=None):
    host, port = server.addresses[0].rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    c.request("GET", "/.well-known/linkwell/resolve" + ("" if link is None else "?link=" + quote(link, safe="")),
              headers={"Host": HOST, **(headers or {})})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def test_links_resolve_to_their_route_and_campaign(server):
    cases = {
        # A stored short link (imported from FDL), with its campaign fields.
        f"https://{HOST}/post42": {
            "url": "https://www.example.com/post/42", "site": "example", "route": "post", "parameters": {"postId": "42"},
            "utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "spring", "utm_term": "shoes", "utm_content": "hero",
            "pt": "prov1", "ct": "camp1", "mt": "8", "at": "aff1"},
        # The same with a trailing slash (which the association files claim too).
        f"https://{HOST}/post42/": None,
        # A route link, offline in the apps, answered here too.
        f"https://{HOST}/user/ann?utm_source=x": {
            "url": f"https://{HOST}/user/ann?utm_source=x", "site": "example", "route": "profile", "parameters": {"userId": "ann"}},
        # A long link.
        f"https://{HOST}/?link=https%3A%2F%2F{HOST}%2Fpost%2F7&utm_source=tw&at=aff9": {
            "url": f"https://{HOST}/post/7", "site": "example", "route": "post", "parameters": {"postId": "7"},
            "utm_source": "tw", "at": "aff9"},
        # A custom-scheme link.
        "example://post/9": {"url": "example://post/9", "site": "example", "route": "post", "parameters": {"postId": "9"}},
    }
    for link, expected in cases.items():
        status, headers, body = get(server, link)
        assert status == 200, (link, status, body)
        assert headers["content-type"] == "application/json"
        assert headers["cache-control"] == "public, max-age=60"
        assert "set-cookie" not in headers
        got = json.loads(body)
        if expected is None:
            expected = json.loads(get(server, link[:-1])[2])
        assert got == expected, link
    # A short link whose target is a web page: no route, the app opens it in the browser.
    status, _, body = get(server, f"https://{HOST}/blog1")
    if status == 200:
        assert json.loads(body)["route"] is None


def test_unknown_disabled_expired_and_excluded_are_404(server):
    for link in [f"https://{HOST}/nope", f"https://{HOST}/off", f"https://{HOST}/gone", f"https://{HOST}/post/draft",
                 "https://other.example.org/post42", "example://nowhere/1/2", "not a link"]:
        status, headers, body = get(server, link)
        assert status == 404, (link, status)
        assert json.loads(body)["error"] == "not_found"
        # The page says the same.
    for path in ["/nope", "/off", "/gone"]:
        c = http.client.HTTPConnection(*server.addresses[0].rsplit(":", 1), timeout=10)
        c.request("GET", path, headers={"Host": HOST})
        assert c.getresponse().status == 404, path
    status, _, body = get(server, None)
    assert status == 400 and json.loads(body)["error"] == "missing_link"


def test_etag_and_rate_limit(server):
    status, headers, body = get(server, f"https://{HOST}/post42")
    etag = headers["etag"]
    status, headers, body = get(server, f"https://{HOST}/post42", {"If-None-Match": etag})
    assert status == 304 and body == b""
    # The answer does not depend on who asks.
    assert get(server, f"https://{HOST}/post42", {"User-Agent": "other", "Accept-Language": "fr"})[2] == \
        get(server, f"https://{HOST}/post42")[2]
    # A burst from one address: 120 a minute, then 429 with Retry-After (a new minute may start
    # during the burst, so allow one reset).
    host, port = server.addresses[0].rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    statuses = []
    retry = None
    for _ in range(300):
        c.request("GET", "/.well-known/linkwell/resolve?link=" + quote(f"https://{HOST}/post42", safe=""), headers={"Host": HOST})
        r = c.getresponse()
        r.read()
        statuses.append(r.status)
        if r.status == 429:
            retry = r.getheader("Retry-After")
    c.close()
    assert statuses.count(429) >= 300 - 2 * 120, statuses.count(429)
    assert retry is not None and 1 <= int(retry) <= 60
