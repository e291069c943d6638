#!/usr/bin/env python3
"""Markdown tables from a bench/run result: python bench/report.py bench/results/<date>.json

    --goals RUN.json [CALLGRIND.json]   only the speed goals' table (bench/run prints it at the end):
                                        req/s ratios with CPU µs per request, RSS, load and reload from
                                        the run; instructions and malloc per request from the callgrind
                                        result (default: the newest bench/results/callgrind-*.json)
"""
import glob
import json
import os
import sys


def goals(d, cg, cg_path):
    """The speed goals' rows: each ratio with its CPU time per request (Linkwell / nginx, µs)."""
    by = {s["name"]: s for s in d["scenarios"]}

    def cpu(name):
        s = by.get(name)
        if not s or not s["linkwell"].get("cpu_us_per_req") or not s["nginx"].get("cpu_us_per_req"):
            return "–"
        return f"{s['linkwell']['cpu_us_per_req']['median']:.1f} / {s['nginx']['cpu_us_per_req']['median']:.1f}"

    def rps(name):
        s = by.get(name)
        r = s and s["ratio_linkwell_over_nginx"].get("rps")
        return f"{r:.2f}×" if r else "–"

    def ir(endpoint, log):
        rows = {r["server"]: r for r in (cg or {}).get("http", []) if r["endpoint"] == endpoint and r["access_log"] == log}
        if "linkwell" not in rows or "nginx" not in rows:
            return "–", "–"
        lw, ng = rows["linkwell"], rows["nginx"]
        mallocs = " / ".join(f"{r['malloc_per_request']:.2f}" if "malloc_per_request" in r else "–" for r in (lw, ng))
        return (f"{lw['ir_per_request'] / ng['ir_per_request']:.2f}× ({lw['ir_per_request']:,.0f} / {ng['ir_per_request']:,.0f})",
                mallocs)

    m = d["memory"]
    load = {(l["routes"], l["sites"]): l for l in (d.get("resolution") or {}).get("load", [])}
    many = next((l for (routes, sites), l in load.items() if sites > 1), None)

    def ms(k):
        return f"{many['ms'][k]['median']:,.0f}" if many and k in many["ms"] else "–"

    rows = []
    for label, endpoint, log, goal in (("AASA instructions per request, log on", "aasa", True, "≤ 1.2×"),
                                       ("AASA instructions per request, log off", "aasa", False, "–"),
                                       ("landing page instructions, vs nginx static", "landing", False, "≤ 3×"),
                                       ("404 instructions", "notfound", False, "≤ 1.5×"),
                                       ("304 instructions", "revalidate304", False, "≤ 1.5×")):
        ratio, mallocs = ir(endpoint, log)
        rows.append((label, ratio, f"malloc/request {mallocs}", goal))
    rows += [
        ("AASA req/s, both logging, keep-alive 64", rps("aasa/ka64/log"), f"CPU µs/request {cpu('aasa/ka64/log')}", "≥ 1.2×"),
        ("AASA req/s, logs off, keep-alive 64 / 1000", f"{rps('aasa/ka64')} / {rps('aasa/ka1000')}",
         f"CPU µs/request {cpu('aasa/ka64')} / {cpu('aasa/ka1000')}", "≥ 1.0×"),
        ("AASA `Connection: close`", rps("aasa/close64"), f"CPU µs/request {cpu('aasa/close64')}", "≥ 0.9×"),
        ("landing page req/s vs nginx static", rps("landing/ka64"), f"CPU µs/request {cpu('landing/ka64')}", "≥ 0.7×"),
        ("RSS at 1000 keep-alive connections", f"{(m['linkwell'].get('at_1000_connections_rss_kb') or 0) / 1000:.1f} MB",
         f"nginx {(m['nginx'].get('at_1000_connections_rss_kb') or 0) / 1000:.1f} MB", "≤ 64 MB"),
        (f"reload (SIGHUP, nothing changed) / full load, {many['routes'] if many else '10k'} routes in {many['sites'] if many else 20} sites",
         f"{ms('reload_sighup_unchanged')} / {ms('load_total')} ms", "", "≤ 100 / 400 ms"),
    ]
    out = ["| goal (Linkwell / nginx) | this run | detail (Linkwell / nginx) | goal |", "|---|---|---|---|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    source = f"instructions: {os.path.relpath(cg_path)}" if cg_path else "instructions: no bench/callgrind result yet (run bench/callgrind)"
    out.append(f"\n({source}; CPU µs/request: user + system time of the server processes over the round, median of rounds)")
    return "\n".join(out)


if len(sys.argv) > 2 and sys.argv[1] == "--goals":
    run = json.load(open(sys.argv[2]))
    cg_path = sys.argv[3] if len(sys.argv) > 3 else max(
        glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "callgrind-*.json")), default=None, key=os.path.getmtime)
    print(goals(run, json.load(open(cg_path)) if cg_path else None, cg_path))
    sys.exit(0)

