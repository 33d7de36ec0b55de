# argus: the two commands of the README, and the steps they are made of.
#   make demo   set up, build, run the main job
#   make test   set up, build (normal + ASan/UBSan + TSan), run the tests
CC      ?= clang
JOBS    ?= $(shell nproc)
BUILD   := build
ASAN    := build-asan
TSAN    := build-tsan
CMAKE   := cmake -G "Unix Makefiles" -DCMAKE_C_COMPILER=clang
CTEST   := ctest --output-on-failure --timeout 600 -j $(JOBS)

.PHONY: all deps build build-asan build-tsan test test-fast demo bench format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@$(CMAKE) -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DARGUS_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

build-tsan: deps
	@$(CMAKE) -S . -B $(TSAN) -DCMAKE_BUILD_TYPE=Debug -DARGUS_TSAN=ON -DARGUS_FUZZ=OFF >/dev/null
	@cmake --build $(TSAN) -j $(JOBS)

# The suite runs in the normal build and again under ASan + UBSan; the
# concurrent parts also run under ThreadSanitizer. ctest's summary line of
# the last run closes the output.
test: build build-asan build-tsan
	@echo "== tests: ThreadSanitizer (concurrent parts) =="
	@cd $(TSAN) && $(CTEST) -L concurrent
	@echo "== tests: ASan + UBSan =="
	@cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(CTEST)
	@echo "== tests: release build =="
	@cd $(BUILD) && $(CTEST)

test-fast: build
	@cd $(BUILD) && $(CTEST)

demo: build
	@scripts/demo.sh $(BUILD)

bench: build
	@$(BUILD)/cli/argus bench

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN) $(TSAN)
