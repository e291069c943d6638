#!/usr/bin/env python3
"""Markdown tables from a bench/run result: python bench/report.py bench/results/<date>.json"""
import json
import sys

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
print(f"\nRSS: Linkwell idle {m['linkwell']['idle_rss_kb']/1024:.1f} MB, peak {m['linkwell']['peak_rss_kb']/1024:.1f} MB; "
      f"nginx ({m['nginx']['processes']} processes, summed) idle {m['nginx']['idle_rss_kb']/1024:.1f} MB, peak {m['nginx']['peak_rss_kb']/1024:.1f} MB\n")
res = d.get("resolution") or {}
if "resolution" in res:
    print("| routes | ns/URL median (min–max) | matched / excluded / no route |")
    print("|---|---|---|")
    for r in res["resolution"]:
        n, mix = r["ns_per_url"], r["mix"]
        print(f"| {r['routes']:,} | {n['median']:,.0f} ({n['min']:,.0f}–{n['max']:,.0f}) | {mix['matched']} / {mix['excluded']} / {mix['no_route']} |")
    print()
    print("| load at 10k routes | sites | valid | decode | validate | compile | generate | snapshot | load total | reload |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for l in res.get("load", []):
        ms = l["ms"]
        cells = " | ".join(f"{ms[k]['median']:,.0f}" for k in ("decode", "validate_no_platform_check", "compile",
                                                                "generate_aasa_and_assetlinks", "snapshot", "load_total", "reload_equivalent"))
        print(f"| {l['routes']:,} | {l['sites']} | {l['valid']} | {cells} |")
    print()
    for k, t in res.get("targets", {}).items():
        print(f"- {k}: {t['value']} (target {t['target']}) — {'met' if t['met'] else 'MISSED'}")
