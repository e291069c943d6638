#!/usr/bin/env python3
"""User-space instructions per request, Linkwell vs nginx, counted with callgrind (BENCHMARKS.md).

Called by bench/callgrind. Each server runs under `valgrind --tool=callgrind` (every thread
counted, kernel work not) with one polling thread: Linkwell `--threads 1 --admin off`, nginx
`master_process off; worker_processes 1`. A fixed-count client sends requests on one keep-alive
connection, one at a time, then closes it, and the server is stopped with SIGTERM. Per server and
access-log setting there is a baseline run (start, `--warmup` requests to every endpoint, stop)
and one run per endpoint (the same, then `--requests` more to that endpoint):

    instructions per request = (Ir(run) - Ir(baseline)) / requests

so start-up, warm-up (first-use costs) and shutdown cancel out. The per-function profile is the
same difference taken function by function (callgrind_annotate of both files).

Route resolution: linkwell-bench --count-resolution P under callgrind with collection only inside
`resolvePasses` (P passes over 8,192 URLs after a warm-up pass), one process per table size.

Honest counts: valgrind counts a whole `rep stosb` / `rep movsb` as one instruction per byte, so
glibc's `memset`/`memcpy` above 2 KiB (where glibc switches to them) would show as ~1 instruction
a byte. Both servers run with GLIBC_TUNABLES raising those thresholds out of reach
(HONEST_TUNABLES), so glibc uses its vector loops, counted as they run. Linkwell's link refresher
thread (a poll twice a second, not per request) is left out: one callgrind file per thread. Allocations: the calls to
`malloc` (and to the other allocators) per request are callgrind's call counts, run minus baseline.

Counts repeat exactly for the same binaries and inputs whatever else the machine is doing
(SWIFT_DETERMINISTIC_HASHING=1 fixes Swift's per-process hash seed). Loopback only; every wait
is bounded; every process started here is stopped by its PID.
"""

import argparse
import datetime
import glob
import json
import urllib.parse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402  (bench/driver.py: the servers and nginx's copies of Linkwell's bytes)

ROOT = driver.ROOT
# (key, path, expected status); 304 sends If-None-Match with the server's own AASA ETag.
ENDPOINTS = [
    ("aasa", "/.well-known/apple-app-site-association", 200),
    ("landing", "/post/123", 200),
    ("notfound", "/does/not/exist", 404),
    ("revalidate304", "/.well-known/apple-app-site-association", 304),
    # A short link whose target is the landing endpoint's URL (docs/guide/short-links.md: at most 10 % more).
    ("shortlink", "/bench1", 200),
    # The same target with every override a page shows (preview, all fallbacks, campaign tags).
    ("shortlink-override", "/bench2", 200),
]
COPIED = [("aasa", "/.well-known/apple-app-site-association", 200), ("assetlinks", "/.well-known/assetlinks.json", 200),
          ("landing", "/post/123", 200), ("notfound", "/does/not/exist", 404)]
# glibc's `rep stosb`/`rep movsb` thresholds out of reach: every memset/memcpy is a vector loop,
# which callgrind counts as it runs (a `rep` string op counts once per byte).
HONEST_TUNABLES = "glibc.cpu.x86_rep_stosb_threshold=2147483647:glibc.cpu.x86_rep_movsb_threshold=2147483647"
# Linkwell's link refresher polls the link database twice a second on its own thread: work per
# second, not per request, which a run slowed down by valgrind would charge to its requests. Its
# thread (the one that runs `closure #1 in LinkRefresher.start(storage:)`, mangled) is left out.
# The click recorder's flush thread is the same kind of work: one SQLite transaction every
# `clicks.flushSeconds` of wall time (`closure #1 in ClickRecorder.start()`), left out too; the
# count of each click stays on the request thread.
REFRESHER_LOOP = re.compile(r"^c?fn=(\(\d+\) )?\$s10LinkServer(0A9RefresherC5start7storage|13ClickRecorderC5start)\S*fU_$", re.M)
# The allocators whose calls are counted (glibc's names and their internal aliases).
ALLOCATORS = {"malloc": "malloc", "__libc_malloc": "malloc", "calloc": "calloc", "__libc_calloc": "calloc",
              "realloc": "realloc", "__libc_realloc": "realloc", "posix_memalign": "posix_memalign",
              "__posix_memalign": "posix_memalign", "aligned_alloc": "aligned_alloc", "memalign": "aligned_alloc",
              "__libc_memalign": "aligned_alloc"}
