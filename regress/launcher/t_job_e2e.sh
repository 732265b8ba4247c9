#! /usr/bin/env atf-sh
# A claude job and the checks end to end: the real box (job_run(), in
# t_job's real_keep case), the real keepd and gated on the test network,
# and a fake Messages API signed by the test CA.  Then check's lines for
# both capabilities against the same keep.  Each refusal has its control.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"

CLAUDE_SECRET=key-claude-e2e-5a6b7c8d
MODEL=claude-test-1
PROMPT="You tag notes for the e2e test."
REPLY='{"type": "message", "model": "claude-test-1", "content": [{"type": "text", "text": "{\"tag\": \"recipes\"}"}], "stop_reason": "end_turn", "usage": {"input_tokens": 12, "output_tokens": 5}}'
MODEL_OK='{"type": "model", "id": "claude-test-1"}'

# e2e_config [LANGUAGES]: claude and ocr, one source; ocr's languages.
e2e_config()
{
	cat > "$SC_CONFIG/config.yaml" <<EOC
capabilities:
$(sc_claude_yaml "$MODEL")
    system_prompt: $PROMPT
  ocr:
    languages: [${1:-eng}]
EOC
	sc_source_file notes https://notes.example.com/api/worker "claude, ocr"
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# api ROUTES: what the fake API answers, as the scenario's routes.
api()
{
	sc_scenario api.anthropic.com "{\"routes\": {$1}}"
	: > "$SC_ROOT/api.anthropic.com.requests"
}

e2e_up()
{
	sc_setup
	sc_net_up
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    api.anthropic.com || atf_fail "ca.sh"
	e2e_config
	sc_fakehost notes.example.com "$SC_NS_WORLD" 198.20.5.10 443 tls
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 0}}}}'
	sc_secret notes tok-notes-e2e-1234
	sc_secret claude "$CLAUDE_SECRET"
	sc_gate_up
	sc_keep_up
}

# e2e_up, and this build's images for check.
e2e_images()
{
	e2e_up
	sc_images
}

# run_job EXPECT: t_job's real_keep case, a claude job through keep.sock.
run_job()
{
	"$(atf_get_srcdir)/t_job" -r "$PWD/job.result" \
	    -v prefix="$(atf_config_get prefix)" \
	    -v keep_sock="$SC_RUN/sandcastle/keep.sock" -v expect="$1" \
	    -v config="$SC_CONFIG" \
	    real_keep > job.out 2>&1
	grep -q '^passed' job.result ||
	    { cat job.out job.result; sc_log keepd; atf_fail "the job is not $1"; }
}

# ctl_check: sandcastlectl check as the account, in the host namespace;
# the images of this build in the test's own podman store.
ctl_check()
{
	sc_as_user_in_host "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" \
	    -s "$SC_SECRETS" check > check.out 2>&1
	return 0
}

has_line()
{
	grep -qxF -- "$1" check.out || { cat check.out; atf_fail "no line: $1"; }
}

