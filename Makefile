# The README's commands. Each first runs scripts/setup.sh (installs missing Debian packages and
# configures a Release build of its tree, build/ by default).
BUILD_DIR ?= build
# `make test` also runs the Bullet-facing tests against single-precision Bullet, in this tree
# (at -O1 with assertions: it is for correctness, and it builds about a tenth faster).
SINGLE_BUILD_DIR ?= $(BUILD_DIR)-single
SINGLE_CMAKE_ARGS = -DGCBRIDGE_BULLET_DOUBLE=OFF -DGCBRIDGE_BUILD_BENCH=OFF -DGCBRIDGE_BUILD_DEMOS=OFF \
  -DCMAKE_CXX_FLAGS_RELEASE=-O1
# `make sanitize` builds the tests with AddressSanitizer and UndefinedBehaviorSanitizer (clang),
# with the libFuzzer targets, in a third tree, and runs them there (all but the allocation, install
# and browser tests; fuzz targets for FUZZ_RUNS runs), with every library source compiled on its
# own (no unity build). It is a target of its own (it nearly doubles the time `make test` takes);
# CI (.ci/run) runs it after `make test`.
SANITIZE_BUILD_DIR ?= $(BUILD_DIR)-sanitize
FUZZ_RUNS ?= 10000
SANITIZE_CMAKE_ARGS = -DCMAKE_CXX_COMPILER=clang++-14 -DGCBRIDGE_SANITIZE=ON \
  -DGCBRIDGE_BUILD_FUZZERS=ON -DGCBRIDGE_BUILD_BENCH=OFF -DGCBRIDGE_FUZZ_RUNS=$(FUZZ_RUNS) \
  -DGCBRIDGE_UNITY_BUILD=OFF
JOBS ?= $(shell nproc)
export BUILD_DIR

# `make install PREFIX=DIR` installs the build there (default ~/.local: no root needed).
PREFIX ?= $(HOME)/.local

.PHONY: setup build test sanitize demo bench install clean

setup:
	@scripts/setup.sh

build: setup
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	GCBRIDGE_BROWSER_TESTS=1 scripts/setup.sh
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)
	BUILD_DIR=$(SINGLE_BUILD_DIR) CMAKE_ARGS="$(SINGLE_CMAKE_ARGS)" scripts/setup.sh
	cmake --build $(SINGLE_BUILD_DIR) -j $(JOBS) --target bridge_tests
	ctest --test-dir $(SINGLE_BUILD_DIR) --output-on-failure -j $(JOBS) -L bridge

sanitize:
	GCBRIDGE_SANITIZER_TOOLS=1 BUILD_DIR=$(SANITIZE_BUILD_DIR) CMAKE_ARGS="$(SANITIZE_CMAKE_ARGS)" \
	  scripts/setup.sh
	cmake --build $(SANITIZE_BUILD_DIR) -j $(JOBS)
	ctest --test-dir $(SANITIZE_BUILD_DIR) --output-on-failure -j $(JOBS)

demo: setup
	cmake --build $(BUILD_DIR) -j $(JOBS) --target iiwa_tracking
	$(BUILD_DIR)/demos/iiwa_tracking/gcbridge-iiwa-tracking

bench: setup
	cmake --build $(BUILD_DIR) -j $(JOBS) --target bench_kinematics bench_dynamics bench_bridge \
	  bench_plugin bench_viewer bench_standing
	$(BUILD_DIR)/bench/bench_kinematics --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true
	$(BUILD_DIR)/bench/bench_dynamics --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true
	$(BUILD_DIR)/bench/bench_bridge --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true \
	  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
	$(BUILD_DIR)/bench/bench_plugin --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true \
	  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
	$(BUILD_DIR)/bench/bench_viewer --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true \
	  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
	$(BUILD_DIR)/bench/bench_standing --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true \
	  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD_DIR) $(SINGLE_BUILD_DIR) $(SANITIZE_BUILD_DIR)
