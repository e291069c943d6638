"""bench/links-load's driver: fill a SQLite file and a PostgreSQL database with N links, then load
each in a fresh process (linkwell-links-bench load), so the peak RSS is the load's alone."""
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--count", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sqlite-only", action="store_true")
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="linkwell-links-load-") as d:
        measure(config(d, '{ sqlite: "links.db" }'), a.count, a.rounds)
    if a.sqlite_only:
        return
    from pgserver import PostgresServer
    pg = PostgresServer()
    try:
        d = tempfile.mkdtemp(prefix="linkwell-links-load-")
        (Path(d) / "pw").write_text(pg.PASSWORD + "\n")
        measure(config(d, f'{{ postgres: "{pg.url}", passwordFile: "pw" }}'), a.count, a.rounds)
        shutil.rmtree(d, ignore_errors=True)
    finally:
        pg.close()


if __name__ == "__main__":
    main()
