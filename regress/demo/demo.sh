#!/bin/sh
# make demo: a first job end to end on this machine.  As root, since it
# makes the test account and network namespaces of its own; everything
# of sandcastle runs as the account sctest.  The namespaces make a home
# network (net.subr's sc_home_up): the machine's one interface on
# 192.168.1.20/24, the router on 192.168.1.1 (also its resolver), a NAS
# and a printer on the same /24.  As GETTING STARTED tells an operator,
# examples/scans.py listens on the machine's own address,
# 192.168.1.20:8080 (plain http), and sandcastle reaches it by an
# internal exception to that address: an ocr job, no API key.
# Everything it made goes when it ends: namespaces, processes, the tree
# under /tmp and the private prefix.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=${1:-/var/tmp/sandcastle-demo}
WAIT=${DEMO_WAIT:-60}
SCANS_PORT=8080
READY="running: core, keep-frontend and box launcher are ready"
# Written into the prefix, so that only a prefix of ours is ever removed.
MARK=.sandcastle-demo

say() { echo "demo: $*"; }
die() { echo "demo: $*" >&2; exit 1; }

# The suite's helpers, outside Kyua.
atf_fail() { die "$*"; }
atf_config_get()
{
	case $1 in
	prefix)		echo "$PREFIX" ;;
	checkout)	echo "$TOP" ;;
	esac
}
SC_WAITFOR=$TOP/regress/lib/waitfor
. "$TOP/regress/lib/helpers.subr"
. "$TOP/regress/lib/net.subr"

# indent FILE: a program's output under the step that ran it, every
# line ended (a record's JSON has no final newline).
indent() { awk '{ print "    " $0 }' "$1"; }

# run_logged WHAT CMD...: CMD with its output in the demo's log; on a
# failure, the output and WHAT failed.
run_logged()
{
	_what=$1; shift
	"$@" > "$DEMO_WORK/step.out" 2>&1 && return 0
	indent "$DEMO_WORK/step.out" >&2
	die "$_what failed"
}

done_demo()
{
	st=$?
	# Nothing may stop the cleanup half done, not even a closed output.
	trap '' INT TERM HUP PIPE
	trap - EXIT
	_gone=
	if [ -n "${SC_ROOT:-}" ]; then
		sc_net_down
		sc_cleanup
		_gone="namespaces, processes, $SC_ROOT, "
	fi
	if [ -f "$PREFIX/$MARK" ]; then
		rm -rf "$PREFIX"
		_gone="$_gone$PREFIX"
	fi
	cd / && rm -rf "$DEMO_WORK"
	[ -z "$_gone" ] || say "cleaned up: ${_gone%, }"
	exit $st
}

preflight()
{
	[ "$(id -u)" -eq 0 ] ||
	    die "run as root (sudo make demo): it makes the test account and network namespaces"
	for p in python3 curl ip dnsmasq setpriv; do
		command -v "$p" >/dev/null ||
		    die "$p is missing: run make deps first"
	done
	case $PREFIX in
	/?*) ;;
	*) die "the prefix $PREFIX is not an absolute path: set DEMOPREFIX" ;;
	esac
	[ ! -e "$PREFIX" ] || [ -f "$PREFIX/$MARK" ] ||
	    die "$PREFIX exists and is not a demo's: remove it or set DEMOPREFIX"
}

install_prefix()
{
	rm -rf "$PREFIX"
	install -d -m 0755 "$PREFIX" && : > "$PREFIX/$MARK" ||
	    die "cannot make $PREFIX"
	run_logged "make install PREFIX=$PREFIX" \
	    make -s -C "$TOP" install PREFIX="$PREFIX"
	say "installed into $PREFIX:" \
	    "$("$(sc_bin sandcastlectl)" version | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
}

setup_account()
{
	run_logged "regress/lib/accounts.sh" sh "$TOP/regress/lib/accounts.sh"
	run_logged "regress/lib/podman.sh" sh "$TOP/regress/lib/podman.sh"
	sc_setup
	say "account $SC_USER ready, its tree in $SC_ROOT"
}

setup_net()
{
	sc_home_up
	SCANS_ADDR=$SC_HOME_ADDR:$SCANS_PORT
	say "home network up: the machine $SC_NS_HOST on $SC_HOME_ADDR/24" \
	    "(the daemons, and scans at $SCANS_ADDR), its router" \
	    "$SC_NS_ROUTER on $SC_ROUTER, a NAS and a printer $SC_NS_LAN on" \
	    "$SC_NAS and $SC_PRINTER, the internet $SC_NS_WORLD"
}

# write_config: the ocr capability alone, and scans by its exception.
write_config()
{
	cat > "$SC_CONFIG/config.yaml" <<EOC
# make demo: ocr alone, so no API key is needed.
data_dir: $SC_HOME/jobs
capabilities:
  ocr:
    languages: [eng]
EOC
	cat > "$SC_CONFIG/sources/scans.yaml" <<EOC
# examples/scans.py on this machine's own address, as GETTING
# STARTED has it; the name need not resolve.
name: scans
destination:
  address: http://scans.home.arpa:8080/api/worker
  secret: scans
  internal: $SCANS_ADDR
poll_interval: 5s
capabilities: [ocr]
max_jobs_per_hour: 60
job_timeout: 3m
EOC
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	run_logged "sandcastled -n (the configuration in $SC_CONFIG)" \
	    sc_as_user "$(sc_bin sandcastled)" -n -c "$SC_CONFIG"
	say "configuration written and valid: $SC_CONFIG"
}

set_token()
{
	sc_secret scans "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
	say "secret scans set: a fresh token, in $SC_SECRETS/scans"
}

