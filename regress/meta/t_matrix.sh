#! /usr/bin/env atf-sh
# The test matrix of sandcastle-tests(7) held to the threat model of
# sandcastle(7) and to the tests of regress/ by matrix.py, by the rules
# the page writes in TEST MATRIX; and, so that this cannot pass with the
# checker broken, the same checker on copies of the pages doctored one
# way each, which must fail naming the fault.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# matrix PAGE ROOT [PROMISE]: the checker on the matrix of PAGE and the
# threat model of PROMISE (sandcastle(7)), its lines in out, its status
# returned.
matrix()
{
	python3 "$(atf_get_srcdir)/matrix.py" \
	    "${3:-$(sc_srcdir)/man/sandcastle.7}" "$1" "$2" > out 2>&1
}

# said LINE: the checker's output has LINE, whole.
said()
{
	grep -Fqx -- "$1" out || { cat out; atf_fail "not said: $1"; }
}

# doctor NAME SCRIPT [PAGE]: a copy of PAGE (sandcastle-tests.7), through
# sed SCRIPT, in NAME.7.
doctor()
{
	_page=$(sc_srcdir)/man/${3:-sandcastle-tests.7}
	sed "$2" "$_page" > "$1.7"
	cmp -s "$1.7" "$_page" && atf_fail "$1: the doctored page is the page"
	return 0
}

atf_test_case holds
holds_head()
{
	atf_set "descr" "every id a test cites is in the matrix, each id has a proof at each of its levels, and each file and case the matrix names exists and cites it"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "python3"
}
holds_body()
{
	src=$(sc_srcdir)
	[ -f "$src/man/sandcastle-tests.7" ] || atf_fail "no man/sandcastle-tests.7"
	matrix "$src/man/sandcastle-tests.7" "$src" ||
	    { cat out; atf_fail "the matrix and the tests disagree"; }
	[ ! -s out ] || { cat out; atf_fail "the checker said something"; }
	# Every id of the threat model is there, in its order.
	python3 "$(atf_get_srcdir)/matrix.py" -v "$src/man/sandcastle.7" \
	    "$src/man/sandcastle-tests.7" "$src" |
	    cut -d' ' -f1 > ids
	atf_check -o inline:"S1\nS2\nS3\nS4\nS5\nS6\nS7\nS8\nB1\nB2\nB3\nB4\nB5\nB6\nB7\nB8\nB9\nB10\nB11\nR1\nR2\nA1\nA2\nA3\nA4\nN1\nN2\nN3\nN4\nN5\nN6\nN7\nI1\nF1\nF2\nF3\nF4\nT1\nT2\nT3\nT4\n" cat ids
}

