"""CI smoke for bench/callgrind: the quick mode (200 requests per endpoint, AASA and 404, logs
off, resolution at 100 routes) completes and writes complete counts and profiles.

No assertions on the counts' size beyond "something was counted" (they change with every speed
change). Reuses .build/release binaries (`--no-build`); ~20-30 s with them built.
"""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (shutil.which("valgrind") and (shutil.which("nginx") or Path("/usr/sbin/nginx").exists())),
                    reason="valgrind and nginx are needed (apt-get install valgrind nginx-light)")
def test_callgrind_quick_smoke(tmp_path):
    built = (ROOT / ".build/release/linkwell").exists() and (ROOT / ".build/release/linkwell-bench").exists()
    proc = subprocess.run(
        [str(ROOT / "bench/callgrind"), "--quick", "--no-build", "--out", str(tmp_path), "--name", "smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=300 if built else 1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "smoke.json").read_text())
    rows = {(r["server"], r["endpoint"]): r for r in result["http"]}
    assert set(rows) == {(s, e) for s in ("linkwell", "nginx") for e in ("aasa", "notfound")}
    for (server, endpoint), r in rows.items():
        assert r["requests"] == 200 and r["access_log"] is False
        # The run with the requests counted more than the baseline without them.
        assert r["ir_run"] > r["ir_baseline"] > 0, r
        assert r["ir_per_request"] == pytest.approx((r["ir_run"] - r["ir_baseline"]) / 200, abs=0.1)
        if endpoint == "aasa":
            for kind in ("self", "inclusive"):
                top = r["profile"][kind]
                assert len(top) == 10, (server, kind, top)
                assert all(p["function"] and p["ir_per_request"] > 0 for p in top), top
    [res] = result["resolution"]
    assert res["routes"] == 100 and res["urls"] * res["passes"] > 0 and res["ir_per_url"] > 0
    assert res["mix"]["matched"] > 0 and res["mix"]["no_route"] > 0
    # The table is printed for a person, with the JSON path last.
    assert "| aasa | off |" in proc.stdout and proc.stdout.strip().endswith("smoke.json")
