# argus: the two commands of the README, and the steps they are made of.
#   make demo   set up, build, run the main job
#   make test   set up, build (normal + ASan/UBSan + TSan + gcc), run the tests
#   make fuzz   each libFuzzer target for FUZZ_RUNS executions (not part of test)
CC      ?= clang
JOBS    ?= $(shell nproc)
BUILD   := build
ASAN    := build-asan
TSAN    := build-tsan
GCC     := build-gcc
CMAKE   := cmake -G "Unix Makefiles" -DCMAKE_C_COMPILER=clang
CTEST   := ctest --output-on-failure --timeout 600 -j $(JOBS)

# $(call ctest_run,DIR,ENV,ARGS): ctest in DIR; its JUnit results and exit
# status stay in DIR for tests/summary.sh, and a failure does not stop make
# before the summary.
define ctest_run
	@rm -f $(1)/junit.xml $(1)/ctest.rc
	@cd $(1) && $(2) $(CTEST) $(3) --output-junit $(abspath $(1))/junit.xml; echo $$? > ctest.rc
endef

.PHONY: all deps build build-asan build-tsan build-gcc test test-fast fuzz demo bench format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# -O1: AddressSanitizer's advice for usable speed (at -O0 the suite took
# 5.5 of make test's 20 minutes under it)
build-asan: deps
	@$(CMAKE) -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
		-DARGUS_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

build-tsan: deps
	@$(CMAKE) -S . -B $(TSAN) -DCMAKE_BUILD_TYPE=Debug -DARGUS_TSAN=ON -DARGUS_FUZZ=OFF >/dev/null
	@cmake --build $(TSAN) -j $(JOBS)

# The second compiler: gcc must build the tree warning-free too.
build-gcc: deps
	@cmake -G "Unix Makefiles" -DCMAKE_C_COMPILER=gcc -S . -B $(GCC) \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(GCC) -j $(JOBS)

# The suite runs in the normal build and again under ASan + UBSan; the
# concurrent parts also run under ThreadSanitizer, the tests without root
# or a display in the gcc build. Each TEST is one ctest test
# (docs/testing.md); the last line counts them over all runs, and make
# fails when one failed.
test: build build-asan build-tsan build-gcc
	@echo "== tests: ThreadSanitizer (concurrent parts) =="
	$(call ctest_run,$(TSAN),,-L concurrent)
	@echo "== tests: ASan + UBSan =="
	$(call ctest_run,$(ASAN),ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1,-LE bench)
	@echo "== tests: release build =="
	$(call ctest_run,$(BUILD),,)
	@echo "== tests: gcc build (without live, gui) =="
	$(call ctest_run,$(GCC),,-LE 'live|gui')
	@tests/summary.sh release=$(BUILD) asan=$(ASAN) tsan=$(TSAN) gcc=$(GCC)

test-fast: build
	$(call ctest_run,$(BUILD),,)
	@tests/summary.sh release=$(BUILD)

# Each libFuzzer target for FUZZ_RUNS executions (default 10 M), one line
# each with execs, seconds and coverage (scripts/fuzz.sh; docs/testing.md).
FUZZ_RUNS ?= 10000000
fuzz: build-asan
	@scripts/fuzz.sh $(ASAN) $(FUZZ_RUNS)

demo: build
	@scripts/demo.sh $(BUILD)

bench: build
	@$(BUILD)/cli/argus bench

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN) $(TSAN) $(GCC)
