"""`linkwell serve` on real ports, checked with Debian's curl."""
import re
import signal
import socket
import subprocess
import textwrap
import time

import pytest

from conftest import ROOT, curl, generate

DEFAULT = ROOT / "config" / "linkwell.json5"
FITCONNECT = ROOT / "config" / "examples" / "fitconnect.json5"

SHOP = """
{{
  server: {{ {server} }},
  sites: [
    {{
      name: "shop", domains: ["shop.example.com"], {default}
      ios: [{{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"] }}],
      routes: [ {routes} ],
    }},
    {{
      name: "blog", domains: ["blog.example.org"],
      ios: [{{ id: "b", teamID: "ZZZZZ12345", bundleID: "org.example.blog" }}],
      routes: [ {{ name: "post", path: "/post/{{slug}}" }} ],
    }},
  ],
}}
"""


def write_config(tmp_path, server="", default="", routes='{ name: "item", path: "/item/{id}" }', name="shop.json5"):
    path = tmp_path / name
    path.write_text(SHOP.format(server=server, default=default, routes=routes))
    return path


def metric(text, name, labels=""):
    for line in text.splitlines():
        if line.startswith(name + labels + " ") or (labels == "" and line.startswith(name + " ")):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def requests_with_path(server, path):
    return [e for e in server.events() if e.get("event") == "request" and e.get("path") == path]


@pytest.mark.parametrize("path,which", [
    ("/.well-known/apple-app-site-association", "aasa"),
    ("/apple-app-site-association", "aasa"),
    ("/.well-known/assetlinks.json", "assetlinks"),
])
def test_association_files(start_server, path, which):
    server = start_server(DEFAULT)
    status, headers, body = curl(server.url(path))
    assert status == 200
    assert body == generate(DEFAULT, which, site="diallodev")
    assert headers["content-type"] == "application/json"
    assert headers["content-length"] == str(len(body))
    assert re.fullmatch(r'"[0-9a-f]{16}"', headers["etag"])
    assert headers["cache-control"] == "public, max-age=300"
    assert "location" not in headers


def test_host_selects_site_file(start_server):
    server = start_server(DEFAULT)
    status, _, body = curl("-H", "Host: fitconnect.app", server.url("/.well-known/assetlinks.json"))
    assert status == 200
    assert body == generate(DEFAULT, "assetlinks", site="fitconnect")


def test_head_and_conditional(start_server):
    server = start_server(DEFAULT)
    _, get_headers, _ = curl(server.url("/.well-known/apple-app-site-association"))
    status, headers, body = curl("-I", server.url("/.well-known/apple-app-site-association"))
    assert status == 200
    assert body.endswith(b"\r\n\r\n") and body.count(b"HTTP/1.1") == 1  # with -I, curl prints the head; no body follows
    assert headers["content-length"] == get_headers["content-length"]
    assert headers["etag"] == get_headers["etag"]
    status, headers, body = curl("-H", f"If-None-Match: {get_headers['etag']}", server.url("/.well-known/apple-app-site-association"))
    assert status == 304
    assert body == b""
    assert headers["etag"] == get_headers["etag"]
    status, _, _ = curl("-H", 'If-None-Match: "other"', server.url("/.well-known/apple-app-site-association"))
    assert status == 200


def test_route_page_404_and_static(start_server):
    server = start_server(DEFAULT)
    status, headers, body = curl(server.url("/post/42"))
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert b"https://diallodev.online/post/42" in body
    status, headers, body = curl(server.url("/no/such/link"))
    assert status == 404
    assert headers["content-type"] == "text/html; charset=utf-8"
    status, headers, body = curl(server.url("/static/linkwell.css"))
    assert status == 200
    assert headers["content-type"] == "text/css; charset=utf-8"
    assert body == (ROOT / "public" / "static" / "linkwell.css").read_bytes()
    status, headers, body = curl(server.url("/robots.txt"))
    assert status == 200 and headers["content-type"] == "text/plain; charset=utf-8"
    # The query string is not logged by default.
    curl(server.url("/post/7?token=secret"))
    logged = server.wait_for(lambda e: e.get("event") == "request" and e.get("path") == "/post/7")
    assert logged["route"] == "post" and logged["status"] == 200 and logged["kind"] == "page"
    assert logged["site"] == "diallodev" and logged["method"] == "GET" and logged["client"] == "127.0.0.1"
    assert "secret" not in "".join(server.lines)


