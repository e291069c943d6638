"""The caches keyed by request headers (the browser facts of each User-Agent, the language of each
Accept-Language, on route pages and on short links with overrides) are bounded by bytes and keyed
by a hash of a capped prefix: 10,000 distinct 8 KB User-Agents with 7 KB Accept-Languages, then a
reload and more of them, keep the RSS (/proc/PID/status) at most 64 MB."""
import signal
import socket
import subprocess

from conftest import BINARY
from rawhttp import split_address
from test_limits import metric, rss_kib, write

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"


def long_headers(i):
    """A distinct 8,000-byte User-Agent and 7,000-byte Accept-Language (distinct from the start:
    a prefix cap does not merge them)."""
    ua = f"{IPHONE} Tester/{i:06d} " + "u" * (8000 - len(IPHONE) - 15)
    al = f"x-a{i:06d},fr;q=0.9," + ",".join("de-DE;q=0.5" for _ in range(580))
    return ua[:8000], al[:7000]


def send_pipelined(address, paths, start, count, batch=50):
    """`count` GETs with long distinct headers, `batch` pipelined per write, on one connection;
    returns the statuses."""
    host, port = split_address(address)
    statuses = []
    with socket.create_connection((host, port), timeout=30) as s:
        reader = s.makefile("rb")
        for first in range(start, start + count, batch):
            out = []
            for i in range(first, min(first + batch, start + count)):
                ua, al = long_headers(i)
                out.append(f"GET {paths[i % len(paths)]} HTTP/1.1\r\nHost: example.com\r\nUser-Agent: {ua}\r\n"
                           f"Accept-Language: {al}\r\n\r\n".encode())
            s.sendall(b"".join(out))
            for _ in out:
                status_line = reader.readline()
                statuses.append(int(status_line.split()[1]))
                length = 0
                while (line := reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                reader.read(length)
    return statuses


def test_10000_long_distinct_user_agents_and_a_reload_stay_under_64_mb(tmp_path, start_server):
    config = write(tmp_path, server="perIPConnectionLimit: 0")
    # A short link with overrides: its answers are cached per variant, with the User-Agent's facts.
    subprocess.run([str(BINARY), "links", "add", "--config", str(config), "--code", "promo", "--target",
                    "https://example.com/item/7", "--title", "Spring promo"], check=True, capture_output=True, timeout=60)
    server = start_server(config, extra=["--access-log", "off"])
    paths = ["/item/1", "/promo", "/item/2"]
    before = rss_kib(server.proc.pid)

    statuses = send_pipelined(server.addresses[0], paths, 0, 10_000)
    assert statuses == [200] * 10_000
    after = rss_kib(server.proc.pid)

    server.signal(signal.SIGHUP)
    server.wait_for(lambda e: e.get("event") == "reloaded")
    statuses = send_pipelined(server.addresses[0], paths, 10_000, 5_000)
    assert statuses == [200] * 5_000
    reloaded = rss_kib(server.proc.pid)
    print(f"\nRSS: {before} KiB at start, {after} KiB after 10,000 distinct 8 KB User-Agents, "
          f"{reloaded} KiB after a reload and 5,000 more")
    assert after <= 64 * 1024, f"RSS {after} KiB after 10,000 distinct long User-Agents (was {before} KiB)"
    assert reloaded <= 64 * 1024, f"RSS {reloaded} KiB after a reload and 5,000 more"
    assert metric(server, 'linkwell_requests_total{site="shop",kind="page",status="200"}') >= 10_000
