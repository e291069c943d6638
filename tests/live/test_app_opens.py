"""App-open counts end to end, on SQLite and on PostgreSQL: the real server gets a known number of
app-open beacons of each kind (`POST /.well-known/linkwell/opens`, each from its own client address
through the loopback proxy's X-Forwarded-For) and of clicks, then a burst from one address past
`storage.clicks.appOpensPerMinute`: the beacons past the limit get 429 with Retry-After and are not
counted. `linkwell stats` (text and --json), `/api/v1/stats` and `/metrics` must show exactly the
funnel clicks → app opens → first opens. Also: the body cap, bad JSON and unknown links (4xx with
a sentence, not counted), and POST anywhere else (405)."""
import http.client
import json
import signal
import subprocess
import time
import urllib.request

import pytest

from conftest import BINARY, ROOT, curl

PATH = "/.well-known/linkwell/opens"
LIMIT = 5
FIRST_OPENS = [("https://fitconnect.app/spring", 3)]
REOPENS = [("https://fitconnect.app/spring", 2), ("https://fitconnect.app/signup?referralCode=X", 4)]
BURST = 9  # from one address: LIMIT counted, the rest refused
CLICKS = 2
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"


def make_config(tmp_path, storage):
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    cfg = tmp_path / "linkwell.json5"
    clicks = f"clicks: {{ flushSeconds: 3600, appOpensPerMinute: {LIMIT} }}"
    cfg.write_text(text.replace("{", f"{{ storage: {{ {storage}{', ' if storage else ''}{clicks} }},", 1))
    return cfg


@pytest.fixture(params=["sqlite", "postgres"])
def config(request, tmp_path):
    if request.param == "sqlite":
        return make_config(tmp_path, "")
    from pgserver import PostgresServer
    pg = PostgresServer()
    request.addfinalizer(pg.close)
    pg.psql(f"CREATE DATABASE lw_opens OWNER {pg.USER}")
    (tmp_path / "pg.password").write_text(PostgresServer.PASSWORD + "\n")
    return make_config(tmp_path, f'postgres: "postgresql://{pg.USER}@127.0.0.1:{pg.port}/lw_opens", passwordFile: "pg.password"')


def cli(config, *args):
    r = subprocess.run([str(BINARY), *args, "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def beacon(server, body, client, raw=None):
    host, port = server.addresses[0].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    data = raw if raw is not None else json.dumps(body).encode()
    conn.request("POST", PATH, body=data, headers={"Host": "fitconnect.app", "Content-Type": "application/json", "X-Forwarded-For": client})
    r = conn.getresponse()
    out = (r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read().decode())
    conn.close()
    return out


def test_beacons_add_up_in_stats_api_and_metrics_and_a_burst_is_refused(config, start_server):
    cli(config, "links", "add", "--code", "spring", "--target", "https://fitconnect.app/signup?referralCode=SPRING")
    token = cli(config, "tokens", "create", "--name", "opens").strip()
    server = start_server(config, extra=["--access-log", "off"])
    n = 0
    for kind, sent in (("first_open", FIRST_OPENS), ("reopen", REOPENS)):
        for link, times in sent:
            for _ in range(times):
                n += 1
                status, _, text = beacon(server, {"link": link, "kind": kind}, f"10.0.0.{n}")
                assert status == 204, text
    for _ in range(CLICKS):
        assert curl("-H", "Host: fitconnect.app", "-A", IPHONE, server.url("/spring"))[0] == 200

    burst = [beacon(server, {"link": "https://fitconnect.app/signup?referralCode=B", "kind": "reopen"}, "10.9.9.9") for _ in range(BURST)]
    assert [s for s, _, _ in burst] == [204] * LIMIT + [429] * (BURST - LIMIT)
    refused = burst[-1]
    assert 1 <= int(refused[1]["retry-after"]) <= 60 and "not counted" in refused[2]

    # Refused and not counted: too large, not JSON, unknown link, unknown kind; POST elsewhere.
    assert beacon(server, None, "10.1.0.1", raw=b'{"link": "' + b"x" * 3000 + b'"}')[0] == 413
    status, _, text = beacon(server, None, "10.1.0.2", raw=b"link=x")
    assert status == 400 and "not JSON" in text
    status, _, text = beacon(server, {"link": "https://fitconnect.app/nope", "kind": "reopen"}, "10.1.0.3")
    assert status == 404 and "not a link of this server" in text
    status, _, text = beacon(server, {"link": "https://fitconnect.app/spring", "kind": "install"}, "10.1.0.4")
    assert status == 400 and "first_open" in text
    assert curl("-X", "POST", "-d", "{}", "-H", "Host: fitconnect.app", server.url("/spring"))[0] == 405

    first = sum(t for _, t in FIRST_OPENS)
    reopens = sum(t for _, t in REOPENS) + LIMIT
    metrics = curl(server.admin_url("/metrics"))[2].decode()
    assert f'linkwell_app_opens_total{{site="fitconnect",route="signup",kind="first_open"}} {first}\n' in metrics
    assert f'linkwell_app_opens_total{{site="fitconnect",route="signup",kind="reopen"}} {reopens}\n' in metrics
    assert f'linkwell_app_open_beacons_refused_total{{reason="rate_limited"}} {BURST - LIMIT}\n' in metrics
    assert f"linkwell_app_opens_unwritten {first + reopens}\n" in metrics
    assert f'linkwell_clicks_total{{site="fitconnect",route="signup",platform="ios",outcome="app_page"}} {CLICKS}\n' in metrics

    server.signal(signal.SIGHUP)  # flushes the counts before the reload
    server.wait_for(lambda e: e.get("event") == "reloaded", timeout=15)
    funnel = {"clicks": CLICKS, "appOpens": first + reopens, "firstOpens": first, "reopens": reopens}
    assert json.loads(cli(config, "stats", "--json"))["funnel"] == funnel
    assert json.loads(cli(config, "stats", "--json", "--link", "spring"))["funnel"] == {
        "clicks": CLICKS, "appOpens": 5, "firstOpens": 3, "reopens": 2}
    req = urllib.request.Request(server.admin_url("/api/v1/stats"), headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert json.load(r)["funnel"] == funnel
    text = cli(config, "stats")
    assert f"app opens {first + reopens:>11}" in text and f"first opens {first:>9}" in text, text
    server.signal(signal.SIGTERM)
    assert server.proc.wait(timeout=20) == 0
