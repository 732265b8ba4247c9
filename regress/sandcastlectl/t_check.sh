#! /usr/bin/env atf-sh
# sandcastlectl check: the keep, Landlock, configuration, secrets, internal
# exception and gate lines, in order, with a FAIL for each rule a secret
# breaks and exit 1, never a byte of a secret in what it prints.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"

CANARY=SCTEST-CANARY-91ab

# mksections: ./sections ARGS runs ./ctl ARGS and holds its exit status to
# its lines (1 when any line is FAIL, else 0: exit 3 and why otherwise),
# then prints the lines of the sections these tests are about, leaving
# out Landlock's (they depend on the kernel: the case landlock proves
# them), the toolbox's and the capabilities' (their boxes need images and a
# reachable API: regress/launcher/t_job_e2e.sh proves those) and the
# sources' pings (no source is reachable here: t_check_sources.sh
# proves those) and the gate's network (no gate runs here: the same
# file proves it), and exits
# 1 when one of the lines it printed is FAIL, else 0.
mksections()
{
	cat > sections <<'EOS'
#!/bin/sh
./ctl "$@" > sections.all 2> sections.err
st=$?
cat sections.err >&2
want=0
grep -q '^FAIL' sections.all && want=1
if [ "$st" -ne "$want" ]; then
	cat sections.all >&2
	echo "check exited $st, its lines ask for $want" >&2
	exit 3
fi
grep -v '^[a-zA-Z]* *\(landlock\|toolbox\|capability [a-z]*\):' sections.all |
    grep -v '^\(ok\|FAIL\) *source [a-z0-9_-]*: ' |
    grep -v '^[a-zA-Z]* *gate: \(no gate answers\|its network\)' > sections.out
cat sections.out
! grep -q '^FAIL' sections.out
EOS
	chmod 0755 sections
}

# good_setup: the good fixture with its three secrets set.
good_setup()
{
	sc_setup
	sc_mkctl
	mksections
	sc_fixture regress/sandcastlectl/fixtures/good
	sc_secret claude "$CANARY-claude"
	sc_secret notes "$CANARY-notes"
	sc_secret recipes "$CANARY-recipes"
	start_keep
}

# start_keep: keepd for the test's configuration, serving keep.sock.
start_keep()
{
	sc_start keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_file "$SC_RUN/sandcastle/keep.sock" 10 ||
	    { sc_log keepd; atf_fail "keepd does not serve"; }
	KEEP_OK="ok    keep: ready at $SC_RUN/sandcastle/keep.sock, with 3 destination(s)"
	DATA_OK="ok    data_dir: $SC_HOME/.local/share/sandcastle/jobs: not made yet; the core makes it when it starts"
}

# as_user_file NAME: writes stdin to the secret NAME as the account, mode 0600.
as_user_file()
{
	rm -rf "$SC_SECRETS/$1"
	cat > "$SC_SECRETS/$1"
	chown "$SC_USER:$SC_USER" "$SC_SECRETS/$1"
	chmod 0600 "$SC_SECRETS/$1"
}

# expect_rule RULE: check fails on notes for RULE, and only on notes.
expect_rule()
{
	./sections check > out 2> err && { cat out; atf_fail "check passed: $1"; }
	cat out
	grep -qxF "FAIL  secret notes: $1; set it again with sandcastlectl secret set notes" out ||
	    atf_fail "no FAIL line for: $1"
	[ "$(grep -c '^FAIL' out)" -eq 1 ] || atf_fail "other lines failed: $1"
	grep -qxF "ok    secret claude: usable" out || atf_fail "claude: $1"
	grep -qxF "ok    secret recipes: usable" out || atf_fail "recipes: $1"
	! grep -q CANARY out err || atf_fail "check printed a secret: $1"
}

