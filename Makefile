# keel — two commands do everything on a fresh Debian 12 machine:
#   make demo   install what is missing, build, run the demo task
#   make test   install what is missing, build, run every test (native, ASan+UBSan, WebAssembly)
.PHONY: all deps deps-test build build-asan test test-native test-asan test-wasm test-fuzz demo bench bench-wasm example clean parser-conformance

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
EMSDK_NODE_PATH ?= /usr/share/nodejs

all: build

deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test
	@scripts/install-test-npm.sh

build: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default -j $(JOBS)

# Only what the sanitized tests run (the process bench harnesses included: tests run them in miniature;
# the other benchmarks and the example are built by `build`).
# clang-14 (a test package) compiles the sanitized build.
build-asan: deps-test
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS) --target keel_tests keel_core_vectors keel_run_bench keel_autopilot_bench

test-native: build
	@ctest --preset default -j $(JOBS)

test-asan: build-asan
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j $(JOBS)

# The pure core built with emscripten: its state-machine vectors under node, then the JavaScript
# package (build/wasm/keel-js) under Node and in Chromium, each host's decisions compared with the
# native program's, the edge host and the browser agent page (test/js/run.sh).
test-wasm: deps-test
	@mkdir -p build/wasm/json-include && ln -sfn /usr/include/nlohmann build/wasm/json-include/nlohmann
	@NODE_PATH=$(EMSDK_NODE_PATH) emcmake cmake -S . -B build/wasm -G Ninja -DKEEL_CORE_ONLY=ON \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DKEEL_JSON_INCLUDE_DIR=$(CURDIR)/build/wasm/json-include >/dev/null
	@NODE_PATH=$(EMSDK_NODE_PATH) cmake --build build/wasm -j $(JOBS)
	@node build/wasm/keel_core_vectors.js
	@cmake --preset default >/dev/null && cmake --build --preset default -j $(JOBS) --target keel_core_vectors keel_gguf_fixture >/dev/null
	@build/default/keel_core_vectors --trace build/wasm/native-trace.jsonl >/dev/null
	@test/js/run.sh build/wasm/keel-js build/wasm/native-trace.jsonl

# The JavaScript package's figures: WebAssembly size, start-up and cost per step beside a hand loop.
bench-wasm: test-wasm
	@build/npm/node_modules/.bin/node bench/js/keel_js_bench.mjs build/wasm/keel-js

# libFuzzer targets (clang-14, ASan+UBSan) for the tool-call parser and the JSON repair pass, seeded
# from the protocol corpus, and for the autopilot's feed and cron readers, seeded from
# test/fixtures/feeds; each runs FUZZ_SECONDS and any crash, leak or hang fails the build.
FUZZ_SECONDS ?= 45
FUZZ_SANITIZE = -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS = -std=c++20 $(FUZZ_SANITIZE) -I$(CURDIR)/include -I$(CURDIR)/src
FUZZ_RUN = -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
# The core is compiled once, as the other builds compile it (CMake, unity batches), with the fuzzers'
# instrumentation; each fuzzer links against it.
test-fuzz: deps-test
	@rm -rf build/fuzz && mkdir -p build/fuzz
	@python3 scripts/fuzz_seeds.py test/core/protocol_corpus test/core/real_outputs build/fuzz/seeds >/dev/null
	@cmake -S . -B build/fuzz/core -G Ninja -DKEEL_CORE_ONLY=ON -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=None \
	  -DCMAKE_UNITY_BUILD=ON "-DCMAKE_CXX_FLAGS=-std=c++20 $(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link" >/dev/null
	@cmake --build build/fuzz/core -j $(JOBS) --target keel_core >/dev/null
	@for t in parser_fuzz json_repair_fuzz feed_cron_fuzz; do \
	  clang++-14 $(FUZZ_FLAGS) -fsanitize=fuzzer fuzz/$$t.cpp build/fuzz/core/libkeel_core.a -o build/fuzz/$$t || exit 1; \
	done
	@mkdir -p build/fuzz/feed-seeds && cp test/fixtures/feeds/* build/fuzz/feed-seeds/
	@for t in parser_fuzz json_repair_fuzz feed_cron_fuzz; do \
	  if [ $$t = feed_cron_fuzz ]; then cp -r build/fuzz/feed-seeds build/fuzz/$$t-corpus; \
	  else cp -r build/fuzz/seeds build/fuzz/$$t-corpus; fi; \
	  if ! build/fuzz/$$t $(FUZZ_RUN) build/fuzz/$$t-corpus >build/fuzz/$$t.log 2>&1; then \
	    tail -40 build/fuzz/$$t.log; echo "fuzz: $$t failed (log: build/fuzz/$$t.log)"; exit 1; fi; \
	  echo "fuzz: $$t ran $(FUZZ_SECONDS) s clean: $$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/$$t.log | grep -o '[0-9]*$$') inputs"; \
	done

# The npm peers (build/npm) are installed by deps-test; KEEL_REQUIRE_NPM makes their tests fail
# rather than skip when they are missing.
test: deps-test
	@KEEL_REQUIRE_NPM=1 $(MAKE) --no-print-directory test-native
	@KEEL_REQUIRE_NPM=1 $(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-wasm
	@$(MAKE) --no-print-directory test-fuzz

# Builds only the keel command (not the tests or benchmarks), then runs scripts/demo.sh.
demo: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default -j $(JOBS) --target keel
	@scripts/demo.sh

# keel_run_bench: whole `keel run` processes against a model server in another process, beside a
# bare libcurl loop (the goals' figures); keel_bench: the same loop with the mock in-process.
bench: build
	@build/default/keel_run_bench
	@build/default/keel_bench
	@build/default/keel_parse_bench test/core/protocol_corpus
	@build/default/keel_context_bench
	@build/default/keel_store_bench
	@build/default/keel_tool_defer_bench
	@if [ -x build/default/keel_local_bench ]; then build/default/keel_local_bench; fi

# Regenerates docs/parser-conformance.md from the parser corpora (a test checks it is current).
parser-conformance: build
	@build/default/keel_parser_conformance --table > docs/parser-conformance.md
	@echo "docs/parser-conformance.md written"

clean:
	rm -rf build
