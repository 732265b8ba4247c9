#! /usr/bin/env atf-sh
# The suite's waits (regress/lib/waitfor.c, helpers.subr sc_wait_line and
# sc_wait_file): each finds what comes late, and each gives up once its
# seconds pass; the control of a wait found is one not found.

. "$(atf_get_srcdir)/../lib/helpers.subr"

atf_test_case lines
lines_head()
{
	atf_set "descr" "sc_wait_line finds a line written after it began, by grep -e's basic expression, counts lines, and reads a last line with no newline; the control: a pattern no line matches, or one line fewer than asked, fails once its time is over"
	atf_set "require.config" "prefix"
}
lines_body()
{
	printf 'one\ntwo ready: 3\n' > log
	( sleep 0.5; printf 'late line 7\nlast' >> log ) &
	sc_wait_line log 'late line [0-9]$' 10 || atf_fail "the late line was not found"
	wait
	sc_wait_line log 'ready: [0-9]' 1 || atf_fail "ready: 3 not found"
	sc_wait_line log '^last$' 1 || atf_fail "a last line with no newline is a line"
	sc_wait_line log '' 1 4 || atf_fail "four lines are not counted"
	# The controls.
	start=$(date +%s)
	sc_wait_line log 'nowhere' 1 && atf_fail "a line no one wrote was found"
	[ $(($(date +%s) - start)) -le 3 ] || atf_fail "a 1 s wait took longer than 3 s"
	sc_wait_line log '' 1 5 && atf_fail "five lines found in four"
	sc_wait_line missing 'x' 1 && atf_fail "a line found in no file"
	return 0
}

atf_test_case files
files_head()
{
	atf_set "descr" "sc_wait_file finds a file made after it began, a Unix socket among them (test -e's view); the control: a path never made fails once its time is over"
	atf_set "require.config" "prefix"
	atf_set "require.progs" "python3"
}
files_body()
{
	( sleep 0.5; : > later ) &
	sc_wait_file later 10 || atf_fail "a file made late was not found"
	wait
	( sleep 0.5; exec python3 -c 'import socket, time
s = socket.socket(socket.AF_UNIX); s.bind("sock"); time.sleep(3)' ) &
	sc_wait_file sock 10 || atf_fail "a socket was not found"
	[ -S sock ] || atf_fail "sock is not a socket"
	wait
	sc_wait_file never 1 && atf_fail "a file never made was found"
	return 0
}

atf_init_test_cases()
{
	atf_add_test_case lines
	atf_add_test_case files
}
