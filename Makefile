# Linkwell — the two commands a person needs (README.md):
#   make run    build and serve the shipped default config (config/linkwell.json5)
#   make test   the whole test suite: Swift unit/property tests, then live tests against the
#               real binary with curl, nginx, Caddy and headless Chromium
# Both install missing Debian packages (and the Python test venv) first.

CONFIG ?= config/linkwell.json5
SWIFT_BUILD_FLAGS ?=

.PHONY: run test deps test-deps build release unit live bench clean

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

release: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)

run: release
	.build/release/linkwell serve --config $(CONFIG)

unit: deps
	swift test $(SWIFT_BUILD_FLAGS)

live: test-deps build
	.venv/bin/python -m pytest -q tests/live

test: test-deps
	scripts/check-module-walls.sh
	scripts/doc-coverage.py
	swift build $(SWIFT_BUILD_FLAGS)
	swift test $(SWIFT_BUILD_FLAGS)
	.venv/bin/python -m pytest -q tests/live

bench: test-deps
	bench/run

clean:
	rm -rf .build .venv
