#!/usr/bin/env bash
# Builds the DocC documentation of the modules the apps use, with the toolchain's own `docc`
# (no swift-docc-plugin needed): the debug build's modules → `swift symbolgraph-extract` →
# `docc convert`. LinkRouting gets its catalog (Sources/LinkRouting/LinkRouting.docc: landing
# page and the Getting started article); PlatformMatchers and LinkwellJSON are built from their
# doc comments alone. Broken ``Symbol`` links and other DocC warnings fail the build.
#
#   scripts/build-docs.sh [OUTPUT_DIR]      # default .build/docs
#   docc preview Sources/LinkRouting/LinkRouting.docc --additional-symbol-graph-dir .build/docs/symbol-graphs/LinkRouting
#
# Each archive is laid out for static hosting under /<Module>/ (open
# OUTPUT_DIR/<Module>.doccarchive/index.html through any web server at that path).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/docs}
modules=(LinkRouting PlatformMatchers LinkwellJSON)

command -v docc >/dev/null || { echo "build-docs: no 'docc' on PATH; it ships with the Swift toolchain (next to 'swift')" >&2; exit 1; }
# One target per call: `swift build` keeps only the last of several --target options.
for module in "${modules[@]}"; do swift build --target "$module" >/dev/null; done
triple=$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",*$/\1/p' | head -n 1)
modules_dir=$(swift build --show-bin-path)/Modules

mkdir -p "$out"
for module in "${modules[@]}"; do
  graphs="$out/symbol-graphs/$module"
  rm -rf "$graphs" "$out/$module.doccarchive"
  mkdir -p "$graphs"
  swift symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules_dir" \
    -minimum-access-level public -skip-synthesized-members -output-dir "$graphs"
  catalog=()
  [ -d "Sources/$module/$module.docc" ] && catalog=("Sources/$module/$module.docc")
  docc convert "${catalog[@]}" --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.linkwell.$module" \
    --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors \
    --output-dir "$out/$module.doccarchive" | sed '/^$/d'
  echo "build-docs: $out/$module.doccarchive"
done
