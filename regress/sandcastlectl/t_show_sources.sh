#! /usr/bin/env atf-sh
# S5: sandcastlectl show sources, against the real sandcastled, keepd and
# gated as the test account in the host namespace and fake sources
# (regress/lib/fakesource.py) on the test network: the back-off of a
# source that cannot be reached grows, another's jobs of the hour count
# against its max_jobs_per_hour, a released job's capability rests, and
# -j is JSON.  The answer comes from the parent's copy of the core's
# summary; before the first, and without a daemon, it says so.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/ctl.subr"

TOKEN_NOTES=tok-notes-sources-1234

# ss_config: config.yaml (claude for down, ocr for notes) and two sources.
ss_config()
{
	cat > "$SC_CONFIG/config.yaml" <<EOC
data_dir: $SC_ROOT/data
capabilities:
$(sc_claude_yaml claude-test-1)
  ocr:
    languages: [eng]
    cooldown: 1h
EOC
	sc_source_file notes https://notes.example.com/api/worker ocr 10 5s 1m
	sc_source_file down https://down.example.com/api/worker claude 30 5s 1m
	sc_source_file inside https://rebind.example.com/api/worker claude 30 5s 1m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# ss_up: the network, the CA, notes on 198.20.5.10 with three jobs (two
# that fail at once, without a box, and one released for want of an
# image), down.example.com on 198.20.5.13 where nothing listens, gated.
ss_up()
{
	sc_setup
	sc_mkctl
	sc_net_up
	sc_net_dns down.example.com 198.20.5.13
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    down.example.com api.anthropic.com >/dev/null || atf_fail "ca.sh"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/ca"
	ss_config
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    '[{"id": "r1", "capability": "ocr"}, {"id": "r2", "capability": "ocr"}, {"id": "r3", "capability": "ocr", "input": {"image": "AAAA"}}]'
	sc_secret notes "$TOKEN_NOTES"
	sc_secret down tok-down
	sc_secret inside tok-inside
	sc_secret claude key-claude-sources
	sc_gate_up
}

# ss_field SOURCE FIELD: one field of SOURCE in show sources -j.
ss_field()
{
	./ctl show sources -j > sources.json 2> sources.err || return 1
	python3 -c 'import json,sys
v = {s["source"]: s for s in json.load(open("sources.json"))}
x = v[sys.argv[1]][sys.argv[2]]
print(x if isinstance(x, str) else json.dumps(x))' "$1" "$2"
}

# ss_is SOURCE FIELD VALUE: the field of -j is VALUE.
ss_is()
{
	_got=$(ss_field "$1" "$2")
	[ "$_got" = "$3" ] || { cat sources.json; atf_fail "$1 $2 is $_got, not $3"; }
}

# ss_wait SOURCE FIELD VALUE SECONDS: until the field of -j is VALUE.
ss_wait()
{
	_i=0
	while [ "$(ss_field "$1" "$2")" != "$3" ]; do
		_i=$((_i + 1))
		[ $_i -gt $(($4 * 5)) ] && { cat sources.json sources.err
		    sc_log sandcastled; atf_fail "$1 $2 never was $3"; }
		sleep 0.2
	done
}

atf_test_case no_daemon cleanup
no_daemon_head()
{
	atf_set "descr" "without sandcastled, show sources fails as show status does, exit 1"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
no_daemon_body()
{
	sc_setup
	sc_mkctl
	sock=$SC_RUN/sandcastle/control.sock
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: sandcastled does not answer at $sock: No such file or directory\n" \
	    ./ctl show sources
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: sandcastled does not answer at $sock: No such file or directory\n" \
	    ./ctl show sources -j
	# Control: show status says the same.
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: sandcastled does not answer at $sock: No such file or directory\n" \
	    ./ctl show status
	atf_check -s exit:1 -o empty -e match:"unexpected word" ./ctl show sources -j x
}
no_daemon_cleanup()
{
	sc_cleanup
}

atf_test_case sources cleanup
sources_head()
{
	atf_set "descr" "S5: before the keep answers, show sources says sandcastled has not scheduled yet; then a source that cannot be reached shows its back-off growing (5s, 10s, 20s) and its error, while one the gate refuses is asked again at its poll_interval with no back-off; the other shows its jobs of the hour (3/10) and ocr resting after a release; -j is JSON with the same"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "180"
}
sources_body()
{
	ss_up
	sc_start_in_host sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log sandcastled "the keep does not answer" 20 ||
	    { sc_log sandcastled; atf_fail "sandcastled did not wait for the keep"; }
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: sandcastled: sandcastled has not scheduled yet\n" \
	    ./ctl show sources
	# Control: once the keep answers, the core schedules and pushes.
	sc_start_in_host keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log sandcastled "the keep answers" 20 ||
	    { sc_log sandcastled; atf_fail "the keep never answered"; }
	# down cannot be reached: each failure in a row doubles the wait.
	ss_wait down backoff_seconds 5 20
	ss_wait down failures 1 5
	ss_wait down backoff_seconds 10 20
	ss_wait down backoff_seconds 20 30
	ss_wait down failures 3 5
	has_error=$(ss_field down last_error)
	case "$has_error" in
	"the claim failed: "*) ;;
	*) atf_fail "down's last error: $has_error" ;;
	esac
	# inside, which the gate refuses by its rules, was asked as often
	# (a refusal each 5 s, as long as down's three failures took) and
	# never backs off: sandcastle(7), a source the gate refused.
	[ "$(grep -c '^gated: refused inside: ' "$SC_ROOT/log/gated.log")" -ge 4 ] ||
	    { sc_log gated; atf_fail "inside was not asked at its poll_interval"; }
	ss_is inside backoff_seconds 0
	ss_is inside failures 0
	case "$(ss_field inside last_error)" in
	*"the gate refused it: the name resolves to the internal network"*) ;;
	*) cat sources.json; atf_fail "inside's last error" ;;
	esac
	# notes: its three jobs count in its hour, and the release rests ocr.
	sc_wait_line "$SC_ROOT/notes.results" '"id": "r3"' 30 ||
	    { sc_log sandcastled; atf_fail "no result of r3"; }
	atf_check -o match:'"status": "released"' grep '"id": "r3"' "$SC_ROOT/notes.results"
	ss_wait notes jobs_last_hour 3 10
	ss_is notes max_jobs_per_hour 10
	ss_is notes last_error null
	ss_is notes backoff_seconds 0
	ss_field notes resting | grep -Eqx '\[\{"capability": "ocr", "until": "[0-9-]{10}T[0-9:]{8}Z"\}\]' ||
	    { cat sources.json; atf_fail "ocr is not resting for notes"; }
	# The table: the same, one line per source in the configuration's order.
	atf_check -o save:table -e empty ./ctl show sources
	cat table
	atf_check -o inline:"SOURCE           NEXT POLL BACK-OFF  RUNNING   JOBS/HOUR RESTING                LAST ERROR\n" \
	    head -n 1 table
	atf_check -o inline:"4\n" wc -l < table
	# A source due while another's call runs says now.
	grep -Eq '^down +([0-9:]{8}|now) +(20s|40s|1m20s) +0/1 +0/30 +- +the claim failed: ' table ||
	    atf_fail "down's line is not as asked"
	grep -Eq '^notes +[0-9:]{8} +none +0/1 +3/10 +ocr until [0-9:]{8} +-$' table ||
	    atf_fail "notes' line is not as asked"
	grep -Eq '^inside +([0-9:]{8}|now) +none +0/1 +0/30 +- +the claim failed: ' table ||
	    atf_fail "inside's line is not as asked"
	sed -n 2p table | grep -q '^down ' || atf_fail "not sorted by name, as the configuration"
	# -j: one JSON array, as python3 reads it.
	atf_check -o save:sources.json ./ctl show sources -j
	atf_check -o ignore python3 -m json.tool sources.json
	atf_check -o inline:"3\n" python3 -c 'import json; print(len(json.load(open("sources.json"))))'
	kill -0 "$(sc_pid sandcastled)" || { sc_log sandcastled; atf_fail "sandcastled ended"; }
}
sources_cleanup()
{
	sc_load || return 0
	sc_net_down
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case no_daemon
	atf_add_test_case sources
}