atf_test_case job cleanup
job_head()
{
	atf_set "descr" "S1 R2: a claude job through the real keep and gate succeeds; the API got the key, the model, the system prompt and the schema, and no tools; a 401 releases it"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
job_body()
{
	e2e_up
	api "\"/v1/messages\": {\"status\": 200, \"json\": $REPLY}"
	run_job succeeded
	req=$SC_ROOT/api.anthropic.com.requests
	[ "$(wc -l < "$req")" -eq 1 ] || { cat "$req"; atf_fail "not one request"; }
	atf_check -o match:"\"x-api-key\": \"$CLAUDE_SECRET\"" cat "$req"
	atf_check -o match:'"path": "/v1/messages"' cat "$req"
	atf_check -o match:"\\\\\"model\\\\\": *\\\\\"$MODEL\\\\\"" cat "$req"
	atf_check -o match:"$PROMPT" cat "$req"
	atf_check -o match:'output_config' -o match:'additionalProperties' cat "$req"
	atf_check -s exit:1 grep -q '\\"tools\\"' "$req"
	# The refusal: the key rejected, the job released.
	api '"/v1/messages": {"status": 401, "json": {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}}'
	run_job released
}

# run_once EXPECT: run_job, and the job asked the API once, never twice.
run_once()
{
	run_job "$1"
	[ "$(wc -l < "$SC_ROOT/api.anthropic.com.requests")" -eq 1 ] ||
	    { cat "$SC_ROOT/api.anthropic.com.requests"; atf_fail "not one request: $1"; }
}

# reply STOP TEXT: a 200 answer of the fake API, its text block and stop reason.
reply()
{
	printf '"/v1/messages": {"status": 200, "json": {"type": "message", "model": "%s", "content": [{"type": "text", "text": "%s"}], "stop_reason": "%s", "usage": {"input_tokens": 12, "output_tokens": 5}}}' \
	    "$MODEL" "$2" "$1"
}

# api_error STATUS TYPE: an error answer of the fake API.
api_error()
{
	printf '"/v1/messages": {"status": %s, "json": {"type": "error", "error": {"type": "%s", "message": "e2e %s"}}}' "$1" "$2" "$2"
}

atf_test_case replies cleanup
replies_head()
{
	atf_set "descr" "R2: every answer of the API through the real keep and gate: a refusal, max_tokens and a reply that breaks the schema fail the job; a rate limit, exhausted credit, an overloaded or failing API and an API that cannot be reached release it; control: a good reply succeeds"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
replies_body()
{
	e2e_up
	api "$(reply end_turn '{\"tag\": \"recipes\"}')"
	run_once succeeded
	api "$(reply refusal '')"
	run_once failed
	api "$(reply max_tokens '{\"tag\": \"rec')"
	run_once failed
	api "$(reply end_turn '{\"tag\": 5}')"
	run_once failed
	api "$(api_error 429 rate_limit_error)"
	run_once released
	api "$(api_error 400 billing_error)"
	run_once released
	api "$(api_error 529 overloaded_error)"
	run_once released
	api "$(api_error 500 api_error)"
	run_once released
	# The API cannot be reached: nothing listens on its address.
	kill "$(cat "$SC_ROOT/log/api.anthropic.com.pid")"
	run_job released
}
replies_cleanup()
{
	sc_net_cleanup
	sc_cleanup
}
job_cleanup()
{
	sc_net_cleanup
}

atf_test_case check_reader cleanup
check_reader_head()
{
	atf_set "descr" "T3: check's box is read by a locked reader, as a job's is: while claude's check box waits for the API, the child of sandcastlectl that reads it has Seccomp 2, one filter and no_new_privs (the reader_lock() of a job's reader), and sandcastlectl itself, the control, none"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
check_reader_body()
{
	e2e_images
	# The look-up answered after 8 s: the box and its reader wait meanwhile.
	api "\"/v1/models/$MODEL\": {\"status\": 200, \"delay\": 8, \"json\": $MODEL_OK}"
	ctl_check &
	ctl=$!
	# The reader: the account's sandcastlectl whose parent is one too.
	reader=
	i=0
	while [ -z "$reader" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
		grep -q "\"path\": \"/v1/models/$MODEL\"" \
		    "$SC_ROOT/api.anthropic.com.requests" 2>/dev/null || continue
		for p in $(pgrep -u "$SC_USER" -x sandcastlectl); do
			pp=$(ps -o ppid= -p "$p" | tr -d ' ')
			[ "$(cat "/proc/$pp/comm" 2>/dev/null)" = sandcastlectl ] &&
			    { reader=$p; check=$pp; }
		done
	done
	[ -n "$reader" ] || atf_fail "no reader of check's box while it waited"
	grep -E '^(Seccomp|Seccomp_filters|NoNewPrivs):' "/proc/$reader/status" \
	    > reader.status
	grep -E '^(Seccomp|NoNewPrivs):' "/proc/$check/status" > check.status
	wait "$ctl"
	cat reader.status check.status
	grep -qx 'Seccomp:	2' reader.status &&
	    grep -qx 'Seccomp_filters:	1' reader.status &&
	    grep -qx 'NoNewPrivs:	1' reader.status ||
	    atf_fail "check's reader is not locked: $(tr '\n\t' '  ' < reader.status)"
	grep -qx 'Seccomp:	0' check.status ||
	    atf_fail "the control: sandcastlectl itself has a filter"
	has_line "ok    capability claude: usable"
}
check_reader_cleanup()
{
	sc_net_cleanup
}

atf_test_case check_lines cleanup
check_lines_head()
{
	atf_set "descr" "check's capability lines: claude usable against the fake API, a rejected key and an unknown model FAIL; ocr usable, a FAIL naming both lists for a language the image lacks, and its image missing, in the toolbox's lines"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
check_lines_body()
{
	e2e_images
	api "\"/v1/models/$MODEL\": {\"status\": 200, \"json\": $MODEL_OK}"
	ctl_check
	# What holds each limit: on cgroup v2 the cgroup, else the rlimits,
	# and box.cpus nothing but the time limit, which warns.
	if grep -q '^ok    toolbox: box.cpus held by cgroup v2' check.out; then
		has_line "ok    toolbox: box.memory held by cgroup v2 (--memory, no swap) and the data rlimit"
	else
		has_line "warn  toolbox: box.memory held by the data rlimit alone, which bounds each process's data, so a box may use up to box.pids times it (no cgroup v2 memory controller delegated here)"
		has_line "warn  toolbox: box.cpus held by nothing but the time limit (no cgroup v2 cpu controller delegated here)"
		has_line "ok    toolbox: box.pids held by the nproc rlimit"
	fi
	has_line "ok    toolbox: box.tmp held by the size of its tmpfs and the fsize rlimit"
	has_line "ok    toolbox: timeout held by the launcher's time limit and the cpu rlimit"
	has_line "ok    capability claude: usable"
	has_line "ok    capability ocr: usable (languages eng)"
	grep -q "GET /v1/models/$MODEL" "$SC_ROOT/log/keepd.log" ||
	    { sc_log keepd; atf_fail "the model was not looked up through the keep"; }
	api "\"/v1/models/$MODEL\": {\"status\": 401, \"json\": {\"type\": \"error\"}}"
	ctl_check
	has_line "FAIL  capability claude: the key was rejected; create a new key and set it with sandcastlectl secret set claude"
	api "\"/v1/models/$MODEL\": {\"status\": 404, \"json\": {\"type\": \"error\"}}"
	ctl_check
	has_line "FAIL  capability claude: the model $MODEL is not available to this key"
	# ocr: a language the image lacks; the control above had eng alone.
	e2e_config "eng, deu"
	ctl_check
	has_line "FAIL  capability ocr: the image has eng, the configuration asks for eng deu; run sandcastlectl install"
	e2e_config
	# The image missing: its line among the toolbox's, before the
	# sources', and no proof's line after it; the control is the
	# line after it, with the image there.
	build=$(sc_as_user "$(sc_bin sandcastlectl)" version |
	    awk '$1 == "build" { print $2 }')
	id=$(sc_as_user podman image inspect --format '{{.Id}}' \
	    "sandcastle-ocr:$build") || atf_fail "no image sandcastle-ocr:$build"
	sc_as_user podman image untag "sandcastle-ocr:$build" ||
	    atf_fail "podman image untag"
	ctl_check
	sc_as_user podman tag "$id" "sandcastle-ocr:$build" ||
	    atf_fail "podman tag"
	has_line "FAIL  capability ocr: the image sandcastle-ocr:$build of this build is missing; run sandcastlectl install"
	[ "$(grep -c '^[a-zA-Z]* *capability ocr: ' check.out)" = 1 ] ||
	    { cat check.out; atf_fail "a line on ocr beside its image's"; }
	img=$(grep -n "capability ocr: the image" check.out | cut -d: -f1)
	src=$(grep -n "^[a-zA-Z]* *source " check.out | head -n 1 | cut -d: -f1)
	[ -n "$src" ] && [ "$img" -lt "$src" ] ||
	    { cat check.out; atf_fail "the image's line is not before the sources'"; }
	# Without a keep, claude's proof is not tried, and says so.
	sc_stop keepd
	ctl_check
	has_line "warn  capability claude: not proved: it needs the keep, which does not answer"
	has_line "ok    capability ocr: usable (languages eng)"
}
check_lines_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case replies
	atf_add_test_case job
	atf_add_test_case check_lines
	atf_add_test_case check_reader
}
