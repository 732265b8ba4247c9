#! /usr/bin/env atf-sh
# sandcastlectl show status [-j]: asks sandcastled over control.sock.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"

atf_test_case no_answer cleanup
no_answer_head()
{
	atf_set "descr" "show status says where nothing answers, and exits 1"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
no_answer_body()
{
	sc_setup
	sc_mkctl
	sock=$SC_RUN/sandcastle/control.sock
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: sandcastled does not answer at $sock: No such file or directory\n" \
	    ./ctl show status
	SC_ENV="XDG_RUNTIME_DIR=" atf_check -s exit:1 \
	    -e inline:"sandcastlectl: XDG_RUNTIME_DIR is not set\n" ./ctl show status
}
no_answer_cleanup()
{
	sc_cleanup
}

atf_test_case status cleanup
status_head()
{
	atf_set "descr" "show status lists sandcastled's processes, as the operator only, then the jobs running, in all, of each capability and of each source, each out of its jobs (none before the core's first summary); -j is the same as JSON, each process's state and pid"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
status_body()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	# 3 at once, ocr's 1 (its block is the file's last), recipes' 2.
	printf '    jobs: 1\njobs: 3\n' >> "$SC_CONFIG/config.yaml"
	echo 'jobs: 2' >> "$SC_CONFIG/sources/recipes.yaml"
	sc_start sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_file "$SC_RUN/sandcastle/control.sock" ||
	    { sc_log sandcastled; atf_fail "no control.sock"; }
	sc_wait_log sandcastled "ready" ||
	    { sc_log sandcastled; atf_fail "sandcastled was never ready"; }
	atf_check -o save:all -e empty ./ctl show status
	cat all
	# The processes, an empty line, then the jobs: no keep answers, so
	# the core has not scheduled and none runs.
	sed '/^$/,$d' all > status
	sed '1,/^$/d' all > jobs
	cat > expjobs <<EOF
JOBS                     RUNNING
all                      0/3
capability claude        0/3
capability ocr           0/1
source notes             0/3
source recipes           0/2
EOF
	atf_check -o file:expjobs cat jobs
	atf_check -o inline:"PROCESS               PID STATE     SINCE\n" head -n 1 status
	today=$(date +%Y-%m-%d)
	parent=$(awk '$1 == "parent" { print $2 }' status)
	[ -n "$parent" ] || atf_fail "no parent line"
	atf_check -o match:"^ *$SC_USER +sandcastled$" ps -o user=,comm= -p "$parent"
	grep -Eq "^parent +$parent running +$today [0-9:]{8}\$" status ||
	    atf_fail "the parent's line is not PROCESS PID STATE SINCE"
	for t in core keep-frontend "box launcher"; do
		p=$(pgrep -u "$SC_USER" -f "^sandcastled: $t\$") ||
		    atf_fail "no process titled $t"
		atf_check -o match:"^ *$parent$" ps -o ppid= -p "$p"
		grep -Eq "^$t +$p running +$today [0-9:]{8}\$" status ||
		    atf_fail "$t is not listed with its pid $p"
	done
	# -j: the same processes and jobs, as JSON python3 reads.
	atf_check -o save:status.json -e empty ./ctl show status -j
	atf_check -o ignore python3 -m json.tool status.json
	python3 -c 'import json
for p in json.load(open("status.json"))["processes"]:
	print("%s|%d|%s|%s" % (p["process"], p["pid"], p["state"], p["since"]))' \
	    > status.lines || atf_fail "show status -j is not as documented"
	cat status.lines
	atf_check -o inline:'0/3 None [claude 0/3, ocr 0/1] [notes 0/3, recipes 0/2]\n' \
	    python3 -c 'import json
v = json.load(open("status.json"))
def rows(k, n):
	return "[" + ", ".join("%s %d/%d" % (r[n], r["running"], r["jobs"]) for r in v[k]) + "]"
print("%d/%d %s %s %s" % (v["running"], v["jobs"], v["as_of"],
    rows("capabilities", "capability"), rows("sources", "source")))'
	atf_check -o inline:"$(($(wc -l < status) - 1))\n" grep -c . status.lines
	grep -Eq "^parent\|$parent\|running\|[0-9-]{10}T[0-9:]{8}Z\$" status.lines ||
	    atf_fail "the parent is not running with its pid in -j"
	for t in core keep-frontend "box launcher"; do
		p=$(pgrep -u "$SC_USER" -f "^sandcastled: $t\$")
		grep -Eq "^$t\|$p\|running\|" status.lines ||
		    atf_fail "$t is not running with its pid $p in -j"
	done
	# Another account cannot even connect; the operator (above) can.
	atf_check -s exit:1 -o empty \
	    -e match:"^sandcastlectl: sandcastled does not answer at .*: Permission denied$" \
	    runuser -u "$SC_OTHER" -- env -i XDG_RUNTIME_DIR="$SC_RUN" \
	    "$(sc_bin sandcastlectl)" show status
	kill -TERM "$parent"
	i=0
	while kill -0 "$parent" 2>/dev/null; do
		i=$((i + 1)); [ $i -le 100 ] || atf_fail "sandcastled did not end"
		sleep 0.1
	done
	# Control: with it gone, nothing answers, and -j prints nothing.
	atf_check -s exit:1 -e match:"does not answer" ./ctl show status
	atf_check -s exit:1 -o empty -e match:"does not answer" ./ctl show status -j
}
status_cleanup()
{
	sc_cleanup
}

atf_test_case json_words cleanup
json_words_head()
{
	atf_set "descr" "-j is taken once, after the words of a show, and by no other command; the list of commands says which take it"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
json_words_body()
{
	sc_setup
	sc_mkctl
	atf_check -s exit:1 -o empty -e match:"^sandcastlectl: -j: unexpected word$" \
	    ./ctl check -j
	atf_check -s exit:1 -o empty -e match:"^sandcastlectl: -j: unexpected word$" \
	    ./ctl show status -j -j
	atf_check -s exit:1 -o empty -e match:"^sandcastlectl: -j: unknown or ambiguous command$" \
	    ./ctl show -j status
	atf_check -s exit:1 -o empty -e match:"^	show status \[-j\]$" \
	    -e match:"^	show job SOURCE ID \[-j\]$" -e match:"^	show jobs SOURCE \[-j\]$" \
	    -e match:"^	show sources \[-j\]$" -e match:"^	check$" \
	    -e not-match:"^	(check|version|secret list|uninstall) \[-j\]" ./ctl bogus
	# Control: -j after show status's words is taken, and asks sandcastled.
	atf_check -s exit:1 -o empty -e match:"does not answer" ./ctl show status -j
}
json_words_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case no_answer
	atf_add_test_case status
	atf_add_test_case json_words
}
