"""Token scopes and the audit log against the real server: a read token reads but gets 403 on
every write before its body is read (nothing changes, the refusal is audited), a write token
writes (create, change, delete, each audited with who, what changed and from where) but cannot
read the audit log, tokens made before scopes existed keep full rights, and GET /api/v1/audit
pages newest first."""
import json
import sqlite3

from test_console import config  # noqa: F401 (the fixture)
from test_api import api, cli


def test_scopes_are_enforced_and_every_write_is_audited(config, start_server):
    admin = cli(config, "tokens", "create", "--name", "boss")  # no --scope: admin, as before
    writer = cli(config, "tokens", "create", "--name", "ci", "--scope", "write")
    reader = cli(config, "tokens", "create", "--name", "dash", "--scope", "read")
    listed = {t["name"]: t["scope"] for t in json.loads(cli(config, "tokens", "list", "--json"))}
    assert listed == {"boss": "admin", "ci": "write", "dash": "read"}
    server = start_server(config, extra=["--access-log", "off"])

    # A read token reads, and is refused every write with a 403 that names the scope needed.
    assert api(server, "GET", "/api/v1/links", token=reader)[0] == 200
    assert api(server, "GET", "/api/v1/stats", token=reader)[0] == 200
    status, headers, body = api(server, "POST", "/api/v1/links", token=reader, body={"code": "nope", "target": "https://fitconnect.app/about"})
    assert status == 403 and 'error="insufficient_scope"' in headers["WWW-Authenticate"]
    assert body["error"]["code"] == "insufficient_scope"
    assert body["error"]["message"] == ("the token 'dash' has scope 'read', which cannot change links; this needs a 'write' token. "
                                        "Nothing was changed.")
    assert "linkwell tokens create --scope write" in body["error"]["fix"]
    assert api(server, "GET", "/api/v1/links/fitconnect/nope", token=admin)[0] == 404

    # A write token creates, changes and deletes; each write is one audit entry.
    status, _, link = api(server, "POST", "/api/v1/links", token=writer, body={"code": "spring", "target": "https://fitconnect.app/about", "previewTitle": "Old"})
    assert status == 201
    for method, extra in (("PATCH", {"previewTitle": "New"}), ("DELETE", None)):
        assert api(server, method, "/api/v1/links/fitconnect/spring", token=reader, body=extra)[0] == 403
    assert api(server, "PATCH", "/api/v1/links/fitconnect/spring", token=writer, body={"previewTitle": "New"})[0] == 200
    assert api(server, "DELETE", "/api/v1/links/fitconnect/spring", token=writer)[0] == 204

    # The audit log: admin only; newest first; who, what, from where.
    status, _, body = api(server, "GET", "/api/v1/audit", token=writer)
    assert status == 403 and "'admin' token" in body["error"]["message"]
    status, _, body = api(server, "GET", "/api/v1/audit", token=admin)
    assert status == 200 and body["next"] is None
    entries = body["entries"]
    assert [(e["actor"], e["action"], e["outcome"]) for e in entries] == [
        ("ci", "link.delete", "ok"), ("ci", "link.update", "ok"),
        ("dash", "refused", "refused: insufficient_scope (read scope)"),
        ("dash", "refused", "refused: insufficient_scope (read scope)"),
        ("ci", "link.create", "ok"),
        ("dash", "refused", "refused: insufficient_scope (read scope)"),
    ]
    assert all(e["client"] == "127.0.0.1" and e["via"] == "token" for e in entries)
    assert entries[1]["detail"] == {"previewTitle": {"before": "Old", "after": "New"}}
    assert entries[4]["detail"]["target"] == "https://fitconnect.app/about" and entries[4]["code"] == "spring"
    assert [entries[i]["detail"]["method"] for i in (2, 3, 5)] == ["DELETE", "PATCH", "POST"]
    assert entries[5]["detail"] == {"method": "POST", "path": "/api/v1/links"}
    ids = [e["id"] for e in entries]
    assert ids == sorted(ids, reverse=True)
    status, _, page = api(server, "GET", "/api/v1/audit?limit=2", token=admin)
    assert [e["id"] for e in page["entries"]] == ids[:2] and page["next"] == str(ids[1])
    status, _, page = api(server, "GET", f"/api/v1/audit?limit=2&before={page['next']}", token=admin)
    assert [e["id"] for e in page["entries"]] == ids[2:4]
    assert api(server, "GET", "/api/v1/audit?limit=0", token=admin)[0] == 400
    # The audit log is in the database, not only in memory.
    with sqlite3.connect(config.parent / "linkwell.db") as con:
        assert con.execute("SELECT count(*) FROM audit_log").fetchone()[0] == 6
    # The OpenAPI document describes the endpoint.
    doc = api(server, "GET", "/api/v1/openapi.json")[2]
    assert "get" in doc["paths"]["/api/v1/audit"]
