#! /usr/bin/env atf-sh
# common/ is layers: a file calls only files below it, never one that
# calls it back (HACKING, The layers); so is each program's folder.  What
# is read is the calls, each object's symbols: a header included for a
# struct's layout is no call.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# calls SRC OUT [DIR]: "caller callee" for each two files of SRC/DIR/
# (common/) where the first uses a symbol the second defines.  Each
# file's object is the build's (make all made it, newer than its source)
# when SRC is the checkout, else compiled into OUT; one OUT holds
# already is taken as it is (a control compiles only the file it
# changed).  One nm reads them all: one a file cost a busy suite 0.4 s
# each.
calls()
{
	mkdir -p "$2"
	for c in "$1"/${3:-common}/*.c; do
		n=${c##*/}
		[ -e "$2/${n%.c}.o" ] && continue
		if [ "$1" = "$(sc_srcdir)" ] && [ "${c%.c}.o" -nt "$c" ]; then
			cp "${c%.c}.o" "$2/" || atf_fail "cp ${c%.c}.o"
			continue
		fi
		[ -n "${flags:-}" ] || flags=$(make -C "$(sc_srcdir)" -s \
		    --no-print-directory \
		    --eval 'sc-flags: ; @echo $(ALL_CPPFLAGS)' sc-flags)
		# The box program's rows, as the Makefile gives them.
		[ -n "${rows:-}" ] || rows=$(make -C "$(sc_srcdir)" -s \
		    --no-print-directory --eval \
		    'sc-rows: ; @echo "$(foreach c,$(BOX_CAPS),BOX_ROW($(c)))"' \
		    sc-rows)
		cc $flags -I"$1/common" -std=c11 -DSANDCASTLE_COMMIT='"x"' \
		    "-DBOX_ROWS=$rows" -c -o "$2/${n%.c}.o" "$c" ||
		    atf_fail "$n does not compile"
	done
	# "file.o:address type symbol" or "file.o:  U symbol": symbol, file.
	_sym='{ i = index($0, ":"); f = substr($0, 1, i - 1); sub(".*/", "", f)
	    sub("[.]o$", "", f); n = split(substr($0, i + 1), a, " ")
	    print a[n], f }'
	nm -A --defined-only -g "$2"/*.o | awk "$_sym" | sort > "$2/defined"
	nm -A -u "$2"/*.o | awk "$_sym" | sort | join - "$2/defined" |
	    awk '$2 != $3 { print $2, $3 }' | sort -u
}

# includes SRC DIR: "file header" for each header of SRC/DIR/ a file of
# it (its .c or its own .h) includes, where DIR/ has the header's .c: a
# header counts as its .c's, so a file that includes it stands above.
includes()
{
	for f in "$1/$2"/*.[ch]; do
		n=${f##*/}
		n=${n%.[ch]}
		sed -n 's/^#include "\([a-z_0-9]*\)\.h".*/\1/p' "$f" |
		    while read -r h; do
			[ "$h" != "$n" ] && [ -f "$1/$2/$h.c" ] && echo "$n $h"
		done
	done | sort -u
}

atf_test_case no_circle
no_circle_head()
{
	atf_set "descr" "no file of common/ calls, through any others, a file that calls it; control: confparse.c calling cap.c closes a circle through a capability's row, which is named"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "cc nm tsort"
}
no_circle_body()
{
	src=$(sc_srcdir)
	calls "$src" objs > pairs
	atf_check -o match:'^config cap$' -o match:'^cap cap_[a-z]*$' \
	    -o match:'^cap_[a-z]* confparse$' cat pairs
	atf_check -o ignore -e empty tsort pairs
	# The control: the layer below calls the row that calls it.
	mkdir -p copy && cp -R "$src/common" copy/
	printf '\nconst char *sc_up(void);\nconst char *\nsc_up(void)\n{\n\treturn cap_name(0);\n}\n' >> copy/common/confparse.c
	cp -R objs copyobjs && rm copyobjs/confparse.o
	calls copy copyobjs > pairs
	atf_check -s not-exit:0 -o ignore -e match:'loop' \
	    -e match:'^tsort: cap$' -e match:'^tsort: confparse$' tsort pairs
}

