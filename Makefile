# robotscan: library + CLI.   `make help` lists the targets.
# Honours CC CXX CFLAGS CPPFLAGS LDFLAGS PREFIX DESTDIR; extra flags go in MOREFLAGS.

CC       ?= cc
CXX      ?= c++
CFLAGS   ?= -O2 -g
CXXFLAGS ?= -O2 -g
PREFIX   ?= /usr/local
BUILD    ?= build
# The tests' data: tests/data/shared.tar.zst (a copy of ../shared's data, conformance and
# tools; tests/data/README.md) unpacked once into $(TESTDATA), with ../shared's layout.
# SHARED=DIR runs the tests on another copy (e.g. SHARED=../shared).
TESTDATA  = $(BUILD)/testdata
SHARED   ?= $(TESTDATA)
# Recipes fail when any command of a pipeline fails (not only the last).
SHELL       := bash
.SHELLFLAGS := -o pipefail -ec

WARNFLAGS = -Wall -Wextra -Wshadow -Wcast-qual -Wcast-align -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wformat=2 -Wundef $(WERROR)
# Every build of the default flags (make, make test, make demo, make install) has -Werror,
# so they share one set of objects: none rebuilds the others'. WERROR= turns it off (a
# compiler with new warnings); the sanitizer and fuzz builds (clang) set it empty.
WERROR   ?= -Werror
PKGS      = libzstd libxxhash zlib libdeflate libidn2 jansson
RS_CFLAGS = -std=c11 -D_GNU_SOURCE -DRS_STATIC_LINKING_ONLY -Isrc $(WARNFLAGS) $(MOREFLAGS)
# Resolved on use so a fresh machine can install the packages first.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

LIB_SRC  := $(sort $(shell find src -name '*.c' -not -path 'src/cli/*'))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/librobotscan.a
BIN      := robotscan
# The shared library: soname librobotscan.so.MAJOR, file librobotscan.so.MAJOR.MINOR.PATCH.
VERSION   = $(shell sed -n 's/^\#define RS_VERSION_STRING "\(.*\)"/\1/p' src/robotscan.h)
SOMAJOR   = $(firstword $(subst ., ,$(VERSION)))
SO       := $(BUILD)/librobotscan.so

TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Test helpers (tests/common/*.c) are linked into every test and fuzz binary.
TCOMMON_SRC := $(sort $(wildcard tests/common/*.c))
TCOMMON_HDR := $(sort $(wildcard tests/common/*.h))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)
BENCH_SRC := $(sort $(wildcard bench/bench_*.cc))
BENCH_BIN := $(BENCH_SRC:bench/%.cc=$(BUILD)/bench/%)
DEPS_OK  := $(BUILD)/.deps-ok
DEPS_ALL := $(BUILD)/.deps-all-ok
# Only goals that run tests or demos may install packages (SPEC 8); plain
# `make` and `make install` check the build packages and stop (exit 2).
INSTALL_GOALS = test check test-% run/% demo sanitize asan ubsan bench bench-urls bench-all fuzz fuzz-build deps
DEPS_INSTALL := $(if $(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),yes)

# Headers the test and fuzz binaries include (they are compiled in one step, without .d files).
TEST_HDR := $(sort $(wildcard tests/unit/*.h tests/fuzz/*.h) $(shell find src -name '*.h'))
# Rewritten only when its content changes: objects are rebuilt when the compile flags
# change (e.g. CFLAGS=...), test binaries when SHARED changes.
FLAGS_STAMP  = $(BUILD)/.flags
SHARED_STAMP = $(BUILD)/tests/.shared-dir
SHARED_DEP   = $(if $(filter $(TESTDATA),$(SHARED)),$(TESTDATA)/.unpacked)
RESULTS     ?= $(BUILD)/test-results.txt
# tests/run-step.sh RESULTS NAME CMD...: runs one suite, records PASS/FAIL and its SKIP lines.
STEP         = tests/run-step.sh $(RESULTS)

.PHONY: all lib cli test test-full check test-unit test-cli test-conformance test-conformance-full \
        test-scalar demo bench bench-urls bench-all fuzz fuzz-build test-fuzz-replay asan ubsan sanitize install \
        clean help deps test-mutants test-optional test-bench testdata update-testdata FORCE tsan \
        so test-python test-install uninstall test-report test-scale

all: lib so cli ## build librobotscan.a, librobotscan.so and ./robotscan (default)

lib: $(LIB) ## build the static library

so: $(SO) ## build the shared library (only the stable rs_ API exported)

cli: $(BIN) ## build the command-line tool

deps: ## install missing Debian packages (scripts/deps.sh)
	scripts/deps.sh

$(DEPS_OK): scripts/deps.sh
	@mkdir -p $(@D)
	@$(if $(DEPS_INSTALL),scripts/deps.sh --check >/dev/null 2>&1 || scripts/deps.sh,scripts/deps.sh --check-build >/dev/null)
	@touch $@

# Test and benchmark packages (Criterion, pytest, Scrapy, ...): installed when missing.
$(DEPS_ALL): scripts/deps.sh | $(DEPS_OK)
	@scripts/deps.sh --check >/dev/null 2>&1 || scripts/deps.sh
	@touch $@

# Kernels compiled for one ISA each; dispatch picks at run time.
$(BUILD)/%_avx2.o: ISAFLAGS = -mavx2 -mbmi -mbmi2 -mpopcnt
$(BUILD)/%_sse2.o: ISAFLAGS = -msse2

# Library objects serve both librobotscan.a and librobotscan.so.
$(LIB_OBJ): PICFLAGS = -fPIC -fvisibility=hidden

# (quotes in flags are written as-is; the stamp only has to change when they do)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' "$(subst ",',$(CC) $(CPPFLAGS) $(CFLAGS) $(RS_CFLAGS))" >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

$(SHARED_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' "$(SHARED)" >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

FORCE:

$(BUILD)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(RS_CFLAGS) $(PICFLAGS) $(ISAFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(SO): $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,librobotscan.so.$(SOMAJOR) -Wl,--no-undefined \
	    -o $@.$(VERSION) $(LIB_OBJ) $(PKG_LIBS)
	ln -sf librobotscan.so.$(VERSION) $@.$(SOMAJOR)
	ln -sf librobotscan.so.$(SOMAJOR) $@

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(TCOMMON_SRC) $(TCOMMON_HDR) $(TEST_HDR) $(LIB) $(FLAGS_STAMP) $(SHARED_STAMP) | $(DEPS_ALL)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(RS_CFLAGS) -Wno-missing-prototypes -Itests $(PKG_CFLAGS) \
	    -DRS_SHARED_DIR='"$(SHARED)"' -o $@ $< $(TCOMMON_SRC) $(LDFLAGS) $(LIB) $(PKG_LIBS) -lcriterion

# ===== Tests (docs/testing.md) =====
# Every suite is one target, run/GROUP/NAME, whose recipe runs it through $(STEP): its
# output goes to $(BUILD)/test-logs/GROUP/NAME.log, the terminal gets one line with its
# time, RESULTS its PASS/FAIL/SKIP lines. A step (test-cli, ...) runs all its suites, even
# when some fail ($(RUN_ALL): make -k), and fails if any failed; `make test` runs all the
# steps' suites TEST_JOBS at a time. New tests/unit/test_*.c and tests/cli/test_*.sh are
# picked up by the wildcards.
TEST_JOBS ?= 2
RUN_ALL    = $(MAKE) --no-print-directory -k $(TEST_J)
RUN_UNIT  := $(TEST_BIN:$(BUILD)/tests/%=run/unit/%)
CLI_TESTS := $(sort $(wildcard tests/cli/test_*.sh))
RUN_CLI   := $(CLI_TESTS:tests/cli/%=run/cli/%)
.PHONY: $(RUN_UNIT) $(RUN_CLI)

$(RUN_UNIT): run/unit/%: $(BUILD)/tests/% $(SHARED_DEP)
	@$(UNIT_ENV) $(STEP) unit/$* $< --jobs 2 --short-filename

test-unit: ## run the Criterion unit tests
	@$(RUN_ALL) $(RUN_UNIT)

$(RUN_CLI): run/cli/%: $(BIN) $(SHARED_DEP)
	@$(STEP) cli/$* bash tests/cli/$* ./$(BIN) $(SHARED)

test-cli: ## run the CLI tests (tests/cli/test_*.sh) on ./robotscan and SHARED
	@$(RUN_ALL) $(RUN_CLI)

.PHONY: run/scale/test_dask.py run/report/test_report.sh
run/scale/test_dask.py: $(BIN) $(SHARED_DEP)
	@$(STEP) scale/test_dask.py /usr/bin/python3 tests/scale/test_dask.py ./$(BIN) $(SHARED)

test-scale: run/scale/test_dask.py ## shard + Dask runs equal single runs (tests/scale, Debian python3-distributed)

.PHONY: run/bench/test_bench.sh run/bench/bench-all-self-test
run/bench/test_bench.sh: $(BIN) $(SHARED_DEP)
	@$(STEP) bench/test_bench.sh bash tests/bench/test_bench.sh ./$(BIN) $(SHARED)

# scripts/bench-all's ratio / threshold / "met" logic on fixed numbers (no timing, < 1 s)
run/bench/bench-all-self-test:
	@$(STEP) bench/bench-all-self-test python3 scripts/bench-all --self-test

test-bench: run/bench/test_bench.sh run/bench/bench-all-self-test ## the matcher arena on small workloads: toy peers, faults, saved re-runs, adapters (tests/bench); bench-all --self-test

run/report/test_report.sh: $(BIN) $(SHARED_DEP)
	@$(STEP) report/test_report.sh bash tests/report/test_report.sh ./$(BIN) $(SHARED)

test-report: run/report/test_report.sh ## open robotscan report pages in headless Chromium (tests/report)

# Conformance through the CLI. `make test`: each folder in one `robotscan check --batch`
# process (tests/conformance_batch.py; test_check.sh proves --batch answers as one check
# per group does), and one `check` per (case, agent) group for the small folders
# (SHARED/tools/conformance_check.py, as README tells users). `make test-full` adds
# reference-differential one group per process (31,079 processes, minutes).
CONFORMANCE ?= reference-differential google-spec-test-correctness google-spec-test-stress \
              google-unittests seed-examples
CONFORMANCE_GROUPS ?= google-spec-test-correctness google-spec-test-stress google-unittests seed-examples
CONFORMANCE_BIN ?= ./$(BIN)
# first-match: the folder for --semantics first-match (batch only)
CONFORMANCE_FM ?= first-match
RUN_CONF       := $(CONFORMANCE:%=run/conformance/%) $(CONFORMANCE_FM:%=run/conformance/%)
RUN_CONF_GRP   := $(CONFORMANCE_GROUPS:%=run/conformance-groups/%)
RUN_CONF_FULL  := $(CONFORMANCE:%=run/conformance-groups/%)
.PHONY: $(RUN_CONF) $(RUN_CONF_FULL) $(RUN_CONF_GRP)

$(RUN_CONF): run/conformance/%: $(BIN) $(SHARED_DEP)
	@$(STEP) conformance/$* python3 tests/conformance_batch.py $(SHARED)/conformance/$* \
	    --bin $(CONFORMANCE_BIN) $(if $(filter first-match,$*),--semantics first-match)

$(sort $(RUN_CONF_FULL) $(RUN_CONF_GRP)): run/conformance-groups/%: $(BIN) $(SHARED_DEP)
	@$(STEP) conformance-groups/$* python3 $(SHARED)/tools/conformance_check.py $(SHARED)/conformance/$* \
	    --bin $(CONFORMANCE_BIN) $(if $(CONFORMANCE_LIMIT),--limit $(CONFORMANCE_LIMIT))

test-conformance: ## every conformance folder through ./robotscan check (batch; per group for the small ones)
	@$(RUN_ALL) $(RUN_CONF) $(RUN_CONF_GRP)

test-conformance-full: ## every conformance folder, one ./robotscan check per (case, agent) group
	@$(RUN_ALL) $(RUN_CONF_FULL)

# Every check can fail: the CLI suites against deliberately broken wrappers of ./robotscan
# (tests/mutants/, docs/testing.md), and the conformance recipe against a binary that allows all.
.PHONY: run/mutants/wrappers run/mutants/conformance-recipe
run/mutants/wrappers: $(BIN) $(SHARED_DEP)
	@$(STEP) mutants/wrappers bash tests/mutants/run.sh ./$(BIN) $(SHARED)

run/mutants/conformance-recipe: $(BIN) $(SHARED_DEP)
	@$(STEP) mutants/conformance-recipe bash tests/mutants/conformance_recipe.sh "$(MAKE)" \
	    MOREFLAGS='$(MOREFLAGS)' SHARED=$(SHARED) BUILD=$(BUILD)

test-mutants: ## prove the suites fail on broken binaries (tests/mutants)
	@$(RUN_ALL) run/mutants/wrappers run/mutants/conformance-recipe

# Runs that need ../shared itself (OPT_SHARED): announced as SKIP when it is absent.
OPT_SHARED ?= ../shared
test-optional: run/optional/testdata-matches-shared ## optional runs on ../shared (SKIP when absent)
.PHONY: run/optional/testdata-matches-shared
run/optional/testdata-matches-shared: $(TESTDATA)/.unpacked
	@if [ -d $(OPT_SHARED)/conformance ] && [ -d $(OPT_SHARED)/data ] && [ -d $(OPT_SHARED)/tools ]; then \
	    $(STEP) optional/testdata-matches-shared diff -r -q $(TESTDATA) $(OPT_SHARED) \
	        -x .unpacked -x SPEC.md -x STYLE.md -x LAYOUT.md -x hooks -x seeds \
	    && echo "the bundled test data matches $(OPT_SHARED) (data, conformance, tools)" >/dev/null; \
	else $(STEP) --skip optional/testdata-matches-shared "$(OPT_SHARED) not found (a clone alone)"; fi

testdata: $(TESTDATA)/.unpacked ## unpack tests/data/shared.tar.zst into $(BUILD)/testdata

$(TESTDATA)/.unpacked: tests/data/shared.tar.zst | $(DEPS_OK)
	@rm -rf $(TESTDATA) && mkdir -p $(TESTDATA)
	zstd -dc $< | tar xf - -C $(TESTDATA)
	@touch $@

update-testdata: ## rebuild tests/data/shared.tar.zst from OPT_SHARED (../shared)
	scripts/update-testdata $(OPT_SHARED)

# ===== Fuzzing (tests/fuzz, docs/hardening.md) =====
# Each tests/fuzz/fuzz_X.c has one LLVMFuzzerTestOneInput. Without libFuzzer it
# links with replay_main.c into $(BUILD)/fuzz/replay_X, which `make test` runs
# over the committed regressions and a small seed corpus made from SHARED.
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SEEDS_SMALL = $(BUILD)/fuzz-seeds

$(BUILD)/fuzz/replay_%: tests/fuzz/%.c tests/fuzz/replay_main.c $(TCOMMON_SRC) $(TCOMMON_HDR) $(TEST_HDR) $(LIB) $(FLAGS_STAMP) | $(DEPS_ALL)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(RS_CFLAGS) -Wno-missing-prototypes -Itests $(PKG_CFLAGS) \
	    -o $@ $< tests/fuzz/replay_main.c $(TCOMMON_SRC) $(LDFLAGS) $(LIB) $(PKG_LIBS)

RUN_FUZZ := $(FUZZ_NAMES:%=run/fuzz/%)
.PHONY: run/fuzz/make_seeds $(RUN_FUZZ)
run/fuzz/make_seeds: $(SHARED_DEP)
	@rm -rf $(FUZZ_SEEDS_SMALL)
	@$(STEP) fuzz/make_seeds python3 tests/fuzz/make_seeds.py $(SHARED) $(FUZZ_SEEDS_SMALL) --small

$(RUN_FUZZ): run/fuzz/%: $(BUILD)/fuzz/replay_% run/fuzz/make_seeds
	@$(STEP) fuzz/$* $(BUILD)/fuzz/replay_$* tests/fuzz/regressions/$* $(FUZZ_SEEDS_SMALL)/$*

test-fuzz-replay: ## replay fuzz regressions + a small seed corpus (no libFuzzer needed)
	@$(RUN_ALL) $(RUN_FUZZ)

fuzz-build: ## build the libFuzzer targets into $(FUZZ_BUILD)/ (clang)
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) MOREFLAGS= WERROR= \
	    CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" lib
	@set -e; for t in $(FUZZ_NAMES); do \
	    echo "$(FUZZ_CC) -> $(FUZZ_BUILD)/fuzz/$$t"; mkdir -p $(FUZZ_BUILD)/fuzz; \
	    $(FUZZ_CC) -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	        $(filter-out -Werror,$(RS_CFLAGS)) -Wno-missing-prototypes -Itests $(PKG_CFLAGS) -o $(FUZZ_BUILD)/fuzz/$$t \
	        tests/fuzz/$$t.c $(TCOMMON_SRC) $(FUZZ_BUILD)/librobotscan.a $(PKG_LIBS); done

fuzz: fuzz-build $(SHARED_DEP) ## run each fuzz target for FUZZ_SECONDS (default 60) on corpora in tests/fuzz/corpus-*
	@rm -rf $(FUZZ_BUILD)/fuzz-seeds && python3 tests/fuzz/make_seeds.py $(SHARED) $(FUZZ_BUILD)/fuzz-seeds
	@set -e; for t in $(FUZZ_NAMES); do echo "== $$t: $(FUZZ_SECONDS) s"; mkdir -p tests/fuzz/corpus-$$t; \
	    dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
	    $(FUZZ_BUILD)/fuzz/$$t $$dict -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -artifact_prefix=tests/fuzz/corpus-$$t/ -print_final_stats=1 \
	        tests/fuzz/corpus-$$t $(FUZZ_BUILD)/fuzz-seeds/$$t tests/fuzz/regressions/$$t; done

# ===== Sanitizers =====
SAN_CC    ?= clang
SAN_FLAGS  = -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZERS) -fno-sanitize-recover=all
SANITIZERS ?= address,undefined

# Through the CLI, conformance runs every vector of each folder in one ASan process
# (check --batch) and, one process per (case, agent) group, the first
# SAN_CONFORMANCE_LIMIT groups of the small folders (all of them: they have fewer);
# every vector also runs under the sanitizers in-process (test_conformance,
# test_differential).
SAN_CONFORMANCE_LIMIT ?= 1000
# Warnings are `make test`'s job (gcc, -Werror); clang's extra ones do not fail here.
# Leaks: Criterion ignores a test process's LeakSanitizer report and its own
# runner leaks a block when tests use .timeout, so unit tests run with
# detect_leaks=0; the CLI tests and fuzz replays (plain processes) check leaks.
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1 \
          UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize: ## ASan+UBSan build in build-san/, then unit + CLI + conformance + fuzz replays
	@rm -rf build-san/test-results.txt build-san/test-results-logs
	@start=$$(date +%s); rc=0; $(SAN_ENV) $(RUN_ALL) BUILD=build-san BIN=build-san/robotscan CC=$(SAN_CC) MOREFLAGS= WERROR= \
	    UNIT_ENV="ASAN_OPTIONS=detect_leaks=0:abort_on_error=1" CONFORMANCE_LIMIT=$(SAN_CONFORMANCE_LIMIT) \
	    CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=$(SANITIZERS)" \
	    build-san/robotscan SAN_BUILD || { rc=1; \
	    echo "FAIL sanitize build (errors above)" >>build-san/test-results.txt; }; \
	$(SAN_ENV) $(RUN_ALL) BUILD=build-san BIN=build-san/robotscan CC=$(SAN_CC) MOREFLAGS= WERROR= \
	    UNIT_ENV="ASAN_OPTIONS=detect_leaks=0:abort_on_error=1" CONFORMANCE_LIMIT=$(SAN_CONFORMANCE_LIMIT) \
	    CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=$(SANITIZERS)" \
	    SAN_RUNS || rc=$$?; \
	tests/summary.sh build-san/test-results.txt $$start || rc=1; exit $$rc
# What sanitize builds, then runs, longest first (two at a time).
.PHONY: SAN_BUILD SAN_RUNS
SAN_BUILD: $(TEST_BIN) $(REPLAY_BIN) $(SHARED_DEP)
	@:
SAN_RUNS: run/unit/test_differential run/unit/test_scan run/cli/test_urls.sh $(RUN_UNIT) $(RUN_CLI) \
          $(RUN_CONF) $(RUN_CONF_GRP) $(RUN_FUZZ)

asan: ## like sanitize, AddressSanitizer only (build-asan/)
	$(SAN_ENV) $(MAKE) UNIT_ENV="ASAN_OPTIONS=detect_leaks=0:abort_on_error=1" BUILD=build-asan BIN=build-asan/robotscan SANITIZERS=address CC=$(SAN_CC) MOREFLAGS= WERROR= \
	    CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address" LDFLAGS="-fsanitize=address" \
	    build-asan/robotscan test-unit test-cli test-conformance test-fuzz-replay

ubsan: ## like sanitize, UndefinedBehaviorSanitizer only (build-ubsan/)
	$(SAN_ENV) $(MAKE) BUILD=build-ubsan BIN=build-ubsan/robotscan CC=$(SAN_CC) MOREFLAGS= WERROR= \
	    CFLAGS="-O1 -g -fsanitize=undefined -fno-sanitize-recover=all" LDFLAGS="-fsanitize=undefined" \
	    build-ubsan/robotscan test-unit test-cli test-conformance test-fuzz-replay
tsan: ## ThreadSanitizer build in build-tsan/: the job API with workers and urls/logs/diff -j 2 (tests/tsan)
	$(MAKE) BUILD=build-tsan BIN=build-tsan/robotscan CC=$(SAN_CC) MOREFLAGS= WERROR= \
	    CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=thread" LDFLAGS="-fsanitize=thread" \
	    build-tsan/robotscan build-tsan/librobotscan.a $(SHARED_DEP)
	@mkdir -p build-tsan/tests
	$(SAN_CC) -O1 -g -fsanitize=thread -std=c11 -Isrc -o build-tsan/tests/job_threads tests/tsan/job_threads.c \
	    build-tsan/librobotscan.a $(PKG_LIBS)
	@rm -f build-tsan/test-results.txt
	@tests/run-step.sh build-tsan/test-results.txt tsan/run.sh bash tests/tsan/run.sh build-tsan build-tsan/robotscan $(SHARED)

$(BUILD)/bench/%: bench/%.cc $(LIB) $(SHARED_STAMP) | $(DEPS_ALL) $(SHARED_DEP)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -std=c++17 -DRS_STATIC_LINKING_ONLY -Isrc $(PKG_CFLAGS) -DRS_SHARED_DIR='"$(SHARED)"' \
	    -o $@ $< $(LIB) $(PKG_LIBS) -lbenchmark -lpthread

bench: $(BENCH_BIN) ## build and run the benchmarks (bench/bench_*.cc); BENCH_ARGS for options
	@set -e; for b in $(BENCH_BIN); do echo "== $$b"; $$b $(BENCH_ARGS); done

bench-urls: all ## end-to-end urls throughput vs the SPEC 6 targets (scripts/bench-urls; BENCH_URLS_ARGS)
	scripts/bench-urls $(BENCH_URLS_ARGS)

bench-all: all ## the whole SPEC 6 table from one interleaved run (scripts/bench-all; BENCH_ALL_ARGS, e.g. --quick, --big)
	scripts/bench-all $(BENCH_ALL_ARGS)

# `make test`: builds, then runs every suite of TEST_STEPS (below), TEST_JOBS at a time, each
# to the end even when others fail; then tests/summary.sh: the slowest suites, the skips,
# the failures with their logs, and last the line `N passed, N failed, N skipped` (suites;
# SKIP lines). Longest suites first, so two cores finish together.
# `make test-full` adds what takes long: the mutants (every check can fail), CLI
# conformance one process per group, the sanitizers and the scalar kernels.
TEST_STEPS = test-unit test-cli test-conformance test-fuzz-replay test-report test-bench test-scale test-python \
             test-install test-optional
TEST_FIRST = run/cli/test_merge_stats.sh run/cli/test_urls.sh run/report/test_report.sh run/cli/test_warc.sh \
             run/cli/test_partition.sh run/cli/test_blocks.sh run/scale/test_dask.py run/cli/test_shard_w3c.sh \
             run/cli/test_logformats.sh run/cli/test_scan.sh run/cli/test_badinput.sh run/python/pytest \
             run/unit/test_differential run/unit/test_scan
# Every suite of TEST_STEPS, in the order to start them (TEST_FIRST, then the rest)
TEST_ALL   = $(RUN_UNIT) $(RUN_CLI) $(RUN_CONF) $(RUN_CONF_GRP) $(RUN_FUZZ) run/report/test_report.sh \
             run/bench/test_bench.sh run/bench/bench-all-self-test run/scale/test_dask.py run/python/pytest run/install/test_install.sh \
             run/optional/testdata-matches-shared
TEST_RUNS  = $(filter $(TEST_ALL),$(TEST_FIRST)) $(filter-out $(TEST_FIRST),$(TEST_ALL))
# -jTEST_JOBS unless make already runs with -j (a jobserver to share)
TEST_J     = $(if $(filter --jobserver%,$(MAKEFLAGS)),,-j$(TEST_JOBS))
test: $(DEPS_ALL) ## build everything and run every test, TEST_JOBS (2) at a time (summary at the end)
	@rm -rf $(RESULTS) $(RESULTS:.txt=-logs); start=$$(date +%s); rc=0; \
	$(RUN_ALL) test-build || { \
	    echo "FAIL build (make all and the test binaries: errors above)" >>$(RESULTS); rc=1; }; \
	echo "== make test: $(words $(TEST_RUNS)) suites, $(TEST_JOBS) at a time; logs in $(RESULTS:.txt=-logs)/"; \
	$(RUN_ALL) RESULTS=$(RESULTS) $(TEST_RUNS) || rc=1; \
	if [ $$rc != 0 ] && ! grep -q '^FAIL ' $(RESULTS) 2>/dev/null; then \
	    echo "FAIL make test (a step failed before its suites ran: a build error above?)" >>$(RESULTS); fi; \
	tests/summary.sh $(RESULTS) $$start || rc=1; exit $$rc

# What make test builds before its first suite (quietly when it is up to date)
.PHONY: test-build
test-build: all $(TEST_BIN) $(REPLAY_BIN) $(SHARED_DEP)
	@:

FULL_RESULTS = $(BUILD)/test-full-results.txt
test-full: ## make test, then mutants, per-group CLI conformance, sanitize, tsan, test-scalar (CI; summary of all)
	@start=$$(date +%s); rc=0; rm -f $(FULL_RESULTS) $(BUILD)/test-extra-results.txt; \
	$(MAKE) --no-print-directory test || rc=1; \
	echo; echo "== make test-full: mutants and conformance one process per group"; \
	rm -rf $(BUILD)/test-extra-results-logs; \
	$(RUN_ALL) RESULTS=$(BUILD)/test-extra-results.txt run/mutants/wrappers \
	    run/mutants/conformance-recipe $(RUN_CONF_FULL) || rc=1; \
	echo; echo "== make test-full: sanitize"; $(MAKE) --no-print-directory sanitize || rc=1; \
	echo; echo "== make test-full: tsan"; $(MAKE) --no-print-directory tsan || rc=1; \
	echo; echo "== make test-full: test-scalar"; $(MAKE) --no-print-directory test-scalar || rc=1; \
	for p in test:$(RESULTS) extra:$(BUILD)/test-extra-results.txt sanitize:build-san/test-results.txt \
	         tsan:build-tsan/test-results.txt scalar:$(BUILD)/test-scalar-results.txt; do \
	    [ -f "$${p#*:}" ] || { echo "FAIL $${p%%:*} (no results: the part did not run)"; continue; }; \
	    sed -E "s#^(PASS|FAIL|SKIP|LOG) #\1 $${p%%:*}/#; s#^TIME ([0-9.]+) #TIME \1 $${p%%:*}/#" "$${p#*:}"; \
	done >$(FULL_RESULTS); \
	echo; echo "== make test-full: every run (make test, extras, sanitize, tsan, test-scalar)"; \
	tests/summary.sh $(FULL_RESULTS) $$start || rc=1; exit $$rc

check: all test-unit ## the fast subset: unit tests only

test-scalar: ## run every test with the scalar kernels forced (results: $(BUILD)/test-scalar-results.txt)
	RS_SIMD=scalar $(MAKE) --no-print-directory test RESULTS=$(BUILD)/test-scalar-results.txt

demo: $(BIN) ## run check, urls, logs, lint, survey, diff and an HTML report on the samples in data/
	@echo "== robotscan check --agent Googlebot (data/example-robots.txt, data/example-urls.txt)"
	@./$(BIN) check --robots data/example-robots.txt --agent Googlebot --format text < data/example-urls.txt || true
	@echo; echo "== robotscan urls: a crawl frontier against a directory of robots.txt files (data/robots/)"
	@./$(BIN) urls --robots data/robots --agent Googlebot --format text --verbose data/frontier.txt
	@echo; echo "== robotscan logs: which bots broke data/example-robots.txt in data/access.log"
	@./$(BIN) logs --robots data/example-robots.txt --host shop.example.com --format text data/access.log
	@echo; echo "== robotscan lint --agent Googlebot data/example-robots.txt"
	@./$(BIN) lint --agent Googlebot data/example-robots.txt || true
	@echo; echo "== robotscan survey: who is blocked where (data/robots/, three crawlers)"
	@./$(BIN) survey --robots data/robots --agent Googlebot --agent GPTBot --agent CCBot --format tsv
	@echo; echo "== robotscan diff: what a deploy of data/example-robots-new.txt flips for data/example-urls.txt"
	@./$(BIN) diff --old data/example-robots.txt --new data/example-robots-new.txt --agent Googlebot \
	    --agent GPTBot --format text < data/example-urls.txt
	@echo; echo "== robotscan logs --html: the audit as one self-contained page"
	@mkdir -p $(BUILD) && ./$(BIN) logs --robots data/example-robots.txt --host shop.example.com --quiet \
	    --html $(BUILD)/demo-report.html data/access.log >/dev/null && echo "wrote $(BUILD)/demo-report.html"

# ===== Python binding (python/robotscan, SPEC 8) =====
test-python: run/python/pytest ## run the Python binding's tests (pytest: unit, conformance vs CLI, a Scrapy crawl)
.PHONY: run/python/pytest run/install/test_install.sh
run/python/pytest: $(SO) $(BIN) $(SHARED_DEP) | $(DEPS_ALL)
	@PYTHONDONTWRITEBYTECODE=1 RS_SHARED_DIR=$(SHARED) ROBOTSCAN_BIN=$(abspath $(BIN)) \
	    ROBOTSCAN_LIB=$(abspath $(SO)) $(STEP) python/pytest \
	    /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider tests/python

# ===== Install (SPEC 8) =====
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian's python3 reads /usr/lib/python3/dist-packages and /usr/local/lib/python3.X/dist-packages.
PYVER        = $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR   ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
MANPAGES    := $(sort $(wildcard man/*.1))
PY_SRC      := $(sort $(wildcard python/robotscan/*.py))

install: all ## install the binary, robotscan-dask, libraries, header, robotscan.pc, man pages, completion, Python package
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(PYTHONDIR)/robotscan
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/robotscan
	install -m 755 scripts/robotscan-dask $(DESTDIR)$(BINDIR)/robotscan-dask
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SO).$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf librobotscan.so.$(VERSION) $(DESTDIR)$(LIBDIR)/librobotscan.so.$(SOMAJOR)
	ln -sf librobotscan.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/librobotscan.so
	install -m 644 src/robotscan.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' robotscan.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/robotscan.pc
	@set -e; for m in $(MANPAGES); do echo "man: $$m"; \
	    sed 's|@VERSION@|$(VERSION)|g' $$m > $(DESTDIR)$(MANDIR)/man1/$${m#man/}; \
	    chmod 644 $(DESTDIR)$(MANDIR)/man1/$${m#man/}; done
	install -m 644 completion/robotscan.bash $(DESTDIR)$(BASHCOMPDIR)/robotscan
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYTHONDIR)/robotscan/
	printf '# Written by make install: where librobotscan.so was installed.\nLIBDIR = "%s"\n' \
	    '$(LIBDIR)' > $(DESTDIR)$(PYTHONDIR)/robotscan/_config.py

uninstall: ## remove what make install installed (same PREFIX and DESTDIR)
	rm -f $(DESTDIR)$(BINDIR)/robotscan $(DESTDIR)$(BINDIR)/robotscan-dask $(DESTDIR)$(LIBDIR)/librobotscan.a \
	    $(DESTDIR)$(LIBDIR)/librobotscan.so $(DESTDIR)$(LIBDIR)/librobotscan.so.$(SOMAJOR) \
	    $(DESTDIR)$(LIBDIR)/librobotscan.so.$(VERSION) $(DESTDIR)$(INCLUDEDIR)/robotscan.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/robotscan.pc $(DESTDIR)$(BASHCOMPDIR)/robotscan \
	    $(MANPAGES:man/%=$(DESTDIR)$(MANDIR)/man1/%)
	rm -rf $(DESTDIR)$(PYTHONDIR)/robotscan

test-install: run/install/test_install.sh ## install into a temporary DESTDIR, build and run a C program via pkg-config, uninstall
run/install/test_install.sh: all | $(DEPS_ALL)
	@MAKE="$(MAKE)" BUILD=$(BUILD) $(STEP) install/test_install.sh bash tests/install/test_install.sh

clean: ## remove build products
	rm -rf $(BUILD) $(BIN) build-*

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sed 's/:.*## /\t/' | expand -t 20

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
