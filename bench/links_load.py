"""bench/links-load's driver: fill a SQLite file and a PostgreSQL database with N links, then load
each in a fresh process (linkwell-links-bench load), so the peak RSS is the load's alone.
--patch: the cost of one changed link (the refresher's check after one write by another
connection, median of --rounds, default 20) at 10 k, 100 k and 1 M stored links on each."""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / ".build" / "release" / "linkwell-links-bench"
sys.path.insert(0, str(ROOT / "tests" / "live"))


def config(directory, storage):
    text = (ROOT / "config" / "examples" / "fitconnect.json5").read_text()
    cfg = Path(directory) / "linkwell.json5"
    cfg.write_text(text.replace("{", "{ storage: " + storage + ",", 1))
    return cfg


def run(cfg, *args):
    r = subprocess.run([str(BENCH), *args, "--config", str(cfg)], capture_output=True, text=True, timeout=1500)
    if r.returncode != 0:
        sys.exit(f"linkwell-links-bench {' '.join(args)}: {r.stderr}")
    return json.loads(r.stdout)


def measure(cfg, count, rounds):
    run(cfg, "fill", "--count", str(count))
    result = run(cfg, "load", "--rounds", str(rounds))
    result["count"] = count
    print(json.dumps(result), flush=True)
    return result


def measure_patch(cfg, counts, rounds):
    """Grows the store to each count in turn and measures one changed link there."""
    filled = 0
    for count in counts:
        run(cfg, "fill", "--count", str(count - filled), "--start", str(filled))
        filled = count
        result = run(cfg, "patch", "--rounds", str(rounds))
        result["count"] = count
        print(json.dumps(result), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--count", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int)
    p.add_argument("--sqlite-only", action="store_true")
    p.add_argument("--postgres-only", action="store_true")
    p.add_argument("--patch", action="store_true")
    a = p.parse_args()
    counts = [c for c in (10_000, 100_000, 1_000_000) if c < a.count] + [a.count]

    def one(cfg):
        if a.patch:
            measure_patch(cfg, counts, a.rounds or 20)
        else:
            measure(cfg, a.count, a.rounds or 3)

    if not a.postgres_only:
        with tempfile.TemporaryDirectory(prefix="linkwell-links-load-") as d:
            one(config(d, '{ sqlite: "links.db" }'))
    if a.sqlite_only:
        return
    from pgserver import PostgresServer
    pg = PostgresServer()
    try:
        d = tempfile.mkdtemp(prefix="linkwell-links-load-")
        (Path(d) / "pw").write_text(pg.PASSWORD + "\n")
        one(config(d, f'{{ postgres: "{pg.url}", passwordFile: "pw" }}'))
        shutil.rmtree(d, ignore_errors=True)
    finally:
        pg.close()


if __name__ == "__main__":
    main()
