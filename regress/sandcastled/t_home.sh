#! /usr/bin/env atf-sh
# The first job on a home network, as sandcastle(7)'s GETTING STARTED
# tells it: the machine's one interface on 192.168.1.20/24 with the
# router and other hosts on the same /24 (net.subr's sc_home_up), the
# example source examples/scans.py on the machine's own address,
# 192.168.1.20:8080, reached by an internal exception to that address,
# and a second on the NAS, 192.168.1.30:8080, by an exception to the
# NAS.  sandcastled, keepd and gated run as the test account in the
# machine's namespace, with real podman boxes.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

READY="running: core, keep-frontend and box launcher are ready"

# source_yaml NAME ADDRESS:PORT: a source of the example's kind, by its
# internal exception; the name need not resolve.
source_yaml()
{
	cat > "$SC_CONFIG/sources/$1.yaml" <<EOS
name: $1
destination:
  address: http://$1.home.arpa:${2#*:}/api/worker
  secret: $1
  internal: $2
poll_interval: 5s
capabilities: [ocr]
max_jobs_per_hour: 60
job_timeout: 3m
EOS
}

# scans NAME NS ADDRESS:PORT: examples/scans.py as the account in
# NS, its token read from the secret's own file, as the tutorial has it.
scans()
{
	sc_secret "$1" "tok-$1-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
	install -m 0644 -o "$SC_USER" "$(sc_srcdir)/examples/scans.py" \
	    "$(sc_srcdir)/examples/source.py" "$SC_ROOT/"
	: > "$SC_ROOT/log/$1.log"
	ip netns exec "$2" setpriv --reuid="$SC_USER" --regid="$SC_USER" \
	    --init-groups --inh-caps=-all -- env -i HOME="$SC_HOME" \
	    PATH=/usr/bin:/bin LC_ALL=C.UTF-8 python3 "$SC_ROOT/scans.py" \
	    -listen "$3" -token-file "$SC_SECRETS/$1" \
	    > "$SC_ROOT/log/$1.log" 2> "$SC_ROOT/log/$1.calls" &
	echo $! > "$SC_ROOT/log/$1.pid"
	sc_wait_log "$1" " waiting at " 10 ||
	    { sc_log "$1"; atf_fail "scans.py $1 did not start"; }
}

