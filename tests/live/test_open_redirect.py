"""No open redirect: every URL an attacker can hand Linkwell — a long link's `link` with and
without `efr=1`, each fallback parameter (`ifl`, `ipfl`, `afl`, `ofl`), a short link's target or
fallback through the API, `links add` and the Firebase Takeout importer — is tried with the
redirect-tricks corpus (tests/url/redirect-tricks.json: backslashes, `@`, tabs and newlines,
`%2f`, IDN homographs, IPv4 spellings, script schemes). No answer may lead a browser to a host the
config does not allow: every `Location` and every http(s) link of a page is read with a WHATWG
parser (ada-url), and the redirects are followed by headless Chromium, whose every request is
recorded (hosts are resolved to nothing, so no request leaves the machine)."""
import csv
import http.client
import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import ada_url
import pytest

from conftest import BINARY, ROOT

FDL = Path(__file__).parent / "fdl"
# The corpus names the site being attacked `good.example`: here that is the allowed website.
TRICKS = [re.sub("good\\.example", "www.example.com", t, flags=re.IGNORECASE)
          for t in json.loads((ROOT / "tests" / "url" / "redirect-tricks.json").read_text(encoding="utf-8"))["inputs"]]
HOST = "links.example.com"
# The config's domains and allowed hosts, and the app stores a fallback may name.
ALLOWED = {"links.example.com", "www.example.com", "apps.apple.com", "itunes.apple.com", "play.google.com"}
DEEP = "https://links.example.com/post/1"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
AGENTS = {"ifl": IPHONE, "ipfl": IPAD, "afl": ANDROID, "ofl": DESKTOP}
HREF = re.compile(rb'(?:href|content|action)="([^"]*)"')


def whatwg_host(url):
    """The host a browser goes to for `url`, or None when it is not an http(s) URL."""
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        return None
    if parsed.protocol not in ("http:", "https:"):
        return None
    # `www.example.com.` is the same name written fully qualified.
    return parsed.hostname[:-1] if parsed.hostname.endswith(".") else parsed.hostname


class Audit:
    """Every answer checked; what led a browser off the allowed hosts, with the request."""

    def __init__(self):
        self.tries = 0
        self.redirects = []  # (what, location) of every 3xx
        self.escapes = []

    def check(self, what, status, headers, body):
        self.tries += 1
        if 300 <= status < 400:
            location = headers.get("location", "")
            self.redirects.append((what, location))
            host = whatwg_host(location)
            if host not in ALLOWED:
                self.escapes.append(f"{what}: {status} Location {location!r} (browser host {host!r})")
        if headers.get("content-type", "").startswith("text/html"):
            for raw in HREF.findall(body):
                value = raw.decode("utf-8", "replace").replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"')
                host = whatwg_host(value)
                if host is not None and host not in ALLOWED:
                    self.escapes.append(f"{what}: page links to {value!r} (browser host {host!r})")


def get(server, path, ua=DESKTOP):
    host, port = server.addresses[0].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("GET", path, headers={"Host": HOST, "User-Agent": ua})
    response = conn.getresponse()
    body = response.read()
    headers = {k.lower(): v for k, v in response.getheaders()}
    conn.close()
    return response.status, headers, body


def long_link(**params):
    return "/?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", cfg)
    return cfg


