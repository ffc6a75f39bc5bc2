# The README's commands. Each first runs scripts/setup.sh (installs missing Debian packages and
# configures a Release build in build/).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
export BUILD_DIR

.PHONY: setup build test demo bench clean

setup:
	@scripts/setup.sh

build: setup
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: setup
	cmake --build $(BUILD_DIR) -j $(JOBS) --target iiwa_kinematics
	$(BUILD_DIR)/demos/iiwa_kinematics/iiwa_kinematics

bench: setup
	cmake --build $(BUILD_DIR) -j $(JOBS) --target bench_kinematics bench_dynamics bench_bridge
	$(BUILD_DIR)/bench/bench_kinematics --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true
	$(BUILD_DIR)/bench/bench_dynamics --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true
	$(BUILD_DIR)/bench/bench_bridge --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true

clean:
	rm -rf $(BUILD_DIR)
