#!/usr/bin/env bash
# The module walls (docs/architecture.md): MicroHTTP imports no Linkwell module; LinkRouting, the
# library the apps import, imports nothing of Linkwell's and holds no platform-matcher code;
# PlatformMatchers does not depend on the routing core; Codegen depends on LinkRouting only. Exit 1 with each breach named.
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
if bad:
    print("module wall: Package.swift gives a walled target Linkwell dependencies: " + ", ".join(bad), file=sys.stderr); sys.exit(1)
PY

[ $status -eq 0 ] && echo "module walls: MicroHTTP, LinkRouting, LinkwellJSON, PlatformMatchers and Codegen import only what they may"
exit $status
