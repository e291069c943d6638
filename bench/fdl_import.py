#!/usr/bin/env python3
"""Time and peak memory of `linkwell links import --fdl-takeout` on a generated Takeout CSV.

Called by bench/fdl-import. Writes a ROWS-row file (every column filled, quoted titles with commas,
quotes and line breaks, a BOM, one row in 50 archived) in a temporary directory, then runs, each
as a new process on the same database:

  dry run (nothing written) → first import (all new) → re-import (all unchanged) → export csv

and reports wall time and peak RSS (the child's ru_maxrss) of each. Numbers go to
bench/results/fdl-import-<date>.json and a table on stdout. No assertions: the machine is shared.
"""
import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ["Short link", "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "st", "sd", "si",
           "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "at", "ct", "mt", "pt", "Archived?", "Link name",
           "Creation timestamp"]


def field(s):
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\r\n') else s


def write_takeout(path, rows):
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        f.write(",".join(COLUMNS) + "\r\n")
        for i in range(rows):
            values = {
                "Short link": f"https://links.example.com/c{i:06d}", "link": f"https://www.example.com/post/{i}", "apn": "com.example.app",
                "afl": f"https://www.example.com/android/{i}", "amv": "12", "ibi": "com.example.app", "ifl": f"https://www.example.com/ios/{i}",
                "ius": "example", "ipfl": "", "ipbi": "", "isi": "123456789", "imv": "1.0", "efr": "1" if i % 10 == 0 else "",
                "ofl": f"https://www.example.com/post/{i}", "st": f"Post {i}, \"the\" title", "sd": f"Line one of {i}\nline two",
                "si": f"https://cdn.example.net/{i}.png", "utm_source": "news", "utm_medium": "email", "utm_campaign": f"c{i % 100}",
                "utm_term": "", "utm_content": "", "at": "", "ct": "", "mt": "", "pt": "", "Archived?": "TRUE" if i % 50 == 0 else "FALSE",
                "Link name": f"Link {i}", "Creation timestamp": "2021-03-04 05:06:07",
            }
            f.write(",".join(field(values[c]) for c in COLUMNS) + "\r\n")


CONFIG = """{
  sites: [{
    name: "example", domains: ["links.example.com"], website: "https://www.example.com",
    ios: [{ teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123456789", schemes: ["example"] }],
    android: [{ package: "com.example.app", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }],
    routes: [{ name: "post", path: "/post/{postId}" }],
    shortLinks: { allowedHosts: ["www.example.com"] },
  }],
}
"""


def measure(args, timeout):
    """Runs args as a child; (seconds, peak RSS MiB of that child, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode != 0:
        raise SystemExit(f"fdl-import: {' '.join(args[:4])} exited {p.returncode}: {p.stderr[-2000:]}")
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far; each step here is larger or equal
    # to the ones before only by chance, so each step runs in a fresh helper (see main).
    return elapsed, peak / 1024, p.stdout, before


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linkwell", default=os.path.join(ROOT, ".build/release/linkwell"))
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--name")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--step", help=argparse.SUPPRESS)  # internal: run one step, print JSON
    a = ap.parse_args()
    if a.step:
        cmd = json.loads(a.step)
        seconds, rss, out, _ = measure(cmd, a.timeout)
        print(json.dumps({"seconds": round(seconds, 3), "peak_rss_mib": round(rss, 1), "stdout_head": out.splitlines()[:7]}))
        return
    tmp = tempfile.mkdtemp(prefix="linkwell-fdl-import-")
    try:
        config = os.path.join(tmp, "links.json5")
        with open(config, "w") as f:
            f.write(CONFIG)
        csv = os.path.join(tmp, "takeout.csv")
        t0 = time.monotonic()
        write_takeout(csv, a.rows)
        print(f"fdl-import: wrote {a.rows:,} rows ({os.path.getsize(csv) / 1e6:.1f} MB) in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        base = [a.linkwell, "links", "import", "--fdl-takeout", csv, "--site", "example", "--config", config]
        steps = [("dry run", base + ["--dry-run"]), ("first import", base), ("re-import (unchanged)", base),
                 ("export csv", [a.linkwell, "links", "export", "--config", config, "--output", os.path.join(tmp, "export.csv")])]
        results = []
        for name, cmd in steps:
            # Each step in its own helper process, so ru_maxrss is that step's own peak.
            p = subprocess.run([sys.executable, __file__, "--step", json.dumps(cmd), "--timeout", str(a.timeout)],
                               capture_output=True, text=True, timeout=a.timeout + 60)
            if p.returncode != 0:
                raise SystemExit(p.stderr)
            r = json.loads(p.stdout)
            r["step"] = name
            results.append(r)
            print(f"fdl-import: {name}: {r['seconds']:.2f} s, {r['peak_rss_mib']:.0f} MiB", file=sys.stderr)
        now = datetime.datetime.now(datetime.timezone.utc)
        stem = a.name or "fdl-import-" + now.strftime("%Y-%m-%dT%H%M%SZ")
        os.makedirs(a.out, exist_ok=True)
        result = {"meta": {"date": now.isoformat(timespec="seconds"), "rows": a.rows, "file_bytes": os.path.getsize(csv),
                           "db_bytes": os.path.getsize(os.path.join(tmp, "linkwell.db")), "linkwell": a.linkwell,
                           "git": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()},
                  "steps": results}
        path = os.path.join(a.out, stem + ".json")
        with open(path, "w") as f:
            json.dump(result, f, indent=2)
        print(f"| step ({a.rows:,} rows) | wall time | peak RSS |")
        print("|---|---|---|")
        for r in results:
            print(f"| {r['step']} | {r['seconds']:.2f} s | {r['peak_rss_mib']:.0f} MiB |")
        print(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
