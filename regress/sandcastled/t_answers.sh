#! /usr/bin/env atf-sh
# Each answer of the Claude Messages API, end to end: sandcastled, keepd
# and gated as the test account, real claude boxes, and the API played by
# regress/lib/fakeapi.py as the real one answers (the box's request is
# streamed: an error status before any event, else the reply as events,
# its shapes the API's own, and those at a stream's edges that the
# official SDKs read: no last blank line, an emoji split between two
# deltas, CR or CRLF line ends, an event name with a NUL, a signature
# given whole, an error after message_stop).  Each job ends as its row
# of sandcastle-box(8) FAILURES says, its record keeps what the row says,
# and each makes one POST to the API.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

TOKEN=tok-answers-1357
SCHEMA='{"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"], "additionalProperties": false}'

# The jobs, in the order the source hands them out, one a line: the id
# (the prompt too, by which the API picks the answer), the API's answer
# (fakeapi.py), the job's status, the log's word ("" for none), the
# record's error (grep -E, "" for none) and its output.json ("-" for
# none).  The 429 with retry-after 12 is timed by the job after it, and
# the 429 without one, its control, by the job after that.
CASES='ok|{"delay": 0.5}|succeeded|""||{"tag": "x"}
pings|{"delay": 2, "ping": 0.5, "citations": true}|succeeded|""||{"tag": "x"}
midstream|{"stream_error": "overloaded_error"}|released|api_down|^the API is overloaded \(529\)$|-
stop-sequence|{"stop_reason": "stop_sequence"}|succeeded|""||{"tag": "x"}
max-tokens|{"stop_reason": "max_tokens", "text": "{\"tag\": \"x"}|failed|max_tokens|^the reply was cut at max_tokens \(1024\)$|"{\"tag\": \"x"
refusal|{"stop_reason": "refusal", "text": "I will not tag this."}|failed|declined|^the model declined$|"I will not tag this."
context|{"stop_reason": "model_context_window_exceeded", "text": "{\"tag\": \"x"}|failed|context_window|^the reply was cut at the model.s context window|"{\"tag\": \"x"
pause|{"stop_reason": "pause_turn", "text": ""}|failed|stop_reason|^the model stopped with stop_reason pause_turn: |""
tool|{"stop_reason": "tool_use", "text": "Let me look."}|failed|stop_reason|^the model stopped with stop_reason tool_use: |"Let me look."
no-stop|{"stop_reason": "missing"}|failed|stop_reason|^the model stopped without a stop_reason|{"tag": "x"}
null-stop|{"stop_reason": null}|failed|stop_reason|^the model stopped without a stop_reason|{"tag": "x"}
e400|{"status": 400, "message": "output_config.format.schema: minLength is not supported"}|failed|api|^the API refused the request \(400 invalid_request_error\): output_config.format.schema: minLength is not supported$|-
e413|{"status": 413}|failed|api|^the API refused the request \(413 request_too_large\): Request exceeds|-
e401|{"status": 401}|released|key|^the key was rejected \(401\)$|-
e403|{"status": 403}|released|key|^the key was rejected \(403\)$|-
e404|{"status": 404, "message": "model: claude-test-1"}|released|model|^the model claude-test-1 is not available to this key \(404\)$|-
e500|{"status": 500}|released|api_down|^the API failed \(500 api_error\)$|-
e529|{"status": 529}|released|api_down|^the API is overloaded \(529\)$|-
e429|{"status": 429, "retry_after": 12}|released|rate|^rate limited \(429\), retry after 12 s$|-
after-429|{}|succeeded|""||{"tag": "x"}
e429-none|{"status": 429, "retry_after": null}|released|rate|^rate limited \(429\)$|-
after-none|{}|succeeded|""||{"tag": "x"}
no-last-blank|{"last_blank": false, "line_end": "\r\n"}|succeeded|""||{"tag": "x"}
emoji-split|{"text": "{\"tag\": \"\ud83d\ude00\"}", "delta_units": 1, "line_end": "\r"}|succeeded|""||{"tag": "😀"}
named|{"event_suffix": "\u0000x", "thinking": {"thinking": "Hm.", "signature": "c2ln"}, "signature_deltas": ["Qg=="]}|succeeded|""||{"tag": "x"}
after-stop|{"after_stop": "overloaded_error"}|released|api_down|^the API is overloaded \(529\)$|-
conflict|{"stream_error": "conflict_error"}|failed|api|^the API refused the request \(409 conflict_error\): The resource|-'

