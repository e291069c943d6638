"""`linkwell check --json` and `linkwell serve` agree: on a corpus of routes, imported short links
(live, disabled, forced-redirect), long links (followed, refused, explained) and misses, for
several browsers, check's `served` block has the status, the access log's kind and route, and the
Location that the running server answered with."""
import json
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

from conftest import BINARY, ROOT, curl

FDL = Path(__file__).resolve().parent / "fdl"
HOST = "links.example.com"
AGENTS = {
    "desktop": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36",
    "iphone": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1",
    "android": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36",
    "slack": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
}
DEEP = quote("https://links.example.com/post/3", safe="")
PATHS = [
    "/post/7", "/user/ann", "/welcome", "/post/draft",  # routes and an exclusion
    "/post42", "/ann", "/fast", "/old1",  # imported short links (old1: archived, disabled)
    f"/?link={DEEP}&apn=com.example.app&st=Three", f"/?link={DEEP}&d=1",  # long links, explained
    "/?link=" + quote("https://evil.example.net/x", safe=""), "/?link=",  # refused long links
    "/", "/nope", "/post", "/post/7/more", "/static/linkwell.css", "/.well-known/assetlinks.json",  # misses and files
]


def test_check_and_serve_agree(tmp_path, start_server):
    config = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", config)
    r = subprocess.run([str(BINARY), "links", "import", "--fdl-takeout", str(FDL / "takeout.csv"), "--site", "example",
                        "--archived", "disable", "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    server = start_server(config)
    disagreements = []
    kinds = set()
    names = list(AGENTS)
    corpus = [(path, names[(i * 2 + k) % 4]) for i, path in enumerate(PATHS) for k in (0, 1)]
    corpus += [(path, name) for path in ("/fast", "/ann") for name in names if (path, name) not in corpus]
    for path, name in corpus:
        ua = AGENTS[name]
        before = len([e for e in server.events() if e.get("event") == "request"])
        status, headers, _ = curl("-H", f"Host: {HOST}", "-A", ua, server.url(path))
        deadline = time.time() + 5
        while True:
            logged = [e for e in server.events() if e.get("event") == "request"]
            if len(logged) > before or time.time() > deadline:
                break
            time.sleep(0.02)
        served = logged[-1]
        checked = subprocess.run([str(BINARY), "check", f"https://{HOST}{path}", "--user-agent", ua, "--json", "--config", str(config)],
                                 capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert checked.returncode == 0, checked.stderr
        said = json.loads(checked.stdout)["served"]
        want = {"status": status, "kind": served["kind"], "route": served.get("route"), "location": headers.get("location")}
        got = {k: said.get(k) for k in want}
        kinds.add(served["kind"])
        if got != want:
            disagreements.append((path, name, want, got))
    assert not disagreements, "\n".join(map(str, disagreements))
    # The corpus covers every kind of answer a link can get.
    assert {"page", "redirect", "not_found", "static", "assetlinks", "error"} <= kinds, kinds


def test_check_reads_another_store_with_storage(tmp_path):
    """--storage: the short links of another link database (a copy of production's, say)."""
    config = tmp_path / "links.json5"
    shutil.copy(FDL / "links.json5", config)
    subprocess.run([str(BINARY), "links", "import", "--fdl-takeout", str(FDL / "takeout.csv"), "--site", "example", "--config", str(config)],
                   capture_output=True, text=True, timeout=60)
    elsewhere = tmp_path / "copy.db"
    (tmp_path / "linkwell.db").rename(elsewhere)

    def check(*extra):
        r = subprocess.run([str(BINARY), "check", f"https://{HOST}/post42", "--json", "--config", str(config), *extra],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
        return r.returncode, r.stdout, r.stderr
    code, out, _ = check()
    assert code == 0 and json.loads(out)["status"] == "no_route" and json.loads(out)["served"]["status"] == 404
    code, out, _ = check("--storage", str(elsewhere))
    report = json.loads(out)
    assert code == 0 and report["status"] == "short_link" and report["served"]["code"] == "post42" and report["served"]["status"] == 200
    code, _, err = check("--storage", str(tmp_path / "missing.db"))
    assert code == 64 and "--storage" in err and "no such file" in err
