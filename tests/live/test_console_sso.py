"""Single sign-on for the console behind a real nginx `auth_request`: the proxy asks a small auth
service, passes the user and role it names in headers, and connects from 127.0.0.2, the only
address in server.consoleSSOProxies. A write user changes a link (audited as `sso`), a read user
cannot, and the same headers sent straight to the admin listener (from 127.0.0.1) are ignored."""
import base64
import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import json5
import pytest
import requests

from conftest import ROOT
from test_api import api, cli
from test_deploy import free_port, nginx_main, nginx_prefix, wait_port

USERS = {"alice": "write", "bob": "read", "mallory": "owner"}


class Auth(BaseHTTPRequestHandler):
    """nginx's auth_request target: 200 with X-User and X-Role for a known Basic user, else 401."""
    def do_GET(self):
        header = self.headers.get("Authorization", "")
        user = base64.b64decode(header[6:]).decode().split(":")[0] if header.startswith("Basic ") else None
        self.send_response(200 if user in USERS else 401)
        if user in USERS:
            self.send_header("X-User", user)
            self.send_header("X-Role", USERS[user])
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def auth_service():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Auth)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


@pytest.fixture
def config(tmp_path):
    cfg = json5.loads((ROOT / "config" / "examples" / "fitconnect.json5").read_text())
    cfg.setdefault("server", {}).update({"consoleUserHeader": "X-Auth-User", "consoleRoleHeader": "X-Auth-Role", "consoleSSOProxies": ["127.0.0.2"]})
    path = tmp_path / "linkwell.json5"
    path.write_text(json.dumps(cfg))
    return path


def test_forward_auth_through_nginx_auth_request(config, start_server, auth_service, tmp_path):
    writer = cli(config, "tokens", "create", "--name", "ci", "--scope", "write")
    server = start_server(config)
    assert api(server, "POST", "/api/v1/links", token=writer, body={"code": "spring", "target": "https://fitconnect.app/signup?referralCode=S"})[0] == 201
    prefix = nginx_prefix(tmp_path)
    port = free_port()
    (prefix / "console.conf").write_text(f"""
server {{
    listen 127.0.0.1:{port};
    location = /_auth {{
        internal;
        proxy_pass http://127.0.0.1:{auth_service};
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
    }}
    location / {{
        auth_request /_auth;
        auth_request_set $user $upstream_http_x_user;
        auth_request_set $role $upstream_http_x_role;
        proxy_set_header X-Auth-User $user;
        proxy_set_header X-Auth-Role $role;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_bind 127.0.0.2;
        proxy_pass http://{server.admin};
    }}
}}
""")
    checked = nginx_main(prefix, prefix / "console.conf")
    assert checked.returncode == 0, checked.stderr
    nginx = subprocess.Popen(["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "error.log"), "-g", "daemon off;"])
    try:
        wait_port(port, nginx, what="nginx")
        base = f"http://127.0.0.1:{port}"
        origin = {"Origin": base}
        iphone = {"Host": "fitconnect.app", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"}

        assert requests.get(base + "/").status_code == 401  # nginx: no user
        alice = requests.Session()
        alice.auth = ("alice", "pw")
        page = alice.get(base + "/")
        assert page.status_code == 200 and "alice" in page.text and "(write)" in page.text and "<code>spring</code>" in page.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        form = {"site": "fitconnect", "code": "spring", "action": "disable"}
        assert alice.post(base + "/console/links/toggle", data=form, headers=origin, allow_redirects=False).status_code == 403  # no CSRF
        r = alice.post(base + "/console/links/toggle", data={**form, "csrf": csrf}, headers=origin)
        assert r.status_code == 200 and "Link spring disabled." in r.text
        assert requests.get(server.url("/spring"), headers=iphone, allow_redirects=False).status_code == 404

        bob = requests.Session()
        bob.auth = ("bob", "pw")
        view = bob.get(base + "/")
        assert "(read)" in view.text and "read only" in view.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', view.text).group(1)
        r = bob.post(base + "/console/links/toggle", data={**form, "action": "enable", "csrf": csrf}, headers=origin, allow_redirects=False)
        assert r.status_code == 403
        mallory = requests.get(base + "/", auth=("mallory", "pw"))
        assert mallory.status_code == 403 and "owner" in mallory.text

        # The same headers straight to the admin listener (not from 127.0.0.2): ignored.
        forged = requests.get(server.admin_url("/"), headers={"X-Auth-User": "alice", "X-Auth-Role": "admin"})
        assert forged.status_code == 200 and 'name="token"' in forged.text and "alice" not in forged.text
        server.wait_for(lambda e: e.get("event") == "console_sso_ignored")
        # Alice's cookie without the proxy is no session either.
        replay = requests.Session()
        replay.cookies.update(dict(alice.cookies))
        assert 'name="token"' in replay.get(server.admin_url("/")).text

        entries = api(server, "GET", "/api/v1/audit", token=cli(config, "tokens", "create", "--name", "ops"))[2]["entries"]
        assert [(e["actor"], e["via"], e["action"], e["outcome"]) for e in entries[:3]] == [
            ("bob", "sso", "refused", "refused: insufficient_scope (read scope)"),
            ("alice", "sso", "link.update", "ok"),
            ("alice", "sso", "refused", "refused: csrf"),
        ]
        assert entries[1]["client"] == "127.0.0.1"
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