def test_admin_endpoints(start_server):
    server = start_server(DEFAULT)
    status, _, body = curl(server.admin_url("/healthz"))
    assert status == 200 and body.strip() == b"ok"
    status, _, _ = curl(server.admin_url("/readyz"))
    assert status == 200
    status, headers, before = curl(server.admin_url("/metrics"))
    assert status == 200 and headers["content-type"].startswith("text/plain")
    label = '{site="diallodev",kind="aasa",status="200"}'
    n = metric(before.decode(), "linkwell_requests_total", label)
    for _ in range(3):
        curl(server.url("/.well-known/apple-app-site-association"))
    _, _, after = curl(server.admin_url("/metrics"))
    text = after.decode()
    assert metric(text, "linkwell_requests_total", label) == n + 3
    assert metric(text, "linkwell_request_duration_seconds_count") >= 3
    assert 'linkwell_build_info{version="' in text
    assert metric(text, "linkwell_config_last_reload_success_timestamp_seconds") > 1_600_000_000


def test_ipv6_listen(start_server):
    server = start_server(DEFAULT, listen=("[::1]:0",))
    assert server.addresses[0].startswith("[::1]:")
    status, _, body = curl("-g", server.url("/.well-known/assetlinks.json"))
    assert status == 200
    assert body == generate(DEFAULT, "assetlinks", site="diallodev")
    curl("-g", server.url("/post/ipv6"))
    assert server.wait_for(lambda e: e.get("path") == "/post/ipv6")["client"] == "::1"


def test_proxy_trusted(start_server):
    server = start_server(DEFAULT)
    curl("-H", "X-Forwarded-For: 203.0.113.9, 127.0.0.1", "-H", "X-Forwarded-Host: fitconnect.app", server.url("/signup?referralCode=x"))
    e = server.wait_for(lambda e: e.get("path") == "/signup")
    assert e["client"] == "203.0.113.9"
    assert e["site"] == "fitconnect"
    curl("-H", 'Forwarded: for="[2001:db8::5]:1234";host=diallodev.online', "-H", "X-Forwarded-For: 198.51.100.1", server.url("/user/ada"))
    assert server.wait_for(lambda e: e.get("path") == "/user/ada")["client"] == "2001:db8::5"


def test_proxy_untrusted(start_server, tmp_path):
    config = write_config(tmp_path, server="trustedProxies: []", default="default: true,")
    server = start_server(config)
    status, _, _ = curl("-H", "X-Forwarded-For: 203.0.113.9", "-H", "X-Forwarded-Host: blog.example.org", server.url("/item/1"))
    assert status == 200  # the shop (default), not the blog
    e = server.wait_for(lambda e: e.get("path") == "/item/1")
    assert e["client"] == "127.0.0.1" and e["site"] == "shop"


def test_sighup_reload_good_and_bad(start_server, tmp_path):
    config = write_config(tmp_path, default="default: true,")
    server = start_server(config)
    assert curl(server.url("/promo/1"))[0] == 404
    write_config(tmp_path, default="default: true,",
                 routes='{ name: "item", path: "/item/{id}" }, { name: "promo", path: "/promo/{code}" }')
    server.signal(signal.SIGHUP)
    server.wait_for(lambda e: e.get("event") == "reloaded")
    assert curl(server.url("/promo/1"))[0] == 200
    config.write_text("{ sites: [ { name: broken ")
    server.signal(signal.SIGHUP)
    failed = server.wait_for(lambda e: e.get("event") == "reload_failed")
    assert failed["errors"]
    assert curl(server.url("/promo/1"))[0] == 200
    assert curl(server.url("/.well-known/apple-app-site-association"))[0] == 200
    _, _, text = curl(server.admin_url("/metrics"))
    assert metric(text.decode(), "linkwell_reloads_total", '{result="failure"}') == 1
    assert metric(text.decode(), "linkwell_reloads_total", '{result="success"}') == 1