atf_test_case good cleanup
good_head()
{
	atf_set "descr" "a good setup: ok lines only, in order, and exit 0"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
good_body()
{
	good_setup
	cat > expout <<EOF
$KEEP_OK
ok    configuration: $SC_CONFIG: 2 source(s) (notes, recipes); capabilities claude, ocr
$DATA_OK
ok    secret claude: usable
ok    secret notes: usable
ok    secret recipes: usable
EOF
	atf_check -s exit:0 -o file:expout -e empty ./sections check
}
good_cleanup()
{
	sc_cleanup
}

atf_test_case missing_and_unused cleanup
missing_and_unused_head()
{
	atf_set "descr" "a missing secret is a FAIL, an unused one a warn after the named ones"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
missing_and_unused_body()
{
	good_setup
	sc_secret old-token "$CANARY"
	cat > expout <<EOF
$KEEP_OK
ok    configuration: $SC_CONFIG: 2 source(s) (notes, recipes); capabilities claude, ocr
$DATA_OK
ok    secret claude: usable
ok    secret notes: usable
ok    secret recipes: usable
warn  secret old-token: unused: no destination names it; remove it with sandcastlectl secret rm old-token
EOF
	# A warn alone does not fail.
	atf_check -s exit:0 -o file:expout -e empty ./sections check
	rm "$SC_SECRETS/claude"
	sed -i 's/^ok    secret claude: usable$/FAIL  secret claude: missing; set it with sandcastlectl secret set claude/' expout
	atf_check -s exit:1 -o file:expout -e empty ./sections check
}
missing_and_unused_cleanup()
{
	sc_cleanup
}

atf_test_case secret_rules cleanup
secret_rules_head()
{
	atf_set "descr" "each rule a secret's file breaks is its own FAIL line, and exit 1"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
secret_rules_body()
{
	good_setup
	# Control: every secret is usable before each one is broken.
	atf_check -o not-match:FAIL ./sections check

	rm "$SC_SECRETS/notes"
	sc_as_user ln -s recipes "$SC_SECRETS/notes"
	expect_rule "is a symbolic link"

	rm "$SC_SECRETS/notes"
	sc_as_user mkfifo -m 0600 "$SC_SECRETS/notes"
	expect_rule "is not a regular file"

	rm "$SC_SECRETS/notes"
	sc_as_user mkdir -m 0700 "$SC_SECRETS/notes"
	expect_rule "is not a regular file"
	rmdir "$SC_SECRETS/notes"

	printf '%s' "$CANARY" > "$SC_SECRETS/notes"
	chown root:root "$SC_SECRETS/notes"
	chmod 0600 "$SC_SECRETS/notes"
	expect_rule "is not yours (owner uid 0)"

	printf '%s' "$CANARY" | as_user_file notes
	chmod 0640 "$SC_SECRETS/notes"
	expect_rule "group or others have access (mode 0640)"
	chmod 0604 "$SC_SECRETS/notes"
	expect_rule "group or others have access (mode 0604)"

	: | as_user_file notes
	expect_rule "is empty"

	{ printf '%s' "$CANARY"; head -c 16400 /dev/zero | tr '\0' a; } |
	    as_user_file notes
	expect_rule "is larger than 16 KiB"

	printf '%s\n%s\n' "$CANARY" "$CANARY" | as_user_file notes
	expect_rule "holds a line break before its end"

	printf '%s\r\n' "$CANARY" | as_user_file notes
	expect_rule "holds a control character"
	printf 'a\t%s\n' "$CANARY" | as_user_file notes
	expect_rule "holds a control character"
	printf '%s\177\n' "$CANARY" | as_user_file notes
	expect_rule "holds a control character"

	# Control: setting it again makes it usable.
	printf '%s\n' "$CANARY" > value
	atf_check -o ignore ./ctl secret set notes < value
	atf_check -s exit:0 -o match:"^ok    secret notes: usable$" ./sections check
}
secret_rules_cleanup()
{
	sc_cleanup
}

atf_test_case secrets_folder cleanup
secrets_folder_head()
{
	atf_set "descr" "a secrets folder others can open is one FAIL, and check stops there, saying in one line what it did not check"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
secrets_folder_body()
{
	good_setup
	chmod 0755 "$SC_SECRETS"
	cat > expout <<EOF
$KEEP_OK
ok    configuration: $SC_CONFIG: 2 source(s) (notes, recipes); capabilities claude, ocr
$DATA_OK
FAIL  secrets: $SC_SECRETS: group or others have access (mode 0755): chmod 700 $SC_SECRETS
warn  check: not checked until the secrets line above passes: internal exceptions, toolbox and images, sources, capabilities and gate
EOF
	atf_check -s exit:1 -o file:expout -e empty ./sections check
	# Control: as the line says.
	sc_as_user chmod 700 "$SC_SECRETS"
	atf_check -s exit:0 -o match:"^ok    secret notes: usable$" ./sections check
}
secrets_folder_cleanup()
{
	sc_cleanup
}

# holds_expect: the toolbox's lines of what holds each limit, written from
# the design: the cgroup's where cgroup v2 has memory, pids and cpu as
# whole words of the user manager's cgroup.controllers, or of check's
# own cgroup without one; the rlimits' elsewhere.
holds_expect()
{
	uid=$(id -u "$SC_USER")
	mgr=/sys/fs/cgroup/user.slice/user-$uid.slice/user@$uid.service/cgroup.controllers
	own=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)/cgroup.controllers
	held=no
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
		for f in "$mgr" "$own"; do
			[ -r "$f" ] || continue
			w=$(tr ' ' '\n' < "$f")
			echo "$w" | grep -qx memory && echo "$w" | grep -qx pids &&
			    echo "$w" | grep -qx cpu && { held=yes; break; }
		done
	fi
	if [ "$held" = yes ]; then
		cat <<EOF
ok    toolbox: box.memory held by cgroup v2 (--memory, no swap) and the data rlimit
ok    toolbox: box.cpus held by cgroup v2 (--cpus)
ok    toolbox: box.pids held by cgroup v2 (--pids-limit) and the nproc rlimit
EOF
	else
		cat <<EOF
warn  toolbox: box.memory held by the data rlimit alone, which bounds each process's data, so a box may use up to box.pids times it (no cgroup v2 memory controller delegated here)
warn  toolbox: box.cpus held by nothing but the time limit (no cgroup v2 cpu controller delegated here)
ok    toolbox: box.pids held by the nproc rlimit
EOF
	fi
	cat <<EOF
ok    toolbox: box.tmp held by the size of its tmpfs and the fsize rlimit
ok    toolbox: timeout held by the launcher's time limit and the cpu rlimit
EOF
}

atf_test_case holds cleanup
holds_head()
{
	atf_set "descr" "the toolbox's lines of what holds each box limit, word for word: without cgroup v2's controllers, box.memory, the data rlimit of each process, warns as box.cpus does"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
holds_body()
{
	good_setup
	holds_expect > expout
	./ctl check > all 2>&1
	atf_check -o file:expout grep '^[a-zA-Z]* *toolbox: [a-z.]* held by ' all
}
holds_cleanup()
{
	sc_cleanup
}

atf_test_case configuration cleanup
configuration_head()
{
	atf_set "descr" "a broken configuration: one FAIL line per problem, then one line saying what was not checked"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
configuration_body()
{
	sc_setup
	sc_mkctl
	mksections
	sc_fixture regress/sandcastlectl/fixtures/broken
	sc_secret notes "$CANARY"
	./sections check > out 2> err && atf_fail "check passed a broken configuration"
	cat out err
	[ -s err ] && atf_fail "check wrote to stderr"
	# No keep can start on it; every other line is a configuration FAIL,
	# naming the file and the line.
	head -n 1 out | grep -q '^FAIL  keep: the keep does not answer at ' ||
	    atf_fail "the first line is not the keep's"
	sed 1d out | grep -v '^FAIL  configuration: ' > others
	atf_check -o inline:"warn  check: not checked until the configuration line above passes: units, secrets, internal exceptions, toolbox and images, sources, capabilities and gate\n" \
	    cat others
	grep -q "^FAIL  configuration: $SC_CONFIG/config.yaml:[0-9]*: .*colour" out ||
	    atf_fail "the unknown key is not named"
	grep -q "^FAIL  configuration: $SC_CONFIG/config.yaml:[0-9]*: .*retention_days" out ||
	    atf_fail "the value out of range is not named"
	grep -q "^FAIL  configuration: $SC_CONFIG/sources/notes.yaml:[0-9]*: .*destination" out ||
	    atf_fail "the missing destination is not named"
	# No configuration folder at all.
	rm -rf "$SC_CONFIG"
	atf_check -s exit:1 -o match:"^FAIL  configuration: $SC_CONFIG" \
	    -o not-match:"^[a-zA-Z]* *secret" ./sections check
	# Control: the good fixture passes in the same tree.
	sc_fixture regress/sandcastlectl/fixtures/good
	atf_check -s exit:1 -o match:"^ok    configuration: " \
	    -o match:"^FAIL  secret claude: missing" ./sections check
}
configuration_cleanup()
{
	sc_cleanup
}

atf_test_case keep cleanup
keep_head()
{
	atf_set "descr" "no keep: a FAIL line that says how to start it by hand where no unit is, the lines that need no keep still come, no gate line; its command, run as printed, starts the keep: then ok, and a gate line whose command is gated's, with the folders check was given"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
keep_body()
{
	good_setup
	sc_stop keepd
	cat > expout <<EOF
FAIL  keep: the keep does not answer at $SC_RUN/sandcastle/keep.sock (No such file or directory); start it in a terminal of its own: $(sc_bin keepd) -d -c $SC_CONFIG -s $SC_SECRETS
ok    configuration: $SC_CONFIG: 2 source(s) (notes, recipes); capabilities claude, ocr
$DATA_OK
ok    secret claude: usable
ok    secret notes: usable
ok    secret recipes: usable
EOF
	atf_check -s exit:1 -o file:expout -e empty ./sections check
	# Something that answers there but is not the keep.
	cat > impostor.py <<EOF
import socket
s = socket.socket(socket.AF_UNIX)
s.bind("$SC_RUN/sandcastle/keep.sock")
s.listen(1)
c, _ = s.accept()
c.recv(64)
c.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + bytes(16))
c.close()
EOF
	sc_as_user python3 "$PWD/impostor.py" &
	sc_wait_file "$SC_RUN/sandcastle/keep.sock" 5 || atf_fail "no impostor"
	atf_check -s exit:1 -o match:"^FAIL  keep: the keep does not answer at $SC_RUN/sandcastle/keep.sock \(" ./sections check
	wait
	rm -f "$SC_RUN/sandcastle/keep.sock"
	# Without the keep, nothing runs: no line of the gate's network.
	./ctl check > all 2>&1
	grep -q '^[a-zA-Z]* *gate: ' all && { cat all; atf_fail "a gate line without the keep"; }
	# Control: the line's command, run as printed (the folder of its
	# terminal is the work folder), starts a keep that answers.
	cmd=$(sed -n 's/^FAIL  keep: .*; start it in a terminal of its own: //p' all)
	[ -n "$cmd" ] || { cat all; atf_fail "no command in the keep's line"; }
	: > "$SC_ROOT/log/keepd.log"
	setpriv --reuid="$SC_USER" --regid="$SC_USER" --init-groups \
	    --inh-caps=-all -- env -i HOME="$SC_HOME" \
	    XDG_RUNTIME_DIR="$SC_RUN" PATH=/usr/bin:/bin:/usr/sbin:/sbin \
	    LC_ALL=C.UTF-8 sh -c "exec $cmd" > "$SC_ROOT/log/keepd.log" 2>&1 &
	echo $! > "$SC_ROOT/log/keepd.pid"
	sc_wait_file "$SC_RUN/sandcastle/keep.sock" 10 ||
	    { sc_log keepd; atf_fail "$cmd: no keep.sock"; }
	atf_check -s exit:0 -o save:out ./sections check
	grep -qxF "$KEEP_OK" out || atf_fail "no ok line for the keep"
	# No units here: the gate's line names gated by hand, not a unit
	# (t_check_sources.sh gate_network runs it, on a test network).
	grep -qxF "warn  gate: no gate answers at $SC_RUN/sandcastle/gate.sock: No such file or directory; its network was not looked at; start it in a terminal of its own: $(sc_bin gated) -d -c $SC_CONFIG" sections.all ||
	    { cat sections.all; atf_fail "no gate line naming gated"; }
}
keep_cleanup()
{
	sc_cleanup
}

atf_test_case keep_stopped_starting cleanup
keep_stopped_starting_head()
{
	atf_set "descr" "SIGTERM the moment keep.sock appears, ten times: keepd exits 0 and removes it each time, so check's line reads No such file, not a refused connection; control: a SIGKILL there leaves the socket, and check says it is refused"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
keep_stopped_starting_body()
{
	good_setup
	sc_stop keepd
	sock=$SC_RUN/sandcastle/keep.sock
	# A loop with no sleep: the signal comes within microseconds of the
	# bind, while keepd still enters its namespace and puts on its locks.
	printf '%s\n' 'import os, signal, sys' \
	    'pid, sig = int(sys.argv[1]), getattr(signal, sys.argv[2])' \
	    'while not os.path.exists(sys.argv[3]):' '	pass' \
	    'os.kill(pid, sig)' > kill_at.py
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sc_start keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
		python3 kill_at.py "$(cat "$SC_ROOT/log/keepd.pid")" SIGTERM "$sock"
		sc_stop keepd
		[ "$SC_STATUS" -eq 0 ] ||
		    { sc_log keepd; atf_fail "run $i: keepd exited $SC_STATUS"; }
		[ -e "$sock" ] && atf_fail "run $i: keep.sock is left"
	done
	atf_check -s exit:1 -o match:"^FAIL  keep: .*\(No such file or directory\)" ./sections check
	# Control: a SIGKILL, which no process can hold, leaves it.
	sc_start keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	python3 kill_at.py "$(cat "$SC_ROOT/log/keepd.pid")" SIGKILL "$sock"
	sc_stop keepd
	[ -S "$sock" ] || atf_fail "no socket left by a SIGKILL"
	atf_check -s exit:1 -o match:"^FAIL  keep: .*\(Connection refused\)" ./sections check
}
keep_stopped_starting_cleanup()
{
	sc_cleanup
}

atf_test_case internal_exceptions cleanup
internal_exceptions_head()
{
	atf_set "descr" "each internal exception is a warn line every time, and http:// beside one a second; control: a destination without one has none"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
internal_exceptions_body()
{
	good_setup
	sc_stop keepd
	cat > "$SC_CONFIG/sources/lan.yaml" <<EOF
name: lan
destination:
  address: http://lan.home.arpa:8080/api
  secret: notes
  internal: 192.168.1.20:8080
poll_interval: 30s
capabilities: [claude]
max_jobs_per_hour: 10
job_timeout: 5m
EOF
	cat > "$SC_CONFIG/sources/scans.yaml" <<EOF
name: scans
destination:
  address: https://scans.home.arpa/api
  secret: notes
  internal: 10.1.2.3:443
poll_interval: 30s
capabilities: [ocr]
max_jobs_per_hour: 10
job_timeout: 5m
EOF
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	start_keep
	./sections check > out || { cat out; atf_fail "check failed"; }
	cat out
	cat > expected <<EOF
warn  source lan: internal exception: the gate lets 192.168.1.20:8080 through for lan.home.arpa
warn  source lan: http:// is outside the promise: nothing encrypts the way to 192.168.1.20:8080
warn  source scans: internal exception: the gate lets 10.1.2.3:443 through for scans.home.arpa
EOF
	atf_check -o file:expected grep '^warn  source' out
	# Control: notes and recipes have none.
	atf_check -s exit:1 grep -q 'source notes\|source recipes' out
}
internal_exceptions_cleanup()
{
	sc_cleanup
}

atf_test_case gate_refusals cleanup
gate_refusals_head()
{
	atf_set "descr" "the gate's refusals of the last hour: one warn line per destination with the count, the last and what to do; older ones are not shown"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
gate_refusals_body()
{
	good_setup
	now=$(date +%s)
	st=$SC_HOME/.local/state/sandcastle
	mkdir -p "$st"
	cat > "$st/gate-refusals" <<EOF
$((now - 7200)) recipes recipes.example.com 443 192.168.1.9 internal
$((now - 600)) notes notes.example.com 443 192.168.1.30 internal
$((now - 60)) notes notes.example.com 443 192.168.1.31 internal
EOF
	chown -R "$SC_USER:$SC_USER" "$SC_HOME/.local"
	chmod 0600 "$st/gate-refusals"
	at=$(date -d "@$((now - 60))" +%H:%M:%S)
	./sections check > out || { cat out; atf_fail "check failed on warn lines"; }
	cat out
	atf_check -o match:"^warn  gate: refused notes 2 time\(s\) in the last hour, last at $at \(notes.example.com 192.168.1.31\): the name resolves to the internal network; give it an internal exception" \
	    tail -n 1 out
	# The refusal of two hours ago is not shown.
	atf_check -s exit:1 grep -q 'refused recipes' out
}
gate_refusals_cleanup()
{
	sc_cleanup
}

atf_test_case data_dir_full cleanup
data_dir_full_head()
{
	atf_set "descr" "F1: a data_dir on a full disk is a FAIL line that says what the core does meanwhile; control: the same data_dir with room is ok, and says how much"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
data_dir_full_body()
{
	good_setup
	sc_stop keepd
	data=$SC_ROOT/data
	mkdir "$data"
	mount -t tmpfs -o size=1m,mode=0700 sctest-data "$data" ||
	    atf_fail "cannot mount a tmpfs"
	echo "$data" > data_mount
	chown "$SC_USER:$SC_USER" "$data"
	sed -i "1i data_dir: $data" "$SC_CONFIG/config.yaml"
	start_keep
	# Control: with room, ok, and the room said.
	atf_check -s exit:0 -o match:"^ok    data_dir: $data: writable, 1 MiB free$" ./sections check
	head -c 2m /dev/zero > "$data/.fill" 2>/dev/null
	./sections check > out && { cat out; atf_fail "check passed a full data_dir"; }
	cat out
	grep -qxF "FAIL  data_dir: $data: a record cannot be written (No space left on device): free space there; until then the core holds each result until its record is written, and claims no job" out ||
	    atf_fail "no FAIL line for the full data_dir"
	[ "$(grep -c '^FAIL' out)" -eq 1 ] || atf_fail "other lines failed"
	[ -z "$(ls -A "$data" | grep -v '^.fill$')" ] || atf_fail "check left a file in data_dir"
	rm "$data/.fill"
	atf_check -s exit:0 -o match:"^ok    data_dir: $data: writable" ./sections check
}
data_dir_full_cleanup()
{
	[ -f data_mount ] && umount "$(cat data_mount)"
	sc_cleanup
}

# box_limits CLAUDE OCR: the good fixture with each capability's box
# block (YAML flow mappings).
box_limits()
{
	cat > "$SC_CONFIG/config.yaml" <<EOF
capabilities:
  claude:
    destination:
      address: https://api.anthropic.com
      secret: claude
    model: claude-sonnet-4-5
    box: $1
  ocr:
    languages: [eng]
    box: $2
EOF
	chown "$SC_USER:$SC_USER" "$SC_CONFIG/config.yaml"
}

atf_test_case limits cleanup
limits_head()
{
	atf_set "descr" "each box limit above its default is a warn line naming the key, the value and the default; a box.memory below 128MiB a warn that no box starts there, which the capability's proof shows (its box does not run); the controls: every limit at its default, and box.memory at 128MiB, give neither line, and the proof's box runs"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
limits_body()
{
	good_setup
	sc_images
	box_limits "{ memory: 1GiB, cpus: 2.5, pids: 65, tmp: 32MiB }" \
	    "{ memory: 64MiB, cpus: 1, pids: 64, tmp: 64MiB }"
	./ctl check > out 2>&1
	cat out
	cat > expected <<EOF
warn  capability claude: box.memory 1GiB is above its default 256MiB: what the box then spends is outside the promise
warn  capability claude: box.cpus 2.5 is above its default 1: what the box then spends is outside the promise
warn  capability claude: box.pids 65 is above its default 64: what the box then spends is outside the promise
warn  capability claude: box.tmp 32MiB is above its default 16MiB: what the box then spends is outside the promise
warn  capability ocr: box.memory 64MiB is below 128MiB: a box cannot start below about 128MiB here (runc's own start needs it under the data rlimit)
EOF
	atf_check -o file:expected grep -e '^warn  capability [a-z]*: box\.' out
	grep -q '^ok    capability ocr: ' out &&
	    atf_fail "ocr's box ran in 64MiB: the warning is not true here"
	# The controls: the defaults, and 128MiB, warn of nothing, and
	# ocr's box runs.
	box_limits "{ memory: 256MiB, cpus: 1, pids: 64, tmp: 16MiB }" \
	    "{ memory: 128MiB, cpus: 1, pids: 64, tmp: 64MiB }"
	./ctl check > out 2>&1
	cat out
	atf_check -s exit:1 grep -e '^warn  capability [a-z]*: box\.' out
	grep -qxF "ok    capability ocr: usable (languages eng)" out ||
	    atf_fail "ocr's box did not run in 128MiB"
}
limits_cleanup()
{
	sc_cleanup
}

# jobs_config JOBS CLAUDE_JOBS CLAUDE_MIB: config.yaml at JOBS at once,
# claude's own jobs and box.memory, ocr's jobs config.yaml's and its
# boxes of 128MiB.
jobs_config()
{
	cat > "$SC_CONFIG/config.yaml" <<EOF
jobs: $1
capabilities:
  claude:
    destination:
      address: https://api.anthropic.com
      secret: claude
    model: claude-sonnet-4-5
    jobs: $2
    box: { memory: ${3}MiB }
  ocr:
    languages: [eng]
    box: { memory: 128MiB }
EOF
	chown "$SC_USER:$SC_USER" "$SC_CONFIG/config.yaml"
}

# mib N: N MiB as check writes a size, in GiB when it is whole.
mib()
{
	if [ $(($1 % 1024)) -eq 0 ]; then echo "$(($1 / 1024))GiB"; else echo "${1}MiB"; fi
}

# jobs_lines [WRAPPER]: check's lines of the jobs at once, run under WRAPPER.
jobs_lines()
{
	"$@" ./ctl check > all 2>&1
	grep -E '^(ok|warn) +(toolbox: jobs |capability [a-z]+: jobs )' all
}

atf_test_case jobs cleanup
jobs_head()
{
	atf_set "descr" "check names what holds the jobs at once, config.yaml's jobs and each source's and capability's below it; it warns where a capability's jobs times its box.memory is more than the machine's MemTotal, and where ocr's jobs are more than the processors it may run on (its affinity, as taskset sets it); the controls, within the machine, warn of neither"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "require.progs" "taskset nproc"
	atf_set "timeout" "300"
}
jobs_body()
{
	good_setup
	echo 'jobs: 1' >> "$SC_CONFIG/sources/notes.yaml"
	procs=$(nproc)
	mem=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	[ "$procs" -ge 2 ] && [ "$procs" -lt 32 ] ||
	    atf_skip "$procs processors: the case needs 2 to 31"
	[ "$mem" -gt $(((procs + 1) * 128)) ] && [ "$mem" -lt 131072 ] ||
	    atf_skip "${mem}MiB of memory: the case needs some, and below 128GiB"
	# Two claude boxes of more than half the machine's memory each.
	half=$((mem / 2 + 1))
	jobs_config $((procs + 1)) 2 "$half"
	cat > expected <<EOF
ok    toolbox: jobs at once held by config.yaml's jobs: $((procs + 1)) in all; by their own jobs: source notes 1, capability claude 2
warn  capability claude: jobs 2 times box.memory $(mib "$half") is $(mib $((2 * half))), more than this machine's memory (${mem}MiB): its boxes at once could run it out of memory; lower its jobs or its box.memory
warn  capability ocr: jobs $((procs + 1)) is more than this machine's $procs processor(s): its boxes at once share them, so more run no faster in all and each takes longer toward its timeout; lower its jobs to $procs
EOF
	jobs_lines > out
	cat out
	atf_check -o file:expected cat out
	# Control: one such claude box, and as many ocr boxes as processors.
	jobs_config "$procs" 1 "$half"
	echo "ok    toolbox: jobs at once held by config.yaml's jobs: $procs in all; by their own jobs: source notes 1, capability claude 1" > expected
	jobs_lines > out
	atf_check -o file:expected cat out
	# The same on one processor of its affinity warns of ocr.
	cat >> expected <<EOF
warn  capability ocr: jobs $procs is more than this machine's 1 processor(s): its boxes at once share them, so more run no faster in all and each takes longer toward its timeout; lower its jobs to 1
EOF
	jobs_lines taskset -c 0 > out
	atf_check -o file:expected cat out
	# Control: config.yaml's default, 1, for every source and capability.
	box_limits "{ memory: 256MiB }" "{ memory: 512MiB }"
	echo "ok    toolbox: jobs at once held by config.yaml's jobs: 1 in all, and for every source and capability" > expected
	jobs_lines taskset -c 0 > out
	atf_check -o file:expected cat out
}
jobs_cleanup()
{
	sc_cleanup
}

# landlock_expect ABI KERNEL: the landlock lines of check for a build that
# uses ABI on a kernel of KERNEL, written from the design, not the code.
landlock_expect()
{
	abi=$1 kernel=$2 tcp= scopes= gscope=
	[ "$abi" -ge 4 ] && tcp="; no TCP"
	[ "$abi" -ge 6 ] && scopes="; no signal or abstract socket beyond its own"
	[ "$abi" -ge 6 ] && gscope="; no abstract socket beyond its own"
	if [ "$kernel" -gt "$abi" ]; then
		echo "ok    landlock: ABI $abi (the kernel has $kernel; sandcastle uses no later one)"
	else
		echo "ok    landlock: ABI $abi"
	fi
	cat <<EOF
ok    landlock: sandcastled's parent sees no file but control.sock to remove$gscope
ok    landlock: core sees data_dir, read and write$scopes
ok    landlock: keep frontend sees no file$scopes
ok    landlock: box reader sees no file$scopes
ok    landlock: keepd sees the secrets folder, read only, and keep.sock to remove$tcp$scopes
ok    landlock: keepd's request child sees no file$tcp$scopes
ok    landlock: gated sees no file but gate.sock to remove$gscope
ok    landlock: gated's tunnel child sees no file$scopes
ok    landlock: sandcastle-box sees no file$tcp$scopes
ok    landlock: the box launcher has no ruleset: rootless podman cannot run under one (sandcastled(8))
EOF
	[ "$abi" -lt 3 ] && echo "warn  landlock: ABI $abi has no truncate(2) rule (ABI 3) for every process: every seccomp filter but the box's refuses truncate(2), and a box sees no file of the machine's"
	[ "$abi" -lt 4 ] && echo "warn  landlock: ABI $abi has no TCP rule (ABI 4) for keepd, keepd's request child and sandcastle-box: keepd and its requests make Unix sockets only, in a network namespace of their own, and a box has no network"
	[ "$abi" -lt 6 ] && echo "warn  landlock: ABI $abi has no abstract socket scoping (ABI 6) for every process: only the keep frontend is in the machine's network namespace with Unix sockets, and could reach an abstract socket there"
	[ "$abi" -lt 6 ] && echo "warn  landlock: ABI $abi has no signal scoping (ABI 6) for core, keep frontend, box reader, keepd, keepd's request child, gated's tunnel child and sandcastle-box: keepd's filter lets it kill(2), for its requests, and it could signal the account's other processes"
	return 0
}

atf_test_case landlock cleanup
landlock_head()
{
	atf_set "descr" "the landlock lines, after the keep's: this kernel's ABI and each process's view, a warning for each right the ABI lacks; on ABI 1, a test build of check, all four warnings"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "require.progs" "python3"
}
landlock_body()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	# The kernel's ABI, asked apart from sandcastle's code (x86_64's 444).
	kernel=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
	[ "$kernel" -ge 1 ] || atf_fail "this kernel has no Landlock ($kernel)"
	abi=$kernel
	[ "$abi" -gt 7 ] && abi=7
	landlock_expect "$abi" "$kernel" > expout
	./ctl check > all 2>&1
	atf_check -o file:expout grep '^[a-zA-Z]* *landlock:' all
	sed -n 2p all | grep -q '^ok    landlock: ABI' ||
	    { cat all; atf_fail "the landlock lines do not follow the keep's"; }
	cat > ctl1 <<EOF
#!/bin/sh
exec '$PWD/asuser' '$(atf_config_get prefix)/libexec/sandcastlectl-abi1' -c '$SC_CONFIG' -s '$SC_SECRETS' "\$@"
EOF
	chmod 0755 ctl1
	landlock_expect 1 "$kernel" > expout
	./ctl1 check > all 2>&1
	atf_check -o file:expout grep '^[a-zA-Z]* *landlock:' all
}
landlock_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case landlock
	atf_add_test_case keep
	atf_add_test_case keep_stopped_starting
	atf_add_test_case internal_exceptions
	atf_add_test_case gate_refusals
	atf_add_test_case good
	atf_add_test_case missing_and_unused
	atf_add_test_case secret_rules
	atf_add_test_case secrets_folder
	atf_add_test_case holds
	atf_add_test_case configuration
	atf_add_test_case data_dir_full
	atf_add_test_case limits
	atf_add_test_case jobs
}
