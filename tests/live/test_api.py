"""The admin REST API against the real server: bearer tokens (none, wrong, revoked, right; 401s
counted in /metrics), create and serve at once on the public port, a bulk of 10,000 (and 10,001
refused), pagination, validation errors, the body limit, the public port that cannot reach the
API, schemathesis run on the served OpenAPI document, and the same on PostgreSQL storage."""
import json
import shutil
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import json5
import pytest

from conftest import BINARY, ROOT, curl
from pgserver import PostgresServer

SCHEMATHESIS = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "schemathesis"


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "linkwell.json5"
    shutil.copy(ROOT / "config" / "examples" / "fitconnect.json5", cfg)
    return cfg


def cli(config, *args):
    r = subprocess.run([str(BINARY), *args, "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def api(server, method, path, token=None, body=None, raw=None, content_type="application/json", headers=None):
    """One admin request; returns (status, headers, parsed JSON or None)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    if data is not None and content_type:
        h["Content-Type"] = content_type
    req = urllib.request.Request(server.admin_url(path), data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, hdrs, text = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, text = e.code, e.headers, e.read()
    is_json = (hdrs.get("Content-Type") or "").startswith("application/json")
    return status, hdrs, (json.loads(text) if is_json and text else text or None)


def metric(server, name):
    status, _, body = curl(server.admin_url("/metrics"))
    assert status == 200
    out = {}
    for line in body.decode().splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name):].rsplit(" ", 1)
            out[labels] = int(float(value))
    return out


def public(server, path):
    return curl("-H", "Host: fitconnect.app", "-A", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)", server.url(path))


@pytest.fixture
def served(config, start_server):
    token = cli(config, "tokens", "create", "--name", "test")
    return start_server(config, extra=["--access-log", "off"]), token


def test_auth_none_wrong_revoked_right_and_401s_are_counted(config, served):
    server, token = served
    old = cli(config, "tokens", "create", "--name", "old")
    assert token.startswith("lw_") and len(token) == 43 and token != old

    status, headers, body = api(server, "GET", "/api/v1/links")
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert body["error"]["code"] == "missing_token" and "linkwell tokens create" in body["error"]["fix"]
    status, headers, body = api(server, "GET", "/api/v1/links", token=token[:-1] + ("x" if token[-1] != "x" else "y"))
    assert status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"] and body["error"]["code"] == "invalid_token"
    status, _, _ = api(server, "GET", "/api/v1/links", headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert status == 401

    assert api(server, "GET", "/api/v1/links", token=old)[0] == 200
    assert cli(config, "tokens", "revoke", "old") == "Revoked token 'old'; requests with it now get 401."
    status, _, body = api(server, "POST", "/api/v1/links", token=old, body={"target": "https://fitconnect.app/about"})
    assert status == 401 and body["error"] == {
        "code": "revoked_token", "message": "the token 'old' was revoked",
        "fix": "use another token; create one with 'linkwell tokens create' (with the server's --config) and send 'Authorization: Bearer <token>'"}
    assert api(server, "GET", "/api/v1/links", token=token)[0] == 200

    assert metric(server, "linkwell_api_auth_failures_total") == {
        '{reason="missing"}': 2, '{reason="invalid"}': 1, '{reason="revoked"}': 1}
    requests = metric(server, "linkwell_api_requests_total")
    assert sum(v for k, v in requests.items() if 'status="401"' in k) == 4
    assert requests['{method="GET",status="200"}'] == 2

    # list shows names and dates, never the token; the database holds only its hash. A request
    # never writes: the last use is written with the click flush (SIGHUP flushes at once).
    server.signal(signal.SIGHUP)
    server.wait_for(lambda e: e.get("event") == "reloaded")
    listed = json.loads(cli(config, "tokens", "list", "--json"))
    assert [(t["name"], t["revoked"]) for t in listed] == [("old", True), ("test", False)]
    assert listed[1]["lastUsedAt"] is not None and token not in json.dumps(listed)
    db = (config.parent / "linkwell.db").read_bytes() + (config.parent / "linkwell.db-wal").read_bytes()
    assert token.encode() not in db and old.encode() not in db


def test_created_link_is_served_on_the_public_port_at_once(config, served):
    server, token = served
    assert public(server, "/spring")[0] == 404
    status, headers, link = api(server, "POST", "/api/v1/links", token=token, body={
        "code": "spring", "target": "https://fitconnect.app/signup?referralCode=SPRING26", "previewTitle": "Spring offer"})
    assert status == 201 and headers["Location"] == "/api/v1/links/fitconnect/spring"
    assert link["url"] == "https://fitconnect.app/spring" and link["route"] == "signup" and link["status"] == "live"
    short, direct = public(server, "/spring"), public(server, "/signup?referralCode=SPRING26")
    # The target route's page, with the link's preview title applied (fdl's overrides).
    assert short[0] == 200 == direct[0]
    assert b'<meta property="og:title" content="Spring offer">' in short[2] and b"Spring offer" not in direct[2]

    assert api(server, "GET", "/api/v1/links/fitconnect/spring", token=token)[2] == link
    status, _, patched = api(server, "PATCH", "/api/v1/links/fitconnect/spring", token=token, body={"disabled": True, "previewTitle": None})
    assert status == 200 and patched["status"] == "disabled" and "previewTitle" not in patched
    assert public(server, "/spring")[0] == 404
    assert api(server, "PATCH", "/api/v1/links/fitconnect/spring", token=token, body={"disabled": False})[0] == 200
    assert public(server, "/spring")[0] == 200
    # The CLI reads the same database.
    assert json.loads(cli(config, "links", "show", "spring", "--json"))["disabled"] is False

    status, _, body = api(server, "DELETE", "/api/v1/links/fitconnect/spring", token=token)
    assert status == 204 and body is None
    assert public(server, "/spring")[0] == 404
    status, _, body = api(server, "GET", "/api/v1/links/fitconnect/spring", token=token)
    assert status == 404 and body["error"]["message"] == "site 'fitconnect' has no short link 'spring'"


def test_bulk_of_10000_in_one_request_and_pages_that_walk_them_all(config, served):
    server, token = served
    batch = [{"code": f"b{i:05d}", "target": f"https://fitconnect.app/p/{i}"} for i in range(10000)]
    status, _, body = api(server, "POST", "/api/v1/links", token=token, body=batch)
    assert status == 201 and body["count"] == 10000 and len(body["links"]) == 10000
    assert public(server, "/b09999")[0] == 302  # a web page: redirected to its target

    status, _, body = api(server, "POST", "/api/v1/links", token=token, body=[{"target": "https://fitconnect.app/x"}] * 10001)
    assert status == 422 and body["error"]["code"] == "too_many_links"

    for limit, site in [(1000, None), (None, "fitconnect"), (777, "fitconnect")]:
        seen, cursor, pages = [], None, 0
        while True:
            query = "&".join(f"{k}={v}" for k, v in [("limit", limit), ("site", site), ("next", cursor)] if v is not None)
            status, _, page = api(server, "GET", "/api/v1/links?" + query, token=token)
            assert status == 200 and len(page["links"]) <= (limit or 100)
            seen += [l["code"] for l in page["links"]]
            pages += 1
            cursor = page["next"]
            if cursor is None:
                break
        assert len(seen) == 10000 and len(set(seen)) == 10000 and seen == sorted(seen)
        assert pages == -(-10000 // (limit or 100))
    status, _, body = api(server, "GET", "/api/v1/links?limit=1001", token=token)
    assert status == 400 and body["error"]["code"] == "invalid_parameter"


def test_validation_errors_name_the_item_and_the_field(config, served):
    server, token = served
    assert api(server, "POST", "/api/v1/links", token=token, body={"code": "taken", "target": "https://fitconnect.app/a"})[0] == 201

    status, _, body = api(server, "POST", "/api/v1/links", token=token, body={"code": "x1", "target": "https://evil.example/phish"})
    assert status == 422 and body["error"]["details"] == [{"field": "target", "code": "invalid", "message":
        "the target host 'evil.example' is not a domain of site 'fitconnect' (fitconnect.app); short links lead only to the site's own domains, its shortLinks.allowedHosts and app schemes (no open redirects). If you own it, add it: sites[0].shortLinks.allowedHosts: [\"evil.example\"]"}]
    status, _, body = api(server, "POST", "/api/v1/links", token=token, body={"code": "signup", "target": "https://fitconnect.app/a"})
    assert status == 409 and body["error"]["code"] == "code_conflict"
    assert "'/signup' is already route 'signup' of site 'fitconnect'" in body["error"]["message"]
    status, _, body = api(server, "POST", "/api/v1/links", token=token, body={"code": "taken", "target": "https://fitconnect.app/b"})
    assert status == 409 and body["error"]["code"] == "code_taken"

    batch = [{"target": "https://fitconnect.app/ok"}, {"code": "taken", "target": "https://fitconnect.app/b"},
             {"code": "dup", "target": "https://fitconnect.app/c"}, {"code": "dup", "target": "ftp://fitconnect.app/c"},
             {"target": "https://fitconnect.app/d", "colour": "red"}, {"target": 42}, {"code": "a.b", "target": "https://fitconnect.app/e"}]
    status, _, body = api(server, "POST", "/api/v1/links", token=token, body=batch)
    assert status == 422
    assert [(d["index"], d["field"]) for d in body["error"]["details"]] == [(4, "colour"), (5, "target"), (6, "code")]
    assert body["error"]["message"].startswith("3 of the 7 links were refused, so none was created")
    # Fields right, the store's checks left: every one is reported, in request order.
    batch = batch[:4]
    status, _, body = api(server, "POST", "/api/v1/links", token=token, body=batch)
    assert status == 422 and [(d["index"], d["field"], d["code"], d["message"]) for d in body["error"]["details"]] == [
        (1, "code", "code_taken", "site 'fitconnect' already has a short link 'taken'; pick another code, or leave it out to get a generated one"),
        (3, "code", "code_taken", "the code 'dup' is also given to item 2 of this request; each code may appear once per site"),
        (3, "target", "invalid", "the target is not a link Linkwell can serve: 'ftp' is neither https nor a custom scheme of any configured app")]
    status, _, page = api(server, "GET", "/api/v1/links", token=token)
    assert [l["code"] for l in page["links"]] == ["taken"]  # all or nothing

    status, _, body = api(server, "POST", "/api/v1/links", token=token, raw=b'{"target": "https://fitconnect.app/a",}')
    assert status == 400 and body["error"]["code"] == "invalid_json" and "line 1, column" in body["error"]["message"]
    status, _, body = api(server, "POST", "/api/v1/links", token=token, raw=b"target=x", content_type="application/x-www-form-urlencoded")
    assert status == 415
    status, _, body = api(server, "PATCH", "/api/v1/links/fitconnect/taken", token=token, body={"code": "other"})
    assert status == 422 and body["error"]["details"][0]["field"] == "code"
    status, headers, body = api(server, "PUT", "/api/v1/links", token=token, body={})
    assert status == 405 and headers["Allow"] == "GET, HEAD, POST"


def test_body_limit_fits_10000_links_and_refuses_more_with_413(config, served):
    server, token = served
    big = b'{"target": "https://fitconnect.app/a", "previewTitle": "' + b"x" * (17 << 20) + b'"}'
    result = subprocess.run(["curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", "-H", f"Authorization: Bearer {token}",
                             "-H", "Content-Type: application/json", "--data-binary", "@-", server.admin_url("/api/v1/links")],
                            input=big, capture_output=True, timeout=60)
    text, _, code = result.stdout.decode().rpartition("\n")
    assert code == "413" and json.loads(text)["error"]["code"] == "body_too_large"
    assert api(server, "GET", "/api/v1/links", token=token)[2]["links"] == []
    assert api(server, "GET", "/healthz")[:3:2] == (200, b"ok\n")  # the admin listener goes on


def test_the_public_port_cannot_reach_the_api(served):
    server, token = served
    unknown = public(server, "/no-such-page-here")
    for path in ["/api/v1/links", "/api/v1/openapi.json", "/api/v1/links/fitconnect/x"]:
        status, _, body = curl("-H", "Host: fitconnect.app", "-H", f"Authorization: Bearer {token}", server.url(path))
        assert status == 404 == unknown[0]
        assert b"openapi" not in body and b'"error"' not in body
    status, _, _ = curl("-X", "POST", "-H", "Host: fitconnect.app", "-H", f"Authorization: Bearer {token}",
                        "-H", "Content-Type: application/json", "-d", '{"target": "https://fitconnect.app/a"}', server.url("/api/v1/links"))
    assert status == 405
    assert api(server, "GET", "/api/v1/links", token=token)[2]["links"] == []


def test_openapi_document_passes_schemathesis_against_the_real_server(served, tmp_path):
    server, token = served
    status, _, doc = api(server, "GET", "/api/v1/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": "A token from 'linkwell tokens create' (lw_…)."}
    assert set(doc["paths"]) == {"/api/v1/links", "/api/v1/links/{site}/{code}", "/api/v1/stats", "/api/v1/audit", "/api/v1/openapi.json"}
    # Every check schemathesis has (status codes, response schemas and headers, content types,
    # negative and positive data, auth, unsupported methods, stateful create → get → delete).
    result = subprocess.run(
        [str(SCHEMATHESIS), "run", server.admin_url("/api/v1/openapi.json"), "-H", f"Authorization: Bearer {token}",
         "--checks", "all", "--max-examples", "10", "--seed", "1", "--no-color", "--generation-database", "none",
         "--report-dir", str(tmp_path / "report")],
        capture_output=True, text=True, timeout=240, cwd=tmp_path)
    tail = result.stdout[-6000:]
    assert result.returncode == 0, tail
    assert "No issues found" in tail and "Authentication failed" not in tail, tail


def test_the_api_on_postgresql(tmp_path, start_server, monkeypatch):
    """The same SQL on a real PostgreSQL server: tokens, bulk create, pages, patch, delete, revoke."""
    pg = PostgresServer()
    try:
        config = json5.loads((ROOT / "config" / "examples" / "fitconnect.json5").read_text())
        config["storage"] = {"postgres": pg.url}
        cfg = tmp_path / "linkwell.json5"
        cfg.write_text(json.dumps(config))
        monkeypatch.setenv("LINKWELL_POSTGRES_PASSWORD", pg.PASSWORD)
        token = cli(cfg, "tokens", "create", "--name", "pg")
        old = cli(cfg, "tokens", "create", "--name", "old")
        server = start_server(cfg, extra=["--access-log", "off"])

        batch = [{"code": f"p{i:04d}", "target": f"https://fitconnect.app/p/{i}"} for i in range(2500)]
        status, _, body = api(server, "POST", "/api/v1/links", token=token, body=batch)
        assert status == 201 and body["count"] == 2500
        assert api(server, "POST", "/api/v1/links", token=token, body=batch[:1])[2]["error"]["code"] == "code_taken"
        seen, cursor = [], None
        while True:
            _, _, page = api(server, "GET", "/api/v1/links?limit=1000" + (f"&next={cursor}" if cursor else ""), token=token)
            seen += [l["code"] for l in page["links"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert seen == [b["code"] for b in batch]
        assert public(server, "/p0042")[0] == 302
        assert api(server, "PATCH", "/api/v1/links/fitconnect/p0042", token=token, body={"disabled": True})[2]["status"] == "disabled"
        assert public(server, "/p0042")[0] == 404
        assert api(server, "DELETE", "/api/v1/links/fitconnect/p0043", token=token)[0] == 204
        assert pg.psql("SELECT count(*) FROM links", database=pg.DATABASE).strip() == "2499"
        assert pg.psql("SELECT name, revoked FROM api_tokens ORDER BY name", database=pg.DATABASE).split() == ["old|0", "pg|0"]
        cli(cfg, "tokens", "revoke", "old")
        assert api(server, "GET", "/api/v1/links", token=old)[2]["error"]["code"] == "revoked_token"
        assert token not in pg.psql("SELECT hash FROM api_tokens", database=pg.DATABASE)
    finally:
        pg.close()
