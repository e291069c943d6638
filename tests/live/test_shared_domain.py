"""A domain shared with the team's website, end to end: real nginx and real Caddy (`tls internal`)
generated with `--website-upstream`, a small Python website behind them, Linkwell with an imported
Firebase Takeout. Every route, every imported short link (at the root and under a prefix), a code
created through the API after the configs were generated and the long links reach Linkwell; the
website's pages, its other methods and a real miss (its own 404 page) reach the website."""
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import BINARY, ROOT
from test_deploy import Caddy, free_port, nginx_getter, procs, requests_for, start_nginx, wait_port  # noqa: F401 (procs: a fixture)

FDL = Path(__file__).resolve().parent / "fdl"
SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
HOSTS = ["links.example.com", "go.example.com"]
APPS = """
      ios: [{ id: "ios", name: "Example", teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123456789" }],
      android: [{ id: "android", name: "Example", package: "com.example.app",
                  fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }],
"""
CONFIG = """{
  sites: [
    { name: "example", domains: ["links.example.com"], website: "https://www.example.com",""" + APPS + """
      routes: [
        { exclude: "/post/draft" },
        { name: "post", path: "/post/{postId}", preview: { title: "Post {postId}" } },
        { name: "profile", path: "/user/{userId}" },
        { name: "welcome", path: "/welcome" },
      ],
      shortLinks: { allowedHosts: ["www.example.com"] },
    },
    { name: "prefixed", domains: ["go.example.com"], website: "https://www.example.com",""" + APPS + """
      routes: [{ name: "promo", path: "/promo/{id}" }],
      shortLinks: { prefix: "/l/", allowedHosts: ["www.example.com", "links.example.com"] },
    },
  ],
}
"""

WEBSITE = r'''
import http.server, sys
PAGES = {"/", "/about", "/pricing", "/docs/intro", "/robots.txt", "/l-ish"}
class Website(http.server.BaseHTTPRequestHandler):
    def answer(self, status, text):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
    def do_GET(self):
        path = self.path.split("?")[0]
        if path in PAGES:
            self.answer(200, "WEBSITE page " + path)
        else:
            self.answer(404, "WEBSITE own 404 page for " + path)
    do_HEAD = do_GET
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.answer(200, "WEBSITE got POST " + self.path + " " + data.decode())
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Website).serve_forever()
'''


