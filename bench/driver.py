#!/usr/bin/env python3
"""Linkwell vs nginx HTTP benchmark driver (called by bench/run; see BENCHMARKS.md).

Starts Linkwell on the default config and a private nginx serving byte-identical copies of the
AASA, assetlinks.json, one landing page and the not-found page, each pair twice: with both access
logs off, and with both logging every request to a file (Linkwell's default JSON line on stdout
redirected to a file, nginx's default access_log); drives each pair with wrk in alternating
rounds (A B A B ...) per scenario; records req/s, p50/p99, errors, CPU time per request, log
lines per request, idle RSS, RSS sampled during the 1000-connection rounds and peak RSS; writes
bench/results/<date>.json and .png. Everything is on loopback,
every wait is bounded, and every process started here is stopped by its PID.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")

# Endpoints: (key, Linkwell path, headers, expected status). The nginx path is the same; the
# 304 scenario uses each server's own ETag.
ENDPOINTS = [
    ("aasa", "/.well-known/apple-app-site-association", 200),
    ("assetlinks", "/.well-known/assetlinks.json", 200),
    ("landing", "/post/123", 200),
    ("notfound", "/does/not/exist", 404),
    ("revalidate304", "/.well-known/apple-app-site-association", 304),
]
# Connection modes: (key, connections, keep-alive)
MODES = [("ka64", 64, True), ("ka256", 256, True), ("ka1000", 1000, True), ("close64", 64, False)]
# Scenarios also run with both access logs on (name suffix /log): Linkwell's default JSON line per
# request on stdout redirected to a file, nginx's default `access_log` to a file.
LOGGED = {("aasa", "ka64"), ("aasa", "ka256"), ("aasa", "ka1000"), ("aasa", "close64"),
          ("assetlinks", "ka64"), ("landing", "ka64"), ("notfound", "ka64"), ("revalidate304", "ka64")}
LOGGED_QUICK = {("aasa", "ka64"), ("landing", "ka64")}


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- /proc


def proc_cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is state (field 3); utime is field 14, stime 15
    return int(fields[11]) + int(fields[12])


def proc_status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            out.append(int(d))
    return out


class Server:
    def __init__(self, name, proc, base, pids_fn):
        self.name = name
        self.proc = proc
        self.base = base
        self.pids = pids_fn  # all processes whose CPU/RSS count (nginx: master + workers)
        self.log_file = None  # the access log this server writes, when it logs
        self.etag = None  # the AASA's ETag (for the 304 scenario)

    def cpu_seconds(self):
        return sum(proc_cpu_ticks(p) for p in self.pids()) / CLK_TCK

    def rss_kb(self, key):
        return sum(proc_status_kb(p, key) for p in self.pids())


# ---------------------------------------------------------------- servers


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise SystemExit(f"bench: timed out waiting for {what}")


def start_linkwell(binary, config, tmp, access_log=False, name="linkwell", prefix=(), extra=(), admin=True, startup_timeout=20):
    """Linkwell on the config, stdout (its event and access log) to <tmp>/<name>.out.

    access_log=False passes `--access-log off` (parity with nginx's `access_log off`; metrics
    still count); True runs the default (`--access-log on`: one JSON line per request on stdout,
    which goes to the file). prefix: a command to run it under (valgrind); extra: more options.
    """
    # Append mode (O_APPEND), so the harness can truncate the log between rounds.
    out = open(os.path.join(tmp, name + ".out"), "a+")
    err = open(os.path.join(tmp, name + ".err"), "w")
    cmd = list(prefix) + [binary, "serve", "--config", config, "--listen", "127.0.0.1:0",
                          "--admin", "127.0.0.1:0" if admin else "off"]
    if not access_log:
        cmd += ["--access-log", "off"]
    cmd += list(extra)
    proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT, start_new_session=True)

    def first_line():
        if proc.poll() is not None:
            raise SystemExit(f"bench: {name} exited ({proc.returncode}); see {tmp}/{name}.err")
        with open(out.name) as f:
            line = f.readline()
        return line if line.endswith("\n") else None

    event = json.loads(wait_for(first_line, startup_timeout, f"{name}'s listening event"))
    addr = event["addresses"][0]
    server = Server("linkwell", proc, f"http://{addr}", lambda: [proc.pid])
    server.log_file = out.name if access_log else None
    return server


def fetch(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


NGINX_CONF = """
{main}
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    {access_log}
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    open_file_cache max=1000 inactive=60s;
    open_file_cache_valid 60s;
    types {{ }}
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {tmp}/www;
        server_tokens off;
        location = /.well-known/apple-app-site-association {{
            default_type "{ct_aasa}";
            add_header Cache-Control "public, max-age=300";
            add_header X-Content-Type-Options nosniff;
        }}
        location = /.well-known/assetlinks.json {{
            default_type "{ct_assetlinks}";
            add_header Cache-Control "public, max-age=300";
            add_header X-Content-Type-Options nosniff;
        }}
        location = /post/123 {{
            default_type "{ct_landing}";
            add_header Cache-Control no-cache;
            add_header X-Content-Type-Options nosniff;
            add_header Referrer-Policy no-referrer;
        }}
        error_page 404 /__notfound.html;
        location = /__notfound.html {{
            internal;
            default_type "{ct_notfound}";
            add_header Cache-Control no-cache always;
            add_header X-Content-Type-Options nosniff always;
            add_header Referrer-Policy no-referrer always;
        }}
        location / {{ return 404; }}
    }}
}}
"""


def free_port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_nginx(tmp, copies, access_log=False, single=False, prefix=(), startup_timeout=20):
    """nginx serving copies (key -> (path, content_type, body)) from its own prefix <tmp>.

    access_log=False: `access_log off`; True: nginx's default `access_log` (combined format, no
    buffer) to <tmp>/access.log. single: `master_process off`, one process (for valgrind);
    otherwise a master and 2 workers. prefix: a command to run it under (valgrind).
    """
    os.makedirs(tmp, exist_ok=True)
    www = os.path.join(tmp, "www")
    for key, (path, _, body) in copies.items():
        rel = "__notfound.html" if key == "notfound" else path.lstrip("/")
        dest = os.path.join(www, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(body)
    # nginx workers may run as another user: make the tree readable.
    for d, _, files in os.walk(tmp):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    log_file = os.path.join(tmp, "access.log") if access_log else None
    if log_file:
        open(log_file, "w").close()
        os.chmod(log_file, 0o666)
    port = free_port()
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(
            tmp=tmp, port=port,
            main="master_process off;\nworker_processes 1;" if single else "worker_processes 2;",
            access_log=f"access_log {log_file};" if log_file else "access_log off;",
            ct_aasa=copies["aasa"][1], ct_assetlinks=copies["assetlinks"][1],
            ct_landing=copies["landing"][1], ct_notfound=copies["notfound"][1],
        ))
    master = "" if single else " master_process on;"
    proc = subprocess.Popen(
        list(prefix) + ["nginx", "-p", tmp, "-c", conf, "-e", os.path.join(tmp, "nginx-error.log"), "-g", "daemon off;" + master],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "nginx.err"), "w"), start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"

    def up():
        if proc.poll() is not None:
            raise SystemExit(f"bench: nginx exited ({proc.returncode}); see {tmp}/nginx.err")
        try:
            return fetch(base + "/post/123")[0] == 200
        except OSError:
            return False

    wait_for(up, startup_timeout, "nginx")
    if single:
        server = Server("nginx", proc, base, lambda: [proc.pid])
    else:
        wait_for(lambda: len(children(proc.pid)) >= 2, 10, "nginx workers")
        server = Server("nginx", proc, base, lambda: [proc.pid] + children(proc.pid))
    if log_file:
        # The warm-up fetch above is in the log already; start counting from empty.
        os.truncate(log_file, 0)
    server.log_file = log_file
    return server


def stop(server):
    if server is None or server.proc.poll() is not None:
        return
    server.proc.send_signal(signal.SIGTERM)
    try:
        server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=5)


# ---------------------------------------------------------------- wrk

UNIT = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def parse_latency(s):
    m = re.match(r"([\d.]+)(us|ms|s|m)$", s)
    return float(m.group(1)) * UNIT[m.group(2)] if m else None


def run_wrk(url, connections, keepalive, headers, duration, threads):
    cmd = ["wrk", "-t", str(min(threads, connections)), "-c", str(connections), "-d", f"{duration}s",
           "--timeout", "5s", "--latency"]
    if not keepalive:
        cmd += ["-H", "Connection: close"]
    for h in headers:
        cmd += ["-H", h]
    cmd.append(url)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    out = p.stdout
    r = {"rps": None, "p50_ms": None, "p99_ms": None, "requests": 0, "socket_errors": 0, "non_2xx_3xx": 0}
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if m:
        r["rps"] = float(m.group(1))
    m = re.search(r"(\d+) requests in", out)
    if m:
        r["requests"] = int(m.group(1))
    for pct, key in (("50%", "p50_ms"), ("99%", "p99_ms")):
        m = re.search(rf"^\s+{pct}\s+(\S+)", out, re.M)
        if m:
            r[key] = parse_latency(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if m:
        r["socket_errors"] = sum(int(x) for x in m.groups())
        r["socket_errors_detail"] = dict(zip(("connect", "read", "write", "timeout"), map(int, m.groups())))
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if m:
        r["non_2xx_3xx"] = int(m.group(1))
    if p.returncode != 0 or r["rps"] is None:
        r["wrk_failed"] = (p.stderr or out)[-500:]
    return r


def one_round(server, path, headers, conns, keepalive, duration, threads):
    import threading

    if server.log_file:
        os.truncate(server.log_file, 0)  # each round's log starts empty (bounded disk use)
    rss = [server.rss_kb("VmRSS")]
    done = threading.Event()

    def sample():  # VmRSS while wrk runs (nginx: summed over its processes)
        while not done.wait(0.2):
            try:
                rss.append(server.rss_kb("VmRSS"))
            except OSError:
                pass

    sampler = threading.Thread(target=sample, daemon=True)
    cpu0 = server.cpu_seconds()
    sampler.start()
    r = run_wrk(server.base + path, conns, keepalive, headers, duration, threads)
    cpu1 = server.cpu_seconds()
    done.set()
    sampler.join(timeout=5)
    r["cpu_s"] = round(cpu1 - cpu0, 3)
    r["cpu_us_per_req"] = round((cpu1 - cpu0) * 1e6 / r["requests"], 3) if r["requests"] else None
    r["peak_rss_kb"] = server.rss_kb("VmHWM")
    r["max_rss_during_kb"] = max(rss)
    if server.log_file:
        # What logging wrote: proves every request was logged and shows its size. Linkwell's
        # log is buffered per thread and flushed by size and at least once a second, so read
        # until every request is there or the count has stood still for a flush interval.
        deadline, last, still_since = time.monotonic() + 3.0, -1, time.monotonic()
        while True:
            time.sleep(0.2)
            with open(server.log_file, "rb") as f:
                data = f.read()
            lines, now = data.count(b"\n"), time.monotonic()
            if lines != last:
                last, still_since = lines, now
            if lines >= r["requests"] or now - still_since > 1.2 or now > deadline:
                break
        r["log_bytes"] = len(data)
        r["log_lines"] = data.count(b"\n")
        r["log_lines_per_req"] = round(r["log_lines"] / r["requests"], 3) if r["requests"] else None
        os.truncate(server.log_file, 0)
    return r


def stats(rounds, key):
    xs = [r[key] for r in rounds if r.get(key) is not None]
    if not xs:
        return None
    return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3), "max": round(max(xs), 3)}


# ---------------------------------------------------------------- chart


def chart(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sc = result["scenarios"]
    names = [s["name"] for s in sc]
    x = range(len(names))
    w = 0.4
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(max(10, len(names) * 0.65), 9), sharex=True)
    for i, (srv, color) in enumerate((("linkwell", "#3B4CCA"), ("nginx", "#2E8B57"))):
        rps = [(s[srv]["rps"] or {}).get("median", 0) or 0 for s in sc]
        p99 = [(s[srv]["p99_ms"] or {}).get("median", 0) or 0 for s in sc]
        off = [xi + (i - 0.5) * w for xi in x]
        a1.bar(off, rps, w, label=srv, color=color)
        a2.bar(off, p99, w, label=srv, color=color)
    a1.set_ylabel("requests/s (median)")
    a1.set_title(f"Linkwell vs nginx — {result['meta']['date']} ({result['meta']['mode']} mode, "
                 f"{result['meta']['cpus']} cores, shared machine)")
    a1.legend()
    a2.set_ylabel("p99 latency, ms (median, log)")
    a2.set_yscale("log")
    a2.set_xticks(list(x))
    a2.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    a2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--linkwell", default=os.path.join(ROOT, ".build/release/linkwell"))
    ap.add_argument("--resolution-bench", default=os.path.join(ROOT, ".build/release/linkwell-bench"))
    ap.add_argument("--config", default=os.path.join(ROOT, "config/linkwell.json5"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--duration", type=float, help="seconds per wrk run (default 5; quick 1)")
    ap.add_argument("--rounds", type=int, help="rounds per server per scenario (default 3; quick 1)")
    ap.add_argument("--threads", type=int, default=2, help="wrk threads")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--name", help="result file stem (default: UTC date-time)")
    ap.add_argument("--note", default="", help="free text stored in meta (e.g. other work running)")
    ap.add_argument("--skip-resolution", action="store_true")
    a = ap.parse_args()
    duration = a.duration or (1 if a.quick else 5)
    rounds = a.rounds or (1 if a.quick else 3)
    duration = max(1, int(round(duration)))

    now = datetime.datetime.now(datetime.timezone.utc)
    stem = a.name or now.strftime("%Y-%m-%dT%H%M%SZ")
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="linkwell-bench-")
    servers = {}  # (server name, logging) -> Server
    started = time.monotonic()
    try:
        lw = servers["linkwell", False] = start_linkwell(a.linkwell, a.config, tmp)
        time.sleep(0.3)
        lw_idle = lw.rss_kb("VmRSS")
        copies = {}
        for key, path, status in ENDPOINTS:
            if key == "revalidate304":
                continue
            st, hdrs, body = fetch(lw.base + path)
            if st != status:
                raise SystemExit(f"bench: linkwell answered {st} for {path}, expected {status}")
            copies[key] = (path, hdrs.get("Content-Type"), body)
        ng = servers["nginx", False] = start_nginx(tmp, copies)
        time.sleep(0.3)
        ng_idle = ng.rss_kb("VmRSS")
        # The both-logging pair: Linkwell's default (a JSON line per request on stdout, which is
        # a file here) and nginx's default access_log (combined, unbuffered), each on its own file.
        servers["linkwell", True] = start_linkwell(a.linkwell, a.config, tmp, access_log=True, name="linkwell-logging")
        servers["nginx", True] = start_nginx(os.path.join(tmp, "nginx-logging"), copies, access_log=True)
        for (name, logging), srv in servers.items():
            # Byte-identical bodies and the same Content-Type, checked.
            for key, (path, ct, body) in copies.items():
                st, hdrs, nbody = fetch(srv.base + path)
                if nbody != body or hdrs.get("Content-Type") != ct:
                    raise SystemExit(f"bench: {name}'s copy of {path} differs (status {st}, type {hdrs.get('Content-Type')})")
            srv.etag = fetch(srv.base + ENDPOINTS[0][1])[1].get("ETag")
            st = fetch(srv.base + ENDPOINTS[0][1], {"If-None-Match": srv.etag})[0]
            if st != 304:
                raise SystemExit(f"bench: {name} answered {st} to If-None-Match, expected 304")
        etags = {"linkwell": lw.etag, "nginx": ng.etag}

        plan = [(key, path, status, mode, conns, keepalive, False)
                for key, path, status in ENDPOINTS for mode, conns, keepalive in MODES]
        logged = LOGGED_QUICK if a.quick else LOGGED
        plan += [(key, path, status, mode, conns, keepalive, True)
                 for key, path, status in ENDPOINTS for mode, conns, keepalive in MODES if (key, mode) in logged]
        scenarios = []
        for key, path, status, mode, conns, keepalive, logging in plan:
            name = f"{key}/{mode}" + ("/log" if logging else "")
            pair = (servers["linkwell", logging], servers["nginx", logging])
            entry = {"name": name, "endpoint": key, "path": path, "expected_status": status,
                     "connections": conns, "keepalive": keepalive, "access_log": logging,
                     "linkwell": {"rounds": []}, "nginx": {"rounds": []}}
            for rnd in range(rounds):
                # Alternate which server goes first each round: A B, B A, ...
                order = pair if rnd % 2 == 0 else pair[::-1]
                for srv in order:
                    hdrs = [f"If-None-Match: {srv.etag}"] if key == "revalidate304" else []
                    r = one_round(srv, path, hdrs, conns, keepalive, duration, a.threads)
                    r["round"] = rnd
                    entry[srv.name]["rounds"].append(r)
                    logged_note = f" log {r['log_lines_per_req']} lines/req" if "log_lines" in r else ""
                    log(f"{name:28} {srv.name:8} round {rnd}: {r['rps']} req/s p99 {r['p99_ms']} ms "
                        f"cpu {r['cpu_us_per_req']} us/req errors {r['socket_errors']} non2xx3xx {r['non_2xx_3xx']}{logged_note}")
            for srv in ("linkwell", "nginx"):
                rs = entry[srv]["rounds"]
                for k in ("rps", "p50_ms", "p99_ms", "cpu_us_per_req", "max_rss_during_kb", "log_lines_per_req"):
                    entry[srv][k] = stats(rs, k)
                entry[srv]["socket_errors"] = sum(r["socket_errors"] for r in rs)
                entry[srv]["non_2xx_3xx"] = sum(r["non_2xx_3xx"] for r in rs)
                entry[srv]["requests"] = sum(r["requests"] for r in rs)
                if logging:
                    lines = sum(r.get("log_lines", 0) for r in rs)
                    entry[srv]["log_bytes_per_line"] = round(sum(r.get("log_bytes", 0) for r in rs) / lines, 1) if lines else None
            ratio = {}
            for k in ("rps", "p50_ms", "p99_ms", "cpu_us_per_req"):
                l, n = entry["linkwell"][k], entry["nginx"][k]
                ratio[k] = round(l["median"] / n["median"], 3) if l and n and n["median"] else None
            entry["ratio_linkwell_over_nginx"] = ratio
            scenarios.append(entry)

        def at_1000(srv):  # highest VmRSS sampled while 1000 keep-alive connections were open
            xs = [r["max_rss_during_kb"] for s in scenarios if s["connections"] == 1000 and not s["access_log"]
                  for r in s[srv]["rounds"]]
            return max(xs) if xs else None

        memory = {
            "linkwell": {"idle_rss_kb": lw_idle, "at_1000_connections_rss_kb": at_1000("linkwell"), "peak_rss_kb": lw.rss_kb("VmHWM")},
            "nginx": {"idle_rss_kb": ng_idle, "at_1000_connections_rss_kb": at_1000("nginx"), "peak_rss_kb": ng.rss_kb("VmHWM"),
                      "processes": len(ng.pids()), "note": "sum of master and workers"},
            "note": "idle: VmRSS before the first request; at_1000_connections: the highest VmRSS sampled every "
                    "0.2 s during the 1000-connection keep-alive rounds (logs off); peak: VmHWM at the end",
        }
    finally:
        for srv in servers.values():
            stop(srv)

    resolution = None
    if not a.skip_resolution and os.path.exists(a.resolution_bench):
        args = [a.resolution_bench, "--public", os.path.join(ROOT, "public")]
        if a.quick:
            args += ["--quick", "--sizes", "100,1000,10000", "--load-routes", "1000"]
        log("running", " ".join(args))
        p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=900)
        try:
            resolution = json.loads(p.stdout)
        except ValueError:
            resolution = {"error": (p.stderr or p.stdout)[-2000:]}

    with open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")
    result = {
        "meta": {
            "date": now.isoformat(timespec="seconds"),
            "mode": "quick" if a.quick else "full",
            "duration_s": duration,
            "rounds": rounds,
            "wrk_threads": a.threads,
            "cpus": os.cpu_count(),
            "cpu_model": model,
            "kernel": os.uname().release,
            "loadavg_at_end": os.getloadavg(),
            "note": a.note,
            "elapsed_s": round(time.monotonic() - started, 1),
            "nginx": subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip(),
            "wrk": subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()[0:1],
            "etags": etags,
        },
        "memory": memory,
        "scenarios": scenarios,
        "resolution": resolution,
    }
    jpath = os.path.join(a.out, stem + ".json")
    with open(jpath, "w") as f:
        json.dump(result, f, indent=2)
    chart(result, os.path.join(a.out, stem + ".png"))
    shutil.rmtree(tmp, ignore_errors=True)
    print(jpath)


if __name__ == "__main__":
    main()
