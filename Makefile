# sandcastle: make builds everything, make test runs the regress suite.
# See README for the two commands an operator needs, and each target below.

# What an operator runs goes in bin/, the rest in libexec/sandcastle/,
# which each program finds beside the bin/ it runs from (common/build.c):
# PREFIX places both, never one alone.
PREFIX	?= /usr/local
MANDIR	?= $(PREFIX)/share/man

CC	?= cc
CLANG	?= clang
CFLAGS	?= -O2 -g
# The version every program prints: the newest version of CHANGES
# (regress/meta/t_release.sh holds the two).  The commit is git's in a
# checkout; in make dist's tarball, which has no .git, the file COMMIT,
# which git archive wrote it into.
VERSION	= 1.0.0
COMMIT	:= $(or $(if $(wildcard .git),$(shell git rev-parse HEAD 2>/dev/null)),\
	$(shell sed -n '/^[0-9a-f]\{40\}$$/p' COMMIT 2>/dev/null),unknown)

WARNFLAGS = -std=c11 -Wall -Wextra -Werror -Wformat=2 -Wshadow \
	-Wmissing-prototypes -Wstrict-prototypes -Wpointer-arith \
	-Wno-unused-parameter
HARDFLAGS = -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection \
	-fPIE -fno-strict-overflow
