#!/usr/bin/env bash
# The module walls (docs/dev/architecture.md): MicroHTTP imports no Linkwell module; LinkRouting, the
# library the apps import, imports nothing of Linkwell's and holds no platform-matcher code;
# PlatformMatchers does not depend on the routing core; Codegen depends on LinkRouting only; the
# landing pages know nothing of HTTP (LandingPages does not import MicroHTTP) and the association
# files nothing of the landing pages (Association does not import LandingPages: its caller injects
# the landing check); every target in Package.swift depends on exactly the modules its sources
# import. Exit 1 with each breach named.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
breach() { echo "module wall: $*" >&2; status=1; }

linkwell_modules='LinkRouting|LinkwellJSON|PlatformMatchers|Association|LandingPages|LinkServer|MicroHTTP'

check_imports() { # target, allowed-regex
  local target=$1 allowed=$2
  while IFS= read -r line; do
    file=${line%%:*}; mod=$(sed -E 's/.*import ([A-Za-z0-9_]+).*/\1/' <<<"${line#*:}")
    if [[ $mod =~ ^($linkwell_modules)$ ]] && ! [[ $mod =~ ^($allowed)$ ]]; then
      breach "$file imports $mod, which $target must not depend on"
    fi
  done < <(grep -HE '^\s*(@testable\s+|@_exported\s+)?import\s+[A-Za-z0-9_]+' "Sources/$target"/*.swift)
}

check_imports MicroHTTP 'MicroHTTP'
check_imports LinkRouting 'LinkRouting'
check_imports LinkwellJSON 'LinkwellJSON'
check_imports PlatformMatchers 'PlatformMatchers|LinkwellJSON'
# The code generators are pure functions of the route table: nothing of the server or the matchers.
check_imports Codegen 'Codegen|LinkRouting'
# Pure page making: request facts in, bytes out; the HTTP types are the server's.
check_imports LandingPages 'LandingPages|LinkRouting|LinkwellJSON'
# The association files are functions of the route table; the landing check is injected (LinkServer).
check_imports Association 'Association|LinkRouting|PlatformMatchers|LinkwellJSON'

# No matcher code in LinkRouting: none of the emulators' type names is declared there.
matcher_types='AppleMatcher|AppleDecision|AppleSubstitutionVariables|AASAFormatError|AndroidPatternMatcher|AndroidURI|AndroidJSON|DynamicAppLinkRules|AssetLinksFile|AssetLinksReader|JSONValue'
if grep -nE "^\s*(public\s+|internal\s+|package\s+)?(final\s+)?(struct|enum|class|actor|extension|protocol)\s+($matcher_types)\b" Sources/LinkRouting/*.swift; then
  breach "LinkRouting declares platform-matcher types (above); they belong in Sources/PlatformMatchers"
fi

# Package.swift agrees: the targets' declared dependencies.
python3 - <<'PY' || status=1
import re, sys
s = open("Package.swift").read()
def deps(name):
    m = re.search(r'\.target\(\s*name:\s*"%s"(.*?)\)' % name, s, re.S)
    if not m: print(f"module wall: Package.swift has no target {name}", file=sys.stderr); sys.exit(1)
    return re.findall(r'"([A-Za-z0-9_]+)"', m.group(1))
bad = [d for d in deps("MicroHTTP") if d != "CMicroHTTPD"]
bad += [d for d in deps("LinkRouting")]
bad += [d for d in deps("PlatformMatchers") if d != "LinkwellJSON"]
bad += [d for d in deps("Codegen") if d != "LinkRouting"]
bad += [d for d in deps("LandingPages") if d == "MicroHTTP"]
bad += [d for d in deps("Association") if d == "LandingPages"]
if bad:
    print("module wall: Package.swift gives a walled target Linkwell dependencies: " + ", ".join(bad), file=sys.stderr); sys.exit(1)
PY

# Package.swift declares exactly what each target imports: a module imported but not declared
# builds only by accident (through another target), one declared but not imported is a false arrow.
python3 - <<'PY' || status=1
import glob, os, re, sys
s = open("Package.swift").read()
modules = set(re.findall(r'\.(?:target|systemLibrary|executableTarget)\(\s*name:\s*"([A-Za-z0-9_]+)"', s))
failed = False
for m in re.finditer(r'\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"(.*?)\)(?=,\s*\n\s*(?://|\.|\]))', s, re.S):
    kind, name, rest = m.groups()
    found = re.search(r'dependencies:\s*\[(.*?)\]', rest, re.S)
    declared = set(re.findall(r'"([^"]+)"', found.group(1))) if found else set()
    path = re.search(r'path:\s*"([^"]+)"', rest)
    folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
    if not os.path.isdir(folder):
        continue
    imported = set()
    for file in glob.glob(folder + "/**/*.swift", recursive=True):
        for line in open(file, encoding="utf-8"):
            i = re.match(r'\s*(?:@testable\s+|@_exported\s+)?import\s+(?:(?:struct|class|enum|func|protocol)\s+)?([A-Za-z0-9_]+)', line)
            if i and i.group(1) in modules:
                imported.add(i.group(1))
    for d in sorted(imported - declared):
        print(f"module wall: {folder} imports {d}, which Package.swift does not declare for target {name}", file=sys.stderr); failed = True
    for d in sorted(declared - imported):
        print(f"module wall: Package.swift declares {d} for target {name}, which none of {folder}'s files imports", file=sys.stderr); failed = True
sys.exit(1 if failed else 0)
PY

[ $status -eq 0 ] && echo "module walls: MicroHTTP, LinkRouting, LinkwellJSON, PlatformMatchers, Codegen, LandingPages and Association import only what they may; Package.swift declares what every target imports"
exit $status
