"""The server under real browsers, slow clients and many connections: the header budget (direct
and through the shipped nginx proxy config), a long Location, the request-head deadline, the
per-address and global connection limits (127.0.0.2 is the second client), the QR cache's memory
bound (RSS from /proc), log escaping, every refused request logged and counted once, SIGTERM
with half-sent heads, a missing publicDir, security headers on every HTML page.
Loopback only; every scenario is bounded (a few seconds, 30 s at most)."""
import json
import os
import signal
import socket
import subprocess
import time

import pytest

from conftest import BINARY, ROOT, Server, curl
from rawhttp import AASA_PATH, complete_responses, exchange, responses, split_address
from test_deploy import procs, start_nginx  # noqa: F401  (procs is a fixture)

DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
SITE = """
{{
  server: {{ {server} }},
  sites: [
    {{
      name: "shop", domains: ["example.com", "www.example.com"], {site}
      ios: [{{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", appStoreID: "123456789" }}],
      routes: [ {{ name: "item", path: "/item/{{id}}" }} ],
    }},
  ],
}}
"""


def write(tmp_path, server="", site="", name="linkwell.json5"):
    path = tmp_path / name
    path.write_text(SITE.format(server=server, site=site))
    return path


def metric(server, name):
    text = curl(server.admin_url("/metrics"))[2].decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def request_lines(server):
    return [e for e in server.events() if e.get("event") == "request"]


def cookie_header(count, size=45):
    return "Cookie: " + "; ".join(f"_ga{i}={'v' * size}" for i in range(count))


def raw_get(address, headers=(), host="example.com", path=AASA_PATH):
    data = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n".encode() + b"".join(h.encode() + b"\r\n" for h in headers) + b"\r\n"
    return responses(exchange(address, data, timeout=5, expect=1))


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# MARK: - Header budget


@pytest.mark.parametrize("headers,expected", [
    ([cookie_header(80)], 200),  # an iPhone on a domain with 80 analytics cookies (~4 KB)
    ([cookie_header(150)], 200),  # ~7.5 KB of cookies
    (["X-A: " + "a" * 7400, "X-B: " + "b" * 7400], 200),  # 15 KB head
    (["X-A: " + "a" * 6000, "X-B: " + "b" * 6000, "X-C: " + "c" * 6000], 431),  # 18 KB head
    ([cookie_header(200)], 431),  # a 10 KB Cookie line: over 8 KB a line
    ([cookie_header(150), "X-A: " + "a" * 7900], 200),  # 16 KB: an 8 KB Cookie line and 7.9 KB more
    ([cookie_header(240), "X-A: " + "a" * 4000], 431),  # a 13 KB Cookie line of 240 cookies and more
    ([f"X-{i}: " + "h" * 70 for i in range(200)], 431),  # 15.5 KB in 200 lines: no room left for the reply
], ids=["80-cookies", "150-cookies", "15KB-head", "18KB-head", "10KB-cookie-line", "16KB-head-8KB-cookie-line",
        "13KB-cookie-line-240-cookies", "15KB-head-200-lines"])
def test_header_budget_direct(tmp_path, start_server, headers, expected):
    server = start_server(write(tmp_path))
    raw = exchange(server.addresses[0], f"GET {AASA_PATH} HTTP/1.1\r\nHost: example.com\r\n".encode()
                   + b"".join(h.encode() + b"\r\n" for h in headers) + b"\r\n", timeout=5, expect=1)
    assert raw.count(b"HTTP/1.1 ") == 1, raw[:400]  # one well-formed status line and header block
    got = responses(raw)
    assert got and got[0][0] == expected, raw[:300]
    if expected == 431:
        assert got[0][1]["connection"] == "close"
        assert b"431" not in got[0][2] or b"Request Header Fields Too Large" in got[0][2]
    line = server.wait_for(lambda e: e.get("event") == "request" and e.get("status") == expected)
    assert line["path"] == AASA_PATH


@pytest.mark.parametrize("cookies", [80, 150])
def test_cookies_through_shipped_nginx(tmp_path, start_server, procs, cookies):  # noqa: F811
    config = write(tmp_path)
    server = start_server(config)
    # The nginx config `linkwell generate nginx` makes for this config, as deployed.
    http_port, https_port, cert = start_nginx(tmp_path, procs, config, server.addresses[0], hosts=["example.com"])
    status, _, body = curl("-H", cookie_header(cookies), "--resolve", f"example.com:{https_port}:127.0.0.1",
                           "--cacert", str(cert), f"https://example.com:{https_port}{AASA_PATH}")
    assert status == 200
    assert json.loads(body)["applinks"]


