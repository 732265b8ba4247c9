#! /usr/bin/env atf-sh
# The example sources, examples/notes.py and examples/scans.py on
# examples/source.py, hold to the source contract (sandcastled(8),
# SOURCE CONTRACT): each is started on loopback, on a port of its own
# choosing, and spoken to with curl as the keep would.  Every refusal has its control.

TOKEN=tok-example-3f9c2a71

# start_source NAME ARGS...: the example NAME in the background, its
# output in NAME.out; leaves its base URL in URL.
start_source()
{
	_n=$1; shift
	printf '%s\n' "$TOKEN" > token
	rm -f "$_n.out"
	python3 "$(atf_config_get checkout)/examples/$_n.py" \
	    -listen 127.0.0.1:0 -token-file token "$@" > "$_n.out" 2> "$_n.err" &
	echo $! > "$_n.pid"
	_i=0
	while ! grep -q ' waiting at https\{0,1\}://' "$_n.out" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && { cat "$_n.out" "$_n.err"; atf_fail "$_n did not start"; }
		sleep 0.1
	done
	URL=$(sed -n 's/.* waiting at \(https\{0,1\}:[^ ]*\)$/\1/p' "$_n.out")
}

stop_source()
{
	[ -f "$1.pid" ] || return 0
	kill "$(cat "$1.pid")" 2>/dev/null
	wait "$(cat "$1.pid")" 2>/dev/null
	rm -f "$1.pid"
	return 0
}

# call STATUS METHOD PATH [BODY]: one call with the token; the answer's
# body in answer.json, and its status must be STATUS.
call()
{
	_st=$1 _m=$2 _p=$3; shift 3
	set -- -s -o answer.json -w '%{http_code}' -X "$_m" \
	    -H "Authorization: Bearer $TOKEN" ${1:+-H 'Content-Type: application/json' -d "$1"}
	_got=$(curl "$@" "$URL$_p")
	[ "$_got" = "$_st" ] ||
	    { cat answer.json; atf_fail "$_m $_p: $_got, not $_st"; }
}

# status HEADER METHOD PATH: the status of a call with HEADER alone.
status()
{
	curl -s -o /dev/null -w '%{http_code}' -X "$2" ${1:+-H "$1"} "$URL$3"
}

# job FIELD: a field of the one job of the last claim, as JSON with
# sorted keys.
job()
{
	python3 -c 'import json, sys
jobs = json.load(open("answer.json"))["jobs"]
assert len(jobs) == 1, "%d jobs" % len(jobs)
print(json.dumps(jobs[0][sys.argv[1]], sort_keys=True))' "$1" ||
	    { cat answer.json; atf_fail "no one job in the claim's answer"; }
}

# job_is FIELD JSON, job_has FIELD REGEX: the field is, or matches.
job_is()
{
	_v=$(job "$1")
	[ "$_v" = "$2" ] || atf_fail "the job's $1 is $_v, not $2"
}
job_has()
{
	job "$1" | grep -Eq -- "$2" ||
	    { cat answer.json; atf_fail "the job's $1 does not match $2"; }
}

# refusals PATH_PREFIX: 401 without the token and with a wrong one, on
# each call; the control is the same call with the token.
refusals()
{
	for h in "" "Authorization: Bearer wrong-$TOKEN" "Authorization: $TOKEN"; do
		[ "$(status "$h" GET "$1/ping")" = 401 ] ||
		    atf_fail "ping with \"$h\" is not 401"
		[ "$(status "$h" POST "$1/jobs/claim")" = 401 ] ||
		    atf_fail "claim with \"$h\" is not 401"
		[ "$(status "$h" POST "$1/jobs/1/result")" = 401 ] ||
		    atf_fail "result with \"$h\" is not 401"
	done
	[ "$(status "Authorization: Bearer $TOKEN" GET "$1/ping")" = 200 ] ||
	    atf_fail "ping with the token is not 200"
}

atf_test_case notes cleanup
notes_head()
{
	atf_set "descr" "notes.py: 401 without the token (control: 200 with it), ping counts the waiting notes, a claim hands out a claude job with the tag schema and none for ocr alone, a result is taken once and 409 after, and notes prints the tag"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "curl python3"
}
notes_body()
{
	start_source notes
	atf_check -o match:"notes: 3 notes waiting at http://127.0.0.1:[0-9]+\$" cat notes.out
	refusals ""
	call 200 GET /ping
	atf_check -o inline:'{"waiting": 3}\n' cat answer.json
	# A claim for a capability notes has no job for hands out none.
	call 200 POST /jobs/claim '{"capabilities":["ocr"],"limit":1}'
	atf_check -o inline:'{"jobs": []}\n' cat answer.json
	call 200 POST /jobs/claim '{"capabilities":["claude","ocr"],"limit":1}'
	job_is id '1'
	job_is capability '"claude"'
	job_has input '"schema": \{"additionalProperties": false, "properties": \{"tag": \{"type": "string"\}\}, "required": \["tag"\], "type": "object"\}'
	job_has input '"prompt": "Give this note one tag'
	call 200 GET /ping
	atf_check -o inline:'{"waiting": 2}\n' cat answer.json
	# A released job waits again, and the next claim hands it out.
	call 200 POST /jobs/1/result '{"status":"released"}'
	call 200 GET /ping
	atf_check -o inline:'{"waiting": 3}\n' cat answer.json
	call 200 POST /jobs/claim '{"capabilities":["claude"],"limit":1}'
	job_is id '1'
	# Not held: a note never claimed, then the one taken a second time.
	call 409 POST /jobs/2/result '{"status":"succeeded","output":{"tag":"car"}}'
	call 200 POST /jobs/1/result '{"status":"succeeded","output":{"tag":"recipes"}}'
	call 409 POST /jobs/1/result '{"status":"succeeded","output":{"tag":"again"}}'
	atf_check -o match:'note 1 tagged "recipes"$' cat notes.out
	atf_check -s exit:1 grep -q -e 'tagged "again"' -e 'tagged "car"' notes.out
	# An output of the wrong shape is refused, and the note still held.
	call 200 POST /jobs/claim '{"capabilities":["claude"],"limit":1}'
	job_is id '2'
	call 400 POST /jobs/2/result '{"status":"succeeded","output":{"tags":["x"]}}'
	call 200 POST /jobs/2/result '{"status":"succeeded","output":{"tag":"car\u001b[2J"}}'
	atf_check -o match:'note 2 tagged "car\\u001b\[2J"$' cat notes.out
}
notes_cleanup()
{
	stop_source notes
}