atf_test_case programs_no_circle
programs_no_circle_head()
{
	atf_set "descr" "no file of a program's folder calls or includes, through any others, a file that calls or includes it, a header counted as its .c's: the tables of rows (proctab.c, fetchtab.c) are handed down by main; controls: proto.c calling parent.c's take closes a circle, and corebase.c including core.h another, and keepd's fetch.c including client.h a third, each named"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "cc nm tsort"
	atf_set "timeout" "600"
}
programs_no_circle_body()
{
	src=$(sc_srcdir)
	for d in sandcastled keepd gated box sandcastlectl; do
		{ calls "$src" "objs-$d" "$d"
		    case $d in sandcastled|keepd|gated|box) includes "$src" "$d" ;; esac
		} | sort -u > "pairs-$d"
		[ -s "pairs-$d" ] || atf_fail "$d: no call read"
		tsort "pairs-$d" > /dev/null 2> "loop-$d" ||
		    atf_fail "$d: a circle: $(tr '\n' ' ' < "loop-$d")"
	done
	atf_check -o match:'^parent proto$' -o match:'^core corebase$' \
	    cat pairs-sandcastled
	# Read from the includes alone: fetchtab.c calls none of fetchmsg.c.
	atf_check -o match:'^fetchtab fetchmsg$' cat pairs-keepd
	# The controls: the lookups call a take the rows name; a layer of
	# the core includes the header of the file above it.
	mkdir -p copy && cp -R "$src/common" "$src/sandcastled" copy/
	printf '\nvoid sc_up(void);\nvoid\nsc_up(void)\n{\n\tparent_ready(NULL, NULL);\n}\n' \
	    >> copy/sandcastled/proto.c
	cp -R objs-sandcastled copyobjs && rm copyobjs/proto.o
	calls copy copyobjs sandcastled > pairs
	atf_check -s not-exit:0 -o ignore -e match:'loop' \
	    -e match:'^tsort: parent$' -e match:'^tsort: proto$' tsort pairs
	cp "$src/sandcastled/corebase.c" copy/sandcastled/
	sed -i 's/^#include "corebase.h"$/&\n#include "core.h"/' \
	    copy/sandcastled/corebase.c
	{ calls "$src" "objs-sandcastled" sandcastled;
	    includes copy sandcastled; } | sort -u > pairs
	atf_check -s not-exit:0 -o ignore -e match:'loop' \
	    -e match:'^tsort: core$' -e match:'^tsort: corebase$' tsort pairs
	# A request's child includes the header of keepd's client.c, which
	# calls fetcher.c, which forks the child.
	cp -R "$src/keepd" copy/
	sed -i 's/^#include "fetch.h"$/&\n#include "client.h"/' copy/keepd/fetch.c
	{ calls "$src" "objs-keepd" keepd; includes copy keepd; } |
	    sort -u > pairs
	atf_check -s not-exit:0 -o ignore -e match:'loop' \
	    -e match:'^tsort: client$' -e match:'^tsort: fetch$' tsort pairs
}

atf_test_case rebuild_own
rebuild_own_head()
{
	atf_set "descr" "a change to one process's header rebuilds the files that include it and no other (cc -MMD): sandcastled/core.h the core's files, never the launcher's; control: proc.h, which every process of sandcastled includes, rebuilds the launcher"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "make cc"
}
rebuild_own_body()
{
	src=$(sc_srcdir)
	make -s -C "$src" all > /dev/null 2>&1 || atf_fail "make all"
	make -s -n -C "$src" -W sandcastled/core.h all > core.n
	atf_check -o match:'sandcastled/core\.o' cat core.n
	atf_check -s exit:1 grep -e '-o sandcastled/launcher\.o ' -e '-c -o keepd/' core.n
	make -s -n -C "$src" -W sandcastled/proc.h all > proc.n
	atf_check -o ignore grep -e '-o sandcastled/launcher\.o ' proc.n
}

atf_init_test_cases()
{
	atf_add_test_case no_circle
	atf_add_test_case programs_no_circle
	atf_add_test_case rebuild_own
}