# MARK: - Long Location


def test_long_location_is_sent_and_an_unsendable_one_is_logged_as_failed(tmp_path, start_server):
    # ~250 CJK characters, percent-encoded: a 6.8 KB Location.
    long_target = "https://apps.example.com/store/" + "%E5%95%86" * 250
    server = start_server(write(tmp_path, site=f'notFound: {{ redirect: "{long_target}" }},'))
    got = raw_get(server.addresses[0], path="/nowhere")
    assert got[0][0] == 302
    assert got[0][1]["location"] == long_target
    # The same after a 16 KB head with an 8 KB Cookie line: the head, libmicrohttpd's records of
    # it and the 6.8 KB header block share one connection pool.
    raw = exchange(server.addresses[0], b"GET /nowhere HTTP/1.1\r\nHost: example.com\r\n" + cookie_header(150).encode()
                   + b"\r\nX-A: " + b"a" * 7900 + b"\r\n\r\n", timeout=5, expect=1)
    assert raw.count(b"HTTP/1.1 ") == 1, raw[:300]
    got = responses(raw)
    assert got[0][0] == 302 and got[0][1]["location"] == long_target
    line = server.wait_for(lambda e: e.get("event") == "request" and e.get("path") == "/nowhere")
    assert line["status"] == 302 and "outcome" not in line

    huge = "https://apps.example.com/store/" + "x" * 60000  # more than the connection's memory
    other = start_server(write(tmp_path, site=f'notFound: {{ redirect: "{huge}" }},', name="huge.json5"))
    assert raw_get(other.addresses[0], path="/nowhere") == []  # nothing could be sent
    line = other.wait_for(lambda e: e.get("event") == "request" and e.get("path") == "/nowhere")
    assert line["status"] == 0 and line["intended_status"] == 302 and line["outcome"] == "error"
    assert metric(other, 'linkwell_requests_total{site="shop",kind="redirect"') == 0
    assert metric(other, "linkwell_requests_unsent_total") == 1


# MARK: - Slow clients and connection limits


def open_partial(address, source=None, count=1):
    """Connections that sent a request line and half a header, and nothing more."""
    host, port = split_address(address)
    out = []
    for _ in range(count):
        s = socket.socket()
        if source:
            s.bind((source, 0))
        s.connect((host, port))
        s.sendall(b"GET " + AASA_PATH.encode() + b" HTTP/1.1\r\nHost: exa")
        out.append(s)
    return out


def wait_open(server, count):
    """Waits until the public listener holds `count` connections (it accepts on several threads)."""
    deadline = time.time() + 10
    while metric(server, "linkwell_connections_open") < count and time.time() < deadline:
        time.sleep(0.05)
    assert metric(server, "linkwell_connections_open") == count


def closed_by_server(sock, timeout):
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def test_request_head_deadline_cuts_a_byte_dripping_client(tmp_path, start_server):
    server = start_server(write(tmp_path, server="requestHeadTimeoutSeconds: 2, perIPConnectionLimit: 0"))
    host, port = split_address(server.addresses[0])
    slow = socket.create_connection((host, port))
    slow.settimeout(0.3)
    sent, cut = 0, False
    for byte in b"GET /.well-known/apple-app-site-association HTTP/1.1\r\nHost: example.com\r\nX-Slow: " + b"z" * 40:
        try:
            slow.sendall(bytes([byte]))
            sent += 1
            if slow.recv(1) == b"":
                cut = True
                break
        except socket.timeout:
            pass
        except (ConnectionResetError, BrokenPipeError):
            cut = True
            break
        # Meanwhile a normal client from the second address is answered.
        if sent == 4:
            assert curl("--interface", "127.0.0.2", "-H", "Host: example.com", server.url(AASA_PATH))[0] == 200
    assert cut, f"still open after {sent} bytes at 0.3 s each"
    server.wait_for(lambda e: e.get("event") == "connections_closed" and e.get("reason") == "request_head_deadline")
    assert metric(server, 'linkwell_connections_closed_total{reason="request_head_deadline"}') == 1
    # A cut head is no request: nothing was answered, nothing logged as one.
    assert [e for e in request_lines(server) if e.get("client") == "127.0.0.1"] == []


