"""RSS, throughput and CPU per request of `linkwell serve` per connection-memory budget
(bench/history/2026-12-03-header-budget.md), AASA at 1000 keep-alive connections by default, or with
`--close` one request per connection (`Connection: close`, the budget's other cost: a pool over
32 KiB is its own `mmap` and `munmap` per connection in libmicrohttpd 0.9.75). Loopback only;
bounded; servers stopped by PID.

    .venv/bin/python bench/pool_rss.py [--rounds 3] [--duration 10] [--connections 1000] [--close] [--binary PATH]
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build/release/linkwell")
BUDGETS = {
    # name: server keys over config/linkwell.json5's server block
    "8 KiB pool (4 KB heads)": "requestHeadBytes: 4096, requestHeaderMemoryBytes: 8192",
    "28 KiB pool (default: 16 KB heads)": "",
    "40 KiB pool (16 KB heads, mmap'ed: the default before 2026-12-03)": "requestHeaderMemoryBytes: 40960",
}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_kib(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def run(name, keys, duration, connections=1000, close=False, binary=BINARY):
    base = open(os.path.join(ROOT, "config/linkwell.json5")).read()
    text = base.replace("server: {", "server: { " + keys + ("," if keys else ""), 1)
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "linkwell.json5")
        open(config, "w").write(text.replace('"$schema": "./linkwell.schema.json",', ""))
        proc = subprocess.Popen([binary, "serve", "--config", config, "--listen", "127.0.0.1:0", "--admin", "off", "--access-log", "off"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            address = json.loads(proc.stdout.readline())["addresses"][0]
            url = f"http://{address}/.well-known/apple-app-site-association"
            idle = status_kib(proc.pid, "VmRSS")
            cpu0 = cpu_seconds(proc.pid)
            headers = ["-H", "Host: diallodev.online"] + (["-H", "Connection: close"] if close else [])
            wrk = subprocess.Popen(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", *headers, url],
                                   stdout=subprocess.PIPE, text=True)
            time.sleep(duration * 0.8)
            during = status_kib(proc.pid, "VmRSS")
            out = wrk.communicate(timeout=duration + 30)[0]
            cpu = cpu_seconds(proc.pid) - cpu0
            rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
            total = int(re.search(r"(\d+) requests in", out).group(1))
            errors = re.search(r"Socket errors: (.*)", out)
            return {"budget": name, "rps": rps, "rss_idle_kib": idle, "rss_1000_kib": during,
                    "cpu_us_per_request": round(cpu / max(1, total) * 1e6, 1),
                    "peak_kib": status_kib(proc.pid, "VmHWM"), "socket_errors": errors.group(1) if errors else "none"}
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--connections", type=int, default=1000)
    ap.add_argument("--close", action="store_true", help="Connection: close (one request per connection)")
    ap.add_argument("--binary", default=BINARY, help="the linkwell to measure (default: the release build)")
    args = ap.parse_args()
    results = []
    for r in range(args.rounds):
        names = list(BUDGETS) if r % 2 == 0 else list(reversed(BUDGETS))
        for name in names:
            results.append(run(name, BUDGETS[name], args.duration, args.connections, args.close, args.binary))
            print(json.dumps(results[-1]), file=sys.stderr)
    mode = "Connection: close" if args.close else "keep-alive"
    print(f"| connection memory | req/s median (min–max) | CPU µs/request, median | RSS at {args.connections} {mode}, median | peak RSS | idle RSS |")
    print("|---|---|---|---|---|---|")
    for name in BUDGETS:
        rows = [x for x in results if x["budget"] == name]
        rps = sorted(x["rps"] for x in rows)
        rss = sorted(x["rss_1000_kib"] for x in rows)
        peak = sorted(x["peak_kib"] for x in rows)
        idle = sorted(x["rss_idle_kib"] for x in rows)
        cpu = sorted(x["cpu_us_per_request"] for x in rows)
        mid = len(rows) // 2
        print(f"| {name} | {rps[mid]:,.0f} ({rps[0]:,.0f}–{rps[-1]:,.0f}) | {cpu[mid]:.1f} | {rss[mid] / 1024:.1f} MB | {peak[mid] / 1024:.1f} MB | {idle[mid] / 1024:.1f} MB |")


if __name__ == "__main__":
    main()
