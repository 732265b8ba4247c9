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

# parts DIR: the pairs on stdin, each file named by its part: the header
# of DIR/ that begins its name (check for check_caps and checkline, as
# rde.h serves bgpd's rde_*.c), else itself.
parts()
{
	_h=$(cd "$1" && ls -- *.h | sed 's/[.]h$//' | tr '\n' ' ')
	awk -v hs="$_h" 'BEGIN { n = split(hs, h, " ") }
	    function part(f,  i) {
		for (i = 1; i <= n; i++)
			if (index(f, h[i]) == 1)
				return h[i]
		return f
	    }
	    { print part($1), part($2) }'
}

# unused DIR COMMON: "file header" for each header a file of DIR/
# includes by a quoted name (looked for in DIR/, then COMMON/) and names
# nothing of: no function, variable, macro, type or constant it
# declares, no field after . or ->.  A header that declares nothing
# (unitdata.h, an array's rows) is data, not read.
unused()
{
	for f in "$1"/*.[ch]; do
		cc -fpreprocessed -dD -E -P "$f" 2> /dev/null | grep -v '^#include' > body ||
		    atf_fail "${f##*/} does not read"
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
			p="$1/$h"
			[ -f "$p" ] || p="$2/$h"
			[ -f "$p" ] || { echo "${f##*/} $h: no such header"; continue; }
			ctags -x --c-kinds=dfpxgestuv --language-force=C "$p" |
			    awk '$1 !~ /_H$/ { print $1 }' > names
			[ -s names ] || continue
			ctags -x --c-kinds=m --language-force=C "$p" |
			    awk '{ print "([.]|->)" $1 "([^A-Za-z0-9_]|$)" }' > fields
			grep -qwFf names body || { [ -s fields ] &&
			    grep -qEf fields body; } || echo "${f##*/} $h"
		done
	done
}

# foreign DIR DEFINED: "header name file" for each function or variable
# a header of DIR/ declares that a file outside its part defines (DEFINED:
# "symbol file", from calls); a header with no .c of its own (ctlcmd.h)
# declares only the commands, each named in parser.c's rows.
foreign()
{
	for h in "$1"/*.h; do
		n=${h##*/}
		n=${n%.h}
		ctags -x --c-kinds=px --language-force=C "$h" | awk '{ print $1 }' |
		    while read -r name; do
			if [ ! -f "$1/$n.c" ]; then
				grep -qw "$name" "$1/parser.c" ||
				    echo "$n.h $name not a command"
				continue
			fi
			awk -v s="$name" -v n="$n" '$1 == s && index($2, n) != 1 {
			    print n ".h", s, $2 }' "$2"
		done
	done
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
	atf_set "descr" "no file of a program's folder calls or includes, through any others, a file that calls or includes it, a header counted as its .c's: the tables of rows (proctab.c, fetchtab.c) are handed down by main; controls: proto.c calling parent.c's take closes a circle, and corebase.c including core.h another, and keepd's fetch.c including client.h a third, each named; sandcastlectl's files are counted by part, a header of its folder that begins their names (check.h: check.c, checkline.c and the sections)"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "cc nm tsort"
	atf_set "timeout" "600"
}
programs_no_circle_body()
{
	src=$(sc_srcdir)
	for d in sandcastled keepd gated box; do
		{ calls "$src" "objs-$d" "$d"; includes "$src" "$d"; } |
		    sort -u > "pairs-$d"
		[ -s "pairs-$d" ] || atf_fail "$d: no call read"
		tsort "pairs-$d" > /dev/null 2> "loop-$d" ||
		    atf_fail "$d: a circle: $(tr '\n' ' ' < "loop-$d")"
	done
	# sandcastlectl's parts: check.h is check.c's and its sections'.
	d=sandcastlectl
	{ calls "$src" "objs-$d" "$d"; includes "$src" "$d"; } |
	    parts "$src/$d" | awk '$1 != $2' | sort -u > "pairs-$d"
	atf_check -o match:'^sandcastlectl parser$' -o match:'^show output$' \
	    cat "pairs-$d"
	tsort "pairs-$d" > /dev/null 2> "loop-$d" ||
	    atf_fail "$d: a circle: $(tr '\n' ' ' < "loop-$d")"
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

atf_test_case ctl_includes
ctl_includes_head()
{
	atf_set "descr" "each file of sandcastlectl/ includes only headers whose names it uses, and each header declares only its part's functions (ctlcmd.h only the commands): no catch-all; controls: version.c including check.h, and a sandcastlectl.h of all the commands' declarations, each named"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "cc nm ctags"
}
ctl_includes_body()
{
	src=$(sc_srcdir)
	d=sandcastlectl
	unused "$src/$d" "$src/common" > out
	atf_check -o empty cat out
	calls "$src" objs "$d" > /dev/null
	foreign "$src/$d" objs/defined > out
	atf_check -o empty cat out
	# The controls: an include of nothing used; the catch-all back.
	mkdir -p copy && cp -R "$src/$d" copy/
	sed -i 's/^#include "ctlcmd.h"$/&\n#include "check.h"/' copy/$d/version.c
	unused copy/$d "$src/common" > out
	atf_check -o inline:'version.c check.h\n' cat out
	cat "$src/$d/ctlcmd.h" "$src/$d/parser.h" "$src/$d/names.h" |
	    grep -v '^#include "' > copy/$d/sandcastlectl.h
	sed -i 's/^#include "check.h"$/#include "sandcastlectl.h"/' \
	    copy/$d/version.c
	unused copy/$d "$src/common" > out
	atf_check -o empty cat out
	foreign copy/$d objs/defined > out
	atf_check -o match:'^sandcastlectl[.]h parse parser$' \
	    -o match:'^sandcastlectl[.]h names_free names$' \
	    -o match:'^sandcastlectl[.]h ctl_version version$' cat out
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
	atf_add_test_case ctl_includes
	atf_add_test_case rebuild_own
}