d = json.load(open(sys.argv[1]))


def f(x, k="median", nd=0):
    if not x:
        return "–"
    return f"{x[k]:,.{nd}f}"


print(f"Run {d['meta']['date']} ({d['meta']['mode']}, {d['meta']['rounds']} rounds x {d['meta']['duration_s']} s, "
      f"{d['meta']['cpus']} cores {d['meta']['cpu_model']}; {d['meta']['note']})\n")
print("| scenario | Linkwell req/s (min–max) | nginx req/s (min–max) | ratio | p50 ms L / N | p99 ms L / N | CPU µs/req L / N | errors L / N | non-2xx/3xx L / N |")
print("|---|---|---|---|---|---|---|---|---|")
for s in d["scenarios"]:
    L, N, r = s["linkwell"], s["nginx"], s["ratio_linkwell_over_nginx"]
    print(f"| {s['name']} | {f(L['rps'])} ({f(L['rps'],'min')}–{f(L['rps'],'max')}) | {f(N['rps'])} ({f(N['rps'],'min')}–{f(N['rps'],'max')}) "
          f"| {r['rps']:.2f} | {f(L['p50_ms'],nd=2)} / {f(N['p50_ms'],nd=2)} | {f(L['p99_ms'],nd=1)} / {f(N['p99_ms'],nd=1)} "
          f"| {f(L['cpu_us_per_req'],nd=1)} / {f(N['cpu_us_per_req'],nd=1)} | {L['socket_errors']} / {N['socket_errors']} | {L['non_2xx_3xx']} / {N['non_2xx_3xx']} |")
m = d["memory"]


def mb(kb):
    return f"{kb / 1024:.1f}" if kb else "–"


print(f"\nRSS: Linkwell idle {mb(m['linkwell']['idle_rss_kb'])} MB, at 1000 connections {mb(m['linkwell'].get('at_1000_connections_rss_kb'))} MB, "
      f"peak {mb(m['linkwell']['peak_rss_kb'])} MB; nginx ({m['nginx']['processes']} processes, summed) idle {mb(m['nginx']['idle_rss_kb'])} MB, "
      f"at 1000 connections {mb(m['nginx'].get('at_1000_connections_rss_kb'))} MB, peak {mb(m['nginx']['peak_rss_kb'])} MB\n")

logged = [s for s in d["scenarios"] if s.get("access_log")]
if logged:
    print("| logging scenario | log lines per request L / N | bytes per line L / N |")
    print("|---|---|---|")
    for s in logged:
        L, N = s["linkwell"], s["nginx"]
        print(f"| {s['name']} | {f(L.get('log_lines_per_req'), nd=3)} / {f(N.get('log_lines_per_req'), nd=3)} "
              f"| {L.get('log_bytes_per_line') or '–'} / {N.get('log_bytes_per_line') or '–'} |")
    print()