# nginx has no short links: these endpoints are Linkwell's alone (left out of nginx's warm-up and runs).
LINKWELL_ONLY = {"shortlink", "shortlink-override"}


def log(*a):
    print("callgrind:", *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the fixed-count client


class KeepAliveClient:
    """One HTTP/1.1 keep-alive connection; one request at a time (no pipelining), so each request
    is one read/handle/write cycle in the server, the same in every run."""

    def __init__(self, base, timeout):
        host, port = base.removeprefix("http://").rsplit(":", 1)
        self.host = f"{host}:{port}"
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")

    def get(self, path, headers=()):
        extra = "".join(f"{h}\r\n" for h in headers)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n{extra}\r\n".encode())
        status_line = self.reader.readline()
        if not status_line:
            raise SystemExit(f"callgrind: the server closed the connection before answering GET {path}")
        status = int(status_line.split()[1])
        fields = {}
        while True:
            line = self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            k, _, v = line.decode("latin-1").partition(":")
            fields[k.strip().lower()] = v.strip()
        if "chunked" in fields.get("transfer-encoding", ""):
            raise SystemExit(f"callgrind: GET {path} answered chunked; this client reads Content-Length bodies only")
        if status not in (204, 304):
            n = int(fields.get("content-length", "0"))
            body = self.reader.read(n)
            if len(body) != n:
                raise SystemExit(f"callgrind: GET {path}: body ended after {len(body)} of {n} bytes")
        return status, fields

    def close(self):
        self.reader.close()
        self.sock.close()


# ---------------------------------------------------------------- callgrind files


def thread_files(path):
    """The per-thread files of a run (`--separate-threads=yes`: `path`-01, -02, …; `path` itself
    for a single file), without the link refresher's thread."""
    files = sorted(glob.glob(glob.escape(path) + "-[0-9]*")) or [path]
    kept = []
    for f in files:
        with open(f, errors="replace") as fh:
            if not REFRESHER_LOOP.search(fh.read()):
                kept.append(f)
    return kept


def total_ir(path):
    """The Ir total of a run (its threads' `totals:` or `summary:` lines, the refresher left out)."""
    total = None
    for f in thread_files(path):
        with open(f) as fh:
            for line in fh:
                if line.startswith(("totals:", "summary:")):
                    total = (total or 0) + int(line.split()[1])
                    break
    if total is None:
        raise SystemExit(f"callgrind: no totals in {path}")
    return total


DEMANGLE = shutil.which("swift-demangle") or (shutil.which("swift") and [shutil.which("swift"), "demangle"])


def functions(path, inclusive):
    """{function [object]: Ir} for every function in a run, summed over its threads (the
    refresher left out)."""
    costs = {}
    for f in thread_files(path):
        for k, v in file_functions(f, inclusive).items():
            costs[k] = costs.get(k, 0) + v
    return costs


def file_functions(path, inclusive):
    """{function [object]: Ir} for every function in a callgrind file (callgrind_annotate,
    demangled). callgrind_annotate splits a function by source file (inlined code from headers
    and other files); the parts are summed, so each function appears once."""
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", "--show-percs=no",
                          f"--inclusive={'yes' if inclusive else 'no'}", path],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    if DEMANGLE:
        cmd = DEMANGLE if isinstance(DEMANGLE, list) else [DEMANGLE]
        out = subprocess.run(cmd + ["--simplified"], input=out, capture_output=True, text=True, timeout=300).stdout or out
    costs, objects = {}, {}
    for line in out.split("file:function", 1)[-1].splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(\S.*)$", line)
        if not m:
            continue
        name = m.group(2).strip()
        obj = re.search(r" \[(?:/[^\]]*/)?([^\]/]+)\]$", name)
        if obj:
            name = name[:obj.start()]
        # "file:function": drop the file (paths have no spaces before the first ':'; "???" = unknown).
        fm = re.match(r"^(\?\?\?|[^ :]*[/.][^ :]*):(.+)$", name)
        if fm:
            name = fm.group(2)
        costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
        if obj:
            objects.setdefault(name, obj.group(1))
    return {f"{k} [{objects[k]}]" if k in objects else k: v for k, v in costs.items()}


