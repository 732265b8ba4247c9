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

atf_init_test_cases()
{
	atf_add_test_case first_job
}