atf_test_case scans cleanup
scans_head()
{
	atf_set "descr" "scans.py: 401 without the token (control: 200 with it) under /api/worker, ping counts the images, a claim hands out an ocr job with the built-in PNG and none for claude alone, a result is taken once and 409 after, scans prints the text; -dir hands out a folder's images"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "curl python3"
}
scans_body()
{
	start_source scans
	atf_check -o match:"scans: 1 image\\(s\\) waiting at http://127.0.0.1:[0-9]+/api/worker\$" cat scans.out
	URL=${URL%/api/worker}
	refusals /api/worker
	# The calls are under the address's path, and nowhere else.
	call 404 GET /ping
	call 200 GET /api/worker/ping
	atf_check -o inline:'{"waiting": 1}\n' cat answer.json
	call 200 POST /api/worker/jobs/claim '{"capabilities":["claude"],"limit":1}'
	atf_check -o inline:'{"jobs": []}\n' cat answer.json
	call 200 POST /api/worker/jobs/claim '{"capabilities":["claude","ocr"],"limit":1}'
	job_is id '1'
	job_is capability '"ocr"'
	# The input is strict base64 of a PNG: what the ocr box takes.
	job input | python3 -c 'import base64, json, sys
image = base64.b64decode(json.load(sys.stdin)["image"], validate=True)
assert image.startswith(b"\x89PNG\r\n\x1a\n"), image[:8]' ||
	    atf_fail "the input is not {\"image\": <base64 of a PNG>}"
	call 200 GET /api/worker/ping
	atf_check -o inline:'{"waiting": 0}\n' cat answer.json
	call 200 POST /api/worker/jobs/1/result '{"status":"succeeded","output":{"text":"HELLO WORLD"}}'
	call 409 POST /api/worker/jobs/1/result '{"status":"succeeded","output":{"text":"again"}}'
	atf_check -o match:'image 1 \(built-in\) reads "HELLO WORLD"$' cat scans.out
	atf_check -s exit:1 grep -q 'reads "again"' scans.out
	stop_source scans
	# A folder: its images, by name, and nothing else of it.
	mkdir pics
	printf '\211PNG\r\n\032\nfirst' > pics/a.png
	printf '\377\330\377second' > pics/b.jpg
	echo 'not an image' > pics/notes.txt
	start_source scans -dir pics
	URL=${URL%/api/worker}
	call 200 GET /api/worker/ping
	atf_check -o inline:'{"waiting": 2}\n' cat answer.json
	call 200 POST /api/worker/jobs/claim '{"capabilities":["ocr"],"limit":1}'
	job_is input '{"image": "iVBORw0KGgpmaXJzdA=="}'
	call 200 POST /api/worker/jobs/1/result '{"status":"failed","error":"the image is truncated"}'
	atf_check -o match:'image 1 \(a.png\) failed: the image is truncated$' cat scans.out
}
scans_cleanup()
{
	stop_source scans
}

atf_test_case scans_tls cleanup
scans_tls_head()
{
	atf_set "descr" "scans.py -cert -key serves https, as examples/sources/scans.yaml's address has it: a ping verified against the CA succeeds, and plain http to it fails"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "curl openssl python3"
}
scans_tls_body()
{
	sh "$(atf_config_get checkout)/regress/lib/ca.sh" ca scans.home.arpa ||
	    atf_fail "ca.sh"
	start_source scans -cert ca/scans.home.arpa.crt -key ca/scans.home.arpa.key
	atf_check -o match:"waiting at https://127.0.0.1:[0-9]+/api/worker\$" cat scans.out
	port=$(echo "$URL" | sed 's|https://127.0.0.1:\([0-9]*\)/.*|\1|')
	atf_check -o inline:'{"waiting": 1}\n' curl -s --cacert ca/ca.crt \
	    --resolve "scans.home.arpa:$port:127.0.0.1" \
	    -H "Authorization: Bearer $TOKEN" \
	    "https://scans.home.arpa:$port/api/worker/ping"
	atf_check -s not-exit:0 -o ignore -e ignore curl -s -m 5 \
	    -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/api/worker/ping"
	# The server lives on after the failed handshake.
	atf_check -o inline:'{"waiting": 1}\n' curl -s --cacert ca/ca.crt \
	    --resolve "scans.home.arpa:$port:127.0.0.1" \
	    -H "Authorization: Bearer $TOKEN" \
	    "https://scans.home.arpa:$port/api/worker/ping"
	# -cert alone is refused, naming both.
	atf_check -s exit:2 -e match:'-cert and -key go together' python3 \
	    "$(atf_config_get checkout)/examples/scans.py" -listen \
	    127.0.0.1:0 -token-file token -cert ca/scans.home.arpa.crt
}
scans_tls_cleanup()
{
	stop_source scans
}

atf_init_test_cases()
{
	atf_add_test_case notes
	atf_add_test_case scans
	atf_add_test_case scans_tls
}