def allocator_calls(path):
    """{allocator: calls} over a run's threads (the refresher left out): the sum of the `calls=`
    lines whose callee (`cfn=`, names compressed as `(id) name` on first use) is one of ALLOCATORS."""
    counts = {}
    for f in thread_files(path):
        for k, v in file_allocator_calls(f).items():
            counts[k] = counts.get(k, 0) + v
    return counts


def file_allocator_calls(path):
    names, counts, callee = {}, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                m = re.match(r"c?fn=(?:\((\d+)\))?\s*(.*)$", line.rstrip("\n"))
                ident, name = m.group(1), m.group(2)
                if ident is not None:
                    name = names.setdefault(ident, name) if name else names.get(ident, "")
                if line.startswith("cfn="):
                    callee = ALLOCATORS.get(name)
            elif line.startswith("calls=") and callee:
                counts[callee] = counts.get(callee, 0) + int(line[6:].split()[0])
    return counts


def profile(run_file, base_file, requests, top, per_request_total):
    """Top functions by instructions per request (run minus baseline), self and inclusive."""
    prof = {}
    for kind, inclusive in (("self", False), ("inclusive", True)):
        a, b = functions(run_file, inclusive), functions(base_file, inclusive)
        diff = {k: (a.get(k, 0) - b.get(k, 0)) / requests for k in set(a) | set(b)}
        rows = sorted(diff.items(), key=lambda kv: -kv[1])
        if inclusive:
            # Skip the wrappers every instruction passes through (thread start, main, the event
            # loop's entry): their inclusive cost is the whole request and says nothing.
            rows = [r for r in rows if r[1] < 0.97 * per_request_total]
        prof[kind] = [{"function": k, "ir_per_request": round(v, 1)} for k, v in rows[:top]]
    return prof


# ---------------------------------------------------------------- one counted run


