"""CI smoke for bench/run: the quick mode completes and writes a complete JSON and a PNG.

No assertions on numbers (the machine is shared and noisy). Reuses .build/release binaries when
present (`--no-build`); otherwise bench/run builds them first, which takes longer than the
~60 s the run itself needs.
"""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENDPOINTS = ["aasa", "assetlinks", "landing", "notfound", "revalidate304"]
MODES = ["ka64", "ka256", "ka1000", "close64"]
LOGGED = ["aasa/ka64/log", "landing/ka64/log"]  # both access logs on, each to its own file


@pytest.mark.skipif(not (shutil.which("wrk") and (shutil.which("nginx") or Path("/usr/sbin/nginx").exists())),
                    reason="wrk and nginx are needed (apt-get install wrk nginx-light)")
def test_bench_quick_smoke(tmp_path):
    built = (ROOT / ".build/release/linkwell").exists() and (ROOT / ".build/release/linkwell-bench").exists()
    proc = subprocess.run(
        [str(ROOT / "bench/run"), "--quick", "--no-build", "--duration", "1", "--out", str(tmp_path), "--name", "smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=120 if built else 1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "smoke.json").read_text())
    names = {s["name"]: s for s in result["scenarios"]}
    for endpoint in ENDPOINTS:
        for mode in MODES:
            scenario = names[f"{endpoint}/{mode}"]
            for server in ("linkwell", "nginx"):
                assert scenario[server]["rounds"], f"{endpoint}/{mode} has no {server} round"
                assert "rps" in scenario[server]
            assert "ratio_linkwell_over_nginx" in scenario
    for name in LOGGED:
        scenario = names[name]
        assert scenario["access_log"] is True
        for server in ("linkwell", "nginx"):
            for r in scenario[server]["rounds"]:
                # Every request was logged to the server's file (wrk stops a few in flight).
                assert r["requests"] > 0 and 0.95 <= r["log_lines_per_req"] <= 1.1, (name, server, r)
    for server in ("linkwell", "nginx"):
        memory = result["memory"][server]
        assert memory["peak_rss_kb"] > 0 and memory["idle_rss_kb"] > 0
        assert memory["at_1000_connections_rss_kb"] >= memory["idle_rss_kb"]
    assert result["resolution"] is not None and "resolution" in result["resolution"]
    png = tmp_path / "smoke.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