def cli(config, *args):
    return subprocess.run([str(BINARY), *args, "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_long_links_and_their_fallbacks_never_lead_off_the_allowed_hosts(config, start_server):
    server = start_server(config)
    audit = Audit()
    for trick in TRICKS:
        for efr in ("1", "0"):
            for ua in (IPHONE, ANDROID, DESKTOP):
                path = long_link(link=trick, efr=efr)
                audit.check(f"link={trick!r} efr={efr}", *get(server, path, ua))
            for parameter, ua in AGENTS.items():
                path = long_link(link=DEEP, efr=efr, **{parameter: trick})
                audit.check(f"{parameter}={trick!r} efr={efr}", *get(server, path, ua))
        # A web-page target (no route) with a fallback: the fallback is where the browser goes.
        for parameter, ua in AGENTS.items():
            path = long_link(link="https://www.example.com/help", **{parameter: trick})
            audit.check(f"web target, {parameter}={trick!r}", *get(server, path, ua))
    assert audit.escapes == [], "\n".join(audit.escapes[:40])
    # The corpus reaches the redirect code: allowed tricks are redirected, and to their parsed form.
    assert audit.tries == len(TRICKS) * 18 and len(audit.redirects) > 50
    status, headers, _ = get(server, long_link(link="HTTPS://WWW.EXAMPLE.COM/Help?q=a b", efr="1"))
    assert status == 302 and headers["location"] == "https://www.example.com/Help?q=a%20b"
    status, _, body = get(server, long_link(link="https://evil.example\\@www.example.com/", efr="1"))
    assert status == 400 and b"evil.example" in body


def test_api_cli_and_import_refuse_every_trick_that_leaves_the_allowed_hosts(config, start_server, tmp_path):
    token = cli(config, "tokens", "create", "--name", "redirects").stdout.strip()
    server = start_server(config)
    created, codes = {}, []
    for i, trick in enumerate(TRICKS):
        for field in ("target", "iosFallback", "androidFallback", "desktopFallback"):
            code = f"api{i}{field[0]}"
            body = {"site": "example", "code": code, "target": DEEP if field != "target" else trick}
            if field != "target":
                body[field] = trick
                body["forcedRedirect"] = False
            host, port = server.admin.rsplit(":", 1)
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            conn.request("POST", "/api/v1/links", body=json.dumps(body),
                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            response = conn.getresponse()
            answer = json.loads(response.read() or b"{}")
            conn.close()
            assert response.status in (201, 400, 409, 422), (trick, field, response.status, answer)
            if response.status == 201:
                created[code] = (field, trick)
    # `links add` and the importer, with the same corpus.
    for i, trick in enumerate(TRICKS):
        if "\x00" in trick:
            continue  # no command line can carry a NUL byte
        r = cli(config, "links", "add", "--site", "example", "--code", f"cli{i}", "--target", trick)
        if r.returncode == 0:
            created[f"cli{i}"] = ("target", trick)
        else:
            assert r.stderr.startswith("Error: "), r.stderr
    rows = io.StringIO()
    writer = csv.writer(rows)
    header = (FDL / "takeout.csv").read_text(encoding="utf-8-sig").splitlines()[0].split(",")
    writer.writerow(header)
    for i, trick in enumerate(TRICKS):
        for column in ("link", "ifl", "afl", "ofl", "ipfl"):
            row = {name: "" for name in header}
            row["Short link"] = f"https://links.example.com/imp{i}{column}"
            row["link"] = trick if column == "link" else DEEP
            if column != "link":
                row[column] = trick
            row["Creation timestamp"] = "2021-03-04T05:06:07Z"
            writer.writerow([row[name] for name in header])
    takeout = tmp_path / "tricks.csv"
    takeout.write_text(rows.getvalue(), encoding="utf-8")
    r = cli(config, "links", "import", "--fdl-takeout", str(takeout), "--site", "example", "--json")
    report = json.loads(r.stdout)
    for row in report["imported"]:
        created[row["code"]] = ("import", row["code"])
    assert report["skipped"], "the importer must refuse some of the tricks"
    # Whatever was stored is served: no answer leads off the allowed hosts, for any browser.
    audit = Audit()
    for code in created:
        for ua in (IPHONE, IPAD, ANDROID, DESKTOP):
            audit.check(f"/{code} {created[code]}", *get(server, "/" + code, ua))
    assert audit.escapes == [], "\n".join(audit.escapes[:40])
    assert len(created) > 20  # the allowed spellings were accepted, so the served path was exercised
    # Every stored link that redirects, followed by Chromium as an iPhone and as a desktop.
    redirecting = sorted({what.split(" ", 1)[0] for what, _ in audit.redirects})
    assert len(redirecting) > 10
    for ua in (IPHONE, DESKTOP):
        landed, escapes = follow_in_chromium(server, redirecting, ua=ua)
        assert escapes == [], "\n".join(escapes)
        assert landed > 0
    # HTTPS in capitals is a web URL, not an app scheme.
    r = cli(config, "links", "add", "--site", "example", "--code", "caps", "--target", "HTTPS://WWW.EXAMPLE.COM/about")
    assert r.returncode == 0, r.stderr


def follow_in_chromium(server, paths, ua=DESKTOP):
    """Loads each path in headless Chromium (as `ua`) and returns (hosts it requested off
    loopback, the requests that left the allowed hosts)."""
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                # Every name resolves to nothing: a redirect is recorded, never fetched.
                "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Forwarded-Host": HOST}})
        driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": ua})
        landed, escapes = 0, []
        for path in paths:
            driver.get_log("performance")
            try:
                driver.get(server.url(path))
            except WebDriverException:
                pass  # the redirect went to a name that resolves to nothing: recorded below
            for entry in driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message["method"] != "Network.requestWillBeSent":
                    continue
                url = message["params"]["request"]["url"]
                host = whatwg_host(url)
                if host == "127.0.0.1":
                    continue
                if host is not None:
                    landed += 1
                if host is not None and host not in ALLOWED:
                    escapes.append(f"{path}: Chromium requested {url}")
        return landed, escapes
    finally:
        driver.quit()


def test_chromium_lands_only_on_allowed_hosts(config, start_server):
    """The exploit of the report and every trick as `link=` with `efr=1` and as a web page's
    desktop fallback, followed by a real browser: all the URLs it requests are on loopback (ours)
    or an allowed host."""
    server = start_server(config)
    paths = [p for trick in TRICKS for p in (long_link(link=trick, efr="1"), long_link(link="https://www.example.com/help", ofl=trick))]
    landed, escapes = follow_in_chromium(server, paths)
    assert escapes == [], "\n".join(escapes)
    assert landed > 20  # the browser did follow the allowed redirects
