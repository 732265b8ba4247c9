#! /usr/bin/env atf-sh
# The life of a job, end to end: sandcastled, keepd and gated as the test
# account in the host namespace, fake sources (regress/lib/fakesource.py)
# on the test network, and real podman boxes.  Each refusal has its
# control.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

TOKEN_NOTES=tok-notes-life-1234
TOKEN_OTHER=tok-other-life-5678
OCR_TEXT="HELLO WORLD"
# A GIF: a format the box does not read.
GIF_B64=R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7

# life_config: sc_caps_config, the account's.
life_config()
{
	sc_caps_config
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# source_config NAME HOST MAX_JOBS CAPS: sources/NAME.yaml, asked every 5 s.
source_config()
{
	sc_source_file "$1" "https://$2/api/worker" "${4:-ocr}" "$3" 5s 1m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# life_up NAME...: the network, the CA for the names, the configuration.
life_up()
{
	daemon_net_up "$@"
	life_config
}

daemon_alive()
{
	kill -0 "$(sc_pid sandcastled)" 2>/dev/null ||
	    { sc_log sandcastled; atf_fail "sandcastled ended: $1"; }
}

# wait_result NAME ID [SECONDS]: waits for the source to get ID's result.
wait_result()
{
	sc_wait_line "$SC_ROOT/$1.results" "\"id\": \"$2\"" "${3:-30}" ||
	    { sc_log sandcastled; cat "$SC_ROOT/$1.requests"
	    atf_fail "no result of $1 job $2"; }
}

# result NAME ID: the body of the result ID's source got, as JSON.
result()
{
	grep "\"id\": \"$2\"" "$SC_ROOT/$1.results" | python3 -c \
	    'import json,sys; print(json.dumps(json.loads(sys.stdin.readline())["body"], sort_keys=True))'
}

# is EXPECTED CMD...: CMD (a function here) prints EXPECTED, one line.
is()
{
	_want=$1; shift
	_got=$("$@" 2>&1)
	[ "$_got" = "$_want" ] || { sc_log sandcastled; atf_fail "$*: got '$_got', not '$_want'"; }
}

# has PATTERN... -- CMD...: CMD's output matches every PATTERN (grep -E).
has()
{
	_pats=
	while [ "$1" != -- ]; do _pats="$_pats
$1"; shift; done
	shift
	_got=$("$@" 2>&1)
	echo "$_pats" | while IFS= read -r _p; do
		[ -z "$_p" ] && continue
		printf '%s\n' "$_got" | grep -qE -- "$_p" || { echo "$*: no $_p in: $_got"; exit 1; }
	done || { sc_log sandcastled; atf_fail "$* does not match"; }
}

mode_of()
{
	stat -c %a "$1"
}

atf_test_case ocr_life cleanup
ocr_life_head()
{
	atf_set "descr" "A1: an ocr job claimed from a source runs in a real box and its text reaches the source; the record holds the image's size and SHA-256, mode 0700/0600, one log line; a GIF fails and a job whose image is gone is released, each reaching the source with its status, and ocr then rests (no claim) for its cooldown; a 409 is kept in the record and never sent again"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
ocr_life_body()
{
	life_up notes.example.com
	img=$(render "$OCR_TEXT")
	source_config notes notes.example.com 30
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    "[{\"id\": 1, \"capability\": \"ocr\", \"input\": {\"image\": \"$img\"}},
	      {\"id\": \"gif-2\", \"capability\": \"ocr\", \"input\": {\"image\": \"$GIF_B64\"}},
	      {\"id\": \"gone-3\", \"capability\": \"ocr\", \"input\": {\"image\": \"$img\"}}]"
	sc_secret notes "$TOKEN_NOTES"
	# gone-3's result waits at the source until it is told to answer
	# 409: the checks of job 1 below take seconds, and gone-3 may well
	# be done by then.
	echo holdresult > "$SC_ROOT/notes.mode"
	echo gone-3 > "$SC_ROOT/notes.mode.hold"
	keep_up
	images
	daemon_up
	wait_result notes 1 60
	has '"status": "succeeded"' "$OCR_TEXT" -- result notes 1
	atf_check -o match:"Bearer $TOKEN_NOTES" grep '"id": "1"' "$SC_ROOT/notes.results"
	rec=$SC_ROOT/data/notes/1
	for f in input.json output.json meta.json; do
		[ -f "$rec/$f" ] || atf_fail "no $f in the record"
		[ "$(mode_of "$rec/$f")" = 600 ] || atf_fail "$f is not 0600"
	done
	for d in "$SC_ROOT/data" "$SC_ROOT/data/notes" "$rec"; do
		[ "$(mode_of "$d")" = 700 ] || atf_fail "$d is not 0700"
	done
	sha=$(sha256sum < image.png | cut -d' ' -f1)
	atf_check -o match:"\"sha256\": *\"$sha\"" -o match:"\"bytes\": *$(wc -c < image.png)" cat "$rec/input.json"
	atf_check -s exit:1 grep -qF "$(echo "$img" | cut -c 40-80)" "$rec/input.json"
	is "succeeded" meta notes 1 status
	is "sent" meta notes 1 result
	atf_check -o match:"$OCR_TEXT" cat "$rec/output.json"
	[ "$(grep -c 'msg=job source=notes job=1 capability=ocr status=succeeded seconds=[0-9]* error="" input_tokens=0 output_tokens=0$' "$SC_ROOT/log/sandcastled.log")" -eq 1 ] ||
	    { sc_log sandcastled; atf_fail "not one log line for job 1"; }
	# The GIF fails in its box.
	wait_result notes gif-2 30
	# gone-3's result, held, is answered 409.
	echo 409 > "$SC_ROOT/notes.mode"
	rm "$SC_ROOT/notes.mode.hold"
	has '"status": "failed"' '"error"' -- result notes gif-2
	is "failed" meta notes gif-2 status
	# 409: kept in the record, never sent again (not later, not at a restart).
	i=0
	while [ "$(meta notes gone-3 result 2>/dev/null)" != gone ]; do
		i=$((i + 1)); [ $i -gt 300 ] && { sc_log sandcastled; atf_fail "no 409 kept"; }
		sleep 0.1
	done
	is "the source no longer held the job" meta notes gone-3 note
	is "succeeded" meta notes gone-3 status
	claims=$(posts notes /jobs/claim)
	sleep 6
	[ "$(posts notes /jobs/gone-3/result)" -eq 1 ] || atf_fail "a 409'd result was sent again"
	# Control for the rest below: ocr not resting, notes is asked again.
	[ "$(posts notes /jobs/claim)" -gt "$claims" ] || atf_fail "notes was not asked again"
	# The image gone: the job is released and reaches the source so.
	sc_stop sandcastled
	echo normal > "$SC_ROOT/notes.mode"
	printf '[{"id": "rel-4", "capability": "ocr", "input": {"image": "%s"}}]\n' "$img" > "$SC_ROOT/notes.more"
	sc_as_user podman rmi -f "$(sc_as_user podman images --format '{{.Repository}}:{{.Tag}}' | grep sandcastle-ocr)" >/dev/null 2>&1 ||
	    atf_fail "cannot remove the ocr image"
	# A source that hands a new job out: a second fakesource, same name.
	kill "$(cat "$SC_ROOT/log/fs-notes.pid")"; sleep 0.3
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" "$(cat "$SC_ROOT/notes.more")"
	# A cooldown longer than the rest of the test, for the rest below.
	sed -i 's/^    cooldown: 1s$/    cooldown: 1h/' "$SC_CONFIG/config.yaml"
	daemon_up
	wait_result notes rel-4 30
	is '{"status": "released"}' result notes rel-4
	is "released" meta notes rel-4 status
	[ "$(posts notes /jobs/gone-3/result)" -eq 1 ] || atf_fail "the 409'd result was sent again at a restart"
	# A release rests the capability for its cooldown (1h now): notes,
	# whose only capability is ocr, is not asked for jobs past its
	# poll_interval; the control is the claims of ocr_life above, made
	# with a cooldown of 1s.
	claims=$(posts notes /jobs/claim)
	sleep 7
	[ "$(posts notes /jobs/claim)" -eq "$claims" ] ||
	    { tail -n 4 "$SC_ROOT/notes.requests"; sc_log sandcastled; atf_fail "ocr was claimed while it rests"; }
	daemon_alive "after the jobs"
}
ocr_life_cleanup()
{
	sc_net_cleanup
}

# meta_usage NAME ID KEY: one field of the record's usage.
meta_usage()
{
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["usage"][sys.argv[2]])' \
	    "$SC_ROOT/data/$1/$2/meta.json" "$3"
}

atf_test_case crash cleanup
crash_head()
{
	atf_set "descr" "R1: a claude job through the box, the parent and the keep succeeds with its usage logged and recorded; then the core killed during a slow job: at the restart the job, noted running, is sent back released and its record says so"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
crash_body()
{
	life_up notes.example.com api.anthropic.com
	source_config notes notes.example.com 30 claude
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    "[{\"id\": \"fast-0\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT},
	      {\"id\": \"slow-1\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]"
	api_up 0
	sc_secret notes "$TOKEN_NOTES"
	sc_secret claude key-claude-life
	keep_up
	images
	daemon_up
	# Control: a claude job through the box, the parent and the keep.
	wait_result notes fast-0 30
	sc_scenario api.anthropic.com "$(api_reply 25)"
	: > "$SC_ROOT/api.anthropic.com.requests"
	is '{"output": {"tag": "x"}, "status": "succeeded"}' result notes fast-0
	grep -q 'msg=job source=notes job=fast-0 capability=claude status=succeeded seconds=[0-9]* error="" input_tokens=3 output_tokens=2$' "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no log line with the usage of fast-0"; }
	is "claude-test-1" meta_usage notes fast-0 model
	is 3 meta_usage notes fast-0 input_tokens
	sc_wait_line "$SC_ROOT/api.anthropic.com.requests" '/v1/messages' 30 ||
	    { sc_log sandcastled; atf_fail "the slow job never reached the API"; }
	is "running" meta notes slow-1 status
	# This test's core: a child of this test's sandcastled, no other's.
	core=$(pgrep -P "$(sc_pid sandcastled)" -f '^sandcastled: core$') ||
	    atf_fail "no core"
	kill -KILL "$core"
	i=0
	while kill -0 "$(sc_pid sandcastled)" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 150 ] && { sc_log sandcastled; atf_fail "sandcastled outlived its core"; }
		sleep 0.1
	done
	sc_wait_log sandcastled "a child ended" 1 ||
	    { sc_log sandcastled; atf_fail "the core's end was not logged"; }
	atf_check -s exit:1 grep -q '"id": "slow-1"' "$SC_ROOT/notes.results"
	daemon_up
	wait_result notes slow-1 45
	is '{"status": "released"}' result notes slow-1
	is "released" meta notes slow-1 status
	is "sent" meta notes slow-1 result
	has 'sandcastled stopped while the job ran' -- meta notes slow-1 error
}
crash_cleanup()
{
	sc_net_cleanup
}

# api_says STATUS STOP TEXT: the fake Messages API's answer: an error of
# STATUS whose message is TEXT, or (200) a reply of TEXT that stopped for
# STOP.
api_says()
{
	python3 -c 'import json, sys
st, stop, text = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if st != 200:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
else:
    body = {"type": "message", "model": "claude-test-1", "content": [{"type": "text", "text": text}],
            "stop_reason": stop, "usage": {"input_tokens": 3, "output_tokens": 2}}
print(json.dumps({"routes": {"/v1/messages": {"status": st, "json": body}}}))' "$@"
}

# one_job ID [IMAGE]: the notes source hands out job ID alone: claude's,
# or ocr's of IMAGE.
one_job()
{
	[ -f "$SC_ROOT/log/fs-notes.pid" ] && kill "$(cat "$SC_ROOT/log/fs-notes.pid")" && sleep 0.3
	if [ $# -eq 1 ]; then
		_job="\"capability\": \"claude\", \"input\": $CLAUDE_INPUT"
	else
		_job="\"capability\": \"ocr\", \"input\": {\"image\": \"$2\"}"
	fi
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    "[{\"id\": \"$1\", $_job}]"
}

atf_test_case words cleanup
words_head()
{
	atf_set "descr" "B9: A box's failure whose error carries a forged log line reaches the log as sandcastle's own word alone (error=api) and the record with the box's text; a reply the model declined and one cut at max_tokens are kept in output.json, the log saying error=declined and error=max_tokens"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
words_body()
{
	life_up notes.example.com api.anthropic.com
	source_config notes notes.example.com 30 claude
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls
	forged='FORGED-7 input_tokens=0 output_tokens=0
msg=job source=notes job=forged-1 capability=claude status=succeeded seconds=0 error="" input_tokens=0 output_tokens=0'
	sc_scenario api.anthropic.com "$(api_says 400 x "$forged")"
	one_job forged-1
	sc_secret notes "$TOKEN_NOTES"
	sc_secret claude key-claude-life
	keep_up
	images
	daemon_up
	log=$SC_ROOT/log/sandcastled.log
	wait_result notes forged-1 30
	[ "$(grep -c 'job source=notes job=forged-1' "$log")" -eq 1 ] ||
	    { sc_log sandcastled; atf_fail "not one log line for forged-1"; }
	grep -q '^.*msg=job source=notes job=forged-1 capability=claude status=failed seconds=[0-9]* error=api input_tokens=0 output_tokens=0$' "$log" ||
	    { sc_log sandcastled; atf_fail "the log line of forged-1 has not the word api alone"; }
	atf_check -s exit:1 grep -q 'FORGED-7' "$log"
	is "failed" meta notes forged-1 status
	has 'the API refused the request \(400 invalid_request_error\): FORGED-7 input_tokens=0 output_tokens=0 msg=job source=notes job=forged-1 capability=claude status=succeeded' -- meta notes forged-1 error
	# Declined, then cut short: each reply kept in output.json.
	sc_scenario api.anthropic.com "$(api_says 200 refusal 'I will not tag this.')"
	one_job declined-2
	wait_result notes declined-2 30
	grep -q 'job=declined-2 capability=claude status=failed seconds=[0-9]* error=declined ' "$log" ||
	    { sc_log sandcastled; atf_fail "declined-2 is not logged as declined"; }
	atf_check -o inline:'"I will not tag this."' cat "$SC_ROOT/data/notes/declined-2/output.json"
	sc_scenario api.anthropic.com "$(api_says 200 max_tokens '{"tag": "x')"
	one_job cut-3
	wait_result notes cut-3 30
	grep -q 'job=cut-3 capability=claude status=failed seconds=[0-9]* error=max_tokens ' "$log" ||
	    { sc_log sandcastled; atf_fail "cut-3 is not logged as max_tokens"; }
	atf_check -o inline:'"{\"tag\": \"x"' cat "$SC_ROOT/data/notes/cut-3/output.json"
	daemon_alive "after the words"
}
words_cleanup()
{
	sc_net_cleanup
}

atf_test_case leftover cleanup
leftover_head()
{
	atf_set "descr" "B3: a box of role core a crash left, which podman will not remove (a podman first on PATH refuses rm), stops every box: each job is released with the word leftover and no box starts beside it; the control, a podman that removes it, removes it at start and the next job runs"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
leftover_body()
{
	life_up notes.example.com
	img=$(render "$OCR_TEXT")
	source_config notes notes.example.com 30
	sc_secret notes "$TOKEN_NOTES"
	keep_up
	images
	build=$(sc_as_user "$(sc_bin sandcastlectl)" version | awk '$1 == "build" { print $2 }')
	left=sandcastle-box-00000000000000aa
	sc_as_user podman create -q --label sandcastle.box=sandcastle \
	    --label sandcastle.role=core --name $left "sandcastle-ocr:$build" \
	    /sandcastle-box ocr > /dev/null || atf_fail "podman create"
	mkdir -p "$SC_ROOT/fakebin"
	cat > "$SC_ROOT/fakebin/podman" <<'EOP'
#!/bin/sh
# podman, but a box will not go.
[ "$1" = rm ] && { echo "Error: the test's podman removes nothing" >&2; exit 125; }
exec /usr/bin/podman "$@"
EOP
	chmod 0755 "$SC_ROOT/fakebin/podman"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/fakebin"
	log=$SC_ROOT/log/sandcastled.log
	one_job left-1 "$img"
	SC_ENV="PATH=$SC_ROOT/fakebin:/usr/bin:/bin:/usr/sbin:/sbin"
	daemon_up
	SC_ENV=
	sc_wait_log sandcastled "$left, left by a crash, will not go" 10 ||
	    { sc_log sandcastled; atf_fail "the leftover was not named"; }
	wait_result notes left-1 30
	is '{"status": "released"}' result notes left-1
	grep -q 'job=left-1 capability=ocr status=released seconds=[0-9]* error=leftover ' "$log" ||
	    { sc_log sandcastled; atf_fail "left-1 is not released as leftover"; }
	has 'left by a crash, will not go' -- meta notes left-1 error
	# Every job, each time asking podman again.
	one_job left-2 "$img"
	wait_result notes left-2 30
	grep -q 'job=left-2 capability=ocr status=released seconds=[0-9]* error=leftover ' "$log" ||
	    { sc_log sandcastled; atf_fail "left-2 is not released as leftover"; }
	# No box started beside it: it is the only box of ours.
	[ "$(sc_as_user podman ps -a -q --filter label=sandcastle.box=sandcastle | wc -l)" -eq 1 ] ||
	    { sc_as_user podman ps -a; atf_fail "a box started beside the leftover"; }
	# The control: podman removes it; at start it goes, and a job runs.
	sc_stop sandcastled
	daemon_up
	sc_wait_log sandcastled "removed 1 box a crash left" 10 ||
	    { sc_log sandcastled; atf_fail "the leftover was not removed"; }
	one_job left-3 "$img"
	wait_result notes left-3 60
	has '"status": "succeeded"' "$OCR_TEXT" -- result notes left-3
	daemon_alive "after the leftover"
}
leftover_cleanup()
{
	sc_load && sc_as_user podman rm -f sandcastle-box-00000000000000aa >/dev/null 2>&1
	sc_net_cleanup
}

atf_test_case rate cleanup
rate_head()
{
	atf_set "descr" "S5: max_jobs_per_hour 2 with 3 jobs waiting: the third is not claimed, neither after a restart (the records count); control: raised to 3, it is"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
rate_body()
{
	life_up notes.example.com
	source_config notes notes.example.com 2
	# Jobs with no input fail at once, without a box: fast.
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    '[{"id": "r1", "capability": "ocr"}, {"id": "r2", "capability": "ocr"}, {"id": "r3", "capability": "ocr"}]'
	sc_secret notes "$TOKEN_NOTES"
	keep_up
	daemon_up
	wait_result notes r2 20
	has '"error": "the job has no input"' -- result notes r1
	sleep 11
	[ "$(posts notes /jobs/claim)" -eq 2 ] || { cat "$SC_ROOT/notes.requests"; atf_fail "claimed past max_jobs_per_hour"; }
	atf_check -s exit:1 grep -q '"id": "r3"' "$SC_ROOT/notes.results"
	# A restart does not give the hour back: the records count.
	sc_stop sandcastled
	daemon_up
	sc_wait_log sandcastled "source notes: 2 job(s) started in the last hour, counted from the records" ||
	    { sc_log sandcastled; atf_fail "the records were not counted"; }
	sleep 11
	[ "$(posts notes /jobs/claim)" -eq 2 ] || { cat "$SC_ROOT/notes.requests"; atf_fail "claimed past max_jobs_per_hour after a restart"; }
	# Control: with room for one more, r3 is claimed and runs.
	sc_stop sandcastled
	source_config notes notes.example.com 3
	daemon_up
	wait_result notes r3 20
}
rate_cleanup()
{
	sc_net_cleanup
}

HOSTILE="extra url badid dupkey deep huge badutf8 trailing toomany dupjobs 401 hang"

atf_test_case hostile cleanup
hostile_head()
{
	atf_set "descr" "S6 S7: every hostile claim answer of fakesource.py handled as the contract says, one source each, sandcastled alive after all; two sources with the same job id keep their records apart and each gets its own result only"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "180"
}
hostile_body()
{
	names="notes.example.com other.example.com"
	for m in $HOSTILE; do names="$names h-$m.example.com"; done
	# shellcheck disable=SC2086
	life_up $names
	n=20
	for m in $HOSTILE; do
		n=$((n + 1))
		ip -n "$SC_NS_WORLD" addr add "198.20.5.$n/32" dev "wh$SC_NETID"
		sc_net_dns "h-$m.example.com" "198.20.5.$n"
	done
	sleep 0.3
	source_config notes notes.example.com 30
	source_config other other.example.com 30
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    '[{"id": "7", "capability": "ocr"}]'
	sc_fakesource other other.example.com 198.20.5.12 "$TOKEN_OTHER" \
	    '[{"id": 7, "capability": "claude", "force": true}]'
	sc_secret notes "$TOKEN_NOTES"
	sc_secret other "$TOKEN_OTHER"
	n=20
	for m in $HOSTILE; do
		n=$((n + 1))
		src=h$(echo "$m" | tr -d -c 'a-z0-9')
		source_config "$src" "h-$m.example.com" 30
		sc_fakesource "$src" "h-$m.example.com" "198.20.5.$n" "tok-$src" \
		    '[{"id": "ok-1", "capability": "ocr"}]'
		echo "$m" > "$SC_ROOT/$src.mode"
		sc_secret "$src" "tok-$src"
	done
	keep_up
	daemon_up
	# Two sources, one id: each record apart, each result to its source.
	wait_result notes 7 60
	wait_result other 7 60
	is '{"error": "the job has no input", "status": "failed"}' result notes 7
	has '"error": "capability claude was not offered"' -- result other 7
	[ "$(wc -l < "$SC_ROOT/notes.results")" -eq 1 ] || atf_fail "notes got another's result"
	[ "$(wc -l < "$SC_ROOT/other.results")" -eq 1 ] || atf_fail "other got another's result"
	is "notes" meta notes 7 source
	is "other" meta other 7 source
	has 'no input' -- meta notes 7 error
	has 'not offered' -- meta other 7 error
	# The hostile ones; hang holds the others back by 30 s at most.
	sc_wait_log sandcastled 'source hhang: the claim failed' 45 ||
	    { sc_log sandcastled; atf_fail "the hanging source was never given up"; }
	daemon_alive "after the hostile answers"
	# extra: taken, its other fields without effect (no image was built
	# here: its box is released); url: fails at once, nothing fetched.
	wait_result hextra h1 5
	is '{"status": "released"}' result hextra h1
	is "ocr" meta hextra h1 capability
	wait_result hurl h1 5
	has '"status": "failed"' -- result hurl h1
	# The urls name other.example.com's address: nothing asked it for them.
	atf_check -s exit:1 grep -q '/steal\|/image.png\|/more' "$SC_ROOT/other.requests"
	for m in badid dupkey deep huge badutf8 trailing toomany dupjobs; do
		src=h$m
		grep -q "source $src: the claim's answer is unreadable" "$SC_ROOT/log/sandcastled.log" ||
		    { sc_log sandcastled; atf_fail "$m: not refused as unreadable"; }
		[ -z "$(ls -A "$SC_ROOT/data/$src" 2>/dev/null)" ] ||
		    atf_fail "$m: a job of it was taken"
		[ ! -s "$SC_ROOT/$src.results" ] || atf_fail "$m: a result was sent"
	done
	grep -q "source h401: the claim failed: status 401" "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "401 not seen as a rejected token"; }
	daemon_alive "at the end"
}
hostile_cleanup()
{
	sc_net_cleanup
}

# once_run STATUS: sandcastled -1, to its end, which must be STATUS
# (any, with -: it is left in once_status).
once_run()
{
	sc_start_in_host sandcastled -1 -c "$SC_CONFIG" -s "$SC_SECRETS"
	wait "$(sc_pid sandcastled)"
	_st=$?
	once_status=$_st
	[ "$1" = - ] || [ "$_st" -eq "$1" ] ||
	    { sc_log sandcastled; atf_fail "sandcastled -1 exited $_st, not $1"; }
	grep -q 'the round is over' "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "sandcastled -1 ended before its round"; }
}

atf_test_case once cleanup
once_head()
{
	atf_set "descr" "sandcastled -1 asks each source once, runs one job of each at most, sends their results and exits 1 when a job failed; the control, the next round, whose one job succeeds, exits 0"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
once_body()
{
	life_up notes.example.com other.example.com
	img=$(render "$OCR_TEXT")
	source_config notes notes.example.com 30
	source_config other other.example.com 30
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    "[{\"id\": \"n1\", \"capability\": \"ocr\", \"input\": {\"image\": \"$img\"}},
	      {\"id\": \"n2\", \"capability\": \"ocr\", \"input\": {\"image\": \"$img\"}}]"
	sc_fakesource other other.example.com 198.20.5.12 "$TOKEN_OTHER" \
	    "[{\"id\": \"o1\", \"capability\": \"ocr\", \"input\": {\"image\": \"$GIF_B64\"}}]"
	sc_secret notes "$TOKEN_NOTES"
	sc_secret other "$TOKEN_OTHER"
	keep_up
	images
	once_run 1
	# Each source asked once, for one job: n2 waits for the next round.
	[ "$(posts notes /jobs/claim)" -eq 1 ] && [ "$(posts other /jobs/claim)" -eq 1 ] ||
	    { sc_log sandcastled; atf_fail "a source was not asked exactly once"; }
	has '"status": "succeeded"' "$OCR_TEXT" -- result notes n1
	has '"status": "failed"' -- result other o1
	grep -q '"id": "n2"' "$SC_ROOT/notes.results" &&
	    atf_fail "a second job of notes ran in the round"
	# The control: the next round, n2 alone, which succeeds.
	once_run 0
	[ "$(posts notes /jobs/claim)" -eq 2 ] && [ "$(posts other /jobs/claim)" -eq 2 ] ||
	    { sc_log sandcastled; atf_fail "a source was not asked once more"; }
	has '"status": "succeeded"' "$OCR_TEXT" -- result notes n2
}
once_cleanup()
{
	sc_net_cleanup
}

atf_test_case once_rate cleanup
once_rate_head()
{
	atf_set "descr" "S5: sandcastled -1 run three times within the hour keeps max_jobs_per_hour as the daemon does: a source capped at 2 is claimed twice, then skipped with a line saying when it may be asked again (the records of the earlier rounds count); control: a source with a larger cap is claimed in each round"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "180"
}
once_rate_body()
{
	life_up notes.example.com other.example.com
	source_config notes notes.example.com 2
	source_config other other.example.com 10
	# Jobs with no input fail at once, without a box: fast.
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    '[{"id": "n1", "capability": "ocr"}, {"id": "n2", "capability": "ocr"}, {"id": "n3", "capability": "ocr"}]'
	sc_fakesource other other.example.com 198.20.5.12 "$TOKEN_OTHER" \
	    '[{"id": "o1", "capability": "ocr"}, {"id": "o2", "capability": "ocr"}]'
	sc_secret notes "$TOKEN_NOTES"
	sc_secret other "$TOKEN_OTHER"
	keep_up
	once_run 1
	once_run 1
	[ "$(posts notes /jobs/claim)" -eq 2 ] && [ "$(posts other /jobs/claim)" -eq 2 ] ||
	    { sc_log sandcastled; atf_fail "a source was not asked in each of the first two rounds"; }
	# The third round: notes has had its 2 of the hour, and is not asked;
	# other's claim finds nothing, so nothing of the round fails.
	once_run -
	[ "$(posts notes /jobs/claim)" -eq 2 ] ||
	    { cat "$SC_ROOT/notes.requests"; atf_fail "sandcastled -1 claimed past max_jobs_per_hour"; }
	atf_check -s exit:1 grep -q '"id": "n3"' "$SC_ROOT/notes.results"
	grep -q 'source notes: 2 job(s) started in the last hour, counted from the records' "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "the earlier rounds' records were not counted"; }
	grep -q 'source notes: not asked: its max_jobs_per_hour (2) jobs started in the last hour; it may be asked again in [0-9]* s, at 20[0-9-]*T[0-9:]*Z$' "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no line for notes' full window"; }
	# Control: other, with room, was asked in the third round too.
	[ "$(posts other /jobs/claim)" -eq 3 ] ||
	    { sc_log sandcastled; atf_fail "other was not asked in the third round"; }
	atf_check -s exit:1 grep -q 'source other: not asked' "$SC_ROOT/log/sandcastled.log"
	# A source skipped for its window fails nothing of the round.
	[ "$once_status" -eq 0 ] ||
	    { sc_log sandcastled; atf_fail "sandcastled -1 exited $once_status, not 0"; }
}
once_rate_cleanup()
{
	sc_net_cleanup
}

atf_test_case keep_wait cleanup
keep_wait_head()
{
	atf_set "descr" "while the keep does not answer, no source is asked; the core asks the keep again every 5 seconds and goes on once it answers, at start and when the keep goes away later"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
keep_wait_body()
{
	life_up notes.example.com
	source_config notes notes.example.com 30
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    '[{"id": "w1", "capability": "ocr"}, {"id": "w2", "capability": "ocr"}]'
	sc_secret notes "$TOKEN_NOTES"
	sc_start_in_host gated -dv -c "$SC_CONFIG"
	sc_wait_log gated "serving " 15 || { sc_log gated; atf_fail "gated does not serve"; }
	sc_start_in_host sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log sandcastled "the keep does not answer" 10 ||
	    { sc_log sandcastled; atf_fail "no line for the keep's absence"; }
	sleep 6
	[ ! -s "$SC_ROOT/notes.requests" ] || atf_fail "a source was asked without the keep"
	# w1's result is held until the source holds the claims: the claim
	# after a job comes at once, and must wait there for the keep to go.
	echo holdresult > "$SC_ROOT/notes.mode"
	echo w1 > "$SC_ROOT/notes.mode.hold"
	sc_start_in_host keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log sandcastled "the keep answers: asking" 10 ||
	    { sc_log sandcastled; atf_fail "the core did not ask the keep again"; }
	wait_posts notes /jobs/w1/result 1 30 ||
	    { sc_log sandcastled; atf_fail "no result of w1 sent"; }
	claims=$(posts notes /jobs/claim)
	echo holdclaim > "$SC_ROOT/notes.mode"
	echo claim > "$SC_ROOT/notes.mode.hold"
	wait_result notes w1 10
	wait_posts notes /jobs/claim $((claims + 1)) 30 ||
	    { sc_log sandcastled; atf_fail "no claim after w1"; }
	# The keep goes away during that call: the core sees it gone, and waits.
	sc_stop keepd
	sc_wait_log sandcastled "core: the keep does not answer (" 15 ||
	    { sc_log sandcastled; atf_fail "the core did not see the keep go"; }
	# The source sees the call's end before it may answer it.
	sleep 1
	rm "$SC_ROOT/notes.mode.hold"
	echo normal > "$SC_ROOT/notes.mode"
	sleep 6
	atf_check -s exit:1 grep -q '"id": "w2"' "$SC_ROOT/notes.results"
	sc_start_in_host keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	wait_result notes w2 15
	daemon_alive "after the keep came back"
}
keep_wait_cleanup()
{
	sc_net_cleanup
}

# build: this build's id, as sandcastlectl version says it.
build()
{
	sc_as_user "$(sc_bin sandcastlectl)" version | sed -n 's/^build  *//p'
}

atf_test_case image_missing cleanup
image_missing_head()
{
	atf_set "descr" "I1: the ocr image gone (removed after an install), sandcastled -i as the unit runs it starts and says which image is missing; the ocr job is released with podman's reason and the claude job after it succeeds; check names ocr's image and sandcastlectl install; the control: the image back, the next ocr job succeeds"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
image_missing_body()
{
	life_up notes.example.com api.anthropic.com
	img=$(render "$OCR_TEXT")
	source_config notes notes.example.com 30 "ocr, claude"
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    "[{\"id\": \"ocr-1\", \"capability\": \"ocr\", \"input\": {\"image\": \"$img\"}},
	      {\"id\": \"claude-2\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]"
	# The API as it answers, models too, for check's proof of claude.
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	sc_secret notes "$TOKEN_NOTES"
	sc_secret claude key-claude-life
	keep_up
	images
	b=$(build)
	sc_as_user podman rmi "sandcastle-ocr:$b" >/dev/null ||
	    atf_fail "cannot remove the ocr image"
	sc_start_in_host sandcastled -d -i -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log sandcastled "the keep answers" 20 ||
	    { sc_log sandcastled; atf_fail "sandcastled -i did not start"; }
	grep -qxF "sandcastled: the image sandcastle-ocr:$b of this build is missing: ocr's jobs are released and it rests, the others run; run sandcastlectl install" \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no line naming the missing image"; }
	wait_result notes ocr-1 60
	wait_result notes claude-2 60
	is '{"status": "released"}' result notes ocr-1
	has 'podman says the image is missing: run sandcastlectl install' -- \
	    meta notes ocr-1 error
	is '{"output": {"tag": "x"}, "status": "succeeded"}' result notes claude-2
	daemon_alive "with the ocr image missing"
	sc_as_user_in_host "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" \
	    -s "$SC_SECRETS" check > check.out 2>&1
	grep -qxF "FAIL  capability ocr: the image sandcastle-ocr:$b of this build is missing; run sandcastlectl install" check.out ||
	    { cat check.out; atf_fail "check does not name ocr's image and install"; }
	grep -qxF "ok    capability claude: usable" check.out ||
	    { cat check.out; atf_fail "check does not find claude usable"; }
	# The control: the image back, ocr runs its next job.
	images
	one_job ocr-3 "$img"
	wait_result notes ocr-3 60
	has '"status": "succeeded"' "$OCR_TEXT" -- result notes ocr-3
}
image_missing_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case ocr_life
	atf_add_test_case crash
	atf_add_test_case image_missing
	atf_add_test_case words
	atf_add_test_case leftover
	atf_add_test_case rate
	atf_add_test_case keep_wait
	atf_add_test_case once
	atf_add_test_case once_rate
	atf_add_test_case hostile
}