# cases_files: the source's jobs and the API's scenario, from CASES.
cases_files()
{
	printf '%s\n' "$CASES" | python3 -c 'import json, sys
schema = json.loads(sys.argv[1])
jobs, answers = [], {}
for line in sys.stdin.read().splitlines():
    jid, answer = line.split("|")[:2]
    jobs.append({"id": jid, "capability": "claude",
                 "input": {"prompt": jid, "schema": schema}})
    answers[jid] = json.loads(answer)
json.dump(jobs, open("jobs.json", "w"))
json.dump({"answers": answers}, open("scenario.json", "w"))' "$SCHEMA"
}

# api_posts ID: the POSTs to /v1/messages whose prompt is ID.
api_posts()
{
	python3 -c 'import json, sys
n = 0
for e in map(json.loads, open(sys.argv[1])):
    if e["method"] == "POST" and e["path"] == "/v1/messages":
        n += json.loads(e["body"])["messages"][-1]["content"] == sys.argv[2]
print(n)' "$SC_ROOT/api.anthropic.com.requests" "$1"
}

# api_gap A B: seconds from job A's POST to job B's, whole.
api_gap()
{
	python3 -c 'import json, sys
at = {}
for e in map(json.loads, open(sys.argv[1])):
    if e["method"] == "POST" and e["path"] == "/v1/messages":
        at[json.loads(e["body"])["messages"][-1]["content"]] = e["at"]
print(int(at[sys.argv[3]] - at[sys.argv[2]]))' \
	    "$SC_ROOT/api.anthropic.com.requests" "$1" "$2"
}

# status_of ID: the status the source got for ID, or nothing yet.
status_of()
{
	python3 -c 'import json, sys
for e in map(json.loads, open(sys.argv[1])):
    if e["id"] == sys.argv[2]:
        print(e["body"]["status"])' "$SC_ROOT/notes.results" "$1" 2>/dev/null
}

# wait_status ID SECONDS: until the source got ID's result.
wait_status()
{
	sc_wait_line "$SC_ROOT/notes.results" "\"id\": \"$1\"" "$2" ||
	    { sc_log sandcastled; atf_fail "no result of job $1"; }
}

# check_case ID ANSWER STATUS WORD ERROR OUTPUT: one row of CASES held to
# the source's result, the record and the log.
check_case()
{
	_rec=$SC_ROOT/data/notes/$1
	[ "$(status_of "$1")" = "$3" ] ||
	    { sc_log sandcastled; atf_fail "$1: the source got $(status_of "$1"), not $3"; }
	[ "$(meta notes "$1" status)" = "$3" ] ||
	    atf_fail "$1: meta.json says $(meta notes "$1" status), not $3"
	[ "$(meta notes "$1" result)" = sent ] ||
	    atf_fail "$1: its result is $(meta notes "$1" result)"
	if [ -n "$5" ]; then
		meta notes "$1" error | grep -Eq -- "$5" ||
		    atf_fail "$1: the error is '$(meta notes "$1" error)', not /$5/"
	fi
	if [ "$6" = - ]; then
		[ ! -e "$_rec/output.json" ] || atf_fail "$1: an output.json: $(cat "$_rec/output.json")"
	else
		[ "$(cat "$_rec/output.json")" = "$6" ] ||
		    atf_fail "$1: output.json is '$(cat "$_rec/output.json")', not '$6'"
		# A reply the model wrote: its usage is in the record.
		meta notes "$1" usage | grep -q '"input_tokens": 3' ||
		    atf_fail "$1: no usage: $(meta notes "$1" usage)"
	fi
	case $2 in
	*stream_error*|*after_stop*)
		# The model was reached: its usage is kept though the job is not.
		meta notes "$1" usage | grep -q '"input_tokens": 3' ||
		    atf_fail "$1: no usage: $(meta notes "$1" usage)";;
	esac
	grep -Eq "job source=notes job=$1 capability=claude status=$3 seconds=[0-9]+ error=$4 " \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "$1: no log line with status=$3 error=$4"; }
	[ "$(api_posts "$1")" -eq 1 ] ||
	    atf_fail "$1: $(api_posts "$1") POSTs to the API, not one"
}