HARDLDFLAGS = -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
BSD_CFLAGS := $(shell pkg-config --cflags libbsd-overlay 2>/dev/null || echo -isystem /usr/include/bsd -DLIBBSD_OVERLAY)
ALL_CPPFLAGS = -D_GNU_SOURCE -Icommon $(BSD_CFLAGS) $(CPPFLAGS)
ifdef DEBUG
ALL_CPPFLAGS += -DSANDBOX_DEBUG
endif
ALL_CFLAGS = $(WARNFLAGS) $(HARDFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(HARDLDFLAGS) $(LDFLAGS)
LIBS	= -lbsd -lmd -lyaml -lseccomp -ltls
# The box decodes images itself and hands Tesseract the bitmap it drew.
LIBS_box = -lpng -ljpeg -lwebp -ltesseract -lm
LIBS_box_ocr = $(LIBS_box)
# The gate asks DNS itself (res_query) and reads the answer with ns_parserr.
LIBS_gated = -lresolv
# sandcastlectl hashes the build with libcrypto (common/build.c says why):
# its own build.o, linked ahead of libcommon.a, whose build.o it replaces.
OBJS_sandcastlectl = common/build.evp.o
LIBS_sandcastlectl = -lcrypto

# Each program folder holds its main in <name>.c; every other .c of the
# folder goes into lib<folder>.a, which the unit tests link too.
PROGDIRS = sandcastled sandcastlectl keepd gated box
PROG_sandcastled   = sandcastled/sandcastled
PROG_sandcastlectl = sandcastlectl/sandcastlectl
PROG_keepd         = keepd/keepd
PROG_gated         = gated/gated
PROG_box           = $(BOXES)
PROGS = $(foreach d,$(PROGDIRS),$(PROG_$(d)))
BINPROGS = $(PROG_sandcastled) $(PROG_sandcastlectl)
LIBEXECPROGS = $(filter-out $(BINPROGS),$(PROGS))
MAIN_box = box/sandcastle-box.c

# The box: one program per capability, sandcastle-box-<capability>, that
# install copies into its capability's image as /sandcastle-box.  Each is
# sandcastle-box.c with its row alone (BOX_ROWS: the row is in the
# capability's own file, box_<capability>), the box's exchange, filter and ruleset, and the files of BOX_SRCS_<capability>,
# linked with its own libraries as needed: claude's image holds no
# Tesseract and no image library.  libbox.a holds every file, for the
# unit tests.
BOX_CAPS = claude ocr
BOXES = $(addprefix box/sandcastle-box-,$(BOX_CAPS))
BOX_BASE = box/exchange.c box/landlock.c box/sandbox.c
BOX_SRCS_claude = box/claude.c box/schema.c box/sse.c box/stream.c
BOX_SRCS_ocr = box/ocr.c box/base64.c box/image.c box/tess.c
COMMON_SRCS = $(wildcard common/*.c)
COMMON_OBJS = $(COMMON_SRCS:.c=.o)
HDRS = $(wildcard common/*.h $(addsuffix /*.h,$(PROGDIRS)) regress/*/*.h)

# sandcastlectl's check runs the daemons' own code: its library names
# those files, as bgpctl's build names bgpd's.
CTL_DAEMON_SRCS = sandcastled/boxrun.c sandcastled/job.c sandcastled/jobread.c \
	sandcastled/jobrun.c sandcastled/podman.c sandcastled/profile.c \
	sandcastled/readlock.c sandcastled/word.c \
	gated/barrier.c gated/netlink.c gated/policy.c gated/refusal.c
LIB_SRCS_sandcastlectl = $(CTL_DAEMON_SRCS)

main_of = $(if $(MAIN_$(1)),$(MAIN_$(1)),$(1)/$(1).c)
lib_srcs = $(filter-out $(call main_of,$(1)),$(wildcard $(1)/*.c)) $(LIB_SRCS_$(1))
PROGLIBS = $(foreach d,$(PROGDIRS),$(d)/lib$(d).a)

# Unit tests: regress/<folder>/t_*.c, one atf-c program each, linked with
# libcommon.a and, when <folder> is a program's, that program's library;
# *.san is the same test under ASan and UBSan, linked with the same
# libraries built again under them (*.san.o, lib*.san.a): no object is
# shared with the hardened build.
UNIT_SRCS = $(wildcard regress/*/t_*.c)
UNITS = $(UNIT_SRCS:.c=)
SAN_UNITS = $(addsuffix .san,$(filter-out $(NOSAN_UNITS),$(UNITS)))
# Tests of seccomp filters: a sanitizer's runtime makes calls a filter kills.
NOSAN_UNITS = regress/sandcastled/t_sandbox regress/sandcastled/t_taken \
	regress/gated/t_filter regress/gated/t_taken regress/keepd/t_sandbox \
	regress/keepd/t_taken
# The Landlock tests again on ABI 1, the oldest: the frame built to use
# no later ABI, linked ahead of libcommon.a, whose landlock.o it replaces.
# (regress/launcher's runs the box's own build in a real box: no twin.)
ABI1_UNITS = $(patsubst %.c,%.abi1,$(filter-out regress/launcher/%,\
	$(wildcard regress/*/t_landlock.c)))
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CFLAGS = $(ALL_CPPFLAGS) $(WARNFLAGS) -O1 -g $(SANFLAGS)
ATF_LIBS = -latf-c
# A test folder named after no program says whose library it tests.
UNITPROG_launcher = sandcastled
UNITPROG_dropin = sandcastlectl
unit_dir = $(word 2,$(subst /, ,$(1)))
unit_prog = $(or $(UNITPROG_$(call unit_dir,$(1))),$(call unit_dir,$(1)))
unit_lib = $(if $(filter $(call unit_prog,$(1)),$(PROGDIRS)),$(call unit_prog,$(1))/lib$(call unit_prog,$(1)).a)
unit_san_lib = $(patsubst %.a,%.san.a,$(call unit_lib,$(1)))
# t_core sets the core's monotonic clock forward (ld(1) --wrap).
UNIT_LDFLAGS_t_core = -Wl,--wrap=clock_gettime

FUZZ_SRCS = $(wildcard regress/fuzz/fuzz_*.c)
FUZZERS = $(FUZZ_SRCS:.c=)
FUZZ_SECONDS ?= 20

MANS = $(wildcard man/*.[1-9])
TESTPREFIX ?= /var/tmp/sandcastle-regress

.PHONY: FORCE all units clean deps test run-tests run-units fuzz fuzzers install demo bench check-man \
	reference dist deb
all: $(PROGS)

# The gate without its address check, for the test of the second barrier
# alone: make test installs it under libexec/, never make install.
gated/gated-nocheck: $(wildcard gated/*.c) common/libcommon.a $(HDRS)
	$(CC) $(ALL_CPPFLAGS) -DGATE_NOCHECK $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ \
	    $(wildcard gated/*.c) common/libcommon.a $(LIBS) $(LIBS_gated)

# Test builds of the box: BOX_TEST_HOOKS acts on a marker in the job
# (box/exchange.c); BOX_NO_SECCOMP leaves the box's own filter out,
# BOX_NO_LANDLOCK its Landlock ruleset.  t_job's proof of each lock
# (the filter alone, the ruleset alone, neither as the control) and make
# bench run them from images of their own; make test installs them under
# libexec/, never make install.
BOX_TESTS = box/sandcastle-box-test box/sandcastle-box-test-nofilter \
	box/sandcastle-box-test-landlock
# Each holds every capability's row, of BOX_CAPS.
BOX_TEST_CAPS = -DBOX_TEST_HOOKS \
	-DBOX_ROWS='$(foreach c,$(BOX_CAPS),BOX_ROW($(c)))'
BOX_TEST_FLAGS_box/sandcastle-box-test = $(BOX_TEST_CAPS)
BOX_TEST_FLAGS_box/sandcastle-box-test-nofilter = $(BOX_TEST_CAPS) \
	-DBOX_NO_SECCOMP -DBOX_NO_LANDLOCK
BOX_TEST_FLAGS_box/sandcastle-box-test-landlock = $(BOX_TEST_CAPS) \
	-DBOX_NO_SECCOMP
$(BOX_TESTS): $(wildcard box/*.c) common/libcommon.a $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(BOX_TEST_FLAGS_$@) $(ALL_CFLAGS) $(ALL_LDFLAGS) \
	    -o $@ $(wildcard box/*.c) common/libcommon.a $(LIBS) \
	    $(foreach c,$(BOX_CAPS),$(LIBS_box_$(c)))

# The tests' image helper (regress/lib/render_image.c): make test and
# make bench install it under libexec/, never make install.
RENDER_IMAGE = regress/lib/render_image
$(RENDER_IMAGE): regress/lib/render_image.c regress/box/render.h
	$(CC) $(ALL_CPPFLAGS) -Iregress/box $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
	    -lpng -ljpeg -lwebp $(ATF_LIBS)

# The suite's waits (regress/lib/waitfor.c): make test installs it under
# libexec/, never make install.
WAITFOR = regress/lib/waitfor
$(WAITFOR): regress/lib/waitfor.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

# check on ABI 1, for the test of its warnings on an older kernel: make
# test installs it under libexec/, never make install.
sandcastlectl/sandcastlectl-abi1: sandcastlectl/sandcastlectl.o common/landlock.abi1.o \
    $(OBJS_sandcastlectl) sandcastlectl/libsandcastlectl.a common/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(LIBS_sandcastlectl)

common/libcommon.a: $(COMMON_OBJS)
	rm -f $@ && ar rcs $@ $^
common/libcommon.san.a: $(COMMON_SRCS:.c=.san.o)
	rm -f $@ && ar rcs $@ $^

# An object depends on the headers it includes (cc -MMD), so that a
# change to one process's header rebuilds only the files that use it.
%.o: %.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
%.san.o: %.c
	$(CC) $(SAN_CFLAGS) -MMD -MP -c -o $@ $<
-include $(wildcard */*.d regress/lib/*.d)

# The systemd user units install writes: one copy, in etc/systemd/,
# compiled into sandcastlectl as C strings.
UNIT_FILES = $(sort $(wildcard etc/systemd/*.service etc/systemd/*.target))
sandcastlectl/unitdata.h: $(UNIT_FILES) Makefile
	{ for f in $(UNIT_FILES); do printf '{ "%s",\n' "$${f##*/}"; \
	    sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&\\n"/' "$$f"; \
	    printf '},\n'; done; } > $@.tmp && mv $@.tmp $@
$(patsubst %.c,%.o,$(wildcard sandcastlectl/*.c)) \
    $(patsubst %.c,%.san.o,$(wildcard sandcastlectl/*.c)): | sandcastlectl/unitdata.h

# The version and the commit go into build.o alone, made anew each time.
common/build.o common/build.evp.o common/build.san.o: ALL_CPPFLAGS += \
	-DSANDCASTLE_VERSION='"$(VERSION)"' -DSANDCASTLE_COMMIT='"$(COMMIT)"'
common/build.o common/build.evp.o: FORCE
common/build.evp.o: common/build.c
	$(CC) $(ALL_CPPFLAGS) -DBUILD_EVP $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
FORCE:

define librules
$(1)/lib$(1).a: $(patsubst %.c,%.o,$(call lib_srcs,$(1)))
	rm -f $$@ && ar rcs $$@ $$^
$(1)/lib$(1).san.a: $(patsubst %.c,%.san.o,$(call lib_srcs,$(1)))
	rm -f $$@ && ar rcs $$@ $$^
endef
define progrules
$(PROG_$(1)): $(patsubst %.c,%.o,$(call main_of,$(1))) $(OBJS_$(1)) $(1)/lib$(1).a common/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $$@ $$^ $(LIBS) $(LIBS_$(1))
endef
$(foreach d,$(PROGDIRS),$(eval $(call librules,$(d))))
$(foreach d,$(filter-out box,$(PROGDIRS)),$(eval $(call progrules,$(d))))

box/sandcastle-box-%.o: box/sandcastle-box.c
	$(CC) $(ALL_CPPFLAGS) -DBOX_ROWS='BOX_ROW($*)' $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

.SECONDEXPANSION:
$(BOXES): box/sandcastle-box-%: box/sandcastle-box-%.o $(BOX_BASE:.c=.o) \
    $$(BOX_SRCS_$$*:.c=.o) common/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -Wl,--as-needed -o $@ $^ $(LIBS) \
	    $(LIBS_box_$*)

$(UNITS): %: %.c $$(call unit_lib,$$@) common/libcommon.a $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
	    $(call unit_lib,$@) common/libcommon.a $(ATF_LIBS) $(LIBS) \
	    $(LIBS_$(call unit_prog,$@)) $(UNIT_LDFLAGS_$(notdir $@))

common/landlock.abi1.o: common/landlock.c
	$(CC) $(ALL_CPPFLAGS) -DLANDLOCK_ABI_MAX=1 $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(ABI1_UNITS): %.abi1: %.c common/landlock.abi1.o $$(call unit_lib,$$*) common/libcommon.a $(HDRS)
	$(CC) $(ALL_CPPFLAGS) -DLANDLOCK_ABI_MAX=1 $(ALL_CFLAGS) $(ALL_LDFLAGS) \
	    -o $@ $< common/landlock.abi1.o $(call unit_lib,$*) \
	    common/libcommon.a $(ATF_LIBS) $(LIBS) $(LIBS_$(call unit_prog,$*))

$(SAN_UNITS): %.san: %.c regress/lib/san.san.o $$(call unit_san_lib,$$@) common/libcommon.san.a $(HDRS)
	$(CC) $(SAN_CFLAGS) -o $@ $< regress/lib/san.san.o \
	    $(call unit_san_lib,$@) common/libcommon.san.a $(ATF_LIBS) $(LIBS) \
	    $(LIBS_$(call unit_prog,$@)) $(UNIT_LDFLAGS_$(notdir $(basename $@)))

# make deps: every Debian package the build and the suite need.
deps:
	sh regress/lib/deps.sh

# make test: builds (a job per processor), installs into TESTPREFIX for
# the test accounts, runs the whole suite with Kyua and ends with "N
# passed, N failed".
# make run-tests TESTS='gated/t_gate.sh keepd/t_keep.sh:redirect' runs
# only those programs or cases of the build already made.
# Every test program, hardened and sanitized: make -j2 units builds them apart,
# with make bench's programs, so that a change that breaks them fails here.
units: $(UNITS) $(SAN_UNITS) $(ABI1_UNITS) gated/gated-nocheck $(BOX_TESTS) \
    sandcastlectl/sandcastlectl-abi1 regress/bench/bench_landlock \
    regress/bench/bench_fresh regress/bench/bench_hops $(RENDER_IMAGE) \
    $(WAITFOR)

test: deps
	$(MAKE) --no-print-directory -j$$(nproc) all units
	$(MAKE) --no-print-directory run-tests

run-tests:
	rm -rf $(TESTPREFIX)
	$(MAKE) install PREFIX=$(TESTPREFIX)
	install -d $(TESTPREFIX)/libexec
	install -m 0755 gated/gated-nocheck $(BOX_TESTS) \
	    sandcastlectl/sandcastlectl-abi1 $(RENDER_IMAGE) $(WAITFOR) \
	    $(TESTPREFIX)/libexec/
	sh regress/lib/run.sh $(TESTPREFIX) $(TESTS)

# make run-units: make test's unit programs alone, the C ones (their
# hardened, sanitized and ABI 1 builds), as a root of another release
# runs them (regress/release/units.sh).
run-units:
	$(MAKE) --no-print-directory run-tests TESTS="$(patsubst regress/%,%,\
	    $(UNITS) $(SAN_UNITS) $(ABI1_UNITS))"

fuzzers: $(FUZZERS)

fuzz: $(FUZZERS)
	sh regress/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZERS)

# A fuzz target names what it needs beyond common/ in FUZZ_SRCS_<name>.
FUZZ_SRCS_envelope = keepd/envelope.c keepd/http.c
FUZZ_SRCS_path = keepd/envelope.c
FUZZ_SRCS_profile = sandcastled/profile.c
FUZZ_SRCS_http = keepd/http.c
FUZZ_SRCS_connect = gated/connect.c gated/policy.c
FUZZ_SRCS_dropin = sandcastlectl/dropin.c
FUZZ_SRCS_note = sandcastlectl/noteread.c
FUZZ_SRCS_dns = gated/resolve.c
FUZZ_LIBS_dns = -lresolv
FUZZ_SRCS_summary = sandcastled/summary.c sandcastled/schedule.c
FUZZ_SRCS_schema = box/schema.c
FUZZ_SRCS_sse = box/sse.c box/stream.c
FUZZ_SRCS_stream = box/sse.c box/stream.c
FUZZ_SRCS_image = box/image.c
FUZZ_LIBS_image = -lpng -ljpeg -lwebp -lm
$(FUZZERS): regress/fuzz/fuzz_%: regress/fuzz/fuzz_%.c $$(FUZZ_SRCS_$$*) $(COMMON_SRCS) $(HDRS)
	$(CLANG) $(ALL_CPPFLAGS) -std=c11 -g -O1 -Wall -Werror -fsanitize=fuzzer,address,undefined \
	    -o $@ $< $(FUZZ_SRCS_$*) $(COMMON_SRCS) $(LIBS) $(FUZZ_LIBS_$*)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/sandcastle \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BINPROGS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(LIBEXECPROGS) $(DESTDIR)$(PREFIX)/libexec/sandcastle/
	for m in $(MANS); do \
		s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; \
	done

# make dist: sandcastle-VERSION.tar.gz of HEAD's tracked files, in
# DISTDIR, the same bytes each time: git archive writes the names
# sorted, owner and group 0 and every time the commit's, and COMMIT's
# commit (.gitattributes); gzip -n leaves out a name and a time.  Its
# SHA-256 beside it.
DIST = sandcastle-$(VERSION)
DISTDIR ?= .
dist:
	@git diff --quiet HEAD -- || echo "dist: the work tree has changes that are not committed: the tarball is HEAD's alone" >&2
	git archive --format=tar --prefix=$(DIST)/ HEAD | gzip -n -9 > $(DISTDIR)/$(DIST).tar.gz.tmp
	mv $(DISTDIR)/$(DIST).tar.gz.tmp $(DISTDIR)/$(DIST).tar.gz
	cd $(DISTDIR) && sha256sum $(DIST).tar.gz > $(DIST).tar.gz.sha256

# make deb: sandcastle_VERSION-1_amd64.deb for each release of
# DEB_RELEASES, from make dist's tarball, by dpkg-buildpackage in a
# clean root of the release, then its lintian: in deb/<release>/
# (regress/release/deb.sh).  As root.
DEB_RELEASES ?= bookworm trixie
deb: dist
	for r in $(DEB_RELEASES); do \
		sh regress/release/deb.sh $$r $(DISTDIR)/$(DIST).tar.gz || exit 1; \
	done

# make demo: a first job end to end on this machine (as root: it makes
# the test account and networks of its own), then its record.  Like
# make test, it installs the Debian packages it lacks first.
DEMOPREFIX ?= /var/tmp/sandcastle-demo
demo: deps
	$(MAKE) --no-print-directory -j$$(nproc) all $(WAITFOR)
	sh regress/demo/demo.sh $(DEMOPREFIX)

# make reference: level R of sandcastle-tests(7), the reference machine, on
# each Debian release of RELEASES (bookworm trixie testing): a guest of
# the release under qemu (TCG, no network), built once from its packages
# and cached under /var/tmp, with this source built for the release on a
# 9p share (in a root of the release when it is not this machine's); the
# suite inside as an operator does it, the Test-runs records in
# regress/reference.md and "N passed, N failed".  As root; like make
# test, it installs the Debian packages it lacks first.
RELEASES ?= bookworm trixie testing
reference: deps
	$(MAKE) --no-print-directory -j$$(nproc) all
	RELEASES="$(RELEASES)" sh regress/reference/all.sh

# make bench: measurements, never tests; each prints what it measured.
# make bench BENCHES=keep runs those alone (the keep and the gate's, in a
# root of another release for its pasta: sandcastle(7), Supported systems).
BENCHES ?= $(patsubst regress/bench/bench_%.sh,%,$(wildcard regress/bench/bench_*.sh))
# bench_landlock runs the rulesets' own functions, from the programs' libraries.
BENCH_LANDLOCK_LIBS = sandcastled/libsandcastled.a keepd/libkeepd.a \
	box/libbox.a common/libcommon.a
regress/bench/bench_landlock: regress/bench/bench_landlock.c $(BENCH_LANDLOCK_LIBS) $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
	    $(BENCH_LANDLOCK_LIBS) $(ATF_LIBS) $(LIBS) $(LIBS_box)

# bench_fresh: a fresh process's first touches, with keepd's code_busy().
regress/bench/bench_fresh: regress/bench/bench_fresh.c keepd/libkeepd.a common/libcommon.a $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
	    keepd/libkeepd.a common/libcommon.a $(LIBS)

# bench_hops: a keep body's hops, through the programs' own functions.
regress/bench/bench_hops: regress/bench/bench_hops.c $(BENCH_LANDLOCK_LIBS) $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
	    $(BENCH_LANDLOCK_LIBS) $(LIBS) $(LIBS_box)

bench: all $(BOX_TESTS) regress/bench/bench_landlock regress/bench/bench_fresh \
    regress/bench/bench_hops \
    $(RENDER_IMAGE) $(WAITFOR)
	rm -rf $(TESTPREFIX)
	$(MAKE) install PREFIX=$(TESTPREFIX)
	install -d $(TESTPREFIX)/libexec
	install -m 0755 $(BOX_TESTS) $(RENDER_IMAGE) $(WAITFOR) $(TESTPREFIX)/libexec/
	sh regress/lib/accounts.sh && sh regress/lib/podman.sh
	for b in $(BENCHES:%=regress/bench/bench_%.sh); do sh $$b $(TESTPREFIX) || exit 1; done

check-man:
	mandoc -Tlint -Wwarning $(MANS)

clean:
	rm -f $(PROGS) $(PROGLIBS) $(PROGLIBS:.a=.san.a) gated/gated-nocheck $(BOX_TESTS) box/sandcastle-box \
	    sandcastlectl/sandcastlectl-abi1 regress/bench/bench_landlock \
	    regress/bench/bench_fresh regress/bench/bench_hops \
	    $(RENDER_IMAGE) $(WAITFOR) common/libcommon.a common/libcommon.san.a */*.o */*.d \
	    regress/lib/*.o regress/lib/*.d $(UNITS) \
	    sandcastlectl/unitdata.h \
	    $(addsuffix .san,$(UNITS)) $(ABI1_UNITS) $(FUZZERS) \
	    $(DIST).tar.gz $(DIST).tar.gz.sha256
	rm -rf regress/fuzz/corpus.tmp
