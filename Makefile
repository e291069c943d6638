# Linkwell — the two commands a person needs (README.md):
#   make run    build and serve the shipped default config (config/linkwell.json5)
#   make test   the whole test suite: Swift unit/property tests, then live tests against the
#               real binary with curl, nginx, Caddy and headless Chromium
#   make fuzz   every libFuzzer harness for FUZZ_SECONDS each (docs/dev/fuzzing.md)
#   make asan / make tsan   the Swift test suite under AddressSanitizer / ThreadSanitizer
# run and test install missing Debian packages (and the Python test venv) first.

CONFIG ?= config/linkwell.json5
SWIFT_BUILD_FLAGS ?=
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
# Every test runs under the sanitizers too (none measures time).
SANITIZE_TEST = SWIFT_BACKTRACE=enable=no swift test -Xswiftc -use-ld=lld
# The harnesses (fuzz/harnesses) under libFuzzer + AddressSanitizer, optimised (3-4x the
# executions of a debug build; preconditions and overflow checks stay), in their own scratch path.
FUZZ_BUILD = swift build --package-path fuzz/harnesses -c release --scratch-path $(CURDIR)/.build-fuzz \
	-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

.PHONY: run test deps test-deps build release unit live doc-commands bench clean fuzz fuzz-build asan tsan

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

# The commands README.md and docs/guide/*.md show, run and compared with their output (docs/dev/testing.md).
doc-commands: test-deps build
	.venv/bin/python -m pytest -q tests/live/test_doc_commands.py

test: test-deps
	scripts/check-module-walls.sh
	scripts/module-table.py --check
	scripts/doc-coverage.py
	swift build $(SWIFT_BUILD_FLAGS)
	swift test $(SWIFT_BUILD_FLAGS)
	.venv/bin/python -m pytest -q --durations=15 tests/live

fuzz-build: build
	SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)

fuzz: fuzz-build
	fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The Swift test suite under each sanitizer, each in its own scratch path (docs/dev/fuzzing.md).
asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp $(SANITIZE_TEST) --sanitize=address --scratch-path $(CURDIR)/.build-asan

tsan: deps
	TSAN_OPTIONS=halt_on_error=1 $(SANITIZE_TEST) --sanitize=thread --scratch-path $(CURDIR)/.build-tsan

bench: test-deps
	bench/run

clean:
	rm -rf .build .build-fuzz .build-asan .build-tsan .venv