# The rows of issue 15's table, from this run.
by = {s["name"]: s for s in d["scenarios"]}


def ratio(name, k="rps"):
    s = by.get(name)
    return f"{s['ratio_linkwell_over_nginx'][k]:.2f}×" if s and s["ratio_linkwell_over_nginx"].get(k) else "–"


def rps(name):
    s = by.get(name)
    return f"{f(s['linkwell']['rps'])} vs {f(s['nginx']['rps'])} req/s" if s else "–"


rows = [
    ("AASA keep-alive 64, both logging", ratio("aasa/ka64/log"), rps("aasa/ka64/log"), "≥ 1.1×"),
    ("AASA keep-alive 64 / 256 / 1000, logs off", " / ".join(ratio(f"aasa/ka{c}") for c in (64, 256, 1000)), "", "≥ 1.1×"),
    ("AASA `Connection: close`", ratio("aasa/close64"), rps("aasa/close64"), "≥ 1.0×"),
]
if "landing/ka64" in by:
    L, N = by["landing/ka64"]["linkwell"], by["landing/ka64"]["nginx"]
    rows.append(("landing page, rendered per request, vs nginx serving the same bytes", ratio("landing/ka64"),
                 f"{f(L['cpu_us_per_req'], nd=1)} µs of CPU per page vs {f(N['cpu_us_per_req'], nd=1)}", "≥ 0.8×"))
if "landing/ka1000" in by:
    L, N = by["landing/ka1000"]["linkwell"], by["landing/ka1000"]["nginx"]
    rows.append(("landing page p99 at 1000 connections", f"{f(L['p99_ms'], nd=1)} ms vs {f(N['p99_ms'], nd=1)} ms",
                 f"{ratio('landing/ka1000', 'p99_ms')} of nginx's", "≤ 1.5× nginx's"))
rows.append(("not-found page / 304 revalidation (keep-alive 64)", f"{ratio('notfound/ka64')} / {ratio('revalidate304/ka64')}", "", "≥ 1.0×"))
rows.append(("RSS idle / at 1000 connections", f"{mb(m['linkwell']['idle_rss_kb'])} / {mb(m['linkwell'].get('at_1000_connections_rss_kb'))} MB",
             f"nginx {mb(m['nginx']['idle_rss_kb'])} / {mb(m['nginx'].get('at_1000_connections_rss_kb'))} MB summed", "≤ 16 MB / ≤ 48 MB"))
print("| issue 15 row | Linkwell / nginx | detail | goal |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
print()
res = d.get("resolution") or {}
if "resolution" in res:
    print("| routes | ns/URL median (min–max) | matched / excluded / no route |")
    print("|---|---|---|")
    for r in res["resolution"]:
        n, mix = r["ns_per_url"], r["mix"]
        print(f"| {r['routes']:,} | {n['median']:,.0f} ({n['min']:,.0f}–{n['max']:,.0f}) | {mix['matched']} / {mix['excluded']} / {mix['no_route']} |")
    print()
    print("| load at 10k routes | sites | valid | decode | validate | compile | generate | snapshot | load total | reload | SIGHUP unchanged | SIGHUP one site changed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for l in res.get("load", []):
        ms = l["ms"]
        # The SIGHUP reloads (previous snapshot reused) exist only for a config that builds a snapshot.
        cells = " | ".join(f"{ms[k]['median']:,.0f}" if k in ms else "–" for k in (
            "decode", "validate_no_platform_check", "compile", "generate_aasa_and_assetlinks", "snapshot", "load_total",
            "reload_equivalent", "reload_sighup_unchanged", "reload_sighup_one_site_changed"))
        print(f"| {l['routes']:,} | {l['sites']} | {l['valid']} | {cells} |")
    print()
    for k, t in res.get("targets", {}).items():
        print(f"- {k}: {t['value']} (target {t['target']}) — {'met' if t['met'] else 'MISSED'}")
