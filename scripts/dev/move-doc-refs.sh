#!/usr/bin/env bash
# Points every reference to a moved document at its new place (docs/ split into docs/guide,
# docs/reference and docs/dev; BENCHMARKS.md's past runs in bench/history/). Idempotent: run it
# again after merging branches that still name the old paths, then rebuild, regenerate what is
# generated from the changed sources, and run the tests (the list is printed at the end).
#   scripts/dev/move-doc-refs.sh            rewrite the files in place
#   scripts/dev/move-doc-refs.sh --list     only list the files that still name an old path
# Left alone on purpose: README.md, BENCHMARKS.md, docs/ and bench/history/ (already written for
# the new layout) and public/ (served to browsers byte for byte: its CSS comment still names
# docs/landing-pages.md; changing it changes the served stylesheet and EmbeddedPublic.swift).
set -euo pipefail
cd "$(dirname "$0")/../.."

# old path → new path
MOVES=(
  "docs/access-log.md=docs/reference/access-log.md"
  "docs/api.md=docs/reference/api.md"
  "docs/configuration.md=docs/reference/configuration.md"
  "docs/landing-pages.md=docs/reference/landing-pages.md"
  "docs/limits.md=docs/reference/limits.md"
  "docs/stats.md=docs/reference/stats.md"
  "docs/apps.md=docs/guide/apps.md"
  "docs/deploy.md=docs/guide/deploy.md"
  "docs/migrating-from-firebase.md=docs/guide/migrating-from-firebase.md"
  "docs/short-links.md=docs/guide/short-links.md"
  "docs/your-app.md=docs/guide/your-app.md"
  "docs/architecture.md=docs/dev/architecture.md"
  "docs/fuzzing.md=docs/dev/fuzzing.md"
)
# Phrases that named a part of a document that moved (exact text → new text).
PHRASES=(
  '(BENCHMARKS.md, "Instructions per request")=(docs/dev/benchmarking.md, "Instructions per request")'
  '(BENCHMARKS.md, "Header budget")=(bench/history/2026-12-03-header-budget.md)'
  'writes ~600,000 rows (BENCHMARKS.md)=writes ~600,000 rows (bench/history/2026-12-01-click-counts.md)'
  'at 1000 connections (BENCHMARKS.md)=at 1000 connections (bench/history/2026-12-02-full-run-quiet-xeon.md)'
  "as the README's table lists them=as the table of docs/reference/cli.md lists them"
  "(the README's example)=(the example of docs/guide/getting-started.md)"
  "the README's validate examples=the validate examples of docs/guide/getting-started.md"
  "the README's \`validate\` examples=the \`validate\` examples of docs/guide/getting-started.md"
)

files() {
  git ls-files | grep -Ev '^(README\.md|BENCHMARKS\.md|docs/|bench/history/|public/|scripts/dev/move-doc-refs\.sh)' |
    while IFS= read -r f; do [ -f "$f" ] && grep -Iq . "$f" 2>/dev/null && printf '%s\n' "$f"; done
}

pattern() {
  local p=""
  for m in "${MOVES[@]}"; do p+="${p:+|}(^|[^/A-Za-z0-9_.-])${m%%=*}"; done
  for m in "${PHRASES[@]}"; do p+="|$(printf '%s' "${m%%=*}" | sed 's/[][\.*^$()+?{}|]/\\&/g')"; done
  printf '%s' "$p"
}

stale=$(files | xargs -d '\n' grep -lE "$(pattern)" || true)
if [ "${1:-}" = "--list" ]; then
  [ -n "$stale" ] && printf '%s\n' "$stale"
  exit 0
fi
[ -z "$stale" ] && { echo "move-doc-refs: nothing names an old path"; exit 0; }

python3 - "$stale" "${MOVES[@]}" -- "${PHRASES[@]}" <<'PY'
import re, sys
files = sys.argv[1].split("\n")
args = sys.argv[2:]
split = args.index("--")
moves = [a.split("=", 1) for a in args[:split]]
phrases = [a.split("=", 1) for a in args[split + 1:]]
for name in files:
    text = open(name, encoding="utf-8").read()
    new = text
    for old, to in moves:
        new = re.sub(r"(^|[^/A-Za-z0-9_.-])" + re.escape(old), lambda m: m.group(1) + to, new, flags=re.M)
    for old, to in phrases:
        new = new.replace(old, to)
    if new != text:
        open(name, "w", encoding="utf-8").write(new)
        print(f"move-doc-refs: {name}")
PY

cat <<'NEXT'
move-doc-refs: now rebuild and run what checks the changed text:
  swift build
  swift test --filter GettingStarted      # the DocC article's validate output names docs/reference/configuration.md
  swift test --filter ProxyConfig         # the generated nginx/Caddy comments name docs/guide/deploy.md and docs/reference/limits.md
  .venv/bin/python -m pytest -q tests/live/test_cli.py -k "man or configuration"   # man/linkwell.1 == `linkwell help --man`
  .venv/bin/python -m pytest -q tests/live/test_deploy.py -k drift                 # config/deploy/* == `linkwell generate nginx|caddy`
NEXT