def test_per_address_limit_refuses_at_once_and_another_address_is_served(tmp_path, start_server):
    # Loopback is not a trusted proxy here, so the per-address limit applies to it.
    config = write(tmp_path, server='perIPConnectionLimit: 20, trustedProxies: ["10.0.0.0/8"]')
    server = start_server(config)
    held = open_partial(server.addresses[0], count=20)
    # The server accepts on more than one thread: the 20 must be in before the 30 more arrive, or
    # which 20 of the 50 get in is a race (the limit holds either way).
    wait_open(server, 20)
    extra = open_partial(server.addresses[0], count=30)
    try:
        assert all(closed_by_server(s, 5) for s in extra), "connections over the per-address limit are closed at once"
        assert not any(closed_by_server(s, 0.2) for s in held[:3])
        assert curl("--interface", "127.0.0.2", "-H", "Host: example.com", server.url(AASA_PATH))[0] == 200
        event = server.wait_for(lambda e: e.get("event") == "connections_refused")
        assert event["reason"] == "per_address_limit" and event["clients"] == ["127.0.0.1"]
        assert metric(server, 'linkwell_connections_refused_total{reason="per_address_limit"}') == 30
        assert curl(server.admin_url("/readyz"))[0] == 200  # one noisy address does not make it unready
    finally:
        for s in held + extra:
            s.close()


def test_global_limit_refuses_at_once_and_readyz_reports_saturation(tmp_path, start_server):
    server = start_server(write(tmp_path, server="connectionLimit: 20, perIPConnectionLimit: 0"))
    held = open_partial(server.addresses[0], count=20)
    try:
        wait_open(server, 20)
        status, _, body = curl(server.admin_url("/readyz"))
        assert status == 503 and b"saturated: 20 of 20" in body
        late = open_partial(server.addresses[0], source="127.0.0.2")[0]
        assert closed_by_server(late, 5), "a connection over the global limit is closed at once, not queued"
        assert metric(server, 'linkwell_connections_refused_total{reason="connection_limit"}') == 1
        assert metric(server, "linkwell_connections_open") == 20
    finally:
        for s in held:
            s.close()
    deadline = time.time() + 10
    while curl(server.admin_url("/readyz"))[0] != 200 and time.time() < deadline:
        time.sleep(0.1)
    assert curl(server.admin_url("/readyz"))[0] == 200


# MARK: - Memory


def test_qr_cache_is_bounded_and_rss_stays_under_64_mb(tmp_path, start_server):
    server = start_server(write(tmp_path, site="website: \"https://example.com\","))
    links = tmp_path / "links.txt"
    # 1,500 distinct ~2 KB desktop links (each a QR code of a 2 KB URL), on one keep-alive connection.
    links.write_text("".join(f'url = "{server.url(f"/item/{i:05d}" + "q" * 2000)}"\noutput = "/dev/null"\n' for i in range(1500)))
    before = rss_kib(server.proc.pid)
    subprocess.run(["curl", "-s", "-K", str(links), "-H", f"User-Agent: {DESKTOP}", "-H", "Host: example.com"],
                   check=True, timeout=120)
    after = rss_kib(server.proc.pid)
    assert after < 64 * 1024, f"RSS {after} KiB after 1,500 distinct QR pages (was {before} KiB)"
    server.signal(signal.SIGHUP)
    server.wait_for(lambda e: e.get("event") == "reloaded")
    assert rss_kib(server.proc.pid) < 64 * 1024
    assert metric(server, 'linkwell_requests_total{site="shop",kind="page",status="200"}') == 1500


def keep_alive_aasa(address, count):
    """`count` connections that each got one AASA response and stay open (keep-alive)."""
    host, port = split_address(address)
    request = f"GET {AASA_PATH} HTTP/1.1\r\nHost: diallodev.online\r\n\r\n".encode()
    held = []
    for _ in range(count):
        s = socket.create_connection((host, port), timeout=10)
        held.append(s)
        s.sendall(request)
        raw = b""
        while not complete_responses(raw):
            chunk = s.recv(65536)
            assert chunk, f"connection {len(held)} closed: {raw[:200]!r}"
            raw += chunk
        assert raw.startswith(b"HTTP/1.1 200 "), raw[:200]
        assert b"connection: close" not in raw.lower()
    return held


