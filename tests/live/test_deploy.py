"""Deployment for real: the shipped nginx and Caddy configs in front of the real binary on
loopback (TLS included), `linkwell doctor` against healthy and deliberately broken proxies, the
systemd unit, the Kubernetes manifests, and the container image's runtime stage under podman.

Every external process is started with a time limit and killed in `finally`."""
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import BINARY, ROOT, curl, generate

DEPLOY = ROOT / "config" / "deploy"
VENV_BIN = Path(__import__("sys").executable).parent

TEAM_APP = "ABCDE12345.com.example.shop"
FINGERPRINT = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
OTHER_FINGERPRINT = "AA:" + FINGERPRINT[3:]

CONFIG = """
{{
  sites: [
    {{
      name: "shop",
      domains: ["example.com", "www.example.com", "*.apps.example.net"],
      ios: [{{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"] }}],
      android: [{{ id: "android", package: "com.example.shop", fingerprints: ["{fingerprint}"] }}],
      routes: [
        {{ exclude: "/item/drafts/*" }},
        {{ name: "item", path: "/item/{{id}}" }},
        {{ name: "signup", path: "/signup", query: {{ referralCode: {{ required: true }} }} }},
        {extra}
      ],
    }},
  ],
}}
"""

HOSTS = ["example.com", "www.example.com", "apps.example.net"]
FILES = [
    ("/.well-known/apple-app-site-association", "aasa"),
    ("/apple-app-site-association", "aasa"),
    ("/.well-known/assetlinks.json", "assetlinks"),
]


def write_config(tmp_path, name="linkwell.json5", fingerprint=FINGERPRINT, extra=""):
    path = tmp_path / name
    path.write_text(CONFIG.format(fingerprint=fingerprint, extra=extra))
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=15, what="process"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on {port} within {timeout}s")


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture
def procs():
    started = []
    try:
        yield started
    finally:
        for p in reversed(started):
            stop(p)


def requests_for(server, path):
    return [e for e in server.events() if e.get("event") == "request" and e.get("path") == path]


# MARK: - nginx


def self_signed(tmp_path, hosts):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    san = ",".join(f"DNS:{h}" for h in hosts)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={hosts[0]}",
         "-addext", f"subjectAltName={san}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60)
    return key, cert


