#! /usr/bin/env atf-sh
# The load run: many jobs from several strict sources, each daemon
# started again a second after it ends (as systemd's Restart= would), each
# fault of FAULTS in the middle of a job, at jobs: 1 and at jobs: 4 (up to
# four jobs in flight at each fault); ledger.py holds every record to
# its source.  make test runs a short one, make bench
# (regress/bench/bench_load.sh) the long one, through the config
# variables load_jobs, load_sources and load_rounds.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

FAULTS="parent core keep-frontend launcher keepd gated term disk down podman claim"
# Seconds a claude box waits for the fake API: the middle of a job.
API_DELAY=1

# jobs SOURCE N IMAGE: N jobs, half claude (a box and a request through
# the keep and the gate), a quarter ocr (a box), a quarter without input
# (failed at once, no box).
jobs()
{
	python3 - "$1" "$2" "$3" "$CLAUDE_INPUT" <<'EOF'
import json, sys
src, n, img, claude = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
out = []
for i in range(n):
    jid = "%s-%d" % (src, i)
    if i % 4 in (0, 2):
        out.append({"id": jid, "capability": "claude", "input": claude})
    elif i % 4 == 1:
        out.append({"id": jid, "capability": "ocr", "input": {"image": img}})
    else:
        out.append({"id": jid, "capability": "ocr"})
print(json.dumps(out))
EOF
}

# load_up K: the network with K sources s1..sK, the configuration with
# data_dir on a tmpfs, podman behind a wrapper that can go missing.
load_up()
{
	names="api.anthropic.com"
	for k in $(seq 1 "$1"); do names="$names s$k.example.com"; done
	# shellcheck disable=SC2086
	daemon_net_up $names
	source_hosts "$1"
	data_tmpfs 64m
	mkdir -m 0755 "$SC_ROOT/bin"
	cat > "$SC_ROOT/bin/podman" <<EOF
#!/bin/sh
if [ -e "$SC_ROOT/nopodman" ]; then
	echo "podman: not installed" >&2
	exit 127
fi
exec /usr/bin/podman "\$@"
EOF
	chmod 0755 "$SC_ROOT/bin/podman"
	SC_ENV="PATH=$SC_ROOT/bin:/usr/bin:/bin:/usr/sbin:/sbin"
	sc_caps_config
	for k in $(seq 1 "$1"); do
		sc_source_file "s$k" "https://s$k.example.com/api/worker" \
		    "ocr, claude" 3600 5s 1m
	done
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# supervise NAME ARGS...: NAME started again a second after each end,
# until $SC_ROOT/halt exists; every end is a line in log/ends.
supervise()
{
	_n=$1; shift
	while [ ! -e "$SC_ROOT/halt" ]; do
		sc_start_in_host "$_n" "$@"
		wait "$(sc_pid "$_n")"
		_st=$?
		echo "$(date +%s) $_n $_st" >> "$SC_ROOT/log/ends"
		cat "$SC_ROOT/log/$_n.log" >> "$SC_ROOT/log/$_n.all"
		sleep 1
	done
}

# up NAME PATTERN: waits until NAME's log has PATTERN.
up()
{
	sc_wait_log "$1" "$2" 30 || { sc_log "$1"; atf_fail "$1 did not start"; }
}

# mid_job: until a claude box waits for the fake API (at most 60 s).
mid_job()
{
	_n=$(wc -l < "$SC_ROOT/api.anthropic.com.requests")
	_i=0
	while [ "$(wc -l < "$SC_ROOT/api.anthropic.com.requests")" -le "$_n" ]; do
		_i=$((_i + 1))
		[ $_i -gt 600 ] && return 1
		sleep 0.1
	done
	return 0
}

# child TITLE: sandcastled's child of that title.
child()
{
	pgrep -P "$(sc_pid sandcastled)" -f "^sandcastled: $1\$"
}

# inject FAULT: one fault, in the middle of a job.
inject()
{
	case $1 in
	claim)
		echo holdclaim > "$SC_ROOT/s1.mode"
		touch "$SC_ROOT/s1.mode.hold"
		_c=$(grep -c '/jobs/claim' "$SC_ROOT/s1.requests")
		_i=0
		while [ "$(grep -c '/jobs/claim' "$SC_ROOT/s1.requests")" -le "$_c" ] &&
		    [ $_i -lt 600 ]; do
			sleep 0.1; _i=$((_i + 1))
		done
		kill -TERM "$(sc_pid sandcastled)"
		sleep 1
		echo normal > "$SC_ROOT/s1.mode"
		rm -f "$SC_ROOT/s1.mode.hold"
		return
		;;
	esac
	mid_job || echo "no claude box ran before $1" >> "$SC_ROOT/log/faults"
	case $1 in
	parent)		kill -KILL "$(sc_pid sandcastled)" ;;
	core|keep-frontend)
			kill -KILL "$(child "$1")" ;;
	launcher)	kill -KILL "$(child "box launcher")" ;;
	keepd|gated)	kill -KILL "$(sc_pid "$1")" ;;
	term)		kill -TERM "$(sc_pid sandcastled)" ;;
	disk)		fill; sleep 8; unfill ;;
	down)		echo down > "$SC_ROOT/s2.mode"; sleep 10
			echo normal > "$SC_ROOT/s2.mode" ;;
	podman)		touch "$SC_ROOT/nopodman"
			kill -TERM "$(sc_pid sandcastled)"; sleep 12
			rm -f "$SC_ROOT/nopodman"
			kill -TERM "$(sc_pid sandcastled)" ;;
	esac
}

