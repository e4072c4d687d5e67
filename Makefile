# SPDX-License-Identifier: GPL-2.0-or-later
# sandwall: host-side network boundary for containers and micro-VMs.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
SBINDIR   ?= $(PREFIX)/sbin
MANDIR    ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR   ?= $(PREFIX)/lib/systemd/system
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR   ?=
CC        ?= cc
PKGS      := libnftnl libmnl inih libsodium libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lnftnl -lmnl -linih -lsodium -lcurl)

WARN      := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
             -Wformat=2 -Wformat-security -Wpointer-arith -Wcast-align -Wwrite-strings \
             -Wundef -Wvla -Wnull-dereference -Wimplicit-fallthrough -Wno-unused-parameter
CFLAGS    ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -Iinclude -Ibuild $(PKG_CFLAGS) -D_GNU_SOURCE \
             -DSW_VERSION=\"$(VERSION)\" -fstack-protector-strong -D_FORTIFY_SOURCE=2
LDLIBS    += $(PKG_LIBS) -pthread   # sandwalld's conntrack walk (forget.h)
B         := build

# The layers (docs/internals.md; `make check-layers` holds the rule):
# lib, core, kernel, host, sync make the library; daemon/ and cli/ are the
# two programs, each with its own archive so that unit tests can link them.
LAYERS    := lib core kernel host sync
LIB_SRC   := $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
LIB_OBJ   := $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC)) $(B)/endpoints_gen.o
DMN_OBJ   := $(patsubst src/%.c,$(B)/%.o,$(filter-out src/daemon/sandwalld.c,$(wildcard src/daemon/*.c)))
CLI_OBJ   := $(patsubst src/%.c,$(B)/%.o,$(filter-out src/cli/sandwall.c,$(wildcard src/cli/*.c)))
ALL_OBJ   := $(LIB_OBJ) $(DMN_OBJ) $(CLI_OBJ) $(B)/cli/sandwall.o $(B)/daemon/sandwalld.o
BINS      := $(B)/sandwall $(B)/sandwalld
# Unit tests by layer, tests/unit/LAYER/test_NAME.c, and those of several
# layers together in tests/unit/scenario/; the binaries stay flat,
# $(B)/tests/test_NAME (tests/mutate names them so).
UNIT_DIRS := $(addprefix tests/unit/,$(LAYERS) daemon cli scenario)
UNIT_SRC  := $(foreach d,$(UNIT_DIRS),$(wildcard $(d)/test_*.c))
UNIT_BIN  := $(sort $(patsubst %.c,$(B)/tests/%,$(notdir $(UNIT_SRC))))
vpath test_%.c $(UNIT_DIRS)

.PHONY: all deps deps-run check-deps-split run check unit integration asan clean install uninstall bench fuzz fuzz-bins fuzz-smoke check-kernels mutate mutate-fast check-layers export-compare
all: $(BINS)

$(B):
	mkdir -p $(B) $(B)/tests $(addprefix $(B)/,$(LAYERS) daemon cli)

# The endpoint lists are compiled in: a missing file can never open the boundary.
$(B)/endpoints_gen.c: rules/metadata.list | $(B)
	{ echo '/* generated from rules/metadata.list; do not edit */'; \
	  echo 'const char sw_metadata_list[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@

$(B)/endpoints_gen.o: $(B)/endpoints_gen.c
	$(CC) $(CFLAGS) -Wno-missing-prototypes -c -o $@ $<

# No stack frame above 256 KiB in the tools and the daemon: a large local
# stays resident in the daemon's stack for its whole life
# (docs/BENCHMARKS.md, "Daemon memory"). The host and the config grow on
# the heap (lib/grow.h); this keeps it so.
FRAME_MAX := -Wframe-larger-than=262144

# -MMD -MP: each object depends on the headers it includes, no more
$(B)/%.o: src/%.c | $(B)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FRAME_MAX) -MMD -MP -c -o $@ $<

-include $(ALL_OBJ:.o=.d) $(UNIT_BIN:=.d) $(SUP_OBJ:.o=.d)

$(B)/libsandwall.a: $(LIB_OBJ)
	rm -f $@; $(AR) rcs $@ $^

$(B)/libsandwall-daemon.a: $(DMN_OBJ)
	rm -f $@; $(AR) rcs $@ $^

$(B)/libsandwall-cli.a: $(CLI_OBJ)
	rm -f $@; $(AR) rcs $@ $^

$(B)/sandwall: $(B)/cli/sandwall.o $(B)/libsandwall-cli.a $(B)/libsandwall.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/sandwalld: $(B)/daemon/sandwalld.o $(B)/libsandwall-daemon.a $(B)/libsandwall.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TEST_LIBS := $(B)/libsandwall-cli.a $(B)/libsandwall-daemon.a $(B)/libsandwall.a

# The test support library: the fake kernels (tests/support/*.c, declared in
# their headers there) compiled once and linked into every unit test.
SUP_SRC   := $(wildcard tests/support/*.c)
SUP_OBJ   := $(patsubst tests/support/%.c,$(B)/tests/support/%.o,$(SUP_SRC))
TEST_INC  := -Itests/unit -Itests/support

$(B)/tests/support/%.o: tests/support/%.c | $(B)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TEST_INC) -MMD -MP -c -o $@ $<

$(B)/libswtest.a: $(SUP_OBJ)
	$(AR) rcs $@ $^

$(B)/tests/test_%: test_%.c $(B)/libswtest.a $(TEST_LIBS) | $(B)
	$(CC) $(CFLAGS) -Wno-missing-prototypes $(TEST_INC) -MMD -MP -MF $@.d -o $@ $< \
	  $(B)/libswtest.a $(TEST_LIBS) $(LDLIBS) -lcmocka

# A build directory from before the unit tests moved into folders names
# tests/unit/test_NAME.c in its dependency files: that test is rebuilt once.
tests/unit/test_%.c: ;

# Who may include whom (docs/internals.md): fails on a header of a higher
# layer, on daemon/ or cli/ included from outside, and on an include cycle.
check-layers:
	tests/layers.py --selftest
	tests/layers.py

# Install what building and testing need (Debian/Ubuntu); starts no service.
deps:
	sh packaging/install-deps.sh

# only what building and running need (make run): no test lab
deps-run:
	sh packaging/install-deps.sh run

check-deps-split:
	tests/deps_split.sh

unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail

integration: $(BINS)
	tests/integration/run.sh

# `sandwall export` of every config in the tree, before and after a change
# (docs/testing.md): the baseline is built from EXPORT_BASE (a git rev) in a
# scratch worktree, removed after, and compared with $(B)/sandwall. Root.
EXPORT_BASE ?= main
export-compare: $(B)/sandwall
	@tmp=$$(mktemp -d /tmp/sandwall-base.XXXXXX) || exit 2; \
	trap 'git worktree remove --force "$$tmp/tree" 2>/dev/null; rm -rf "$$tmp"' EXIT; \
	git worktree add --detach "$$tmp/tree" $(EXPORT_BASE) >/dev/null 2>&1 || \
	  { echo "export-compare: no worktree of $(EXPORT_BASE)"; exit 2; }; \
	echo "export-compare: building $(EXPORT_BASE) ($$(git -C "$$tmp/tree" rev-parse --short HEAD))"; \
	$(MAKE) -C "$$tmp/tree" B=build build/sandwall >"$$tmp/build.log" 2>&1 || \
	  { tail -20 "$$tmp/build.log"; echo "export-compare: the baseline does not build"; exit 2; }; \
	tests/export_compare.sh $(EXPORT_ARGS) "$$tmp/tree/build/sandwall" $(B)/sandwall

# Deliberate breaks of the rule-building and repair code, one at a time in a
# scratch copy, each of which a behaviour test must kill (docs/testing.md).
# Root (integration tests). MUTATE_ARGS: -a (every listed test), names.
mutate:
	tests/mutate/mutate.py $(MUTATE_ARGS)

# The fast subset `make check` runs: three mutants its unit tests kill.
MUTATE_FAST := no-antispoof replies-both-directions delta-no-readd
mutate-fast:
	tests/mutate/mutate.py $(MUTATE_FAST)

# Debian 12's cloud kernels (tests/kernels/kernels.list) booted in QEMU (TCG),
# a subset of the integration suites run inside each (docs/kernels.md).
check-kernels: $(BINS)
	tests/kernels/run.sh

# The README's test command: dependencies, build, unit tests, fuzz smoke,
# integration tests,
# then the subset on Debian 12's cloud kernels.
check: deps
	$(MAKE) check-layers
	$(MAKE) check-deps-split
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) mutate-fast
	$(MAKE) fuzz-smoke
	$(MAKE) integration
	$(MAKE) check-kernels

# The README's main command: dependencies, build, apply the shipped config,
# show status, then run the daemon in the foreground (Ctrl-C leaves the rules;
# `sudo build/sandwall -c rules/sandwall.conf remove` takes them away).
run: deps-run
	$(MAKE) all
	./$(B)/sandwall -c rules/sandwall.conf apply
	./$(B)/sandwall -c rules/sandwall.conf status
	@echo "sandwalld: guarding in the foreground; Ctrl-C stops it and leaves the rules in place"
	./$(B)/sandwalld -c rules/sandwall.conf -f

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(MAKE) B=build-asan CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" all unit

# ---- fuzzing: libFuzzer harnesses (clang), see docs/fuzzing.md -------------
FUZZ_B     := build-fuzz
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TIME  ?= 10
FUZZ_SEED  ?= 1

# Warnings are gcc's business (all, asan): clang's own (-Wcast-align is
# stricter on x86) are shown here but do not stop the fuzz build.
fuzz:
	$(MAKE) B=$(FUZZ_B) CC=clang WARN="$(WARN) -Wno-error" \
	  CFLAGS="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" LDFLAGS="$(FUZZ_SAN)" fuzz-bins

fuzz-bins: $(patsubst %,$(B)/fuzz/%,$(FUZZ_NAMES))

$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_host.h $(TEST_LIBS) | $(B)
	mkdir -p $(B)/fuzz
	$(CC) $(CFLAGS) -Wno-missing-prototypes -fsanitize=fuzzer -o $@ $< \
	  $(B)/libsandwall.a $(LDLIBS) -lpthread

# Each harness for FUZZ_TIME seconds from its seed corpus (new inputs go to a
# scratch directory, not the tree); any crash, leak or timeout fails. The
# seed is fixed (FUZZ_SEED, 0 = random) so that a red check is reproducible
# and a campaign, not the check, is where new inputs are hunted.
fuzz-smoke: fuzz
	@fail=0; for h in $(FUZZ_NAMES); do \
	  tmp=$$(mktemp -d); \
	  echo "== $$h ($(FUZZ_TIME) s)"; \
	  $(FUZZ_B)/fuzz/$$h -max_total_time=$(FUZZ_TIME) -seed=$(FUZZ_SEED) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_B)/$$h- \
	    $$tmp tests/fuzz/corpus/$$h > $(FUZZ_B)/$$h.log 2>&1 \
	    || { fail=1; echo "FAILED: $$h (see $(FUZZ_B)/$$h.log)"; tail -40 $(FUZZ_B)/$$h.log; }; \
	  grep -E '^#[0-9]+.*(DONE|pulse)' $(FUZZ_B)/$$h.log | tail -1; \
	  rm -rf $$tmp; \
	done; exit $$fail

bench: $(BINS)
	bench/apply

install: $(BINS)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(SYSCONFDIR)/sandwall
	install -m 0755 $(BINS) $(DESTDIR)$(SBINDIR)/
	[ -e $(DESTDIR)$(SYSCONFDIR)/sandwall/sandwall.conf ] || \
	  install -m 0644 rules/sandwall.conf $(DESTDIR)$(SYSCONFDIR)/sandwall/sandwall.conf
	for m in man/*.[58]; do [ -e "$$m" ] || continue; s=$${m##*.}; \
	  install -d $(DESTDIR)$(MANDIR)/man$$s; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/sandwalld|$(SBINDIR)/sandwalld|; s|/etc/sandwall/|$(SYSCONFDIR)/sandwall/|' \
	  packaging/systemd/sandwalld.service > $(DESTDIR)$(UNITDIR)/sandwalld.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/sandwalld.service
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 packaging/bash-completion/sandwall $(DESTDIR)$(COMPLETIONDIR)/sandwall
	ln -sf sandwall $(DESTDIR)$(COMPLETIONDIR)/sandwalld

# Without DESTDIR (this machine's installation): the table goes with the
# binary that made it, or make says why it stays and how to remove it.
uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -x $(SBINDIR)/sandwall ]; then \
	  $(SBINDIR)/sandwall remove || echo "make uninstall: the table stays in the kernel;" \
	    "remove it with: nft delete table inet sandwall (and table netdev sandwall)" >&2; fi
	rm -f $(DESTDIR)$(SBINDIR)/sandwall $(DESTDIR)$(SBINDIR)/sandwalld
	rm -f $(DESTDIR)$(UNITDIR)/sandwalld.service
	rm -f $(DESTDIR)$(COMPLETIONDIR)/sandwall $(DESTDIR)$(COMPLETIONDIR)/sandwalld
	rm -f $(DESTDIR)$(MANDIR)/man8/sandwall.8 $(DESTDIR)$(MANDIR)/man8/sandwalld.8 $(DESTDIR)$(MANDIR)/man5/sandwall.conf.5

clean:
	rm -rf build build-asan build-fuzz
