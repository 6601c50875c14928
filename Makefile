# robotscan: library + CLI.   `make help` lists the targets.
# Honours CC CXX CFLAGS CPPFLAGS LDFLAGS PREFIX DESTDIR; extra flags go in MOREFLAGS.

CC       ?= cc
CXX      ?= c++
CFLAGS   ?= -O2 -g
CXXFLAGS ?= -O2 -g
PREFIX   ?= /usr/local
BUILD    ?= build
SHARED   ?= ../shared

WARNFLAGS = -Wall -Wextra -Wshadow -Wcast-qual -Wcast-align -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wformat=2 -Wundef
PKGS      = libzstd libxxhash zlib libidn2
RS_CFLAGS = -std=c11 -D_GNU_SOURCE -Isrc $(WARNFLAGS) $(MOREFLAGS)
# Resolved on use so a fresh machine can install the packages first.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

LIB_SRC  := $(sort $(shell find src -name '*.c' -not -path 'src/cli/*'))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/librobotscan.a
BIN      := robotscan

TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(sort $(wildcard bench/bench_*.cc))
BENCH_BIN := $(BENCH_SRC:bench/%.cc=$(BUILD)/bench/%)
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all lib cli test check test-unit test-cli test-conformance test-scalar demo \
        bench bench-urls fuzz asan ubsan sanitize install clean help deps

all: lib cli ## build librobotscan.a and ./robotscan (default)

lib: $(LIB) ## build the static library

cli: $(BIN) ## build the command-line tool

deps: ## install missing Debian packages (scripts/deps.sh)
	scripts/deps.sh

$(DEPS_OK): scripts/deps.sh
	@mkdir -p $(@D)
	@scripts/deps.sh --check >/dev/null 2>&1 || scripts/deps.sh
	@touch $@

# Kernels compiled for one ISA each; dispatch picks at run time.
$(BUILD)/%_avx2.o: ISAFLAGS = -mavx2 -mbmi -mbmi2 -mpopcnt
$(BUILD)/%_sse2.o: ISAFLAGS = -msse2

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(RS_CFLAGS) $(ISAFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(RS_CFLAGS) -Wno-missing-prototypes $(PKG_CFLAGS) \
	    -DRS_SHARED_DIR='"$(SHARED)"' -o $@ $< $(LIB) $(PKG_LIBS) -lcriterion

test-unit: $(TEST_BIN) ## run the Criterion unit tests
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t --jobs 2 --short-filename; done

test-cli: $(BIN) ## run the CLI tests (tests/cli/*.sh)
	@set -e; for t in tests/cli/*.sh; do echo "== $$t"; bash $$t ./$(BIN) $(SHARED); done

CONFORMANCE = reference-differential google-spec-test-correctness google-spec-test-stress \
              google-unittests seed-examples
test-conformance: $(BIN) ## run every conformance folder through ./robotscan check
	@set -e; for d in $(CONFORMANCE); do printf '%-32s ' $$d; \
	    python3 $(SHARED)/tools/conformance_check.py $(SHARED)/conformance/$$d --bin ./$(BIN) | tail -1; done

$(BUILD)/bench/%: bench/%.cc $(LIB) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -std=c++17 -Isrc $(PKG_CFLAGS) -DRS_SHARED_DIR='"$(SHARED)"' \
	    -o $@ $< $(LIB) $(PKG_LIBS) -lbenchmark -lpthread

bench: $(BENCH_BIN) ## build and run the benchmarks (bench/bench_*.cc); BENCH_ARGS for options
	@set -e; for b in $(BENCH_BIN); do echo "== $$b"; $$b $(BENCH_ARGS); done

bench-urls: all ## end-to-end urls throughput vs the SPEC 6 targets (scripts/bench-urls; BENCH_URLS_ARGS)
	scripts/bench-urls $(BENCH_URLS_ARGS)

test: MOREFLAGS += -Werror
test: all test-unit test-cli test-conformance ## build everything and run every test

check: all test-unit ## the fast subset: unit tests only

test-scalar: ## run every test with the scalar kernels forced
	RS_SIMD=scalar $(MAKE) test

demo: $(BIN) ## run check, urls, logs and lint on the sample data in data/
	@echo "== robotscan check --agent Googlebot (data/example-robots.txt, data/example-urls.txt)"
	@./$(BIN) check --robots data/example-robots.txt --agent Googlebot --format text < data/example-urls.txt || true
	@echo; echo "== robotscan urls: a crawl frontier against a directory of robots.txt files (data/robots/)"
	@./$(BIN) urls --robots data/robots --agent Googlebot --format text --verbose data/frontier.txt
	@echo; echo "== robotscan logs: which bots broke data/example-robots.txt in data/access.log"
	@./$(BIN) logs --robots data/example-robots.txt --host shop.example.com --format text data/access.log
	@echo; echo "== robotscan lint --agent Googlebot data/example-robots.txt"
	@./$(BIN) lint --agent Googlebot data/example-robots.txt || true

install: all ## install robotscan, the library and its header under $(DESTDIR)$(PREFIX)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 src/robotscan.h $(DESTDIR)$(PREFIX)/include/

clean: ## remove build products
	rm -rf $(BUILD) $(BIN) build-*

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 20

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