# wait_progress N: until N more jobs have their final answer (at most
# 120 s).  finals is a python3: asked five times a second, not twenty.
wait_progress()
{
	_want=$(( $(finals) + $1 ))
	[ "$_want" -gt "$TOTAL" ] && _want=$TOTAL
	_i=0
	while [ "$(finals)" -lt "$_want" ] && [ $_i -lt 600 ]; do
		sleep 0.2; _i=$((_i + 1))
	done
}

# load_run JOBS: the load run at config.yaml's jobs: JOBS.
load_run()
{
	AT=$1
	N=$(atf_config_get load_jobs 16)
	K=$(atf_config_get load_sources 3)
	ROUNDS=$(atf_config_get load_rounds 1)
	TOTAL=$((N * K))
	load_up "$K"
	echo "jobs: $AT" >> "$SC_CONFIG/config.yaml"
	# render's atf_fail ends only the $(...): its status is checked here.
	img=$(render "HELLO WORLD") && [ -n "$img" ] || atf_fail "no image to OCR"
	for k in $(seq 1 "$K"); do
		sc_fakesource "s$k" "s$k.example.com" "198.20.5.$((30 + k))" \
		    "tok-load-$k" "$(jobs "s$k" "$N" "$img")" strict
		sc_secret "s$k" "tok-load-$k"
	done
	api_up "$API_DELAY"
	sc_secret claude key-claude-load
	images
	start=$(date +%s)
	supervise gated -dv -c "$SC_CONFIG" &
	echo $! > "$SC_ROOT/log/sup-gated.pid"
	up gated "serving "
	supervise keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS" &
	echo $! > "$SC_ROOT/log/sup-keepd.pid"
	up keepd "ready: "
	supervise sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS" &
	echo $! > "$SC_ROOT/log/sup-sandcastled.pid"
	up sandcastled "the keep answers"
	injected=0
	for r in $(seq 1 "$ROUNDS"); do
		for f in $FAULTS; do
			[ "$(finals)" -ge "$TOTAL" ] && break 2
			wait_progress 1
			inject "$f"
			echo "$(date +%s) $f" >> "$SC_ROOT/log/faults"
			injected=$((injected + 1))
		done
	done
	# The rest drains with no fault.
	i=0
	while [ "$(finals)" -lt "$TOTAL" ]; do
		i=$((i + 1))
		[ $i -gt $((600 + TOTAL * 10)) ] && break
		sleep 1
	done
	end=$(date +%s)
	touch "$SC_ROOT/halt"
	most=$(journal_most "$SC_ROOT/log/sandcastled.all" \
	    "$SC_ROOT/log/sandcastled.log")
	set --
	for k in $(seq 1 "$K"); do
		set -- "$@" "s$k:$SC_ROOT/s$k.results:$SC_ROOT/s$k.jobs"
	done
	python3 "$(sc_srcdir)/regress/lib/ledger.py" "$SC_ROOT/data" "$@" > ledger.out
	ok=$?
	cat ledger.out
	ends=$(wc -l < "$SC_ROOT/log/ends" 2>/dev/null || echo 0)
	idle=$(grep -c '^no claude box' "$SC_ROOT/log/faults")
	echo "load: $TOTAL jobs from $K sources at jobs: $AT in $((end - start)) s" \
	    "($(( TOTAL * 60 / (end - start + 1) )) a minute), $injected faults injected" \
	    "($(awk '$1 ~ /^[0-9]+$/ {print $2}' "$SC_ROOT/log/faults" | sort | uniq -c | awk '{printf "%s%s x%s", s, $2, $1; s=", "}'))," \
	    "$((injected - idle)) of them mid-job (a claude box at the API) or mid-claim," \
	    "$ends daemon ends, $most jobs at once at most" | tee load.out
	[ "$(finals)" -ge "$TOTAL" ] ||
	    { cat "$SC_ROOT/log/sandcastled.all" | tail -n 50; atf_fail "only $(finals) of $TOTAL jobs were answered"; }
	[ $ok -eq 0 ] || { tail -n 80 "$SC_ROOT/log/sandcastled.all"; atf_fail "the records do not agree with the sources"; }
	[ "$injected" -ge 11 ] || atf_fail "only $injected faults were injected"
	[ "$most" -le "$AT" ] || atf_fail "$most jobs at once at jobs: $AT"
	[ "$AT" -eq 1 ] || [ "$most" -ge 2 ] ||
	    atf_fail "never two jobs at once at jobs: $AT"
}

atf_test_case load cleanup
load_head()
{
	atf_set "descr" "F1 F2 F3: jobs from several strict sources under load, with kill -9 of sandcastled's parent, of each child, of keepd and of gated, SIGTERM, a full data_dir, a source going away, podman missing and a stop mid-claim, each in the middle of a job: every job is answered once and every record agrees with its source"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "1200"
}
load_body()
{
	load_run 1
}
load_cleanup()
{
	sc_load || return 0
	touch "$SC_ROOT/halt"
	daemon_cleanup
}

atf_test_case load_jobs cleanup
load_jobs_head()
{
	atf_set "descr" "F1 F2 F3: the load run at jobs: 4, each fault injected with up to four jobs in flight: every job is answered once and every record agrees with its source; the core's journal has more than one job at once and never more than four"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "1200"
}
load_jobs_body()
{
	load_run 4
}
load_jobs_cleanup()
{
	load_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case load
	atf_add_test_case load_jobs
}
