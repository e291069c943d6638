#!/usr/bin/env python3
"""Seed corpora for the fuzz harnesses (docs/dev/fuzzing.md), written to OUT/<target>/.

Sources: the conformance vectors (Tests/PlatformMatchersTests/Fixtures/conformance, a copy of
shared/conformance), the shipped configs (config/linkwell.json5, config/examples/) and what the
`linkwell` binary generates from them, the official Mustache spec
(Tests/LandingPagesTests/Fixtures/mustache-spec), the raw HTTP requests in fuzz/corpus/http, the inputs
that once crashed or hung a harness (fuzz/corpus/<target>/) and, when present, the hostile-HTTP
corpus of tests/live. Two-part inputs are `a \\0 b`.

usage: fuzz/seeds.py OUT LINKWELL_BINARY
"""
import hashlib, json, pathlib, re, subprocess, sys

root = pathlib.Path(__file__).resolve().parent.parent
out, linkwell = pathlib.Path(sys.argv[1]), sys.argv[2]
configs = [root / "config/linkwell.json5"] + sorted((root / "config/examples").glob("*.json5"))
counts = {}


def seed(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
    counts[target] = counts.get(target, 0) + 1


def run(*args):
    return subprocess.run([linkwell, *args], check=True, capture_output=True).stdout


# Conformance vectors: the Apple matcher and the assetlinks reader.
conformance = root / "Tests/PlatformMatchersTests/Fixtures/conformance"
for name in ["aasa-cases.json", "aasa-observed.json"]:
    for case in json.loads((conformance / name).read_text())["cases"]:
        seed("apple-matcher", json.dumps(case["aasa"]).encode() + b"\0" + case["url"].encode())
for case in json.loads((conformance / "assetlinks-cases.json").read_text())["cases"]:
    doc = case["assetlinks"] if isinstance(case["assetlinks"], str) else json.dumps(case["assetlinks"])
    seed("assetlinks", doc.encode() + b"\0" + case.get("url", "").encode())

# The shipped configs: the decoder, their patterns, links on their domains, their generated files.
urls = []
for config in configs:
    seed("config", config.read_bytes())
    try:  # an example may be broken on purpose (config/examples/broken-*.json5): a seed for the decoder only
        routes = json.loads(run("routes", "--config", str(config), "--json"))
    except subprocess.CalledProcessError:
        continue
    for site in routes:
        for entry in site["entries"]:
            seed("path-pattern", entry["path"])
            path = re.sub(r"\{[^}*]+\*\}", "a/b", re.sub(r"\{[^}*]+\}", "x", entry["path"])).replace("*", "z")
            query = "&".join(f"{q}=1" for q in entry.get("requiredQuery", []) + entry.get("optionalQuery", []))
            for domain in site["domains"]:
                host = domain.replace("*.", "www.")
                urls.append(f"https://{host}{path}" + (f"?{query}" if query else ""))
    gen = out / "generated" / config.stem
    run("generate", "all", "--output", str(gen), "--config", str(config))
    for f in gen.rglob("*"):
        if f.is_file():
            target = "assetlinks" if f.name == "assetlinks.json" else "apple-matcher"
            for url in urls[-6:] or ["https://example.com/"]:
                seed(target, f.read_bytes() + b"\0" + url.encode())
for url in urls:
    seed("resolve", url)
    seed("responder", f"GET {url.split('/', 3)[3:] and '/' + url.split('/', 3)[3] or '/'} HTTP/1.1\r\nHost: {url.split('/')[2]}\r\n\r\n")

# The Mustache spec: template \0 partial \0 data.
for spec in sorted((root / "Tests/LandingPagesTests/Fixtures/mustache-spec").glob("*.json")):
    for test in json.loads(spec.read_text())["tests"]:
        partial = next(iter(test.get("partials", {}).values()), "")
        seed("mustache", "\0".join([test["template"], partial, json.dumps(test["data"])]))
for template in sorted((root / "public/templates").rglob("*.html")):
    seed("mustache", template.read_bytes() + b"\0\0{}")

# Inputs that once crashed or hung a target (their regression tests are in Tests/).
for d in sorted((root / "fuzz/corpus").iterdir()):
    if d.is_dir() and d.name != "http":
        for f in sorted(d.iterdir()):
            seed(d.name, f.read_bytes())

# Raw HTTP requests: ours, and the hardening corpus when it is there.
for f in sorted((root / "fuzz/corpus/http").iterdir()):
    for target in ["responder", "daemon"]:
        seed(target, f.read_bytes())
for f in sorted((root / "tests/live").rglob("*")):
    if f.is_file() and "corpus" in f.parts and f.suffix in ("", ".http", ".bin", ".raw", ".txt"):
        for target in ["responder", "daemon"]:
            seed(target, f.read_bytes())

print("seeds: " + ", ".join(f"{t} {n}" for t, n in sorted(counts.items())))
