# keel — two commands do everything on a fresh Debian 12 machine:
#   make demo   install what is missing, build, run the demo task
#   make test   install what is missing, build, run every test (native, ASan+UBSan, WebAssembly)
.PHONY: all deps deps-test build build-asan test test-native test-asan test-wasm demo bench example clean

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
EMSDK_NODE_PATH ?= /usr/share/nodejs

all: build

deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test

build: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default -j $(JOBS)

build-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

test-native: build
	@ctest --preset default -j $(JOBS)

test-asan: build-asan
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j $(JOBS)

# The pure core built with emscripten; its state-machine vectors run under node.
test-wasm: deps-test
	@mkdir -p build/wasm/json-include && ln -sfn /usr/include/nlohmann build/wasm/json-include/nlohmann
	@NODE_PATH=$(EMSDK_NODE_PATH) emcmake cmake -S . -B build/wasm -G Ninja -DKEEL_CORE_ONLY=ON \
	  -DCMAKE_BUILD_TYPE=Release -DKEEL_JSON_INCLUDE_DIR=$(CURDIR)/build/wasm/json-include >/dev/null
	@NODE_PATH=$(EMSDK_NODE_PATH) cmake --build build/wasm -j $(JOBS)
	@node build/wasm/keel_core_vectors.js

test: deps-test
	@$(MAKE) --no-print-directory test-native
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-wasm

demo: build
	@scripts/demo.sh

bench: build
	@build/default/keel_bench

clean:
	rm -rf build
