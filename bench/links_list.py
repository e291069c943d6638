"""bench/links-list's driver: build (or reuse) a SQLite file of N links and ~10 clicks per link in
2 daily rows each, spread over the last 30 days; start `linkwell serve` on it, wait for the
maintenance that fills the 7-day clicks, sign in with a read token and time each list address
(median and worst of --rounds requests, after one warm-up)."""
import argparse
import datetime
import json
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".build" / "links-list"

QUERIES = [
    ("code order (default)", "/links?site=fitconnect"),
    ("code order, page 20", "/links?site=fitconnect&page=20"),
    ("newest first", "/links?site=fitconnect&sort=created&dir=desc"),
    ("oldest first", "/links?site=fitconnect&sort=created&dir=asc"),
    ("most clicked, 7 days", "/links?site=fitconnect&sort=clicks&dir=desc"),
    ("least clicked, 7 days", "/links?site=fitconnect&sort=clicks&dir=asc"),
    ("search, common word", "/links?site=fitconnect&q=promo"),
    ("search, rare word", "/links?site=fitconnect&q=R99999"),
    ("search, no match", "/links?site=fitconnect&q=zzz"),
    ("search, common word, most clicked", "/links?site=fitconnect&q=promo&sort=clicks&dir=desc"),
    ("search, rare word, most clicked", "/links?site=fitconnect&q=R99999&sort=clicks&dir=desc"),
    ("search, 2 characters, no code starts so", "/links?site=fitconnect&q=c9"),
    ("search, 2 characters, every code", "/links?site=fitconnect&q=c0"),
    ("search, two common words together", "/links?site=fitconnect&q=offer+77"),
    ("search, two common words, newest first", "/links?site=fitconnect&q=offer+77&sort=created&dir=desc"),
]

WORDS = ["promo", "spring", "summer", "winter", "launch", "referral", "newsletter", "partner"]
COUNTS = "p_ios, p_android, p_desktop, p_other, o_app_page, o_store, o_web, o_redirect, o_not_found, in_app, crawler"


def day_of(date):
    return int(date.strftime("%Y%m%d"))


def config(directory, db):
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    cfg = Path(directory) / "linkwell.json5"
    cfg.write_text(text.replace("{", "{ storage: { sqlite: " + json.dumps(str(db)) + " },", 1))
    return cfg


def build(binary, db, count):
    """Creates the schema with linkwell, then bulk-inserts the links and the click rows."""
    if db.exists():
        db.unlink()
    cfg = config(db.parent, db)
    subprocess.run([str(binary), "tokens", "create", "--name", "bench", "--scope", "read", "--config", str(cfg)],
                   check=True, capture_output=True, text=True)
    today = datetime.datetime.now(datetime.timezone.utc).date()
    days = [day_of(today - datetime.timedelta(days=d)) for d in range(30)]
    start = time.monotonic()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA cache_size = -262144")
    con.execute("BEGIN")
    now = int(time.time())

    def links():
        for i in range(count):
            word = WORDS[i % len(WORDS)]
            yield ("fitconnect", f"c{i:07d}", f"https://fitconnect.app/signup?referralCode=R{i}", now - (count - i),
                   now - (count - i), f"{word.capitalize()} offer {i}")

    con.executemany("INSERT INTO links (site, code, target, created_at, updated_at, preview_title) VALUES (?, ?, ?, ?, ?, ?)", links())

    def clicks():
        for i in range(count):
            first, second = i % 30, (i * 7 + 3) % 30
            if second == first:
                second = (first + 1) % 30
            for d in (first, second):
                n = (i * 13 + d) % 9 + 1
                yield ("fitconnect", f"c{i:07d}", "signup", days[d], n, 0, 0, 0, n, 0, 0, 0, 0, 0, 0)

    con.executemany(f"INSERT INTO clicks_daily (site, code, route, day, {COUNTS}) VALUES ({', '.join('?' * 15)})", clicks())
    con.execute("COMMIT")
    total = con.execute("SELECT SUM(p_ios), COUNT(*) FROM clicks_daily").fetchone()
    con.close()
    print(f"built {db.name}: {count} links, {total[1]} daily rows, {total[0]} clicks in {time.monotonic() - start:.0f} s", file=sys.stderr)


def serve(binary, cfg):
    proc = subprocess.Popen([str(binary), "serve", "--config", str(cfg), "--admin", "127.0.0.1:0", "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found = {}
    ready = threading.Event()

    def read():
        for line in proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "listening":
                found["admin"] = event["admin"]
                ready.set()
    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(600):
        proc.kill()
        sys.exit("linkwell serve did not start within 10 minutes")
    return proc, found["admin"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--release", action="store_true")
    args = ap.parse_args()
    binary = ROOT / ".build" / ("release" if args.release else "debug") / "linkwell"
    CACHE.mkdir(parents=True, exist_ok=True)
    db = CACHE / f"{args.count}-{datetime.datetime.now(datetime.timezone.utc):%Y%m%d}.db"
    if args.rebuild or not db.exists():
        for old in CACHE.glob(f"{args.count}-*.db*"):
            old.unlink()
        build(binary, db, args.count)
    cfg = config(CACHE, db)
    token = subprocess.run([str(binary), "tokens", "create", "--name", f"bench{time.time_ns()}", "--scope", "read", "--config", str(cfg)],
                           check=True, capture_output=True, text=True).stdout.strip().split()[-1]
    proc, admin = serve(binary, cfg)
    try:
        # The maintenance at start fills link_list.clicks_7d (once per new file).
        con = sqlite3.connect(db)
        deadline = time.monotonic() + 600
        while con.execute("SELECT subtracted_through FROM link_list_window").fetchone()[0] is None:
            if time.monotonic() > deadline:
                sys.exit("the maintenance did not fill the 7-day clicks within 10 minutes")
            time.sleep(0.5)
        con.close()
        s = requests.Session()
        base = f"http://{admin}"
        form = s.get(base + "/")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        r = s.post(base + "/console/sign-in", data={"token": token, "csrf": csrf}, headers={"Origin": base}, allow_redirects=False)
        assert r.status_code in (302, 303), f"sign-in answered {r.status_code}"
        rows = []
        for label, path in QUERIES:
            first = s.get(base + path)
            assert first.status_code == 200, f"{path} answered {first.status_code}"
            listed = len(re.findall(r'<td data-label="Code">', first.text))
            times = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                s.get(base + path).raise_for_status()
                times.append((time.perf_counter() - t) * 1000)
            row = {"query": label, "path": path, "listed": listed, "median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)}
            rows.append(row)
            print(f"{label:38} {row['median_ms']:8.1f} ms median {row['max_ms']:8.1f} ms max  {listed:3} rows  {path}", flush=True)
    finally:
        proc.terminate()
        proc.wait(30)
    result = {"bench": "links-list", "count": args.count, "build": "release" if args.release else "debug",
              "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}", "rounds": args.rounds, "queries": rows,
              "all_under_50_ms": all(r["median_ms"] < 50 for r in rows)}
    out = ROOT / "bench" / "results" / f"links-list-{datetime.datetime.now(datetime.timezone.utc):%Y%m%d}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(out)


if __name__ == "__main__":
    main()