class Counter:
    def __init__(self, a, tmp, copies):
        self.a = a
        self.tmp = tmp
        self.copies = copies
        self.runs = 0

    def valgrind(self, out_file, server):
        # One file per thread (`out_file`-NN), so that the link refresher's thread can be left out.
        return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", "--error-limit=no",
                "--separate-threads=yes", "--log-file=" + out_file + ".valgrind.log"]

    def start(self, server, logging, out_file):
        startup = self.a.startup_timeout
        if server == "linkwell":
            return driver.start_linkwell(self.a.linkwell, self.a.config, self.tmp, access_log=logging,
                                         name=f"linkwell-{self.runs}", prefix=self.valgrind(out_file, server),
                                         extra=["--threads", "1"], admin=False, startup_timeout=startup)
        return driver.start_nginx(os.path.join(self.tmp, f"nginx-{self.runs}"), self.copies, access_log=logging,
                                  single=True, prefix=self.valgrind(out_file, server), startup_timeout=startup)

    def run(self, server, logging, endpoint, requests):
        """Start `server` under callgrind, warm up every endpoint, send `requests` to `endpoint`
        (None: the baseline), stop it; returns (Ir total, callgrind file)."""
        self.runs += 1
        out_file = os.path.join(self.tmp, f"callgrind.{server}.{'log' if logging else 'nolog'}.{endpoint or 'baseline'}.out")
        t0 = time.monotonic()
        srv = self.start(server, logging, out_file)
        try:
            c = KeepAliveClient(srv.base, timeout=120)
            status, fields = c.get(ENDPOINTS[0][1])
            etag = fields.get("etag")
            if status != 200 or not etag:
                raise SystemExit(f"callgrind: {server} answered {status} (ETag {etag}) for the AASA")
            warmup = [(k, p, st) for k, p, st in ENDPOINTS if server == "linkwell" or k not in LINKWELL_ONLY for _ in range(self.a.warmup)]
            counted = [(k, p, st) for k, p, st in ENDPOINTS if k == endpoint] * requests
            for plan in (warmup, counted):
                for key, path, expected in plan:
                    status, _ = c.get(path, [f"If-None-Match: {etag}"] if key == "revalidate304" else [])
                    if status != expected:
                        raise SystemExit(f"callgrind: {server} answered {status} for {key} ({path}), expected {expected}")
                if plan is warmup:
                    zero_counts(srv.proc.pid)
            c.close()
            time.sleep(0.2)  # let the server see the close before SIGTERM
        finally:
            stop(srv, self.a.stop_timeout)
        if srv.proc.returncode not in (0, -signal.SIGTERM):
            raise SystemExit(f"callgrind: {server} under valgrind exited {srv.proc.returncode}; see {out_file}.valgrind.log")
        ir = total_ir(out_file)
        allocs = allocator_calls(out_file)
        log(f"{server:8} {'log' if logging else 'nolog':5} {endpoint or 'baseline':13} {requests:6} requests: "
            f"{ir:,} Ir, {allocs.get('malloc', 0):,} malloc calls ({time.monotonic() - t0:.0f} s)")
        return ir, allocs, out_file


