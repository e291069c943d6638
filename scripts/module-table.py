#!/usr/bin/env python3
"""Writes the module table of docs/dev/architecture.md from Package.swift.

    scripts/module-table.py            rewrite the table between the markers
    scripts/module-table.py --check    exit 1 when the document differs from Package.swift
    scripts/module-table.py --print    print the table (for a document outside the repository, such as DESIGN.md)
    scripts/module-table.py --root DIR work on another copy of the repository (the drift test)

Package.swift says what each target depends on; PURPOSES below says in one line what each
module is for. The table and the graph after it sit between the two MARKERS in the document;
everything outside them is written by hand. A target that Package.swift has and PURPOSES has
not is drift too: add its line here.
"""
import argparse
import re
import sys
from pathlib import Path

DOCUMENT = "docs/dev/architecture.md"
BEGIN = "<!-- module-table: begin. Generated from Package.swift by scripts/module-table.py; edit the script, not this table. -->"
END = "<!-- module-table: end -->"

# One line per module: what it is for. The dependencies come from Package.swift, not from here.
PURPOSES = {
    "LinkRouting": "**the library the apps import**: config model, path-pattern compiler, link parser (URL → route + parameters), link builder, config validation. No platform emulation, nothing Linux-only.",
    "LinkwellJSON": "a strict JSON reader/writer with line/column errors (`JSONValue`), shared by the matchers, the templates and the logs.",
    "PlatformMatchers": "emulators of the platforms, usable on any file: Apple AASA semantics (swcutil-like), Android assetlinks and dynamic components (Android 15 and 16 parsers). Knows nothing of routes.",
    "Association": "route table → bytes: AASA, assetlinks.json, the invariant check that runs the matchers over what was generated, `validate`, the nginx and Caddy configs. Deterministic output.",
    "Codegen": "route table → the apps' files (`linkwell codegen`): a Swift enum and a Kotlin sealed class with the server's matching rules, intent filters, entitlements, `CFBundleURLTypes`.",
    "LandingPages": "what a browser gets: the Mustache engine with contextual escaping, browser facts, the fallback decision, store and intent URLs, preview tags and cards, QR codes, languages, pages compiled per variant, the `public/` tree compiled into the binary.",
    "LinkStore": "short links and click counts: the model, the SQLite and PostgreSQL stores behind one connection protocol, migrations, the compact link index, codes and the check that a code shadows no route. No server code.",
    "MicroHTTP": "the generic HTTP layer over libmicrohttpd: daemon, request-head checks, connection limits, prepared responses, entity tags, listen addresses, proxy trust. **Imports no Linkwell module.**",
    "LinkServer": "the running server: immutable snapshot, the responder, sites, static assets, page caches, reload, metrics, logs, the admin listener and its REST API, click counting.",
    "linkwell": "the command line: `serve`, `validate`, `generate`, `check`, `link`, `routes`, `links`, `tokens`, `stats`, `verify`, `doctor`, `codegen`, `healthcheck`, `completions`, `help`.",
    "CMicroHTTPD": "module map and C shim over Debian's libmicrohttpd.",
    "CQRencode": "module map over Debian's libqrencode (the QR codes of desktop landing pages).",
    "CRsvg": "librsvg and cairo, loaded with `dlopen` at the first preview card (not linked).",
    "CSQLite": "module map over Debian's libsqlite3 (the link store).",
    "CPostgres": "libpq's header; libpq is loaded with `dlopen` at the first PostgreSQL connection (not linked).",
    "codegen-reference": "LinkRouting's answers for a URL corpus: the reference side of the generated routers' cross-language test.",
    "linkwell-bench": "route resolution, load and reload benchmarks (`bench/run`); release builds.",
    "linkwell-links-bench": "the short-link index's load time and memory at 1 M links (`bench/links-load`); release builds.",
}

KINDS = {"target": "library", "executableTarget": "executable", "systemLibrary": "system library"}


def balanced(text, start):
    """The text between the parenthesis at `start` and its match (strings skipped)."""
    depth, i, in_string = 0, start, False
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
        i += 1
    raise SystemExit(f"module-table: unbalanced parentheses in Package.swift at offset {start}")