def release_binary():
    """The build users run (`make run`): a debug binary's code pages alone are ~11 MB more resident.
    Built here when missing or stale (incremental: seconds when it is current)."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "linkwell"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, timeout=1800)
    return ROOT / ".build" / "release" / "linkwell"


@pytest.mark.slow
def test_rss_at_1000_keep_alive_connections_stays_under_64_mb(start_server):
    # The shipped config (three sites) on the release build; the default site answers any Host.
    server = start_server(ROOT / "config" / "linkwell.json5", binary=release_binary())
    idle = rss_kib(server.proc.pid)
    held = keep_alive_aasa(server.addresses[0], 1000)
    try:
        assert metric(server, "linkwell_connections_open ") == 1000
        # Each connection keeps its libmicrohttpd pool (zeroed after the request, so resident).
        after = rss_kib(server.proc.pid)
        assert after <= 64 * 1024, f"RSS {after} KiB at 1000 keep-alive connections (idle {idle} KiB)"
    finally:
        for s in held:
            s.close()


def test_connection_close_requests_map_no_memory_per_connection(tmp_path):
    """libmicrohttpd 0.9.75 `mmap`s a connection pool over 32 KiB and `munmap`s it when the
    connection closes; the default pool is `malloc`ed. 1,000 `Connection: close` requests under
    strace: the mappings made meanwhile are a handful (the allocator's), not one per connection."""
    trace = tmp_path / "strace.txt"
    proc = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=mmap,munmap", "-o", str(trace), str(BINARY), "serve",
                             "--config", str(write(tmp_path)), "--listen", "127.0.0.1:0", "--admin", "off", "--access-log", "off"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        address = json.loads(proc.stdout.readline())["addresses"][0]  # the "listening" line
        request = f"GET {AASA_PATH} HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n".encode()
        exchange(address, request, timeout=5, expect=1)  # the polling threads' first allocations
        time.sleep(0.5)
        before = trace.read_text().count("\n")
        for _ in range(1000):
            raw = exchange(address, request, timeout=5, expect=1)
            assert raw.startswith(b"HTTP/1.1 200 ") and b"Connection: close" in raw, raw[:200]
        time.sleep(0.5)
        during = trace.read_text().splitlines()[before:]
    finally:
        # Killing strace would leave the server running, detached: stop the server first.
        try:
            for child in open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split():
                os.kill(int(child), signal.SIGKILL)
        except OSError:
            pass  # strace and the server are gone already
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    calls = [line for line in during if " mmap(" in line or " munmap(" in line]
    assert len(calls) < 50, f"{len(calls)} mmap/munmap calls over 1,000 connections:\n" + "\n".join(calls[:10])


# MARK: - Logs


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_del_and_c1_controls_are_escaped_in_the_log(tmp_path, log_format):
    config = write(tmp_path)
    proc = subprocess.Popen([str(BINARY), "serve", "--config", str(config), "--listen", "127.0.0.1:0", "--admin", "off",
                             "--log-format", log_format], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = proc.stdout.readline().decode()
        address = json.loads(first)["addresses"][0] if log_format == "json" else first.split("addresses=")[1].split()[0]
        exchange(address, "GET /item/a\u009b31mb HTTP/1.1\r\nHost: example.com\r\n\r\n".encode(), timeout=5, expect=1)
        exchange(address, b"GET /item/x\x7fy HTTP/1.1\r\nHost: example.com\r\n\r\n", timeout=5, expect=1)
        lines = [proc.stdout.readline() for _ in range(2)]
    finally:
        proc.kill()
        proc.wait(timeout=10)
    raw = b"".join(lines)
    assert b"\x7f" not in raw and "\u009b".encode() not in raw, raw
    assert b"\\u009b" in raw and b"\\u007f" in raw, raw


def test_every_refused_request_is_logged_and_counted_once(tmp_path, start_server):
    server = start_server(write(tmp_path))
    bad = [
        b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: example.com\r\n\r\n",  # 414 (ours)
        b"GET /" + b"a" * 40000 + b" HTTP/1.1\r\nHost: example.com\r\n\r\n",  # 414 (libmicrohttpd)
        b"GET / HTTP/1.1\r\nHost: example.com\r\n" + b"".join(b"X%d: %d\r\n" % (i, i) for i in range(1000)) + b"\r\n",  # 431 (MHD)
        b"GET / HTTP/1.1\r\nHost: example.com\r\nX: " + b"x" * 9000 + b"\r\n\r\n",  # 431 (ours)
        b"GET / HTTP/2.0\r\nHost: example.com\r\n\r\n",  # 505 (MHD)
        b"GET / HTTP/1.1\r\n\r\n",  # 400 no Host
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: gzip\r\n\r\n",  # 501
        b"GET / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 99999999999999999999999\r\n\r\n",  # 413 (MHD)
        b"POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\n\r\nabc",  # 405
        b"GET /%zz HTTP/1.1\r\nHost: example.com\r\n\r\n",
        b"GET /a\x00b HTTP/1.1\r\nHost: example.com\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: example.com\r\nX: a\x01b\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: example.com\r\nX: a\r\n b\r\n\r\n",
        b"GET /../x HTTP/1.1\r\nHost: example.com\r\n\r\n",
    ]
    statuses = []
    for data in bad:
        got = responses(exchange(server.addresses[0], data, timeout=5, expect=1))
        statuses.append(got[0][0] if got else 0)
    assert 0 not in statuses, statuses
    deadline = time.time() + 10
    while len(request_lines(server)) < len(bad) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # nothing more may come
    logged = sorted(e["status"] for e in request_lines(server))
    assert logged == sorted(statuses), (logged, statuses)
    assert metric(server, "linkwell_requests_total") == len(bad)


# MARK: - Stopping


def test_sigterm_closes_half_sent_heads_at_once(tmp_path, start_server):
    server = start_server(write(tmp_path, server="shutdownDeadlineSeconds: 60, perIPConnectionLimit: 0"))
    held = open_partial(server.addresses[0], count=20)
    try:
        server.signal(signal.SIGTERM)
        # Far below the 60 s deadline: nothing waits for the 20 half-sent heads.
        assert server.proc.wait(timeout=20) == 0
        stopped = server.wait_for(lambda e: e.get("event") == "stopped")
        assert stopped["drained"] is True
        assert all(closed_by_server(s, 5) for s in held)
    finally:
        for s in held:
            s.close()


def test_second_sigterm_exits_at_once(tmp_path, start_server):
    public = tmp_path / "public"
    public.mkdir()
    (public / "big.bin").write_bytes(bytes(range(256)) * 4096 * 12)  # 12 MiB: more than the socket buffers
    server = start_server(write(tmp_path, server='publicDir: "public", shutdownDeadlineSeconds: 60'))
    host, port = split_address(server.addresses[0])
    # A client that reads the first bytes of a 12 MiB response and then stops reading: the
    # response stays in flight (more than the socket buffers hold).
    reader = socket.create_connection((host, port))
    try:
        reader.sendall(b"GET /big.bin HTTP/1.1\r\nHost: example.com\r\n\r\n")
        assert reader.recv(16).startswith(b"HTTP/1.1 200")
        server.signal(signal.SIGTERM)
        server.wait_for(lambda e: e.get("event") == "shutting_down")
        server.signal(signal.SIGTERM)
        assert server.proc.wait(timeout=20) == 1  # far below the 60 s deadline
        stopped = server.wait_for(lambda e: e.get("event") == "stopped")
        assert stopped["forced"] is True and stopped["cut_requests"] == 1
    finally:
        reader.close()


# MARK: - publicDir and security headers


def test_missing_public_dir_is_an_error_at_start_and_on_reload(tmp_path, start_server):
    bad = write(tmp_path, server='publicDir: "no-such-folder"', name="bad.json5")
    result = subprocess.run([str(BINARY), "serve", "--config", str(bad), "--listen", "127.0.0.1:0", "--admin", "off"],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert "server.publicDir" in result.stderr and "no-such-folder" in result.stderr and "not a directory" in result.stderr
    assert "listening" not in result.stdout

    (tmp_path / "public").mkdir()
    good = write(tmp_path, server='publicDir: "public"')
    server = start_server(good)
    write(tmp_path, server='publicDir: "gone"')
    server.signal(signal.SIGHUP)
    failed = server.wait_for(lambda e: e.get("event") == "reload_failed")
    assert any("server.publicDir" in e for e in failed["errors"])


@pytest.mark.parametrize("path,status", [("/item/1", 200), ("/nowhere", 404)])
def test_security_headers_on_every_html_page_even_without_templates(tmp_path, start_server, path, status):
    (tmp_path / "public").mkdir()  # no templates: the minimal pages
    server = start_server(write(tmp_path, server='publicDir: "public"'))
    got, headers, _ = curl("-H", "Host: example.com", "-A", DESKTOP, server.url(path))
    assert got == status
    assert headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