atf_test_case first_job cleanup
first_job_head()
{
	atf_set "descr" "N4: GETTING STARTED on a home network: a source on the machine's own address by an internal exception to it, and one on the NAS by its exception, each run a first ocr job end to end; check says both are reachable"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
first_job_body()
{
	sc_setup
	sc_home_up
	sc_ocr_config
	source_yaml scans "$SC_HOME_ADDR:8080"
	source_yaml nas "$SC_NAS:8080"
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	scans scans "$SC_NS_HOST" "$SC_HOME_ADDR:8080"
	scans nas "$SC_NS_LAN" "$SC_NAS:8080"
	images
	keep_up
	sc_start_in_host sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log sandcastled "$READY" 20 ||
	    { sc_log sandcastled; atf_fail "sandcastled did not start"; }
	for s in scans nas; do
		sc_wait_log "$s" 'image 1 (built-in) reads ' 120 ||
		    { sc_log "$s"; cat "$SC_ROOT/log/$s.calls"
		    sc_log sandcastled; sc_log gated; atf_fail "no result at $s"; }
		grep -q 'image 1 (built-in) reads "HELLO WORLD' \
		    "$SC_ROOT/log/$s.log" || { sc_log "$s"; atf_fail "$s: not its text"; }
		atf_check -o match:'"status":"succeeded"' \
		    cat "$SC_ROOT/data/$s/1/meta.json"
	done
	grep -q "tunnel scans: scans.home.arpa:8080 via $SC_HOME_ADDR" \
	    "$SC_ROOT/log/gated.log" || { sc_log gated; atf_fail "no tunnel to the machine"; }
	grep -q "tunnel nas: nas.home.arpa:8080 via $SC_NAS" \
	    "$SC_ROOT/log/gated.log" || { sc_log gated; atf_fail "no tunnel to the NAS"; }
	sc_as_user_in_host "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" \
	    -s "$SC_SECRETS" check > check.out 2>&1
	cat check.out
	for s in scans nas; do
		grep -q "^ok    source $s: reachable, 0 waiting$" check.out ||
		    atf_fail "check: $s is not reachable"
	done
	grep -q "^ok    gate: its network refuses every bogon and this machine" \
	    check.out || atf_fail "check: the gate's network"
}
first_job_cleanup()
{
	sc_net_cleanup
}

# logfmt FILE: the job lines of FILE as a log parser written for the
# manual's line reads them (its "… msg=job source=notes job=1 ...
# error="" ..."): key=value pairs, a value quoted or bare, "" empty;
# one JSON object a line, for the lines whose msg is job.
logfmt()
{
	python3 -c 'import json, re, sys
pair = re.compile(r"(\w+)=(\"(?:[^\"\\]|\\.)*\"|[^\s\"]*)(?=\s|$)")
for line in open(sys.argv[1]):
    kv = {k: json.loads(v) if v.startswith("\"") else v
          for k, v in pair.findall(line)}
    if kv.get("msg") == "job":
        print(json.dumps(kv, sort_keys=True))' "$1"
}

# ctl_check: check as the operator on the machine, in check.out.
ctl_check()
{
	sc_as_user_in_host "$(sc_bin sandcastlectl)" check > check.out 2>&1
	cat check.out
}

# notes_py: examples/notes.py as the manual starts it, as the account on
# the machine's address, its token read from the secret's own file.
notes_py()
{
	install -m 0644 -o "$SC_USER" "$(sc_srcdir)/examples/notes.py" \
	    "$(sc_srcdir)/examples/source.py" "$SC_ROOT/"
	: > "$SC_ROOT/log/notes.log"
	ip netns exec "$SC_NS_HOST" setpriv --reuid="$SC_USER" \
	    --regid="$SC_USER" --init-groups --inh-caps=-all -- env -i \
	    HOME="$SC_HOME" PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
	    python3 "$SC_ROOT/notes.py" -listen "$SC_HOME_ADDR:8080" \
	    -token-file "$SC_HOME/.local/share/sandcastle/secrets/notes" \
	    > "$SC_ROOT/log/notes.log" 2> "$SC_ROOT/log/notes.calls" &
	echo $! > "$SC_ROOT/log/notes.pid"
	sc_wait_log notes " waiting at " 10 ||
	    { sc_log notes; atf_fail "notes.py did not start"; }
}

atf_test_case first_job_notes cleanup
first_job_notes_head()
{
	atf_set "descr" "N4: sandcastle(7)'s Your first job as the manual writes it: examples/config.yaml and examples/sources/notes.yaml in the default folders (only the API's CA added), the two secrets set as it sets them, examples/notes.py on the machine's address, keepd, gated and sandcastled by hand against the suite's fake Messages API on the home network; check says notes is reachable with its two warnings; notes prints note 1 tagged \"...\", each note is tagged, the journal's job lines read as a parser of the manual's line reads them, and show job notes 1 says succeeded"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
first_job_notes_body()
{
	sc_setup
	sc_home_up
	SC_CONFIG=$SC_HOME/.config/sandcastle
	SC_SECRETS=$SC_HOME/.local/share/sandcastle/secrets
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" api.anthropic.com \
	    >/dev/null || atf_fail "ca.sh"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/ca"
	# The manual's step, and the one change the test network asks: the
	# API's certificate is the test CA's.
	mkdir -p "$SC_CONFIG/sources"
	chmod 700 "$SC_CONFIG"
	cp "$(sc_srcdir)/examples/config.yaml" "$SC_CONFIG/"
	cp "$(sc_srcdir)/examples/sources/notes.yaml" "$SC_CONFIG/sources/"
	sed -i "s|^      # ca_file: /etc/ssl/certs/ca-certificates.crt\$|      ca_file: $SC_ROOT/ca/ca.crt|" \
	    "$SC_CONFIG/config.yaml"
	grep -q "^      ca_file: $SC_ROOT/ca/ca.crt\$" "$SC_CONFIG/config.yaml" ||
	    atf_fail "examples/config.yaml has no ca_file line for claude"
	grep -q "^  internal: $SC_HOME_ADDR:8080\$" "$SC_CONFIG/sources/notes.yaml" ||
	    atf_fail "notes.yaml does not name the machine's address $SC_HOME_ADDR:8080"
	chown -R "$SC_USER:$SC_USER" "$SC_HOME"
	echo key-first-job | sc_as_user "$(sc_bin sandcastlectl)" secret set claude ||
	    atf_fail "secret set claude"
	head -c 32 /dev/urandom | base64 |
	    sc_as_user "$(sc_bin sandcastlectl)" secret set notes ||
	    atf_fail "secret set notes"
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	sc_scenario api.anthropic.com '{"default": {"text": "{\"tag\": \"recipes\"}"}}'
	images
	# The keep and the gate by hand, each as check says to start it:
	# the default folders, so the command names none.
	ctl_check
	grep -qxF "FAIL  keep: the keep does not answer at $SC_RUN/sandcastle/keep.sock (No such file or directory); start it in a terminal of its own: $(sc_bin keepd) -d" check.out ||
	    atf_fail "the keep's line does not say how to start it"
	sc_hint_run check.out keepd "FAIL  keep: "
	sc_wait_log keepd "ready: " 15 || { sc_log keepd; atf_fail "keepd is not ready"; }
	ctl_check
	grep -qxF "warn  gate: no gate answers at $SC_RUN/sandcastle/gate.sock: No such file or directory; its network was not looked at; start it in a terminal of its own: $(sc_bin gated) -d" check.out ||
	    atf_fail "the gate's line does not say how to start it"
	sc_hint_run check.out gated "warn  gate: "
	sc_wait_log gated "serving " 15 || { sc_log gated; atf_fail "gated does not serve"; }
	notes_py
	ctl_check
	for l in "ok    source notes: reachable, 3 waiting" \
	    "warn  source notes: internal exception: the gate lets $SC_HOME_ADDR:8080 through for notes.home.arpa" \
	    "warn  source notes: http:// is outside the promise: nothing encrypts the way to $SC_HOME_ADDR:8080" \
	    "ok    capability claude: usable"; do
		grep -qxF "$l" check.out || atf_fail "check: no line: $l"
	done
	sc_start_in_host sandcastled -d
	for n in 1 2 3; do
		sc_wait_log notes "note $n tagged \"recipes\"\$" 120 ||
		    { sc_log notes; cat "$SC_ROOT/log/notes.calls"; sc_log sandcastled
		    sc_log keepd; sc_log gated; atf_fail "notes printed no tag for note $n"; }
	done
	logfmt "$SC_ROOT/log/sandcastled.log" > jobs.json
	cat jobs.json
	python3 -c 'import json, sys
jobs = {j["job"]: j for j in map(json.loads, open(sys.argv[1]))}
assert sorted(jobs) == ["1", "2", "3"], sorted(jobs)
for j in jobs.values():
    assert j["source"] == "notes" and j["capability"] == "claude", j
    assert j["status"] == "succeeded" and j["error"] == "", j
    assert int(j["seconds"]) >= 0 and int(j["input_tokens"]) > 0, j
    assert int(j["output_tokens"]) > 0, j' jobs.json ||
	    { sc_log sandcastled; atf_fail "the job lines are not the manual's"; }
	sc_as_user "$(sc_bin sandcastlectl)" show job notes 1 > job.out 2>&1
	grep -q 'succeeded' job.out || { cat job.out; atf_fail "show job notes 1"; }
	atf_check -o match:'"status": *"succeeded"' \
	    cat "$SC_HOME/.local/share/sandcastle/jobs/notes/1/meta.json"
}
first_job_notes_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case first_job
	atf_add_test_case first_job_notes
}