def start_nginx(tmp_path, procs, upstream):
    """The shipped config/deploy/nginx.conf, on loopback ports, TLS with a self-signed cert."""
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (prefix / d).mkdir()
    key, cert = self_signed(prefix, ["example.com", "www.example.com"])
    http_port, https_port = free_port(), free_port()
    site = (DEPLOY / "nginx.conf").read_text()
    site = site.replace("listen [::]:80;\n", "").replace("listen [::]:443 ssl http2;\n", "")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
    site = site.replace("server 127.0.0.1:8080;", f"server {upstream};")
    site = site.replace("/etc/nginx/linkwell-proxy.conf", str(prefix / "linkwell-proxy.conf"))
    site = site.replace("/etc/letsencrypt/live/example.com/fullchain.pem", str(cert))
    site = site.replace("/etc/letsencrypt/live/example.com/privkey.pem", str(key))
    directives = "\n".join(l for l in site.splitlines() if not l.lstrip().startswith("#"))
    assert f"127.0.0.1:{https_port}" in directives and "8080" not in directives and "/etc/" not in directives
    (prefix / "linkwell.conf").write_text(site)
    shutil.copy(DEPLOY / "linkwell-proxy.conf", prefix / "linkwell-proxy.conf")
    user = "user root root;\n" if os.geteuid() == 0 else ""
    (prefix / "nginx.conf").write_text(f"""
{user}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 128; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/linkwell.conf;
}}
""")
    test = subprocess.run(["nginx", "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "error.log")],
                          capture_output=True, text=True, timeout=30)
    assert test.returncode == 0, test.stderr
    proc = subprocess.Popen(
        ["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "error.log"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    procs.append(proc)
    wait_port(http_port, proc, what="nginx")
    wait_port(https_port, proc, what="nginx")
    return http_port, https_port, cert


@pytest.fixture
def nginx_stack(tmp_path, start_server, procs):
    config = write_config(tmp_path)
    server = start_server(config)
    http_port, https_port, cert = start_nginx(tmp_path, procs, server.addresses[0])

    def get(host, path, tls=True, *extra):
        port = https_port if tls else http_port
        scheme = "https" if tls else "http"
        return curl("--resolve", f"{host}:{port}:127.0.0.1", "--cacert", str(cert), *extra, f"{scheme}://{host}:{port}{path}")

    return config, server, get


@pytest.mark.parametrize("host", ["example.com", "www.example.com"])
@pytest.mark.parametrize("tls", [True, False], ids=["https", "http"])
def test_nginx_serves_files_unredirected(nginx_stack, host, tls):
    config, _, get = nginx_stack
    for path, which in FILES:
        status, headers, body = get(host, path, tls)
        assert status == 200, (host, path, status, headers)
        assert "location" not in headers
        assert headers["content-type"] == "application/json"
        assert body == generate(config, which)
        assert headers["cache-control"] == "public, max-age=300"


def test_nginx_redirects_everything_else(nginx_stack):
    _, _, get = nginx_stack
    status, headers, _ = get("example.com", "/item/1", False)
    assert status == 301 and headers["location"].startswith("https://example.com")
    status, headers, _ = get("www.example.com", "/item/1", True)
    assert status == 301 and headers["location"] == "https://example.com/item/1"
    status, headers, body = get("example.com", "/item/1", True)
    assert status == 200 and headers["content-type"].startswith("text/html")


def test_nginx_forwards_client_and_scheme(nginx_stack):
    """Spoofed forwarding headers from the client are replaced by what nginx saw."""
    _, server, get = nginx_stack
    spoof = ("-H", "X-Forwarded-For: 203.0.113.9", "-H", "Forwarded: for=198.51.100.7;proto=http", "-H", "X-Forwarded-Proto: http")
    status, _, _ = get("example.com", "/item/via-tls", True, *spoof)
    assert status == 200
    logged = server.wait_for(lambda e: e.get("event") == "request" and e.get("path") == "/item/via-tls")
    assert logged["client"] == "127.0.0.1"
    assert logged["scheme"] == "https"
    assert logged["route"] == "item" and logged["site"] == "shop"
    status, _, _ = get("www.example.com", "/.well-known/assetlinks.json", False, *spoof[:2])
    assert status == 200
    logged = server.wait_for(lambda e: e.get("event") == "request" and e.get("path") == "/.well-known/assetlinks.json")
    assert logged["client"] == "127.0.0.1" and logged["scheme"] == "http"


def test_nginx_keeps_upstream_connections_alive(nginx_stack):
    """After the requests are answered nginx still holds an idle connection to Linkwell."""
    if not shutil.which("ss"):
        pytest.skip("ss (iproute2) is not installed")
    _, server, get = nginx_stack
    for i in range(5):
        assert get("example.com", f"/item/k{i}", True)[0] == 200
    upstream_port = server.addresses[0].rsplit(":", 1)[1]
    out = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{upstream_port} )"],
                         capture_output=True, text=True, timeout=10).stdout
    assert 1 <= len(out.splitlines()) < 5, out


# MARK: - Caddy and doctor

CADDY_GLOBAL = """{{
\tadmin off
\tauto_https disable_redirects
\tskip_install_trust
\tlocal_certs
\tstorage file_system {{
\t\troot {storage}
\t}}
\thttp_port {http}
\thttps_port {https}
}}
"""


def caddyfile(upstream, storage, http_port, https_port, broken=None):
    """The shipped Caddyfile with loopback ports and `tls internal` (local_certs); `broken`
    replaces what the https site does for the association paths."""
    text = (DEPLOY / "Caddyfile").read_text()
    text = re.sub(r"\A(#[^\n]*\n)*\{\n.*?\n\}\n", "", text, flags=re.S)
    text = CADDY_GLOBAL.format(storage=storage, http=http_port, https=https_port) + text
    text = text.replace("127.0.0.1:8080", upstream)
    text = text.replace("http://example.com, http://www.example.com {",
                        ", ".join(f"http://{h}:{http_port}" for h in HOSTS) + " {")
    text = text.replace("\nexample.com, www.example.com {",
                        "\n" + ", ".join(f"https://{h}:{https_port}" for h in HOSTS) + " {")
    if broken:
        https_site = text.index(f"https://example.com:{https_port}")
        head, tail = text[:https_site], text[https_site:]
        tail = tail.replace("handle @association {\n\t\timport linkwell\n\t}", "handle @association {\n\t\t" + broken + "\n\t}", 1)
        text = head + tail
    return text


class Caddy:
    def __init__(self, tmp_path, procs, upstream, broken=None, name="caddy"):
        self.dir = tmp_path / name
        self.dir.mkdir()
        self.storage = tmp_path / "caddy-data" / "caddy"  # shared: one local CA per test
        self.http_port, self.https_port = free_port(), free_port()
        conf = self.dir / "Caddyfile"
        conf.write_text(caddyfile(upstream, self.storage, self.http_port, self.https_port, broken))
        env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "caddy-data"), XDG_CONFIG_HOME=str(self.dir / "config"), HOME=str(self.dir))
        self.log = open(self.dir / "caddy.log", "wb")
        self.proc = subprocess.Popen(["caddy", "run", "--config", str(conf), "--adapter", "caddyfile"],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        procs.append(self.proc)
        wait_port(self.https_port, self.proc, what="caddy")
        self.root = self.storage / "pki" / "authorities" / "local" / "root.crt"
        # The internal CA issues the certificates just after start.
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.root.exists():
                ok = subprocess.run(["curl", "-s", "-o", "/dev/null", "--cacert", str(self.root), *self.resolve_args(),
                                     f"https://example.com:{self.https_port}/"], timeout=10).returncode == 0
                if ok:
                    break
            time.sleep(0.2)
        else:
            raise AssertionError("caddy did not issue its internal certificates: " + (self.dir / "caddy.log").read_text()[-2000:])

    def resolve_args(self):
        out = []
        for h in HOSTS:
            out += ["--resolve", f"{h}:{self.https_port}:127.0.0.1", "--resolve", f"{h}:{self.http_port}:127.0.0.1"]
        return out

    def get(self, host, path, tls=True, *extra):
        port = self.https_port if tls else self.http_port
        return curl("--cacert", str(self.root), *self.resolve_args(), *extra, f"{'https' if tls else 'http'}://{host}:{port}{path}")

    def doctor(self, config, *extra, cacert=True, timeout=60):
        args = [str(BINARY), "doctor", f"https://example.com:{self.https_port}", "--config", str(config)]
        if cacert:
            args += ["--cacert", str(self.root)]
        for h in HOSTS:
            args += ["--resolve", f"{h}:{self.https_port}:127.0.0.1"]
        result = subprocess.run(args + list(extra), capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        return result.returncode, result.stdout.splitlines(), result.stderr


@pytest.fixture
def caddy_stack(tmp_path, start_server, procs):
    config = write_config(tmp_path)
    server = start_server(config)

    def start(broken=None, name="caddy"):
        return Caddy(tmp_path, procs, server.addresses[0], broken=broken, name=name)

    return config, server, start


@pytest.mark.parametrize("host", HOSTS)
def test_caddy_tls_internal_serves_files(caddy_stack, host):
    config, server, start = caddy_stack
    caddy = start()
    for path, which in FILES:
        for tls in (True, False):
            status, headers, body = caddy.get(host, path, tls)
            assert status == 200, (host, path, tls, status)
            assert "location" not in headers
            assert headers["content-type"] == "application/json"
            assert body == generate(config, which)
    # Everything else: http -> https, www -> apex.
    status, headers, _ = caddy.get(host, "/item/1", False)
    assert status == 308 and headers["location"].startswith("https://")
    status, headers, _ = caddy.get("www.example.com", "/item/1", True)
    assert status == 308 and headers["location"] == "https://example.com/item/1"
    # Caddy's X-Forwarded-For / -Proto replace what the client claims.
    caddy.get("example.com", "/item/caddy-tls", True, "-H", "X-Forwarded-For: 203.0.113.9", "-H", "Forwarded: for=198.51.100.7;proto=http")
    logged = server.wait_for(lambda e: e.get("event") == "request" and e.get("path") == "/item/caddy-tls")
    assert logged["client"] == "127.0.0.1" and logged["scheme"] == "https"


def test_doctor_healthy(caddy_stack):
    config, _, start = caddy_stack
    caddy = start()
    code, lines, err = caddy.doctor(config)
    out = "\n".join(lines)
    assert code == 0, out + err
    assert not [l for l in lines if l.startswith("FAIL")], out
    for host in HOSTS:
        assert any(l.startswith(f"PASS {host}") and "TLS certificate valid" in l for l in lines), out
        assert any(l.startswith(f"PASS {host}") and "/.well-known/apple-app-site-association is byte-identical" in l for l in lines), out
        assert any(l.startswith(f"PASS {host}") and "/.well-known/assetlinks.json is byte-identical" in l for l in lines), out
        assert any(l.startswith(f"PASS {host}") and "route 'item'" in l and f"iOS {TEAM_APP}" in l and "Android com.example.shop" in l for l in lines), out
        assert any(l.startswith(f"PASS {host}") and "route 'signup'" in l and "referralCode=" in l for l in lines), out
    assert any("apps.example.net (root of *.apps.example.net)" in l for l in lines), out
    assert lines[-1].startswith("doctor: ") and lines[-1].endswith(" 0 failed")


def fails(lines):
    return [l for l in lines if l.startswith("FAIL ")]


@pytest.mark.parametrize("broken,expect,fix", [
    ("redir https://www.example.com{uri} 301", "redirects (301 → https://www.example.com/.well-known/", "exempt it from the proxy's http→https"),
    ("reverse_proxy {upstream} {\n\t\t\theader_down Content-Type \"text/plain; charset=utf-8\"\n\t\t}",
     "Content-Type is 'text/plain; charset=utf-8', not application/json", "pass Linkwell's Content-Type through"),
    ("respond 404", "answers 404", "proxy /.well-known/"),
], ids=["redirect", "content-type", "404"])
def test_doctor_broken_proxy(caddy_stack, broken, expect, fix):
    config, server, start = caddy_stack
    caddy = start(broken=broken.replace("{upstream}", server.addresses[0]))
    code, lines, err = caddy.doctor(config)
    out = "\n".join(lines)
    assert code == 1, out + err
    bad = fails(lines)
    for host in HOSTS:
        for name in ("apple-app-site-association", "assetlinks.json"):
            assert any(l.startswith(f"FAIL {host}") and name in l and expect in l and f"— fix: " in l and fix in l for l in bad), (host, name, out)
    assert lines[-1].startswith("doctor: ") and not lines[-1].endswith(" 0 failed")


def test_doctor_drift_fingerprint_and_certificate(caddy_stack, tmp_path):
    config, _, start = caddy_stack
    caddy = start()
    # The local config has a different signing fingerprint (the upload key's, say).
    other = write_config(tmp_path, name="other.json5", fingerprint=OTHER_FINGERPRINT)
    code, lines, _ = caddy.doctor(other)
    bad = fails(lines)
    assert code == 1
    assert any("/.well-known/assetlinks.json does not verify com.example.shop" in l and "app-signing key" in l for l in bad), lines
    assert any("/.well-known/assetlinks.json differs from what the local config generates" in l and "reload Linkwell" in l for l in bad), lines
    # A route the served files do not claim yet.
    newer = write_config(tmp_path, name="newer.json5", extra='{ name: "promo", path: "/promo/{code}" }')
    code, lines, _ = caddy.doctor(newer)
    assert code == 1
    assert any(l.startswith("FAIL example.com: route 'promo' https://example.com/promo/") for l in fails(lines)), lines
    # Without the local CA the certificate is not trusted.
    code, lines, _ = caddy.doctor(config, cacert=False)
    assert code == 1
    assert any("certificate not valid" in l and "public CA" in l for l in fails(lines)), lines


def test_doctor_usage_errors():
    result = subprocess.run([str(BINARY), "doctor"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 64 and "Error:" in result.stderr
    result = subprocess.run([str(BINARY), "doctor", "ftp://example.com"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 64


# MARK: - systemd, Kubernetes, Dockerfile lint


def test_systemd_unit_verifies(tmp_path):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    unit = (DEPLOY / "linkwell.service").read_text()
    for key in ("DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "ProtectHome=yes", "PrivateTmp=yes",
                "CapabilityBoundingSet=\n", "ExecReload=/bin/kill -HUP $MAINPID", "RestrictAddressFamilies=", "SystemCallFilter=@system-service"):
        assert key in unit, key
    local = unit.replace("/usr/local/bin/linkwell", str(BINARY)).replace("WorkingDirectory=/usr/local/share/linkwell", f"WorkingDirectory={ROOT}")
    (tmp_path / "linkwell.service").write_text(local)
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "linkwell.service")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "linkwell.service" not in result.stderr, result.stderr


def test_kubernetes_manifests_validate(tmp_path):
    manifests = sorted((DEPLOY / "kubernetes").glob("*.yaml"))
    assert {m.name for m in manifests} >= {"deployment.yaml", "service.yaml", "configmap.yaml"}
    result = subprocess.run([str(VENV_BIN / "kubernetes-validate"), "--strict", *map(str, manifests)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    import yaml  # kubernetes-validate depends on PyYAML

    docs = {d["kind"]: d for m in manifests for d in yaml.safe_load_all(m.read_text()) if d}
    spec = docs["Deployment"]["spec"]
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    container = spec["template"]["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "admin"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "admin"}
    assert container["lifecycle"]["preStop"]["sleep"]["seconds"] > 0
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {"http": 8080, "admin": 9090}
    # The ConfigMap's config is one Linkwell accepts.
    (tmp_path / "cm.json5").write_text(docs["ConfigMap"]["data"]["linkwell.json5"])
    result = subprocess.run([str(BINARY), "validate", "--config", str(tmp_path / "cm.json5")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_lints():
    hadolint = VENV_BIN / "hadolint"
    result = subprocess.run([str(hadolint), "--failure-threshold", "error", str(ROOT / "Dockerfile")],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


# MARK: - The container image's runtime stage, under podman

RUNTIME_PACKAGES = "libmicrohttpd12,libqrencode4,librsvg2-2,fonts-dejavu-core,fonts-noto-core,fonts-noto-cjk,ca-certificates"


def debian_mirror():
    """The Debian mirror this machine's apt uses (deb822 .sources or one-line sources.list)."""
    candidates = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in candidates:
        if not path.is_file() or path.name.endswith((".disabled", ".save")) or "disabled" in path.name:
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".sources":
            for stanza in text.split("\n\n"):
                fields = dict(l.split(":", 1) for l in stanza.splitlines() if ":" in l and not l.startswith("#"))
                suites = fields.get("Suites", "").split()
                if "bookworm" in suites and fields.get("Enabled", "yes").strip() != "no":
                    return fields["URIs"].split()[0]
        else:
            for line in text.splitlines():
                m = re.match(r"\s*deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+bookworm\s", line + " ")
                if m:
                    return m.group(1)
    return "http://deb.debian.org/debian"


def runtime_rootfs():
    """A minimal bookworm root with the runtime packages, as a tarball cached under
    .build/rootfs-cache/ (debootstrap takes ~30 s; reruns reuse it)."""
    mirror = debian_mirror()
    key = hashlib.sha256(f"bookworm minbase {RUNTIME_PACKAGES} {mirror}".encode()).hexdigest()[:12]
    cache = ROOT / ".build" / "rootfs-cache"
    tarball = cache / f"bookworm-minbase-{key}.tar"
    if tarball.exists():
        return tarball
    cache.mkdir(parents=True, exist_ok=True)
    work = cache / f"tmp-{uuid.uuid4().hex[:8]}"
    try:
        result = subprocess.run(
            ["debootstrap", "--variant=minbase", f"--include={RUNTIME_PACKAGES}", "bookworm", str(work / "root"), mirror],
            capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        partial = tarball.with_suffix(".partial")
        subprocess.run(["tar", "-C", str(work / "root"), "-cf", str(partial), "."], check=True, timeout=300)
        partial.rename(tarball)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tarball


def release_binary():
    """`swift build -c release --static-swift-stdlib` (incremental when already built)."""
    result = subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib"], cwd=ROOT,
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    path = subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--show-bin-path"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True).stdout.strip()
    return Path(path) / "linkwell"


def podman(*args, timeout=120, check=True):
    result = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, f"podman {' '.join(args)}: {result.stderr[-3000:]}"
    return result


def container_tools_missing():
    if os.geteuid() != 0:
        return "debootstrap and rootful podman need root"
    for tool in ("podman", "debootstrap", "runc"):
        if not shutil.which(tool):
            return f"{tool} is not installed (scripts/install-deps.sh test installs it)"
    return None


@pytest.mark.slow
def test_container_runtime_stage(tmp_path):
    reason = container_tools_missing()
    if reason:
        pytest.skip(reason)
    tag = uuid.uuid4().hex[:10]
    base = f"localhost/linkwell-test-base:{tag}"
    image = f"localhost/linkwell-test:{tag}"
    name = f"linkwell-test-{tag}"
    before = set(podman("images", "-q", "--all", "--no-trunc").stdout.split())
    # Podman's default ulimits (nofile 1048576, nproc 32768) need CAP_SYS_RESOURCE, which
    # sandboxes such as this CI's drop; ask for limits the host allows.
    ulimits = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
    try:
        binary = release_binary()
        podman("import", str(runtime_rootfs()), base, timeout=300)
        context = tmp_path / "context"
        (context / "prebuilt").mkdir(parents=True)
        (context / "config").mkdir()
        shutil.copy(ROOT / "Dockerfile", context / "Dockerfile")
        shutil.copy(ROOT / ".dockerignore", context / ".dockerignore")
        shutil.copytree(ROOT / "public", context / "public")
        shutil.copy(ROOT / "config" / "linkwell.json5", context / "config" / "linkwell.json5")
        shutil.copy(binary, context / "prebuilt" / "linkwell")
        podman("build", "--network", "none", "--format", "docker", "--pull=never",
               "--build-arg", f"RUNTIME_IMAGE={base}", "--build-arg", "BINARY_FROM=prebuilt",
               "--target", "runtime", "-t", image, str(context), timeout=600)
        config = json.loads(podman("image", "inspect", image).stdout)[0]["Config"]
        config["Healthcheck"] = json.loads(podman("image", "inspect", "--format", "{{json .Config.Healthcheck}}", image).stdout)
        assert config["User"] == "10001:10001"
        assert config["Entrypoint"] == ["/usr/local/bin/linkwell"]
        assert set(config["ExposedPorts"]) == {"8080/tcp", "9090/tcp"}
        assert config["Healthcheck"]["Test"][:3] == ["CMD", "/usr/local/bin/linkwell", "healthcheck"]
        assert config["Cmd"][-4:] == ["--listen", "0.0.0.0:8080", "--admin", "0.0.0.0:9090"]

        port, admin = free_port(), free_port()
        podman("run", "-d", "--name", name, "--network", "host", "--no-healthcheck", *ulimits, image,
               "serve", "--config", "/etc/linkwell/linkwell.json5", "--listen", f"127.0.0.1:{port}", "--admin", f"127.0.0.1:{admin}")
        deadline = time.time() + 20
        while time.time() < deadline:
            if curl(f"http://127.0.0.1:{admin}/readyz", timeout=5)[0] == 200:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("container never became ready: " + podman("logs", name, check=False).stderr[-2000:])
        default = ROOT / "config" / "linkwell.json5"
        for path, which in FILES:
            status, headers, body = curl(f"http://127.0.0.1:{port}{path}")
            assert status == 200 and headers["content-type"] == "application/json"
            assert body == generate(default, which, site="diallodev")
        status, _, body = curl(f"http://127.0.0.1:{port}/static/linkwell.css")
        assert status == 200 and body == (ROOT / "public" / "static" / "linkwell.css").read_bytes()
        status, _, body = curl(f"http://127.0.0.1:{port}/post/42")
        assert status == 200 and b"https://diallodev.online/post/42" in body
        # The HEALTHCHECK command works inside the image (no curl there), as the non-root user.
        health = [a.replace("127.0.0.1:9090", f"127.0.0.1:{admin}") for a in config["Healthcheck"]["Test"][1:]]
        assert podman("exec", name, *health).returncode == 0
        assert podman("exec", name, "/usr/local/bin/linkwell", "healthcheck", f"http://127.0.0.1:{port}/nope", check=False).returncode == 1
        assert podman("exec", name, "id", "-u").stdout.strip() == "10001"
        assert podman("exec", name, "sh", "-c", "command -v curl wget", check=False).stdout.strip() == ""
        # PID 1 handles SIGTERM: a clean, quick exit, well before podman's kill timeout.
        started = time.time()
        podman("stop", "-t", "15", name, timeout=60)
        assert time.time() - started < 10
        state = json.loads(podman("inspect", name).stdout)[0]["State"]
        assert state["ExitCode"] == 0, state
        logs = podman("logs", name).stdout
        assert '"event":"shutting_down","signal":"SIGTERM"' in logs and '"event":"stopped"' in logs
    finally:
        podman("rm", "-f", "-t", "0", name, check=False, timeout=60)
        podman("rmi", "-f", image, base, check=False, timeout=60)
        # Intermediate stage images this build left behind (none of them existed before).
        for left in set(podman("images", "-q", "--all", "--no-trunc", "--filter", "dangling=true", check=False).stdout.split()) - before:
            podman("rmi", "-f", left, check=False, timeout=60)