def strip_comments(text):
    return "\n".join(re.sub(r'^(([^"/]|"[^"]*")*)//.*$', r"\1", line) for line in text.split("\n"))


def targets(package_swift):
    """[(name, kind, dependencies, path, apt packages)] in the order Package.swift lists them."""
    text = strip_comments(package_swift)
    found = []
    for m in re.finditer(r"\.(target|executableTarget|systemLibrary|testTarget)\(", text):
        kind = m.group(1)
        args = balanced(text, m.end() - 1)
        name = re.search(r'name:\s*"([^"]+)"', args).group(1)
        deps = []
        dm = re.search(r"dependencies:\s*\[", args)
        if dm:
            depth, i = 1, dm.end()
            while depth:
                depth += {"[": 1, "]": -1}.get(args[i], 0)
                i += 1
            block = args[dm.end():i - 1]
            for dep in re.finditer(r'\.product\(\s*name:\s*"([^"]+)"\s*,\s*package:\s*"([^"]+)"\s*\)|\.target\(\s*name:\s*"([^"]+)"\s*\)|\.byName\(\s*name:\s*"([^"]+)"\s*\)|"([^"]+)"', block):
                deps.append(f"{dep.group(1)} ({dep.group(2)})" if dep.group(1) else next(g for g in dep.groups()[2:] if g))
        pm = re.search(r'path:\s*"([^"]+)"', args)
        apt = re.findall(r'\.apt\(\[([^\]]*)\]\)', args)
        packages = [p for group in apt for p in re.findall(r'"([^"]+)"', group)]
        found.append((name, kind, deps, pm.group(1) if pm else None, packages))
    return found


def render(all_targets):
    modules = [t for t in all_targets if t[1] != "testTarget"]
    missing = [t[0] for t in modules if t[0] not in PURPOSES]
    lines = [BEGIN, "", "| module | kind | depends on | what it is |", "|---|---|---|---|"]
    for name, kind, deps, path, packages in modules:
        where = f" (`{path}`)" if path else ""
        if kind == "systemLibrary":
            depends = "Debian " + ", ".join(f"`{p}`" for p in packages) if packages else "—"
        else:
            depends = ", ".join(f"`{d}`" for d in deps) if deps else "—"
        purpose = PURPOSES.get(name, "(no description: add one to PURPOSES in scripts/module-table.py)")
        lines.append(f"| `{name}`{where} | {KINDS[kind]} | {depends} | {purpose} |")
    # The graph of the modules under Sources/ (what imports what), for GitHub's Mermaid renderer.
    in_sources = {t[0] for t in modules if not t[3]}
    lines += ["", "What imports what (an arrow points to the module imported):", "", "```mermaid", "graph BT"]
    for name, kind, deps, path, _ in modules:
        if name not in in_sources:
            continue
        for dep in deps:
            if dep in in_sources:
                lines.append(f"    {node(name)} --> {node(dep)}")
    lines += ["```", "", END]
    return "\n".join(lines), missing


def node(name):
    return re.sub(r"[^A-Za-z0-9]", "_", name) + f'["{name}"]'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the document's table differs from Package.swift")
    parser.add_argument("--print", action="store_true", help="print the table instead of writing it")
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent), help="the repository (default: this script's)")
    args = parser.parse_args()
    root = Path(args.root)
    document = root / DOCUMENT
    table, missing = render(targets((root / "Package.swift").read_text()))
    if args.print:
        print(table)
        return 1 if missing else 0
    text = document.read_text()
    if BEGIN not in text or END not in text:
        print(f"module-table: {DOCUMENT} has no markers; put these two lines where the table goes:\n  {BEGIN}\n  {END}", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + table + tail
    for name in missing:
        print(f"module-table: target '{name}' of Package.swift has no line in PURPOSES (scripts/module-table.py): add what it is for", file=sys.stderr)
    if args.check:
        if new != text:
            print(f"module-table: {DOCUMENT}'s module table differs from Package.swift; run scripts/module-table.py and commit the result", file=sys.stderr)
            return 1
        return 1 if missing else 0
    if new != text:
        document.write_text(new)
        print(f"module-table: wrote {DOCUMENT}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
