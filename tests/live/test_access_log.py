"""The buffered access log: nothing lost at SIGTERM, SIGUSR1 reopens the file, whole lines under load."""
import http.client
import json
import signal
import threading
import time
import urllib.request

from conftest import ROOT

DEFAULT = ROOT / "config" / "linkwell.json5"
AASA = "/.well-known/apple-app-site-association"


def send(server, paths):
    """GETs each path on one keep-alive connection; returns the statuses."""
    host, port = server.addresses[0].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=20)
    statuses = []
    for path in paths:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        statuses.append(response.status)
    conn.close()
    return statuses


def wait_counted(server, n):
    """Until /metrics counts n requests (a request's line is buffered before it is counted)."""
    deadline = time.time() + 20
    while time.time() < deadline:
        text = urllib.request.urlopen(server.admin_url("/metrics"), timeout=10).read().decode()
        counted = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("linkwell_requests_total{"))
        if counted >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"/metrics counted {counted} requests, expected {n}")


def stop(server):
    server.signal(signal.SIGTERM)
    assert server.proc.wait(timeout=30) == 0


def request_lines(text):
    return [json.loads(line) for line in text.splitlines() if json.loads(line).get("event") == "request"]


def test_sigterm_loses_no_line_on_stdout(start_server):
    server = start_server(DEFAULT, extra=["--threads", "2"])
    paths = [f"{AASA}?n={i}" for i in range(500)] + [f"/missing/{i}" for i in range(500)]
    send(server, paths)
    stop(server)
    server._reader.join(timeout=10)
    logged = [e for e in server.events() if e.get("event") == "request"]
    assert len(logged) == len(paths)
    assert sorted(e["path"] for e in logged) == sorted(p.split("?")[0] for p in paths)
    # The request lines come before the last event: the log was flushed before "stopped".
    assert server.events()[-1]["event"] == "stopped"


def test_sigusr1_reopens_a_rotated_file(start_server, tmp_path):
    log = tmp_path / "access.log"
    server = start_server(DEFAULT, extra=["--access-log", str(log)])
    send(server, [f"/before/{i}" for i in range(5)])
    wait_counted(server, 5)
    log.rename(tmp_path / "access.log.1")
    server.signal(signal.SIGUSR1)
    server.wait_for(lambda e: e.get("event") == "access_log_reopened" and e.get("path") == str(log))
    send(server, [f"/after/{i}" for i in range(7)])
    stop(server)
    rotated = request_lines((tmp_path / "access.log.1").read_text())
    fresh = request_lines(log.read_text())
    assert [e["path"] for e in rotated] == [f"/before/{i}" for i in range(5)]
    assert [e["path"] for e in fresh] == [f"/after/{i}" for i in range(7)]
    # Nothing about requests went to stdout.
    assert not [e for e in server.events() if e.get("event") == "request"]


def test_access_log_file_that_cannot_be_opened(start_server, tmp_path):
    import subprocess
    from conftest import BINARY
    result = subprocess.run([str(BINARY), "serve", "--config", str(DEFAULT), "--listen", "127.0.0.1:0", "--admin", "off",
                             "--access-log", str(tmp_path / "no-such-dir" / "access.log")], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert f"cannot open the access log {tmp_path}/no-such-dir/access.log for appending: No such file or directory" in result.stderr


def test_concurrent_lines_are_whole(start_server, tmp_path):
    log = tmp_path / "access.log"
    server = start_server(DEFAULT, extra=["--access-log", str(log), "--threads", "2"])
    hostile = ['/q"uote', "/back\\slash", "/%0Anewline", "/%1B[31m", "/%C2%9B2J", "/%E2%80%A8", "/%C3%A9", "/" + "x" * 400]
    clients, each = 8, 150
    threads = [threading.Thread(target=send, args=(server, [f"{hostile[i % len(hostile)]}/{c}/{i}" for i in range(each)]))
               for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop(server)
    text = log.read_text()
    assert text.endswith("\n")
    lines = text.splitlines()
    assert len(lines) == clients * each
    parsed = [json.loads(line) for line in lines]  # every line is one whole JSON object
    assert all(e["event"] == "request" for e in parsed)
    assert len({e["path"] for e in parsed}) == clients * each