# start_scans: scans.py as the account on the machine, on its own
# address, reading the token from the secret's own file, as the
# tutorial has it.
start_scans()
{
	install -m 0644 -o "$SC_USER" "$TOP/examples/scans.py" \
	    "$TOP/examples/source.py" "$SC_ROOT/"
	ip netns exec "$SC_NS_HOST" setpriv --reuid="$SC_USER" \
	    --regid="$SC_USER" --init-groups --inh-caps=-all \
	    -- env -i HOME="$SC_HOME" PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
	    python3 "$SC_ROOT/scans.py" -listen "$SCANS_ADDR" \
	    -token-file "$SC_SECRETS/scans" \
	    > "$SC_ROOT/log/scans.log" 2> "$SC_ROOT/log/scans.calls" &
	echo $! > "$SC_ROOT/log/scans.pid"
	sc_wait_log scans " waiting at " 10 ||
	    { cat "$SC_ROOT/log/scans.log" "$SC_ROOT/log/scans.calls"; die "scans.py did not start"; }
	say "scans.py on the machine: $(sed -n 's/^[0-9/]* [0-9:]* //p' "$SC_ROOT/log/scans.log")"
}

# ping_scans: the source answers from the host namespace, with the token
# in a header file (never an argument, which ps would show).
ping_scans()
{
	printf 'Authorization: Bearer %s\n' "$(cat "$SC_SECRETS/scans")" \
	    > "$SC_SECRETS/.demo-header"
	chown "$SC_USER" "$SC_SECRETS/.demo-header"
	_p=$(sc_as_user_in_host curl -s -m 10 -H @"$SC_SECRETS/.demo-header" \
	    "http://$SCANS_ADDR/api/worker/ping")
	rm -f "$SC_SECRETS/.demo-header"
	case $_p in
	*'"waiting"'*) say "scans answers its ping from the host namespace: $_p" ;;
	*) die "scans does not answer at http://$SCANS_ADDR/api/worker/ping from the host namespace: $_p" ;;
	esac
}

build_images()
{
	say "building the box images (sandcastlectl install --images):"
	sc_as_user "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" install --images \
	    > "$SC_ROOT/log/install.log" 2>&1
	_st=$?
	if [ $_st -ne 0 ]; then
		indent "$SC_ROOT/log/install.log"
		die "sandcastlectl install --images failed"
	fi
	# Its own lines; podman's are in the log for a failure.
	grep '^install: ' "$SC_ROOT/log/install.log" | sed 's/^/    /'
}

# start_daemon NAME PATTERN ARGS...: NAME as the account in the host
# namespace, in the foreground, until its log says PATTERN.
start_daemon()
{
	_d=$1 _w=$2; shift 2
	sc_start_in_host "$_d" "$@"
	sc_wait_log "$_d" "$_w" 15 ||
	    { indent "$SC_ROOT/log/$_d.log"; die "$_d did not start"; }
	say "$_d started (pid $(sc_pid "$_d")): $(grep -m1 -e "$_w" "$SC_ROOT/log/$_d.log")"
}

start_daemons()
{
	start_daemon gated "serving " -d -c "$SC_CONFIG"
	start_daemon keepd "ready: " -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	start_daemon sandcastled "$READY" -d -c "$SC_CONFIG" -s "$SC_SECRETS"
}

# wait_result: the first result scans.py prints, within $WAIT seconds.
wait_result()
{
	say "waiting up to $WAIT s for the first result to reach scans.py"
	_re='image [0-9]* (.*) \(reads\|failed:\|released\)'
	if ! sc_wait_log scans "$_re" "$WAIT"; then
		RESULT=
		return 1
	fi
	RESULT=$(grep -m1 -e "$_re" "$SC_ROOT/log/scans.log" |
	    sed 's/^[0-9/]* [0-9:]* //')
	JOB=$(echo "$RESULT" | sed 's/^image \([0-9]*\) .*/\1/')
	say "scans.py got it: $RESULT"
}

# ctl WHAT ARGS...: sandcastlectl as the account in the host namespace.
ctl()
{
	say "sandcastlectl $*:"
	sc_as_user_in_host "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" \
	    -s "$SC_SECRETS" "$@" > "$DEMO_WORK/ctl.out" 2>&1
	indent "$DEMO_WORK/ctl.out"
}

timed_out()
{
	say "no result reached scans.py within $WAIT s."
	say "waited for: scans.py to print 'image 1 (built-in) reads \"...\"'," \
	    "once the core had claimed the job, run it in an ocr box and sent the result back."
	say "what scans.py was asked (its calls):"
	indent "$SC_ROOT/log/scans.calls"
	ctl check
	ctl show jobs
	say "the last lines of sandcastled's log:"
	tail -n 20 "$SC_ROOT/log/sandcastled.log" | sed 's/^/    /'
	say "FAILED: the first job did not come back"
	exit 1
}

DEMO_WORK=$(mktemp -d /tmp/scdemo.XXXXXXXX) || exit 1
# The account's programs start in it: it may enter, not list.
chmod 0711 "$DEMO_WORK"
cd "$DEMO_WORK" || exit 1
trap done_demo EXIT
trap 'exit 130' INT TERM HUP
trap 'exit 141' PIPE
preflight
install_prefix
setup_account
setup_net
write_config
set_token
start_scans
ping_scans
build_images
start_daemons
wait_result || timed_out
ctl check
ctl show jobs
ctl show job scans "$JOB"
if [ -f "$SC_HOME/jobs/scans/$JOB/output.json" ]; then
	say "what the box read, $SC_HOME/jobs/scans/$JOB/output.json:"
	indent "$SC_HOME/jobs/scans/$JOB/output.json"
fi
case $RESULT in
*" reads "*) say "done: the first job ran end to end" ;;
*) say "FAILED: the first job came back, but not with its text"; exit 1 ;;
esac
