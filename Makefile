# The repository contract (README.md): deps, test, demo, bench, ci, plus
# test-asan, test-tsan, fuzz, format. Every target installs dependencies
# first (fast when they are present). Build trees: build/<preset>/.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_ARGS := --output-on-failure --timeout 120 --no-tests=error
FUZZ_SECONDS ?= 30
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)

.PHONY: deps dev release asan tsan test test-asan test-tsan demo bench fuzz ci format format-check clean install

deps:
	@bash scripts/deps.sh

dev release asan tsan: deps
	@cmake --preset $@ >/dev/null
	@cmake --build --preset $@ -j $(JOBS)

test: dev
	ctest --test-dir build/dev $(CTEST_ARGS) -j $(JOBS)

# Sanitizers reserve terabytes of shadow memory: no RLIMIT_AS tests there,
# and the large tests are too slow under instrumentation. Import tests spawn
# the dev tree's (unsanitized) zengine as their cooker child: build it too.
test-asan: asan dev
	ctest --test-dir build/asan $(CTEST_ARGS) -j $(JOBS) -LE 'large|rlimit'

test-tsan: tsan
	ctest --test-dir build/tsan $(CTEST_ARGS) -j $(JOBS) -L concurrency -LE 'large|rlimit'

demo: release
	bash scripts/demo.sh

# Install the release build: PREFIX=DIR (default: the configured prefix,
# /usr/local). docs/using.md.
install: release
	cmake --install build/release $(if $(PREFIX),--prefix $(PREFIX))

bench: release
	bash bench/run_all.sh build/release/bin build/bench

fuzz: asan
	bash scripts/fuzz.sh build/asan/bin $(FUZZ_SECONDS)

ci: deps
	bash scripts/ci.sh

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run -Werror $(FORMAT_FILES) && echo "format: ok"

clean:
	rm -rf build
