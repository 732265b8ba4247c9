# sandcastle: make builds everything, make test runs the regress suite.
# See README for the two commands an operator needs, and each target below.

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man

CC	?= cc
CLANG	?= clang
CFLAGS	?= -O2 -g
COMMIT	:= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)

WARNFLAGS = -std=c11 -Wall -Wextra -Werror -Wformat=2 -Wshadow \
	-Wmissing-prototypes -Wstrict-prototypes -Wpointer-arith \
	-Wno-unused-parameter
HARDFLAGS = -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection \
	-fPIE -fno-strict-overflow
HARDLDFLAGS = -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
BSD_CFLAGS := $(shell pkg-config --cflags libbsd-overlay 2>/dev/null || echo -isystem /usr/include/bsd -DLIBBSD_OVERLAY)
ALL_CPPFLAGS = -D_GNU_SOURCE -Icommon $(BSD_CFLAGS) \
	-DSANDCASTLE_COMMIT='"$(COMMIT)"' $(CPPFLAGS)
ifdef DEBUG
ALL_CPPFLAGS += -DSANDBOX_DEBUG
endif
ALL_CFLAGS = $(WARNFLAGS) $(HARDFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(HARDLDFLAGS) $(LDFLAGS)
LIBS	= -lbsd -lmd -lyaml -lseccomp -ltls

# Each program folder holds its main in <name>.c; every other .c of the
# folder goes into lib<folder>.a, which the unit tests link too.
PROGDIRS = sandcastled sandcastlectl keepd gated box
PROG_sandcastled   = sandcastled/sandcastled
PROG_sandcastlectl = sandcastlectl/sandcastlectl
PROG_keepd         = keepd/keepd
PROG_gated         = gated/gated
PROG_box           = box/sandcastle-box
PROGS = $(foreach d,$(PROGDIRS),$(PROG_$(d)))
MAIN_box = box/sandcastle-box.c

COMMON_SRCS = $(wildcard common/*.c)
COMMON_OBJS = $(COMMON_SRCS:.c=.o)
HDRS = $(wildcard common/*.h $(addsuffix /*.h,$(PROGDIRS)))

main_of = $(if $(MAIN_$(1)),$(MAIN_$(1)),$(1)/$(1).c)
lib_srcs = $(filter-out $(call main_of,$(1)),$(wildcard $(1)/*.c))
PROGLIBS = $(foreach d,$(PROGDIRS),$(d)/lib$(d).a)

# Unit tests: regress/<folder>/t_*.c, one atf-c program each, linked with
# every program library and libcommon.a; *.san is the same test under
# ASan and UBSan, built from source with no object shared.
UNIT_SRCS = $(wildcard regress/*/t_*.c)
UNITS = $(UNIT_SRCS:.c=)
SAN_UNITS = $(addsuffix .san,$(filter-out $(NOSAN_UNITS),$(UNITS)))
# Tests of seccomp filters: a sanitizer's runtime makes calls a filter kills.
NOSAN_UNITS = regress/sandcastled/t_sandbox
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ATF_LIBS = -latf-c

FUZZ_SRCS = $(wildcard regress/fuzz/fuzz_*.c)
FUZZERS = $(FUZZ_SRCS:.c=)
FUZZ_SECONDS ?= 20

MANS = $(wildcard man/*.[1-9])
TESTPREFIX ?= /var/tmp/sandcastle-regress

.PHONY: all clean deps test unit-test fuzz install lint demo bench check-man
all: $(PROGS)

common/libcommon.a: $(COMMON_OBJS)
	rm -f $@ && ar rcs $@ $^

%.o: %.c $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

define progrules
$(1)/lib$(1).a: $(patsubst %.c,%.o,$(call lib_srcs,$(1)))
	rm -f $$@ && ar rcs $$@ $$^
$(PROG_$(1)): $(patsubst %.c,%.o,$(call main_of,$(1))) $(1)/lib$(1).a common/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $$@ $$^ $(LIBS)
endef
$(foreach d,$(PROGDIRS),$(eval $(call progrules,$(d))))

$(UNITS): %: %.c $(PROGLIBS) common/libcommon.a $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< \
	    $(PROGLIBS) common/libcommon.a $(ATF_LIBS) $(LIBS)

SAN_DEPS = $(COMMON_SRCS) $(foreach d,$(PROGDIRS),$(call lib_srcs,$(d))) $(HDRS)
%.san: %.c $(SAN_DEPS)
	$(CC) $(ALL_CPPFLAGS) $(WARNFLAGS) -O1 -g $(SANFLAGS) -o $@ $< \
	    $(COMMON_SRCS) $(foreach d,$(PROGDIRS),$(call lib_srcs,$(d))) \
	    $(ATF_LIBS) $(LIBS)

# make deps: every Debian package the build and the suite need.
deps:
	sh regress/lib/deps.sh

# make test: builds, installs into TESTPREFIX for the test accounts,
# runs the whole suite with Kyua and ends with "N passed, N failed".
test: all $(UNITS) $(SAN_UNITS)
	rm -rf $(TESTPREFIX)
	$(MAKE) install PREFIX=$(TESTPREFIX)
	sh regress/lib/run.sh $(TESTPREFIX)

unit-test: $(UNITS) $(SAN_UNITS)
	cd regress && kyua test common sandcastled

fuzz: $(FUZZERS)
	sh regress/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZERS)

regress/fuzz/fuzz_%: regress/fuzz/fuzz_%.c $(SAN_DEPS)
	$(CLANG) $(ALL_CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
	    -o $@ $< $(COMMON_SRCS) $(LIBS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(PROGS) $(DESTDIR)$(BINDIR)/
	for m in $(MANS); do \
		s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; \
	done

check-man:
	mandoc -Tlint -Wwarning $(MANS)

clean:
	rm -f $(PROGS) $(PROGLIBS) common/libcommon.a */*.o $(UNITS) \
	    $(addsuffix .san,$(UNITS)) $(FUZZERS)
	rm -rf regress/fuzz/corpus.tmp