atf_test_case controls
controls_head()
{
	atf_set "descr" "the checker fails, naming the fault, on a matrix with an id removed, a threat model with an id removed, a file renamed, a proof that does not cite its id, a level with no proof, a proof out of form, a level R proof outside the reference machine's suite or of another level, and a tree whose test cites an id the page lacks"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "python3"
}
controls_body()
{
	src=$(sc_srcdir)

	# An id removed: S5's item, its text and proofs, up to S6's.
	doctor no-s5 '/^\.It Sy S5 Pq/,/^\.It Sy S6 Pq/{/^\.It Sy S6 Pq/!d;}'
	matrix no-s5.7 "$src" && { cat out; atf_fail "no-s5: passed"; }
	said "S5: in the threat model, not in the matrix"
	said "S5: cited by regress/sandcastled/t_sched.c rate_limit, not in the matrix"
	said "S5: cited by regress/sandcastled/t_life.sh rate, not in the matrix"

	# The same id removed from the threat model of sandcastle(7) alone.
	doctor no-s5-threat '/^\.It Sy S5$/,/^\.It Sy S6$/{/^\.It Sy S6$/!d;}' \
	    sandcastle.7
	matrix "$src/man/sandcastle-tests.7" "$src" no-s5-threat.7 &&
	    { cat out; atf_fail "no-s5-threat: passed"; }
	said "S5: in the matrix, not in the threat model"

	# A threat model page with no THREAT MODEL: the checker cannot run.
	doctor no-threat 's/^\.Sh THREAT MODEL$/.Sh THREATS/' sandcastle.7
	matrix "$src/man/sandcastle-tests.7" "$src" no-threat.7
	[ $? -eq 2 ] || { cat out; atf_fail "no-threat: not exit 2"; }
	said "no-threat.7: no section THREAT MODEL"

	# A file renamed in the page: missing, and the real one unnamed.
	doctor renamed 's|Pa regress/keepd/t_http.c Ta|Pa regress/keepd/t_https.c Ta|'
	matrix renamed.7 "$src" && { cat out; atf_fail "renamed: passed"; }
	said "S2: regress/keepd/t_https.c is missing"
	said "S2: cited by regress/keepd/t_http.c, which its proofs do not name"

	# A proof that names a file and a case that do not cite the id.
	doctor uncited 's|^\.It U Ta Pa regress/keepd/t_http.c Ta Cm no_body$|&\n.It U Ta Pa regress/gated/t_refusal.c Ta Cm append_lines|'
	matrix uncited.7 "$src" && { cat out; atf_fail "uncited: passed"; }
	said "S2: regress/gated/t_refusal.c append_lines does not cite it"

	# A case that is not in the file.
	doctor nocase 's|Ta Cm no_body$|Ta Cm no_body no_such_case|'
	matrix nocase.7 "$src" && { cat out; atf_fail "nocase: passed"; }
	said "S2: regress/keepd/t_http.c has no test case no_such_case"

	# A level declared with no proof at it.
	doctor level 's|^\.It Sy B4 Pq I$|.It Sy B4 Pq U I|'
	matrix level.7 "$src" && { cat out; atf_fail "level: passed"; }
	said "B4: no proof at level U"

	# A proof line out of form is named, never skipped.
	doctor form 's|^\.It I Ta Pa regress/gated/t_gate.sh Ta Cm accounts$|.It I Ta regress/gated/t_gate.sh accounts|'
	matrix form.7 "$src" && { cat out; atf_fail "form: passed"; }
	said "A4: a proof not in the matrix's form: .It I Ta regress/gated/t_gate.sh accounts"
	said "A4: cited by regress/gated/t_gate.sh accounts, which its proofs do not name"

	# Level R: a proof of it naming a test of level I, and a case of the
	# reference machine's suite given as level I.
	doctor rlevel 's|^\.It R Ta Pa regress/reference/t_reference.sh Ta Cm a4$|.It R Ta Pa regress/gated/t_gate.sh Ta Cm accounts|'
	matrix rlevel.7 "$src" && { cat out; atf_fail "rlevel: passed"; }
	said "A4: regress/gated/t_gate.sh is not the reference machine's suite (regress/reference/), not level R"
	said "A4: cited by regress/reference/t_reference.sh a4, which its proofs do not name"
	doctor ilevel 's|^\.It R Ta Pa regress/reference/t_reference.sh Ta Cm a1$|.It I Ta Pa regress/reference/t_reference.sh Ta Cm a1|'
	matrix ilevel.7 "$src" && { cat out; atf_fail "ilevel: passed"; }
	said "A1: regress/reference/t_reference.sh runs on the reference machine, level R, not I"
	said "A1: no proof at level R"

	# A tree whose test cites an id the page does not have.
	mkdir -p tree/regress/x
	printf '%s\n' 'atf_test_case fake' 'fake_head()' '{' \
	    '	atf_set "descr" "S9: an id of nobody'"'"'s"' '}' \
	    > tree/regress/x/t_fake.sh
	printf '%s\n' '/*' ' * B99: another' ' */' 'ATF_TC_WITHOUT_HEAD(one);' \
	    > tree/regress/x/t_fake.c
	matrix "$src/man/sandcastle-tests.7" tree && { cat out; atf_fail "tree: passed"; }
	said "S9: cited by regress/x/t_fake.sh fake, not in the matrix"
	said "B99: cited by regress/x/t_fake.c, not in the matrix"

	# The control of the controls: the pages themselves, unchanged, pass.
	cp "$src/man/sandcastle-tests.7" same.7
	cp "$src/man/sandcastle.7" same-threat.7
	matrix same.7 "$src" same-threat.7 ||
	    { cat out; atf_fail "the pages themselves fail"; }
}

atf_init_test_cases()
{
	atf_add_test_case holds
	atf_add_test_case controls
}