def test_watch_reload(start_server, tmp_path):
    config = write_config(tmp_path, default="default: true,")
    server = start_server(config, extra=("--watch",))
    assert curl(server.url("/promo/1"))[0] == 404
    time.sleep(1.1)
    write_config(tmp_path, default="default: true,",
                 routes='{ name: "item", path: "/item/{id}" }, { name: "promo", path: "/promo/{code}" }')
    server.wait_for(lambda e: e.get("event") == "reloaded" and e.get("reason") == "watch", timeout=10)
    assert curl(server.url("/promo/1"))[0] == 200


def test_sigterm_drains_slow_request(start_server, tmp_path):
    public = tmp_path / "public"
    public.mkdir()
    big = bytes(range(256)) * 4096 * 2  # 2 MiB
    (public / "big.bin").write_bytes(big)
    config = write_config(tmp_path, server='publicDir: "public"', default="default: true,")
    server = start_server(config)
    out = tmp_path / "big.out"
    slow = subprocess.Popen(["curl", "-s", "--limit-rate", "1M", "-o", str(out), "-w", "%{http_code}", server.url("/big.bin")],
                            stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        server.signal(signal.SIGTERM)
        code = slow.communicate(timeout=20)[0]
        assert code == "200"
        assert out.read_bytes() == big
        assert server.proc.wait(timeout=15) == 0
        stopped = server.wait_for(lambda e: e.get("event") == "stopped")
        assert stopped["drained"] is True
    finally:
        if slow.poll() is None:
            slow.kill()
            slow.wait()


def test_405_with_allow(start_server):
    server = start_server(DEFAULT)
    status, headers, _ = curl("-X", "POST", "-d", "x=1", server.url("/post/1"))
    assert status == 405
    assert headers["allow"] == "GET, HEAD"


@pytest.mark.parametrize("args,expected", [
    (["/" + "a" * 20000], (414, 431)),
    (["/post/1", "-H", "X-Big: " + "b" * 20000], (431,)),
])
def test_oversized_requests(start_server, args, expected):
    server = start_server(DEFAULT)
    path, *rest = args
    status, _, _ = curl(*rest, server.url(path))
    assert status in expected
    assert curl(server.url("/.well-known/assetlinks.json"))[0] == 200


def test_421_unknown_host(start_server, tmp_path):
    server = start_server(write_config(tmp_path))
    status, _, body = curl("-H", "Host: attacker.example", server.url("/.well-known/apple-app-site-association"))
    assert status == 421
    assert b"attacker" not in body
    assert curl("-H", "Host: blog.example.org", server.url("/post/x"))[0] == 200


@pytest.mark.parametrize("path", ["/../etc/passwd", "/static/../robots.txt", "/%2e%2e/etc/passwd", "/static/%2E%2E/%2e%2e/etc/passwd"])
def test_dot_segments(start_server, path):
    """Browsers remove dot segments before sending; nginx refuses those above the root (400)."""
    server = start_server(DEFAULT)
    status, _, body = curl(server.url(path))
    assert status == 400
    assert b"root:" not in body


def test_invalid_config_exits_before_listening(tmp_path):
    bad = tmp_path / "bad.json5"
    bad.write_text('{ sites: [ { domains: ["x.example"], routes: [ { name: "a", path: "/a/{id" } ] } ] }')
    result = subprocess.run([str(ROOT / ".build/debug/linkwell"), "serve", "--config", str(bad), "--listen", "127.0.0.1:0"],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert "Error:" in result.stderr
    assert "listening" not in result.stdout
