"""bench/console-load's driver: build (or reuse) the large SQLite store, start `linkwell serve` on
it, sign in to the console and time each page: median of --rounds (default 20) and the slowest,
wall milliseconds as a client on loopback sees them. Prints a table and one JSON line."""
import argparse
import json
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "live"))
CACHE = ROOT / ".build" / "console-load"
DAYS = 90
PLATFORMS = 4


def binary(choice):
    if choice:
        return Path(choice)
    release = ROOT / ".build" / "release" / "linkwell"
    return release if release.exists() else ROOT / ".build" / "debug" / "linkwell"


def write_config(directory):
    cfg = directory / "linkwell.json5"
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    cfg.write_text(text.replace("{", '{ storage: { sqlite: "linkwell.db" },', 1))
    return cfg


def build_store(linkwell, directory, links, clicks):
    """Migrates a new database with the real binary, then bulk-inserts the links and the daily
    click rows in one transaction each: every link gets clicks on `per_link` days of the last 90,
    spread over the four platforms and mostly the app page."""
    cfg = write_config(directory)
    subprocess.run([str(linkwell), "links", "list", "--config", str(cfg)], check=True, capture_output=True, timeout=120)
    db = sqlite3.connect(directory / "linkwell.db")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")
    now = int(time.time())
    started = time.time()
    with db:
        db.executemany(
            "INSERT INTO links (site, code, target, disabled, created_at, updated_at, preview_title) VALUES ('fitconnect', ?, ?, 0, ?, ?, ?)",
            ((f"l{i:07d}", f"https://fitconnect.app/signup?referralCode=R{i:07d}", now - i, now - i, f"Offer {i}") for i in range(links)))
    per_link = max(1, round(clicks / links / 5))
    today = int(time.time()) // 86400

    def day(epoch_day):
        t = time.gmtime(epoch_day * 86400)
        return t.tm_year * 10000 + t.tm_mon * 100 + t.tm_mday

    days = [day(today - d) for d in range(DAYS)]
    columns = "site, code, route, day, p_ios, p_android, p_desktop, p_other, o_app_page, o_store, o_web, o_redirect, o_not_found, in_app, crawler"

    def rows():
        for i in range(links):
            for k in range(per_link):
                d = days[(i * 7 + k * 31) % DAYS]
                p = [2, 1, 1, 1] if (i + k) % 3 else [1, 2, 1, 1]  # 5 clicks a row
                yield ("fitconnect", f"l{i:07d}", "signup", d, *p, 4, 1, 0, 0, 0, 0, 0)

    with db:
        db.executemany(f"INSERT OR IGNORE INTO clicks_daily ({columns}) VALUES ({', '.join('?' * 15)})", rows())
    # The per-site tables and each day's top links, as the flush keeps them (the same statements
    # migration 11 fills them with from existing rows).
    sums = ", ".join(f"SUM({c})" for c in columns.split(", ")[4:])
    total = "p_ios + p_android + p_desktop + p_other"
    with db:
        db.execute(f"INSERT INTO clicks_site_daily SELECT site, route, day, {sums} FROM clicks_daily GROUP BY site, route, day")
        db.execute(f"""INSERT INTO clicks_top_daily SELECT site, day, code, route, clicks FROM (
            SELECT site, day, code, route, {total} AS clicks, ROW_NUMBER() OVER (PARTITION BY site, day ORDER BY {total} DESC, code, route) AS rank
            FROM clicks_daily WHERE code <> '') AS r WHERE rank <= 100""")
    stored = db.execute("SELECT SUM(p_ios + p_android + p_desktop + p_other), COUNT(*) FROM clicks_daily").fetchone()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(f"built {links:,} links and {stored[0]:,} clicks in {stored[1]:,} daily rows in {time.time() - started:.0f} s", file=sys.stderr)
    return cfg


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--links", type=int, default=1_000_000)
    p.add_argument("--clicks", type=int, default=10_000_000)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--binary")
    p.add_argument("--fresh", action="store_true", help="rebuild the cached database")
    a = p.parse_args()
    linkwell = binary(a.binary)
    directory = CACHE / f"{a.links}-{a.clicks}"
    if a.fresh or not (directory / "linkwell.db").exists():
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        try:
            build_store(linkwell, directory, a.links, a.clicks)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
    cfg = write_config(directory)
    token = subprocess.run([str(linkwell), "tokens", "create", "--name", f"bench-{int(time.time())}", "--scope", "write", "--config", str(cfg)],
                           check=True, capture_output=True, text=True).stdout.strip()

    import requests
    from conftest import Server
    server = Server(cfg)
    try:
        s = requests.Session()
        form = s.get(server.admin_url("/"))
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        r = s.post(server.admin_url("/console/sign-in"), data={"token": token, "csrf": csrf},
                   headers={"Origin": f"http://{server.admin}"}, allow_redirects=False)
        assert r.status_code == 303, r.text
        middle = f"l{a.links // 2:07d}"
        pages = [
            ("links list", "/?site=fitconnect"),
            ("links list, q=", "/?site=fitconnect&q=l00001"),
            ("links list, sort=clicks", "/?site=fitconnect&sort=clicks"),
            ("a link", f"/console/links/edit?site=fitconnect&code={middle}"),
            ("site counts, 90 days", "/console/stats?site=fitconnect&range=90"),
            ("site counts, 7 days", "/console/stats?site=fitconnect&range=7"),
            ("route counts, 90 days", "/console/stats?site=fitconnect&route=signup&range=90"),
            ("link counts, 90 days", f"/console/stats?site=fitconnect&link={middle}&range=90"),
            ("routes", "/console/routes?site=fitconnect"),
        ]
        results = []
        for name, path in pages:
            times = []
            for _ in range(a.rounds + 1):
                start = time.perf_counter()
                r = s.get(server.admin_url(path))
                times.append((time.perf_counter() - start) * 1000)
                assert r.status_code == 200, (path, r.status_code, r.text[:300])
            times = times[1:]  # the first warms the page cache
            results.append({"page": name, "path": path, "median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
                            "bytes": len(r.content), "under_50ms": statistics.median(times) < 50})
        print(f"{'page':<26} {'median ms':>10} {'slowest':>9}  path")
        for x in results:
            flag = "" if x["under_50ms"] else "  OVER 50 ms"
            print(f"{x['page']:<26} {x['median_ms']:>10.1f} {x['max_ms']:>9.1f}  {x['path']}{flag}")
        print(json.dumps({"binary": str(linkwell.relative_to(ROOT)) if linkwell.is_relative_to(ROOT) else str(linkwell),
                          "links": a.links, "clicks": a.clicks, "rounds": a.rounds, "pages": results}))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