atf_test_case answers cleanup
answers_head()
{
	atf_set "descr" "Each answer the Messages API documents, from the fake API that answers as it does (the reply streamed, with pings or an overloaded_error mid-stream, and the shapes at a stream's edges the official SDKs read: no last blank line, an emoji split between two deltas, CR and CRLF line ends, an event name with a NUL, a signature given whole, an error after message_stop, a conflict_error), ends a claude job as sandcastle-box(8) FAILURES says: succeeded, failed with the reply kept in output.json, failed with the API's message, or released; the record and the log say so, each job makes exactly one POST, the configured effort xhigh reaches the API, and a 429's retry-after of 12 s holds claude's next request back past its cooldown of 1 s (its control, a 429 without one, does not)"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
answers_body()
{
	daemon_net_up notes.example.com api.anthropic.com
	sc_caps_config
	sed -i 's/^    model: claude-test-1$/&\n    effort: xhigh/' "$SC_CONFIG/config.yaml"
	grep -q '^    effort: xhigh$' "$SC_CONFIG/config.yaml" || atf_fail "no effort in config.yaml"
	sc_source_file notes "https://notes.example.com/api/worker" claude 60 5s 1m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	cases_files
	cp scenario.json "$SC_ROOT/api.anthropic.com.scenario"
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" "$(cat jobs.json)"
	sc_secret notes "$TOKEN"
	sc_secret claude key-claude-answers
	keep_up
	images
	daemon_up
	wait_status conflict 460
	while IFS='|' read -r id answer st word err out; do
		check_case "$id" "$answer" "$st" "$word" "$err" "$out"
	done <<EOC
$CASES
EOC
	n=$(printf '%s\n' "$CASES" | wc -l)
	[ "$(grep -c '"method": "POST", "path": "/v1/messages"' \
	    "$SC_ROOT/api.anthropic.com.requests")" -eq "$n" ] ||
	    atf_fail "not $n POSTs to the API in all"
	# The request the API checked carried the key and the effort.
	grep '"path": "/v1/messages"' "$SC_ROOT/api.anthropic.com.requests" |
	    head -n 1 > first
	grep -q '"x-api-key": "key-claude-answers"' first || atf_fail "no key: $(cat first)"
	grep -q '\\"effort\\": *\\"xhigh\\"' first || atf_fail "no effort xhigh: $(cat first)"
	# retry-after 12 s against the cooldown of 1 s; the control has none.
	gap=$(api_gap e429 after-429)
	[ "$gap" -ge 12 ] || atf_fail "claude asked again $gap s after a 429 with retry-after 12"
	gap=$(api_gap e429-none after-none)
	[ "$gap" -lt 12 ] || atf_fail "the control: claude asked again $gap s after a 429 without retry-after"
}
answers_cleanup()
{
	sc_net_cleanup
}

atf_test_case validates cleanup
validates_head()
{
	atf_set "descr" "The fake Messages API refuses what the API refuses, in the API's shape with its request-id, so that the answers case's successes prove the box's request valid: no x-api-key is a 401 authentication_error, no max_tokens or an effort the API lacks a 400 invalid_request_error; the control, a whole request, is answered 200 with every field of a Message; streamed, with text/event-stream and the API's events in their order, and refused before any event as when not streamed"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "180"
}
validates_body()
{
	daemon_net_up api.anthropic.com
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	ip netns exec "$SC_NS_WORLD" python3 -c 'import http.client, json, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[1])
# The address, not the name: the chain is checked, not the name.
ctx.check_hostname = False
def post(body, key=True):
    c = http.client.HTTPSConnection("198.20.5.11", 443, context=ctx)
    h = {"anthropic-version": "2023-06-01", "content-type": "application/json",
         "host": "api.anthropic.com"}
    if key:
        h["x-api-key"] = "k"
    c.request("POST", "/v1/messages", json.dumps(body), h)
    r = c.getresponse()
    b = json.loads(r.read())
    if r.status != 200:
        assert b["type"] == "error" and b["request_id"] == r.getheader("request-id"), b
        return r.status, b["error"]["type"]
    return r.status, sorted(b) + sorted(b["usage"])
def stream(body):
    c = http.client.HTTPSConnection("198.20.5.11", 443, context=ctx)
    c.request("POST", "/v1/messages", json.dumps(body), {"x-api-key": "k",
              "anthropic-version": "2023-06-01", "content-type": "application/json",
              "host": "api.anthropic.com"})
    r = c.getresponse()
    names = [l[7:] for l in r.read().decode().splitlines() if l.startswith("event: ")]
    return r.status, r.getheader("content-type"), names
whole = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}],
         "output_config": {"format": {"type": "json_schema", "schema": {}}, "effort": "max"}}
print(post(whole, key=False))
print(post(dict(whole, max_tokens=None)))
print(post(dict(whole, output_config={"effort": "extreme"})))
print(post(whole))
print(stream(dict(whole, stream=True)))
print(post(dict(whole, stream=True, max_tokens=None)))' "$SC_ROOT/ca/ca.crt" > out 2>&1 || { cat out; atf_fail "the client failed"; }
	cat > want <<'EOW'
(401, 'authentication_error')
(400, 'invalid_request_error')
(400, 'invalid_request_error')
(200, ['content', 'id', 'model', 'role', 'stop_reason', 'stop_sequence', 'type', 'usage', 'cache_creation', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'input_tokens', 'output_tokens', 'server_tool_use', 'service_tier'])
(200, 'text/event-stream; charset=utf-8', ['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
(400, 'invalid_request_error')
EOW
	atf_check -o file:want cat out
}
validates_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case answers
	atf_add_test_case validates
}