def zero_counts(pid):
    """Zero every thread's counts (`callgrind_control -z`) once the server has started and warmed
    up: start-up work differs between runs (the sites are loaded on as many threads as Dispatch
    starts), and would otherwise be charged to the requests; the baseline is zeroed at the same point."""
    done = subprocess.run(["callgrind_control", "-z", str(pid)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or "OK" not in done.stdout:
        raise SystemExit(f"callgrind: callgrind_control -z {pid} failed: {done.stdout.strip()} {done.stderr.strip()}")


def stop(server, timeout):
    """SIGTERM, then wait long enough for valgrind to write its file; SIGKILL only past timeout."""
    if server is None or server.proc.poll() is not None:
        return
    server.proc.send_signal(signal.SIGTERM)
    try:
        server.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=10)
        raise SystemExit(f"callgrind: {server.name} did not stop within {timeout} s of SIGTERM (killed)")


def keep(a, path):
    """Move a run's callgrind files (one per thread) to --keep DIR, or delete them."""
    for f in glob.glob(glob.escape(path) + "-[0-9]*") + ([path] if os.path.exists(path) else []):
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            shutil.move(f, os.path.join(a.keep, os.path.basename(f)))
        else:
            os.remove(f)


# /bench2: --short-link-target with a preview, every fallback and campaign tags (a link file's fields).
OVERRIDE_LINK = {
    "code": "bench2", "previewTitle": "Spring sale: 50 % off <today>", "previewDescription": "Every post, half price — \"today\" only",
    "previewImage": "https://cdn.example.com/sale.png", "iosFallback": "https://www.example.com/ios",
    "ipfl": "https://www.example.com/ipad", "androidFallback": "https://www.example.com/android",
    "desktopFallback": "https://www.example.com/desktop", "utm_source": "newsletter", "utm_medium": "email",
    "utm_campaign": "spring-sale", "utm_term": "posts", "utm_content": "top-banner", "ct": "spring", "mt": "8",
}


def with_short_link(a, tmp):
    """A copy of the config (in `tmp`, so its link database is beside it and nothing is written
    under the repository) with the short links /bench1 → --short-link-target and /bench2 → the
    same with OVERRIDE_LINK's overrides."""
    config = os.path.join(tmp, "bench-config" + os.path.splitext(a.config)[1])
    shutil.copy(a.config, config)
    r = subprocess.run([a.linkwell, "links", "add", "--config", config, "--code", "bench1", "--target", a.short_link_target],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"callgrind: could not add the short link: {r.stderr.strip()}")
    # /bench2 on the site `links add` chose for /bench1.
    r = subprocess.run([a.linkwell, "links", "show", "bench1", "--config", config, "--json"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"callgrind: could not read back the short link: {r.stderr.strip()}")
    links = os.path.join(tmp, "bench-links.json")
    with open(links, "w") as f:
        # Fallbacks on the target's own host: a host the site sends browsers to.
        home = "https://" + urllib.parse.urlsplit(a.short_link_target).hostname
        fallbacks = {k: v.replace("https://www.example.com", home) for k, v in OVERRIDE_LINK.items() if k.endswith("allback") or k == "ipfl"}
        json.dump([dict(OVERRIDE_LINK, **fallbacks, target=a.short_link_target, site=json.loads(r.stdout)["site"])], f)
    r = subprocess.run([a.linkwell, "links", "import", links, "--config", config], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"callgrind: could not import the override link: {(r.stderr or r.stdout).strip()}")
    return config


def copies_of_linkwell(a, tmp):
    """The bytes nginx serves: Linkwell's own responses, fetched from a native Linkwell."""
    lw = driver.start_linkwell(a.linkwell, a.config, tmp, name="linkwell-copies", admin=False)
    try:
        copies = {}
        for key, path, status in COPIED:
            st, hdrs, body = driver.fetch(lw.base + path)
            if st != status:
                raise SystemExit(f"callgrind: linkwell answered {st} for {path}, expected {status}")
            copies[key] = (path, hdrs.get("Content-Type"), body)
        return copies
    finally:
        driver.stop(lw)


# ---------------------------------------------------------------- resolution


def count_resolution(a, tmp, size):
    out_file = os.path.join(tmp, f"callgrind.resolution.{size}.out")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", "--collect-atstart=no",
           "--toggle-collect=*resolvePasses*", "--log-file=" + out_file + ".valgrind.log",
           a.resolution_bench, "--count-resolution", str(a.passes), "--sizes", str(size)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=a.resolution_timeout,
                       env=dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1"))
    if p.returncode != 0:
        raise SystemExit(f"callgrind: linkwell-bench --count-resolution failed ({p.returncode}): {p.stderr[-1500:]}")
    r = json.loads(p.stdout)["count_resolution"][0]
    ir = total_ir(out_file)
    keep(a, out_file)
    calls = r["urls"] * r["passes"]
    log(f"resolution at {size:,} routes: {ir:,} Ir for {calls:,} URLs ({time.monotonic() - t0:.0f} s)")
    return {"routes": size, "urls": r["urls"], "passes": r["passes"], "ir_total": ir,
            "ir_per_url": round(ir / calls, 1), "mix": r["mix"]}


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linkwell", default=os.path.join(ROOT, ".build/release/linkwell"))
    ap.add_argument("--resolution-bench", default=os.path.join(ROOT, ".build/release/linkwell-bench"))
    ap.add_argument("--config", default=os.path.join(ROOT, "config/linkwell.json5"))
    ap.add_argument("--short-link-target", default="https://diallodev.online/post/123",
                    help="the shortlink endpoint's target: the landing endpoint's URL on the config's default site")
    ap.add_argument("--quick", action="store_true", help="CI smoke: 200 requests, AASA and 404, logs off, 100 routes")
    ap.add_argument("--requests", type=int, help="counted requests per endpoint (default 20000; quick 200)")
    ap.add_argument("--warmup", type=int, default=20, help="requests to every endpoint before counting (default 20)")
    ap.add_argument("--endpoints", help="comma-separated subset of " + ",".join(k for k, _, _ in ENDPOINTS))
    ap.add_argument("--servers", default="linkwell,nginx")
    ap.add_argument("--logging", default="off,on", help="access-log settings to count: off, on or off,on (default)")
    ap.add_argument("--sizes", help="route-table sizes for resolution (default 100,10000,100000; quick 100)")
    ap.add_argument("--passes", type=int, default=2, help="passes over the 8,192 URLs per size (default 2)")
    ap.add_argument("--top", type=int, default=10, help="functions per profile (default 10)")
    ap.add_argument("--profile", default="aasa,landing", help="endpoints whose per-function profile is kept (default aasa,landing)")
    ap.add_argument("--skip-resolution", action="store_true")
    ap.add_argument("--startup-timeout", type=float, default=120)
    ap.add_argument("--stop-timeout", type=float, default=300)
    ap.add_argument("--resolution-timeout", type=float, default=1800)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--name", help="result file stem (default: callgrind-<UTC date-time>)")
    ap.add_argument("--note", default="")
    ap.add_argument("--keep", metavar="DIR", help="keep the callgrind files here (for callgrind_annotate --tree=caller …)")
    a = ap.parse_args()
    requests = a.requests or (200 if a.quick else 20_000)
    endpoints = (a.endpoints or ("aasa,notfound" if a.quick else ",".join(k for k, _, _ in ENDPOINTS))).split(",")
    logging_modes = [{"off": False, "on": True}[m] for m in ("off" if a.quick and a.logging == "off,on" else a.logging).split(",")]
    sizes = [int(x) for x in (a.sizes or ("100" if a.quick else "100,10000,100000")).split(",")]
    servers = a.servers.split(",")
    for e in endpoints:
        if e not in {k for k, _, _ in ENDPOINTS}:
            raise SystemExit(f"callgrind: unknown endpoint '{e}'; use {', '.join(k for k, _, _ in ENDPOINTS)}")
    os.environ["SWIFT_DETERMINISTIC_HASHING"] = "1"  # inherited by the servers
    os.environ["GLIBC_TUNABLES"] = HONEST_TUNABLES  # both servers: no `rep` string ops (see the docstring)
    log(f"both servers run with GLIBC_TUNABLES={HONEST_TUNABLES} (no rep stosb/movsb: honest memset/memcpy counts)")

    now = datetime.datetime.now(datetime.timezone.utc)
    stem = a.name or "callgrind-" + now.strftime("%Y-%m-%dT%H%M%SZ")
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="linkwell-callgrind-")
    started = time.monotonic()
    a.config = with_short_link(a, tmp)
    copies = copies_of_linkwell(a, tmp)
    counter = Counter(a, tmp, copies)
    http = []
    for logging in logging_modes:
        for server in servers:
            base_ir, base_allocs, base_file = counter.run(server, logging, None, 0)
            for endpoint in endpoints:
                if server != "linkwell" and endpoint in LINKWELL_ONLY:
                    continue
                ir, allocs, run_file = counter.run(server, logging, endpoint, requests)
                per = {k: round((allocs.get(k, 0) - base_allocs.get(k, 0)) / requests, 3) for k in set(allocs) | set(base_allocs)}
                row = {"server": server, "access_log": logging, "endpoint": endpoint, "requests": requests,
                       "warmup_per_endpoint": a.warmup, "ir_run": ir, "ir_baseline": base_ir,
                       "ir_per_request": round((ir - base_ir) / requests, 1),
                       "malloc_per_request": per.get("malloc", 0.0),
                       "allocator_calls_per_request": dict(sorted(per.items()))}
                if endpoint in a.profile.split(","):
                    row["profile"] = profile(run_file, base_file, requests, a.top, row["ir_per_request"])
                http.append(row)
                keep(a, run_file)
            keep(a, base_file)

    resolution = [] if a.skip_resolution else [count_resolution(a, tmp, n) for n in sizes]

    result = {
        "meta": {
            "date": now.isoformat(timespec="seconds"),
            "mode": "quick" if a.quick else "full",
            "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip(),
            "nginx": subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip(),
            "linkwell": a.linkwell,
            "git": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip(),
            "requests": requests,
            "warmup_per_endpoint": a.warmup,
            "note": a.note,
            "elapsed_s": round(time.monotonic() - started, 1),
            "glibc_tunables": HONEST_TUNABLES,
            "method": "(Ir(warm-up + N requests) - Ir(warm-up only)) / N, user space, all threads; "
                      "GLIBC_TUNABLES raises glibc's rep stosb/movsb thresholds for both servers (honest counts); "
                      "malloc per request: callgrind's call count of malloc, the same difference; "
                      "Linkwell's link refresher thread (a poll every 500 ms) and click flush thread left out; "
                      "Linkwell --threads 1 --admin off; nginx master_process off, worker_processes 1; "
                      "one keep-alive connection, one request at a time",
        },
        "http": http,
        "resolution": resolution,
    }
    jpath = os.path.join(a.out, stem + ".json")
    with open(jpath, "w") as f:
        json.dump(result, f, indent=2)
    shutil.rmtree(tmp, ignore_errors=True)
    print_tables(result)
    print(jpath)


def print_tables(d):
    http = d["http"]
    if http:
        tunables = d["meta"].get("glibc_tunables")
        print(f"Both servers ran with GLIBC_TUNABLES={tunables} (honest memset/memcpy counts)." if tunables
              else "Counted without GLIBC_TUNABLES: glibc's rep stosb/movsb counted once per byte (inflated).")
        print()
        print("| endpoint | access log | Linkwell Ir/request | nginx Ir/request | Linkwell / nginx | malloc/request L / N |")
        print("|---|---|---|---|---|---|")
        keys = sorted({(r["endpoint"], r["access_log"]) for r in http}, key=lambda k: (k[1], [e for e, _, _ in ENDPOINTS].index(k[0])))
        for endpoint, logging in keys:
            rows = {r["server"]: r for r in http if r["endpoint"] == endpoint and r["access_log"] == logging}
            lw, ng = (rows[s]["ir_per_request"] if s in rows else None for s in ("linkwell", "nginx"))
            ratio = f"{lw / ng:.2f}" if lw and ng else "–"
            num = lambda x: f"{x:,.0f}" if x is not None else "–"  # noqa: E731
            mallocs = " / ".join(f"{rows[s]['malloc_per_request']:.2f}" if "malloc_per_request" in rows.get(s, {}) else "–"
                                 for s in ("linkwell", "nginx"))
            print(f"| {endpoint} | {'on' if logging else 'off'} | {num(lw)} | {num(ng)} | {ratio} | {mallocs} |")
        print()
    if d["resolution"]:
        print("| routes | Ir/URL | URLs counted | matched / excluded / no route |")
        print("|---|---|---|---|")
        for r in d["resolution"]:
            mix = r["mix"]
            print(f"| {r['routes']:,} | {r['ir_per_url']:,.0f} | {r['urls'] * r['passes']:,} | {mix['matched']} / {mix['excluded']} / {mix['no_route']} |")
        print()
    for r in http:
        for kind in ("self", "inclusive"):
            rows = (r.get("profile") or {}).get(kind)
            if not rows:
                continue
            print(f"{r['server']} {r['endpoint']} (access log {'on' if r['access_log'] else 'off'}), top {len(rows)} by {kind} Ir per request:")
            for p in rows:
                print(f"  {p['ir_per_request']:>10,.0f}  {p['function'][:160]}")
            print()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--print":
        print_tables(json.load(open(sys.argv[2])))
    else:
        main()