def cli(config, *args):
    r = subprocess.run([str(BINARY), *args, "--config", str(config)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode in (0, 1), r.stderr
    return r


@pytest.fixture
def stack(tmp_path, start_server, procs):  # noqa: F811
    """Config with a root site and a prefix site, both Takeouts imported, Linkwell and the website
    running, and an admin token for creating a link later."""
    config = tmp_path / "links.json5"
    config.write_text(CONFIG)
    takeout = (FDL / "takeout.csv").read_bytes()
    prefixed = tmp_path / "prefixed.csv"
    prefixed.write_bytes(takeout.replace(b"\nhttps://links.example.com/", b"\nhttps://go.example.com/l/"))
    imported = {}
    for site, csv in (("example", FDL / "takeout.csv"), ("prefixed", prefixed)):
        r = cli(config, "links", "import", "--fdl-takeout", str(csv), "--site", site, "--archived", "serve", "--json")
        imported[site] = sorted(row["code"] for row in json.loads(r.stdout)["imported"])
    assert len(imported["example"]) >= 3 and len(imported["prefixed"]) >= 2, imported
    token = cli(config, "tokens", "create", "--name", "proxy-test").stdout.strip()
    script = tmp_path / "website.py"
    script.write_text(WEBSITE)
    port = free_port()
    website = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(website)
    wait_port(port, website, what="website")
    server = start_server(config)
    return config, server, f"http://127.0.0.1:{port}", imported, token


def create_link(server, token, code):
    body = json.dumps({"site": "example", "code": code, "target": "https://links.example.com/post/99"}).encode()
    req = urllib.request.Request(server.admin_url("/api/v1/links"), data=body, method="POST",
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 201


def reached_linkwell(server, path, before):
    deadline = time.time() + 5
    while time.time() < deadline:
        if len(requests_for(server, path)) > before:
            return True
        time.sleep(0.05)
    return False


def settled(server):
    """Waits until Linkwell's request log stops growing (lines arrive a moment after the answer)."""
    count, stable_since = -1, time.time()
    while time.time() - stable_since < 0.3:
        now = len([e for e in server.events() if e.get("event") == "request"])
        if now != count:
            count, stable_since = now, time.time()
        time.sleep(0.05)


def check_journey(get, server, imported, token):
    """`get(host, path, *curl_args)` through the proxy."""
    def linkwell(host, path, expect=(200, 302)):
        bare = path.split("?")[0]
        before = len(requests_for(server, bare))
        status, headers, body = get(host, path, "-A", SLACK)
        assert status in expect, (host, path, status, body[:300])
        assert not body.startswith(b"WEBSITE"), (host, path, body[:200])
        assert reached_linkwell(server, bare, before), (host, path, "never reached Linkwell")

    def website(host, path, status, text, *extra, via_linkwell=None):
        bare = path.split("?")[0]
        if via_linkwell is False:
            settled(server)
        before = len(requests_for(server, bare))
        got, headers, body = get(host, path, "-A", SLACK, *extra)
        assert (got, body.decode()) == (status, text), (host, path, got, body[:300])
        assert "x-linkwell-miss" not in headers, (host, path, headers)
        if via_linkwell is False:
            settled(server)
            assert len(requests_for(server, bare)) == before, (host, path, "reached Linkwell")

    # Routes and association files.
    for host, path in [("links.example.com", "/post/7"), ("links.example.com", "/user/ann"), ("links.example.com", "/welcome"),
                       ("go.example.com", "/promo/3"), ("links.example.com", "/.well-known/assetlinks.json")]:
        linkwell(host, path)
    # Every imported short link: at the root and under the prefix.
    for code in imported["example"]:
        linkwell("links.example.com", "/" + code)
    for code in imported["prefixed"]:
        linkwell("go.example.com", "/l/" + code)
    # Long links by their query (root site), and at the prefix (prefix site).
    deep = quote("https://links.example.com/post/3", safe="")
    linkwell("links.example.com", "/?link=" + deep + "&apn=com.example.app&st=Three")
    linkwell("go.example.com", "/l/?link=" + quote("https://go.example.com/promo/3", safe=""))
    # Under the prefix, a miss is Linkwell's own 404 (the prefix is Linkwell's).
    linkwell("go.example.com", "/l/no-such-code", expect=(404,))
    # A code created now, after the configs were generated: no regeneration needed.
    code = f"fresh{int(time.time() * 1000) % 100000}"
    create_link(server, token, code)
    deadline = time.time() + 10
    while get("links.example.com", "/" + code, "-A", SLACK)[0] != 200 and time.time() < deadline:
        time.sleep(0.2)
    linkwell("links.example.com", "/" + code, expect=(200,))
    # The website: its pages (one-segment ones after Linkwell said "no link"), its own 404 page
    # for a real miss, its home page without `link=`, other methods, paths no code can be.
    website("links.example.com", "/", 200, "WEBSITE page /", via_linkwell=False)
    website("links.example.com", "/?utm_source=x", 200, "WEBSITE page /", via_linkwell=False)
    website("links.example.com", "/about", 200, "WEBSITE page /about")
    website("links.example.com", "/pricing", 200, "WEBSITE page /pricing")
    website("links.example.com", "/no-such-page", 404, "WEBSITE own 404 page for /no-such-page")
    website("links.example.com", "/docs/intro", 200, "WEBSITE page /docs/intro", via_linkwell=False)
    website("links.example.com", "/robots.txt", 200, "WEBSITE page /robots.txt", via_linkwell=False)
    website("links.example.com", "/contact", 200, "WEBSITE got POST /contact a=1", "--data", "a=1", via_linkwell=False)
    website("go.example.com", "/about", 200, "WEBSITE page /about", via_linkwell=False)
    website("go.example.com", "/l-ish", 200, "WEBSITE page /l-ish", via_linkwell=False)
    website("go.example.com", "/nope", 404, "WEBSITE own 404 page for /nope", via_linkwell=False)


def test_nginx_shares_the_domain(tmp_path, stack, procs):  # noqa: F811
    config, server, website, imported, token = stack
    http_port, https_port, cert = start_nginx(tmp_path, procs, config, server.addresses[0], website, hosts=HOSTS)
    get = nginx_getter(http_port, https_port, cert)
    check_journey(lambda host, path, *extra: get(host, path, True, *extra), server, imported, token)


def test_caddy_shares_the_domain(tmp_path, stack, procs):  # noqa: F811
    config, server, website, imported, token = stack
    caddy = Caddy(tmp_path, procs, config, server.addresses[0], HOSTS, extra=("--website-upstream", website))
    check_journey(lambda host, path, *extra: caddy.get(host, path, True, *extra), server, imported, token)


def test_validate_warns_about_codes_that_shadow_website_pages(tmp_path):
    config = tmp_path / "links.json5"
    config.write_text(CONFIG)
    for site, prefix in (("example", "/"), ("prefixed", "/l/")):
        csv = tmp_path / f"{site}.csv"
        csv.write_bytes((FDL / "takeout.csv").read_bytes().replace(b"\nhttps://links.example.com/", b"\nhttps://" + (b"links" if site == "example" else b"go") + b".example.com" + prefix.encode()))
        cli(config, "links", "import", "--fdl-takeout", str(csv), "--site", site, "--archived", "serve")
    paths = tmp_path / "paths.txt"
    paths.write_text("# the website's pages\n/pricing\n/ann\nhttps://www.example.com/fast/?utm=x\n\n/post42/comments\n")
    r = cli(config, "validate", "--website-upstream", "http://127.0.0.1:3000", "--website-paths", str(paths))
    warned = [line for line in r.stderr.splitlines() if "shadows the website's page" in line]
    assert len(warned) == 2, r.stderr
    assert "stored short link 'ann' (https://links.example.com/ann) shadows the website's page /ann" in warned[0] + warned[1]
    assert "'fast'" in warned[0] + warned[1]
    assert 'shortLinks.prefix: \\"/l/\\"' in r.stderr or 'shortLinks.prefix: "/l/"' in r.stderr
    # Without the file: no such warning; without a website upstream: a usage error.
    assert "shadows the website's page" not in cli(config, "validate", "--website-upstream", "http://127.0.0.1:3000").stderr
    r = subprocess.run([str(BINARY), "validate", "--config", str(config), "--website-paths", str(paths)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 64 and "--website-paths needs --website-upstream" in r.stderr


def doctor(caddy, config, server, *extra):
    args = [str(BINARY), "doctor", f"https://links.example.com:{caddy.https_port}", "--config", str(config), "--offline",
            "--cacert", str(caddy.root), "--admin", server.admin, *extra]
    for h in HOSTS:
        args += ["--resolve", f"{h}:{caddy.https_port}:127.0.0.1"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=ROOT)
    return r.returncode, r.stdout.splitlines()


def test_doctor_follows_the_journey_through_the_proxy(tmp_path, stack, procs, monkeypatch):  # noqa: F811
    """Through the generated Caddyfile every step reaches the right upstream; through one that
    sends short links and long links to the website (the configs before they knew of them),
    doctor fails and names the fix."""
    import test_deploy
    config, server, website, imported, token = stack
    caddy = Caddy(tmp_path, procs, config, server.addresses[0], HOSTS, extra=("--website-upstream", website))
    for extra in ((), ("--token", token)):
        code, lines = doctor(caddy, config, server, *extra)
        journey = [line for line in lines if "reaches" in line or "unknown path" in line or "short link" in line]
        assert code == 0 and all(line.startswith("PASS") for line in journey), "\n".join(lines)
        assert any("route 'post' /post/" in line and "reaches Linkwell" in line for line in journey), journey
        assert any("long link /?link=… reaches Linkwell" in line for line in journey), journey
        assert any("go.example.com" in line and "/l/" in line and "reaches Linkwell" in line for line in journey), journey
        assert any("unknown path /linkwell-doctor-" in line and "reaches the website (404)" in line for line in journey), journey
        short = "a short link created now (/doctor-" if extra else "stored short link /"
        assert any(short in line and "reaches Linkwell" in line for line in journey), journey
    # The temporary link is gone again.
    listed = json.loads(cli(config, "links", "list", "--json").stdout)
    assert listed and not any(link["code"].startswith("doctor-") for link in listed), listed

    generate = test_deploy.linkwell_generate

    def without_links(*args):
        text = generate(*args)
        for name in ("codes", "longlinks"):
            start = text.index(f"\t@{name} {{")
            end = text.index("\n\t}\n", text.index(f"\thandle @{name} {{")) + 4
            text = text[:start] + text[end:]
        return text
    monkeypatch.setattr(test_deploy, "linkwell_generate", without_links)
    old = Caddy(tmp_path, procs, config, server.addresses[0], HOSTS, name="old-caddy", extra=("--website-upstream", website))
    for extra in ((), ("--token", token)):
        code, lines = doctor(old, config, server, *extra)
        failed = [line for line in lines if line.startswith("FAIL")]
        assert code == 1 and len(failed) == 2, "\n".join(lines)
        assert "long link /?link=… reaches another upstream, not Linkwell" in failed[0]
        assert "fix: send long links (/ with a link parameter) to Linkwell: regenerate the proxy config" in failed[0]
        assert "short link" in failed[1] and "reaches another upstream, not Linkwell (404" in failed[1]
        assert f"linkwell generate nginx|caddy --config {config} --website-upstream https://www.example.com" in failed[1]
