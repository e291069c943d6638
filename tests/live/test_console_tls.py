"""The console behind a TLS proxy: Caddy with `tls internal` in front of the admin listener. The
cookies carry Secure (the proxy, trusted from loopback, says https), a form from the plain-http
origin is refused, and the session works over https."""
import os
import re
import subprocess
import time

import pytest

from test_console import config  # noqa: F401 (the fixture)
from test_api import cli
from test_deploy import CADDY_GLOBAL, free_port, wait_port

HOST = "console.test"


@pytest.fixture
def procs():
    started = []
    yield started
    for p in started:
        p.kill()
        p.wait(timeout=10)


def request(*args):
    """(status, every Set-Cookie value, body) of one curl request."""
    r = subprocess.run(["curl", "-s", "-S", "-D", "/dev/stderr", "-o", "-", *args], capture_output=True, timeout=20)
    head = r.stderr.decode("latin-1")
    status = int(head.split()[1])
    cookies = [line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.lower().startswith("set-cookie:")]
    return status, cookies, r.stdout


def cookie_of(cookies, name):
    return next(c for c in cookies if c.startswith(name + "="))


def test_cookies_are_secure_behind_caddy_tls_internal(config, start_server, procs, tmp_path):
    token = cli(config, "tokens", "create", "--name", "ops")
    server = start_server(config)
    http_port, https_port = free_port(), free_port()
    storage = tmp_path / "caddy-data" / "caddy"
    conf = tmp_path / "Caddyfile"
    conf.write_text(CADDY_GLOBAL.format(storage=storage, http=http_port, https=https_port)
                    + f"https://{HOST}:{https_port} {{\n\ttls internal\n\treverse_proxy {server.admin}\n}}\n")
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "caddy-data"), XDG_CONFIG_HOME=str(tmp_path / "cfg"), HOME=str(tmp_path))
    log = open(tmp_path / "caddy.log", "wb")
    procs.append(subprocess.Popen(["caddy", "run", "--config", str(conf), "--adapter", "caddyfile"], stdout=log, stderr=subprocess.STDOUT, env=env))
    wait_port(https_port, procs[0], what="caddy")
    root = storage / "pki" / "authorities" / "local" / "root.crt"
    base = f"https://{HOST}:{https_port}"
    tls = ["--cacert", str(root), "--resolve", f"{HOST}:{https_port}:127.0.0.1"]
    deadline = time.time() + 20
    while not (root.exists() and subprocess.run(["curl", "-s", "-o", "/dev/null", *tls, base + "/healthz"], timeout=10).returncode == 0):
        assert time.time() < deadline, (tmp_path / "caddy.log").read_text()[-2000:]
        time.sleep(0.2)

    status, headers, body = request(*tls, base + "/")
    assert status == 200
    pre = cookie_of(headers, "lw_signin")
    assert "; Secure" in pre and "HttpOnly" in pre and "SameSite=Strict" in pre
    csrf = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    form = ["-X", "POST", "-H", f"Cookie: {pre.split(';')[0]}", "--data-urlencode", f"token={token}", "--data-urlencode", f"csrf={csrf}"]

    # The plain-http origin of the same host is another origin: refused.
    status, headers, _ = request(*tls, *form, "-H", f"Origin: http://{HOST}:{https_port}", base + "/console/sign-in")
    assert status == 403 and not any(c.startswith("lw_session") for c in headers)
    status, headers, _ = request(*tls, *form, "-H", f"Origin: {base}", base + "/console/sign-in")
    assert status == 303
    session = cookie_of(headers, "lw_session")
    assert "; Secure" in session and "HttpOnly" in session and "SameSite=Strict" in session
    status, _, body = request(*tls, "-H", f"Cookie: {session.split(';')[0]}", base + "/")
    assert status == 200 and b"Sign out" in body
