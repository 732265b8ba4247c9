#! /usr/bin/env atf-sh
# Level R of sandcastle-tests(7): the reference machine.  Run by make
# reference inside a Debian 12 guest under qemu (regress/reference/
# run.sh), never by Kyua on the host: systemd as PID 1, the operator's
# user manager with lingering, cgroup v2 with cpu, memory and pids
# delegated.  The cases run in the order guest.sh gives, each in a
# fresh atf-sh process, and build on each other as an operator's day
# does: install, the first job, the other accounts, the boxes' cgroups,
# the units killed, an upgrade, a reboot, a reinstall, the traffic.
# Each says what it saw (seen), which goes in the Test-runs record.

. "$(atf_get_srcdir)/guest.subr"

atf_test_case install
install_head()
{
	atf_set "descr" "I1: sandcastlectl install from a clean home, each step as GETTING STARTED tells it, runs to its end; its check fails only on the source, which does not run yet, and says the cgroup limits hold"
	atf_set "timeout" "1500"
}
install_body()
{
	[ ! -e "$OPHOME/.config/sandcastle" ] && [ ! -e "$OPHOME/.local" ] ||
	    fail "the operator's home is not clean"
	[ -e /var/lib/systemd/linger/op ] && fail "lingering is already on"
	mkdir -p "$STATE"
	chmod 0700 "$STATE"
	# The decoy secrets of A2: never seen but in their files.
	for s in scans lab; do
		echo "SCTEST-CANARY-$s-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" \
		    > "$STATE/canary-$s"
	done

	# 1. make && make install PREFIX=~/.local, the checkout's examples.
	op_login "mkdir -p ~/.local && cp -R $IN/prefix/. ~/.local/ &&
	    cp -R $IN/examples ~/examples" || fail "the build did not go in"
	# 2. The configuration: the example's, ocr alone (no API key here),
	# the source's internal exception the machine's address and port.
	op_login "mkdir -p ~/.config/sandcastle/sources &&
	    chmod 700 ~/.config/sandcastle &&
	    cp ~/examples/config.yaml ~/.config/sandcastle/ &&
	    cp ~/examples/sources/scans.yaml ~/.config/sandcastle/sources/ &&
	    ip -4 -brief address" > addr.out || fail "the configuration"
	cat addr.out
	grep -q "$MACHINE/24" addr.out || fail "ip -4 -brief address: no $MACHINE/24"
	op_login "python3 - <<'EOF'
import os, re
h = os.path.expanduser('~/.config/sandcastle/')
c = open(h + 'config.yaml').read()
c = c[:c.index('  claude:')] + c[c.index('  # ocr:'):]
open(h + 'config.yaml', 'w').write(c)
s = open(h + 'sources/scans.yaml').read()
s = s.replace('https://scans.home.arpa:8443', 'http://scans.home.arpa:${SCANS_ADDR##*:}')
s = re.sub(r'(?m)^  internal: .*', '  internal: $SCANS_ADDR', s)
open(h + 'sources/scans.yaml', 'w').write(s)
EOF" || fail "editing the configuration"
	# 3. The source's secret, on standard input.
	r=$(op_login "sandcastlectl secret set scans" < "$STATE/canary-scans" 2>&1)
	[ "$r" = "secret scans set" ] || fail "secret set scans: $r"
	# 4. install.
	t0=$(date +%s)
	stamped install.out "sandcastlectl install"
	st=$?
	t1=$(date +%s)
	cat install.out
	seen "images: $(image_times install.out)"
	for l in '^install: the machine serves: .*, cgroup v2 with cpu, memory and pids delegated, ' \
	    '^install: images ready$' '^install: sandcastle.target is enabled$' \
	    '^install: lingering is on$' '^install: sandcastle.target is restarted$' \
	    '^install: the keep is ready at ' '^install: running sandcastlectl check$'; do
		has install.out "$l" || fail "install did not say: $l"
	done
	seen "install ran to its end in $((t1 - t0)) s ($(grep -c '^install: ' install.out) steps), exit $st"
	# 5. check: every line ok or warn but the source's FAIL.
	grep '^FAIL' install.out | grep -v '^FAIL  source scans: ' &&
	    fail "a FAIL line other than the source's"
	has install.out '^FAIL  source scans: ' ||
	    fail "the source, which does not run yet, was not a FAIL"
	cgroup_holds install.out
	seen "check: $(grep -c '^ok' install.out) ok, $(grep -c '^warn' install.out) warn, the one FAIL the tutorial says (the source is not started yet); toolbox: box.memory, box.cpus and box.pids held by cgroup v2"
	[ -e /var/lib/systemd/linger/op ] || fail "lingering is not on"
	# For the record, as the operator's podman says it.
	echo "podman $(op_do podman version --format '{{.Client.Version}}')" \
	    >> "$OUT/versions"
}

# cgroup_holds FILE: check's lines in FILE say cgroup v2 holds box.memory,
# box.cpus and box.pids, and no toolbox line warns.
cgroup_holds()
{
	for l in '^ok    toolbox: box.memory held by cgroup v2 \(--memory, no swap\) and the data rlimit$' \
	    '^ok    toolbox: box.cpus held by cgroup v2 \(--cpus\)$' \
	    '^ok    toolbox: box.pids held by cgroup v2 \(--pids-limit\) and the nproc rlimit$'; do
		has "$1" "$l" || fail "check does not say the cgroup limits hold: $(grep toolbox "$1" | tr '\n' ';')"
	done
	grep -q '^warn  toolbox:' "$1" && fail "check warns: $(grep '^warn  toolbox:' "$1")"
	return 0
}

atf_test_case units
units_head()
{
	atf_set "descr" "I1 N5: the gate, the keep and the core run under the user manager, started in this order, each with every directive its unit sets in force as systemd shows it; the gate, the keep and sandcastled's parent under no_new_privs and seccomp (the parent's its own, the unit's none), the gate and the keep each in a network namespace of its own, the gate wired by pasta, the keep with loopback alone"
	atf_set "timeout" "300"
}
units_body()
{
	for u in sandcastle.target sandcastle-gate.service \
	    sandcastle-keep.service sandcastle.service; do
		s=$(op_do systemctl --user is-active "$u")
		[ "$s" = active ] || fail "$u is $s"
	done
	g=$(op_do systemctl --user show -p ActiveEnterTimestampMonotonic --value sandcastle-gate)
	k=$(op_do systemctl --user show -p ActiveEnterTimestampMonotonic --value sandcastle-keep)
	c=$(op_do systemctl --user show -p ActiveEnterTimestampMonotonic --value sandcastle)
	[ "$g" -le "$k" ] && [ "$k" -le "$c" ] ||
	    fail "not started gate, keep, core: $g $k $c"
	seen "active in order: gate, keep +$(( (k - g) / 1000 )) ms, core +$(( (c - k) / 1000 )) ms"

	n=0
	for u in sandcastle-gate sandcastle-keep sandcastle; do
		sed -n '/^\[Service\]/,/^\[/p' "$UNITS/$u.service" |
		    grep -E '^[A-Za-z]+=' > "$u.set"
		# One systemctl show of every property the unit sets (each
		# call takes seconds in the emulated guest).
		op_do systemctl --user show $(cut -d= -f1 "$u.set" |
		    sed -e 's/^\(RestartSec\|TimeoutStopSec\)$/\1USec/' \
		    -e 's/SecUSec$/USec/' -e 's/^/-p /') "$u" > "$u.show" ||
		    fail "systemctl --user show $u"
		while IFS='=' read -r key want; do
			directive_holds "$u" "$key" "$want"
			n=$((n + 1))
		done < "$u.set"
	done
	seen "$n directives of the three units, each as systemctl --user show gives it"

	root_ns=$(readlink /proc/1/ns/net)
	for u in sandcastle-gate sandcastle-keep sandcastle; do
		pid=$(unit_pid "$u")
		nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")
		sec=$(awk '/^Seccomp:/ { print $2 }' "/proc/$pid/status")
		nf=$(awk '/^Seccomp_filters:/ { print $2 }' "/proc/$pid/status")
		seen "$u: pid $pid, NoNewPrivs $nnp, Seccomp $sec ($nf filters), net namespace $(readlink "/proc/$pid/ns/net")"
		# sandcastled's unit sets none (its podman's setuid newuidmap
		# needs privileges): the parent puts on its own once its
		# children run.
		[ "$nnp" = 1 ] && [ "$sec" = 2 ] ||
		    fail "$u: NoNewPrivs $nnp, Seccomp $sec"
		if [ "$u" = sandcastle ] &&
		    grep -q '^NoNewPrivileges=' "$UNITS/$u.service"; then
			fail "sandcastle.service sets NoNewPrivileges=: its launcher's podman could not make its namespace"
		fi
	done
	gate=$(unit_pid sandcastle-gate)
	keep=$(unit_pid sandcastle-keep)
	[ "$(readlink "/proc/$gate/ns/net")" != "$root_ns" ] ||
	    fail "the gate runs in the machine's network namespace"
	pasta=$(pgrep -u "$OP" -f '^pasta ') || fail "no pasta runs"
	[ "$(echo "$pasta" | wc -l)" -eq 1 ] || fail "more than one pasta: $pasta"
	grep -q 'sandcastle-gate.service' "/proc/$pasta/cgroup" ||
	    fail "pasta is not the gate's: $(cat "/proc/$pasta/cgroup")"
	nsenter -t "$gate" -n ip -4 route > gate.routes
	seen "the gate's namespace (pasta $pasta): $(grep -c '^prohibit' gate.routes) prohibit routes, $(grep -c '^default' gate.routes) default"
	[ "$(readlink "/proc/$keep/ns/net")" != "$root_ns" ] ||
	    fail "the keep runs in the machine's network namespace"
	nsenter -t "$keep" -n ip -br link > keep.links
	[ "$(awk '{ print $1 }' keep.links | tr '\n' ' ')" = "lo " ] ||
	    fail "the keep's namespace has more than loopback: $(cat keep.links)"
	seen "the keep's namespace: loopback alone"
}

# directive_holds UNIT KEY VALUE: systemctl --user show (UNIT.show)
# agrees with the unit's line, in show's own spelling.
directive_holds()
{
	case $2 in
	ExecStart)
		got=$(shown "$1" ExecStart)
		echo "$got" | grep -qF "argv[]=$3 " ||
		    fail "$1: ExecStart is $got" ;;
	RestartSec|TimeoutStopSec)
		got=$(shown "$1" "${2%Sec}USec")
		[ "$(seconds "$got")" = "$(seconds "$3")" ] ||
		    fail "$1: $2=$3, systemd has $got" ;;
	RestrictAddressFamilies|RestrictNamespaces)
		got=$(shown "$1" "$2" | tr ' ' '\n' | sort | tr '\n' ' ')
		want=$(echo "$3" | tr ' ' '\n' | sort | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "$1: $2=$3, systemd has $got" ;;
	SystemCallFilter)
		# show gives the calls, not the groups: a deny list (every
		# one of ours denies @reboot) and the calls allowed back.
		got=" $(shown "$1" "$2") "
		case $3 in
		'~'*)	case $got in
			' ~'*' reboot '*) ;;
			*) fail "$1: $2=$3, systemd has $got" ;;
			esac ;;
		*)	case $got in
			*" $3 "*) fail "$1: $2=$3, systemd still denies it" ;;
			esac ;;
		esac ;;
	ReadWritePaths)
		got=$(shown "$1" "$2")
		[ "$got" = "$(echo "$3" | sed "s|%h|$OPHOME|")" ] ||
		    fail "$1: $2=$3, systemd has $got" ;;
	BindPaths)
		got=$(shown "$1" "$2")
		case $got in
		"$3:$3:"*) ;;
		*) fail "$1: $2=$3, systemd has $got" ;;
		esac ;;
	*)
		got=$(shown "$1" "$2")
		[ "$got" = "$3" ] || fail "$1: $2=$3, systemd has $got" ;;
	esac
}

# shown UNIT PROPERTY: PROPERTY's value in UNIT.show.
shown()
{
	awk -v k="$2" 'index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }' "$1.show"
}

# seconds SPAN: a time span of systemd's (90s, 1min 30s, 2s) in seconds.
seconds()
{
	echo "$1" | awk '{
		t = 0
		for (i = 1; i <= NF; i++) {
			n = $i + 0; u = $i; sub(/^[0-9.]+/, "", u)
			if (u == "" && i < NF && $(i + 1) !~ /^[0-9]/) { i++; u = $i }
			t += n * (u == "min" ? 60 : u == "h" ? 3600 : u == "ms" ? 0.001 : 1)
		}
		print t }'
}

atf_test_case security
security_head()
{
	atf_set "descr" "I1 N5: systemd-analyze security --user on the live manager rates each unit at or below its figure in sandcastle(7); the gate and the keep in a mount namespace of systemd's, not the user manager's, with the system and the home read-only, the runtime folder writable, a /dev and a /tmp of their own, as their mounts show; the core's podman's newuidmap maps the subordinate ids in a plain unit and not under NoNewPrivileges=, PrivateUsers= or CapabilityBoundingSet=; IPAddressDeny=any lets a connection through"
	atf_set "timeout" "600"
}
security_body()
{
	page=$IN/prefix/share/man/man7/sandcastle.7
	for u in sandcastle-gate sandcastle-keep sandcastle; do
		want=$(awk -v u="$u.service" '$1 == ".It" && $2 == "Pa" &&
		    $3 == u && $4 == "Ta" { print $5; exit }' "$page")
		[ -n "$want" ] || fail "sandcastle(7) gives no figure of $u.service"
		op_do systemd-analyze security --user --no-pager "$u.service" \
		    > "$u.sec" 2>&1
		got=$(sed -n 's/^.*Overall exposure level for [^:]*: \([0-9.]*\) .*$/\1/p' "$u.sec")
		seen "$u.service: exposure $got, its figure in sandcastle(7) $want ($(grep -c '✗' "$u.sec") items left)"
		awk -v g="$got" -v w="$want" 'BEGIN { exit !(g != "" && g + 0 <= w + 0) }' ||
		    { cat "$u.sec"; fail "$u.service is rated ${got:-nothing}, above its figure $want"; }
	done
	mgr=$(pgrep -u "$OP" -x systemd | head -n 1)
	[ -n "$mgr" ] || fail "no user manager of $OP"
	for u in sandcastle-gate sandcastle-keep; do
		pid=$(unit_pid "$u")
		[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink "/proc/$mgr/ns/mnt")" ] ||
		    fail "$u runs in the user manager's mount namespace: its mount settings are not in force"
		mounts_hold "$u" "$pid"
	done
	# The control: the core, which has none, shares the manager's.
	[ "$(readlink "/proc/$(unit_pid sandcastle)/ns/mnt")" = "$(readlink "/proc/$mgr/ns/mnt")" ] ||
	    fail "the core runs in a mount namespace of its own"
	# Why the core has none: its podman's newuidmap maps op's
	# subordinate ids in a plain unit, and under none of these.
	newuidmap_in || fail "newuidmap fails in a plain unit of $OP's: $(cat nuid.out)"
	for p in NoNewPrivileges=yes PrivateUsers=yes CapabilityBoundingSet=; do
		newuidmap_in -p "$p" && fail "newuidmap maps the subordinate ids under $p"
		seen "newuidmap in a unit with $p: no map, exit $?: $(grep -v '^ *$' nuid.out | tail -n 2 | tr '\n' ' ')"
	done
	# Why neither daemon has IPAddressDeny=: a user manager cannot
	# attach its program, and a connection it denies is made.
	op_do systemd-run --user --wait --pipe --quiet -p IPAddressDeny=any -- \
	    python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
socket.create_connection(s.getsockname(), timeout=5)
print("127.0.0.1:%d" % s.getsockname()[1])' > ipdeny.out 2>&1 < /dev/null ||
	    fail "IPAddressDeny=any holds in a unit of $OP's: $(cat ipdeny.out)"
	# The capture sees it: traffic allows this flow of the test's own.
	tail -n 1 ipdeny.out > "$STATE/ipdeny.flow"
	seen "IPAddressDeny=any in a unit of $OP's: a connection to loopback still made"
}

# newuidmap_in [-p PROPERTY]: newuidmap as podman runs it, mapping op's
# subordinate range into a new user namespace, in a transient unit of
# op's user manager; its output in nuid.out, its status returned.
newuidmap_in()
{
	op_do systemd-run --user --wait --pipe --quiet "$@" -- /bin/sh -c \
	    'unshare -U sleep 30 & p=$!; sleep 3
	    newuidmap "$p" 0 '"$OPUID"' 1 1 100000 65536; s=$?
	    kill "$p"; exit "$s"' > nuid.out 2>&1 < /dev/null
}

# mounts_hold UNIT PID: PID's mounts are ProtectSystem=strict's and
# ProtectHome=read-only's, the runtime folder writable, PrivateDevices='s
# and PrivateTmp='s.
mounts_hold()
{
	awk '{ for (i = 7; $i != "-"; i++); print $5, $6, $(i + 1) }' \
	    "/proc/$2/mountinfo" > "$1.mounts"
	r=$(mount_opt "$1.mounts" /) h=$(mount_opt "$1.mounts" "$OPHOME")
	s=$(mount_opt "$1.mounts" "$SOCKS")
	case ${r%%,*}-${h%%,*}-${s%%,*} in
	ro-ro-rw) ;;
	*) cat "$1.mounts"; fail "$1: / $r, $OPHOME $h, $SOCKS $s" ;;
	esac
	awk '$1 == "/dev" && $3 == "tmpfs" { d = 1 } $1 == "/tmp" { t = 1 }
	    END { exit !(d && t) }' "$1.mounts" ||
	    { cat "$1.mounts"; fail "$1: no /dev or /tmp of its own"; }
	seen "$1: / read-only, $OPHOME read-only, $SOCKS writable, /dev a tmpfs ($(awk '$1 ~ /^\/dev\// { printf "%s%s", s, $1; s = " " }' "$1.mounts")), /tmp its own"
}

# mount_opt MOUNTS PATH: the options of the mount PATH is on, in MOUNTS
# (mount point, options, type a line; the last of a point is on top).
mount_opt()
{
	awk -v p="$2" '{ m = $1 == "/" ? "/" : $1 "/" }
	    (p == $1 || index(p, m) == 1) && length(m) >= best {
		best = length(m); o = $2 }
	    END { print o }' "$1"
}

atf_test_case first_job
first_job_head()
{
	atf_set "descr" "N4: the first job of GETTING STARTED, ocr, on the home network: the example source on the machine's own address, reached by its internal exception; check then says it is reachable, the core's journal and the record show the job, and the text comes back"
	atf_set "timeout" "600"
}
first_job_body()
{
	gate=$(unit_pid sandcastle-gate)
	nsenter -t "$gate" -n tcpdump -i any -nn -U -s 128 \
	    -w "$STATE/capture-gate.pcap" > /dev/null 2>&1 &
	echo $! > "$STATE/capture-gate.pid"

	scans_start
	seen "scans.py: $(sed -n 's/^[0-9/]* [0-9:]* //p' "$OPHOME/scans.log" | head -n 1)"
	check_clean
	# 1 waiting, or 0 when the core, whose back-off from the install's
	# check ended meanwhile, already claimed the job (the restart below
	# then gives it back at most once: scans_result).
	has check.out '^ok    source scans: reachable, [01] waiting$' ||
	    fail "check does not say the source is reachable: $(grep 'source scans' check.out | tr '\n' ';')"
	has check.out "^warn  source scans: internal exception: the gate lets $SCANS_ADDR through" ||
	    fail "check does not warn of the internal exception"
	op_login "systemctl --user restart sandcastle" || fail "restart sandcastle"
	t0=$(date +%s)
	r=$(scans_result 300) ||
	    { cat "$OPHOME/scans.log"; fail "no result reached scans.py in 300 s"; }
	seen "scans.py, $(( $(date +%s) - t0 )) s after the restart: $r"
	case $r in
	*'reads "HELLO WORLD'*) ;;
	*) fail "the first job: $r" ;;
	esac
	op_login "journalctl --user -u sandcastle -n 20 --no-pager" > journal.out 2>&1
	grep -q 'job source=scans job=1 ' journal.out ||
	    { cat journal.out; fail "the core's journal has no line of job 1"; }
	seen "journal: $(grep 'job source=scans job=1 ' journal.out | tail -n 1 | sed 's/^.*sandcastled: //')"
	op_login "sandcastlectl show jobs" > jobs.out 2>&1 || fail "show jobs"
	grep -E -q '^[0-9-]+ [0-9:]+ +scans +1 +ocr +succeeded ' jobs.out ||
	    { cat jobs.out; fail "show jobs has no succeeded job 1"; }
	op_login "sandcastlectl show job scans 1" > job.out 2>&1 ||
	    { cat job.out; fail "show job scans 1"; }
	grep -q '"status": *"succeeded"' job.out || fail "the record: $(cat job.out)"
	grep -q 'HELLO WORLD' "$DATA/scans/1/output.json" ||
	    fail "output.json: $(cat "$DATA/scans/1/output.json")"
	seen "show jobs: $(grep -E ' scans +1 ' jobs.out | tr -s ' ')"
	kill "$(cat "$STATE/capture-gate.pid")" 2>/dev/null
}

atf_test_case a1
a1_head()
{
	atf_set "descr" "A1: another account reads neither the configuration nor the secrets nor the records, although the operator's home is open to others (0755, as useradd makes it): Permission denied each time; control: the operator reads each"
	atf_set "timeout" "300"
}
a1_body()
{
	seen "modes: home $(stat -c %a "$OPHOME"), configuration $(stat -c %a "$CONF"), secrets $(stat -c %a "$SECRETS"), data_dir $(stat -c %a "$DATA")"
	for p in "$CONF" "$CONF/config.yaml" "$SECRETS" "$SECRETS/scans" \
	    "$DATA" "$DATA/scans/1/meta.json"; do
		if [ -d "$p" ]; then
			other_do ls "$p" > out 2>&1 && fail "$OTHER lists $p: $(cat out)"
			op_do ls "$p" > /dev/null || fail "control: op cannot list $p"
		else
			other_do cat "$p" > out 2>&1 && fail "$OTHER reads $p"
			op_do cat "$p" > /dev/null || fail "control: op cannot read $p"
		fi
		grep -q 'Permission denied' out || fail "$p: $(cat out)"
	done
	seen "other: Permission denied on the configuration, config.yaml, the secrets, a secret, data_dir and a record; op reads each"
}

atf_test_case a3
a3_head()
{
	atf_set "descr" "A3: another account can neither connect to control.sock or keep.sock nor write to data_dir: Permission denied; control: the operator connects to both"
	atf_set "timeout" "300"
}
a3_body()
{
	cat > connect.py <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(e.strerror)
    sys.exit(1)
print("connected")
EOF
	chmod 0644 connect.py
	for s in control keep; do
		other_do python3 "$PWD/connect.py" "$SOCKS/$s.sock" > out 2>&1 &&
		    fail "$OTHER connects to $s.sock"
		grep -q 'Permission denied' out || fail "$s.sock: $(cat out)"
		op_do python3 "$PWD/connect.py" "$SOCKS/$s.sock" > out 2>&1 ||
		    fail "control: op cannot connect to $s.sock: $(cat out)"
	done
	other_do sh -c "echo job > '$DATA/scans/2'" > out 2>&1 &&
	    fail "$OTHER writes to data_dir"
	grep -q 'Permission denied' out || fail "data_dir: $(cat out)"
	seen "other: Permission denied on control.sock, keep.sock and a write to data_dir; op connects to both sockets"
}

atf_test_case cgroup
cgroup_head()
{
	atf_set "descr" "B5: the boxes of the core's jobs are held by their cgroup: a hostile box's memory balloon (private memory in four processes, each within its data rlimit, their sum past box.memory) is killed by the kernel at box.memory and its job fails with 137, a fork bomb stops at box.pids, box.cpus is the box's cpu.max and throttles it; control: the same box without the cgroup limits goes past each"
	atf_set "timeout" "1500"
}
cgroup_body()
{
	b=$(build)
	# The hostile box in place of this build's ocr image, as a tampered
	# or exploited sandcastle-box would be (the real one is the test's to
	# remove: the upgrade replaces every image of this build).
	op_do podman rmi "sandcastle-ocr:$b" > /dev/null ||
	    fail "podman rmi sandcastle-ocr:$b"
	hostile_image "$b"
	seen "the image sandcastle-ocr:$b is the hostile box (regress/reference/hostile.c)"
	add_lab
	lab_start "cpu 4" "balloon 768" "fork 1000"
	op_login "systemctl --user restart sandcastle.target" || fail "restart"
	# The launcher's own podman run, for the controls.
	wait_for 300 box_running || fail "no box started for the lab's first job"
	pid=$(pgrep -u "$OP" -f -- '--label=sandcastle.role=core' | head -n 1)
	tr '\0' '\n' < "/proc/$pid/cmdline" > box.argv
	grep -q -e '^--memory=' -e '^--pids-limit=' -e '^--cpus=' box.argv ||
	    fail "the launcher passes no cgroup limit: $(tr '\n' ' ' < box.argv)"
	seen "the launcher's limits: $(grep -e '^--memory=' -e '^--pids-limit=' -e '^--cpus=' -e '^--ulimit=' box.argv | tr '\n' ' ')"
	# The box's seccomp profile, which the launcher hands its podman on
	# fd 3 (a sealed memfd): the controls get the same on their fd 3.
	prof=$(find /proc/[0-9]*/fd -lname '/memfd:sandcastle-box-seccomp*' 2>/dev/null | head -n 1)
	[ -n "$prof" ] && cp "$prof" seccomp.json && chmod 0644 seccomp.json ||
	    fail "the box's seccomp profile (a memfd of the launcher's) was not found"
	grep -q '^--security-opt=seccomp=/proc/self/fd/3$' box.argv ||
	    fail "the launcher's seccomp option: $(grep seccomp box.argv)"

	dmesg -c > /dev/null
	for i in 1 2 3; do
		r=$(lab_result "$i" 300) ||
		    { cat "$STATE/lab.log"; fail "no result of the lab's job $i"; }
		seen "lab job $i: $r"
		echo "$r" > "result.$i"
	done
	# cpu: box.cpus 1 is cpu.max 100000 100000, and it throttled.
	grep -q 'cpu.max 100000 100000;' result.1 || fail "cpu.max: $(cat result.1)"
	grep -Eq 'nr_throttled went up by [1-9]' result.1 || fail "not throttled: $(cat result.1)"
	# memory: killed at the limit, 137, by the kernel's cgroup OOM.
	grep -q 'killed by signal 9 (137' result.2 || fail "the balloon: $(cat result.2)"
	dmesg > dmesg.out
	grep -q 'Memory cgroup out of memory: Killed process [0-9]* (sandcastle-box)' dmesg.out ||
	    { cat dmesg.out; fail "the kernel did not kill the balloon for its cgroup's memory"; }
	seen "kernel: $(grep -m1 'Memory cgroup out of memory' dmesg.out | sed 's/^\[[ 0-9.]*\] //')"
	ctl show job lab 2 || fail "show job lab 2: $(cat ctl.out)"
	grep -q '137' ctl.out || fail "the record of job 2 does not say 137: $(cat ctl.out)"
	seen "record of job 2: $(sed -n 's/.*"status":"\([a-z]*\)","error":"\([^"]*\)".*/\1: \2/p' ctl.out)"
	# pids: held below box.pids 64.
	n=$(sed -n 's/.*fork: \([0-9]*\) of 1000 children, then EAGAIN.*/\1/p' result.3)
	[ -n "$n" ] && [ "$n" -lt 64 ] || fail "the fork bomb: $(cat result.3)"
	grep -q 'pids.max 64,' result.3 || fail "pids.max: $(cat result.3)"

	# That check says the cgroup layer holds is install's proof (its
	# check), not run again here.

	# Controls: the launcher's own argv, the cgroup limits taken out.
	control "balloon 768" --memory= --memory-swap= > c.memory
	grep -q '768 MiB touched and held' c.memory || fail "control, memory: $(cat c.memory)"
	seen "control without --memory: $(grep -o 'balloon:[^"]*' c.memory)"
	control "fork 1000" --ulimit=nproc= > c.pids1
	grep -Eq 'then EAGAIN; pids.max 64, pids.events max [1-9]' c.pids1 ||
	    fail "control, the cgroup alone: $(cat c.pids1)"
	seen "control without the nproc rlimit, pids.max alone: $(grep -o 'fork:[^"]*' c.pids1)"
	control "fork 256" --ulimit=nproc= --pids-limit= > c.pids2
	grep -q 'fork: 256 of 256 children, all made' c.pids2 ||
	    fail "control, no limit: $(cat c.pids2)"
	seen "control without either: $(grep -o 'fork:[^"]*' c.pids2)"
	control "cpu 4" --cpus= > c.cpu
	grep -Eq 'cpu.max max 100000;.*nr_throttled went up by 0' c.cpu ||
	    fail "control, cpu: $(cat c.cpu)"
	seen "control without --cpus: $(grep -o 'cpu:[^"]*' c.cpu)"
}

# hostile_image BUILD: sandcastle-ocr:BUILD made of the hostile box,
# FROM scratch as install makes the real one: the program, the build,
# nobody's passwd and group, an empty /tmp.
hostile_image()
{
	ctx=$(op_do mktemp -d /tmp/sc-hostile.XXXXXXXX)
	op_do sh -c "mkdir -p $ctx/root/etc $ctx/root/tmp $ctx/root/sandcastle &&
	    cp $REF/hostile $ctx/root/sandcastle-box &&
	    echo $1 > $ctx/root/sandcastle/build &&
	    echo 'nobody:x:65534:65534:nobody:/nonexistent:/sandcastle-box' > $ctx/root/etc/passwd &&
	    echo 'nogroup:x:65534:' > $ctx/root/etc/group &&
	    printf 'FROM scratch\nCOPY root/ /\nUSER 65534:65534\n' > $ctx/Containerfile &&
	    podman build --pull=never --network=none -q -t sandcastle-ocr:$1 -f $ctx/Containerfile $ctx" ||
	    fail "the hostile image could not be built"
	rm -rf "$ctx"
}

# add_lab: a second source, as "Add a source" has it: its file, its
# secret; the target is restarted by the caller.  Its jobs may take 20
# minutes, and so may an ocr box (a job that outlasts an upgrade).
add_lab()
{
	op_login "sed -i 's/^    timeout: 2m\$/    timeout: 20m/' ~/.config/sandcastle/config.yaml &&
	    grep -q '^    timeout: 20m\$' ~/.config/sandcastle/config.yaml" ||
	    fail "the ocr timeout"
	op_login "cat > ~/.config/sandcastle/sources/lab.yaml <<'EOF'
# The reference suite's own source, on another host of the home.
name: lab
destination:
  address: http://lab.home.arpa:${LAB_ADDR##*:}/api/worker
  secret: lab
  internal: $LAB_ADDR
poll_interval: 5s
capabilities: [ocr]
max_jobs_per_hour: 120
job_timeout: 20m
EOF" || fail "the lab source's file"
	r=$(op_login "sandcastlectl secret set lab" < "$STATE/canary-lab" 2>&1)
	[ "$r" = "secret lab set" ] || fail "secret set lab: $r"
}

# control ATTACK FLAG...: the hostile box run by podman with the
# launcher's own argv (box.argv) and seccomp profile (on fd 3, as the
# launcher gives it), each FLAG (a prefix) taken out, the job line on
# its stdin; prints what it said.
control()
{
	_a=$1; shift
	{
		while IFS= read -r _w; do
			_drop=
			for _f in "$@"; do
				case $_w in "$_f"*) _drop=1 ;; esac
			done
			[ -n "$_drop" ] && continue
			case $_w in
			--name=*) _w=--name=sandcastle-control-$$ ;;
			--label=sandcastle.role=*) _w=--label=sandcastle.role=control ;;
			esac
			printf '%s\n' "$_w"
		done < box.argv
	} > control.argv
	printf '{"type":"job","input":{"image":"%s"}}\n' \
	    "$(printf 'SCTEST-ATTACK %s' "$_a" | base64 -w0)" > control.in
	set --
	while IFS= read -r _w; do set -- "$@" "$_w"; done < control.argv
	op_do "$@" < control.in 3< seccomp.json
}

atf_test_case jobs
jobs_head()
{
	atf_set "descr" "B5: jobs: 3 in config.yaml, under the units and cgroup v2: four held jobs of the lab's, three boxes at once and never more (sampled each second), each in a cgroup of its own whose memory.max is ocr's box.memory as sandcastled -nv prints it; the fourth box starts once one of the three has ended; each job ends once"
	atf_set "timeout" "900"
}
jobs_body()
{
	# ocr's cooldown 10s: a box podman fails to start (three at once,
	# under TCG) is released, and its job runs again within the row.
	op_login "cp -p ~/.config/sandcastle/config.yaml ~/config.yaml.before &&
	    sed -i -e '/^jobs:/d' -e '/^  ocr:/,/^[^ ]/s/^    cooldown: .*/    cooldown: 10s/' \
	    ~/.config/sandcastle/config.yaml &&
	    printf '\njobs: 3\n' >> ~/.config/sandcastle/config.yaml &&
	    sandcastled -nv" > print.out 2>&1 || { cat print.out; fail "jobs: 3"; }
	grep -qx 'jobs: 3' print.out && grep -qx '    cooldown: 10s' print.out ||
	    fail "sandcastled -nv does not print jobs: 3 and ocr's cooldown: 10s"
	mem=$(awk '/^  ocr:$/ { o = 1 } o && $1 == "memory:" { print $2; exit }' print.out)
	want=$(bytes "$mem")
	[ -n "$want" ] || fail "no box.memory of ocr in sandcastled -nv: $mem"
	lab_start "hold 45" "hold 45" "hold 45" "hold 5"
	op_login "systemctl --user restart sandcastle" || fail "restart sandcastle"
	wait_for 300 box_running || fail "no box started"
	# A sample each second until the fourth job ends, then --.
	_t=$(( $(date +%s) + 600 ))
	: > samples
	until has "$STATE/lab.log" 'image 4 \(.*\) (reads|failed:)'; do
		[ "$(date +%s)" -lt "$_t" ] || { cat "$STATE/lab.log"; fail "the fourth job did not end"; }
		boxes_now >> samples
		echo -- >> samples
		sleep 1
	done
	awk -v want="$want" '
	    $1 == "--" { if (n > most) most = n; if (n == 3) full++; n = 0; next }
	    { n++; cg[$2] = 1; if ($3 != want) bad = bad " " $2 "=" $3 }
	    END { for (c in cg) k++
		printf "%d %d %d %s\n", most, full, k, bad }' samples > seen.out
	read -r most full cgroups bad < seen.out
	seen "jobs: 3, ocr's box.memory $mem ($want bytes): $(grep -c -- '^--$' samples) samples, at most $most boxes at once, 3 at once in $full of them, $cgroups cgroups of boxes seen"
	[ "$most" -eq 3 ] || { cat samples; fail "at most $most boxes at once, not 3"; }
	[ "$full" -ge 3 ] || fail "three boxes at once in $full samples only"
	[ "$cgroups" -eq 4 ] || { cat samples; fail "$cgroups cgroups for four boxes"; }
	[ -z "$bad" ] || fail "memory.max is not $want:$bad"
	for i in 1 2 3 4; do
		r=$(lab_result "$i" 120) || fail "no result of the lab's job $i"
		case $r in *'reads "held '*) ;; *) fail "job $i: $r" ;; esac
	done
	finals=$(grep -Ec 'image [1-4] \(.*\) (reads|failed:)' "$STATE/lab.log")
	[ "$finals" -eq 4 ] || { cat "$STATE/lab.log"; fail "$finals ends of four jobs"; }
	seen "the four jobs held and ended once each; each box's memory.max $want"
	op_login "mv ~/config.yaml.before ~/.config/sandcastle/config.yaml &&
	    systemctl --user restart sandcastle" || fail "config.yaml back"
}

# bytes SIZE: a size of sandcastle.conf(5) (512MiB, 1GiB, 4096) in bytes.
bytes()
{
	echo "$1" | awk '{ n = $0 + 0; u = $0; sub(/^[0-9]+/, "", u)
	    m = u == "KiB" ? 1024 : u == "MiB" ? 1048576 : u == "GiB" ? 1073741824 : u == "" ? 1 : 0
	    if (m) printf "%.0f\n", n * m }'
}

# boxes_now: "pid cgroup memory.max" of each box alive (by its command
# line: ocr's box re-execs itself as exe).
boxes_now()
{
	for _p in $(pgrep -f '^/sandcastle-box '); do
		_cg=$(sed -n 's/^0:://p' "/proc/$_p/cgroup" 2>/dev/null)
		[ -n "$_cg" ] || continue
		# A box ending between pgrep and here: its cgroup is gone.
		_max=$(cat "/sys/fs/cgroup$_cg/memory.max" 2>/dev/null) || continue
		echo "$_p $_cg $_max"
	done
}

atf_test_case a2
a2_head()
{
	atf_set "descr" "A2: during a job, another account finds neither decoy secret in any process's arguments or environment (ps auxww, every /proc/*/cmdline and /proc/*/environ); control: the same scan finds a decoy put in a command line, and the operator finds each decoy in its secret's file"
	atf_set "timeout" "600"
}
a2_body()
{
	cat > scan.py <<'EOF'
# Until the file stop appears: every process's arguments (ps auxww and
# /proc/*/cmdline) and environment (/proc/*/environ) as another account
# sees them, each decoy found kept; then how many rounds, how many
# processes, how many environments the kernel refused to it.
import os, re, subprocess, sys
d = sys.argv[1]
decoy = re.compile(b"SCTEST-" + b"CANARY-[A-Za-z0-9-]+")
found, refused, seen, rounds = set(), set(), set(), 0
while not os.path.exists(d + "/stop"):
    found.update(decoy.findall(subprocess.run(["ps", "auxww"],
                                              capture_output=True).stdout))
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for what in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, what), "rb") as f:
                    found.update(decoy.findall(f.read().replace(b"\0", b" ")))
                seen.add(pid)
            except PermissionError:
                refused.add(pid)
            except OSError:
                pass
    rounds += 1
with open(d + "/found", "w") as f:
    f.write("".join(x.decode() + "\n" for x in sorted(found)))
with open(d + "/counts", "w") as f:
    f.write("%d %d %d\n" % (rounds, len(seen | refused), len(refused)))
EOF
	chmod 0644 scan.py
	mkdir scan && chown "$OTHER" scan
	control_decoy=SCTEST-CANARY-control-$$
	# The control: a process of the operator's with a decoy in its
	# arguments, which the scan must find.
	op_login "exec python3 -c 'import time; time.sleep(900)' $control_decoy \
	    > /dev/null 2>&1 &"
	other_do python3 "$PWD/scan.py" "$PWD/scan" &
	scanner=$!
	lab_start "hold 30"
	wait_for 300 box_running || fail "no box started"
	r=$(lab_result 1 300) || fail "the job did not end"
	touch scan/stop
	wait "$scanner"
	pkill -u "$OP" -f "$control_decoy"
	[ -s scan/counts ] || fail "the scan did not finish"
	read -r rounds procs refused < scan/counts
	[ "$rounds" -ge 3 ] || fail "the scan made $rounds rounds only during the job"
	seen "the job: $r; $rounds rounds of ps auxww and /proc/*/cmdline and environ over $procs processes, the environments of $refused refused to the other account (EACCES)"
	sort -u scan/found > found
	grep -qx "$control_decoy" found || fail "control: the scan did not find the decoy in a command line"
	grep -v -x "$control_decoy" found && fail "a decoy secret was seen"
	for s in scans lab; do
		op_do grep -qF "$(cat "$STATE/canary-$s")" "$SECRETS/$s" ||
		    fail "control: the operator does not find the decoy in $SECRETS/$s"
	done
	seen "no decoy secret found; the command-line decoy found (control); the operator finds both decoys in their files (control)"
}

atf_test_case a4
a4_head()
{
	atf_set "descr" "A4: another account cannot connect to gate.sock (Permission denied), and during a job nothing of sandcastle listens on a port in any network namespace of the operator's processes (ss -lntup in each); control: the operator's own source is seen listening"
	atf_set "timeout" "600"
}
a4_body()
{
	other_do python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$SOCKS/gate.sock')
except OSError as e:
    print(e.strerror); sys.exit(1)" > out 2>&1 && fail "$OTHER connects to gate.sock"
	grep -q 'Permission denied' out || fail "gate.sock: $(cat out)"
	lab_start "hold 60"
	wait_for 300 box_running || fail "no box started"
	# The account's processes: its own uid and its subordinate ones,
	# which the boxes run as.  The launcher's podman run comes seconds
	# before the box's own process, in the box's network namespace.
	set -- $(awk -F: -v u="$OP" '$1 == u { print $2, $2 + $3 - 1 }' /etc/subuid)
	wait_for 120 subordinate_runs "$1" "$2" ||
	    fail "no process of the box (a subordinate uid) within 120 s"
	: > listen.out
	# One pass over /proc, in the box's 60 s: a fork a process took
	# longer than that beside two other guests.
	grep -s '^Uid:' /proc/[0-9]*/status |
	    awk -v op="$OPUID" -v lo="$1" -v hi="$2" '{
		split($1, p, "/"); u = $2 + 0
		if (u == op || (u >= lo && u <= hi)) print p[3] }' > pids
	for p in $(cat pids); do
		readlink "/proc/$p/ns/net" 2>/dev/null | sed "s|\$| $p|"
	done > procs
	cut -d' ' -f1 procs | sort -u > namespaces
	# Each namespace through the first of its processes still there: a
	# process of podman's may end between the walk and nsenter.  A
	# namespace whose every process ended listens no more.
	gone=0
	while read -r ns; do
		read_ns=
		for pid in $(awk -v n="$ns" '$1 == n { print $2 }' procs); do
			nsenter -t "$pid" -n ss -lntupH > one.out 2>/dev/null || continue
			echo "== $ns (pid $pid: $(cat "/proc/$pid/comm" 2>/dev/null))" >> listen.out
			cat one.out >> listen.out
			read_ns=1
			break
		done
		[ -n "$read_ns" ] && continue
		for d in /proc/[0-9]*; do
			[ "$(readlink "$d/ns/net" 2>/dev/null)" = "$ns" ] &&
			    fail "nsenter could not read $ns, which ${d#/proc/} is still in"
		done
		gone=$((gone + 1))
	done < namespaces
	r=$(lab_result 1 400) || fail "the job did not end"
	cat listen.out
	# The one listener allowed: the operator's source, scans.py.  In the
	# machine's own namespace only the operator's processes count.
	root_ns=$(readlink /proc/1/ns/net)
	awk -v root="$root_ns" -v uid="$(id -u "$OP")" '
	    /^== / { ns = $2; next }
	    {
		if (ns == root) {
			if (match($0, /pid=[0-9]+/) == 0) next
			p = substr($0, RSTART + 4, RLENGTH - 4)
			cmd = "stat -c %u /proc/" p " 2>/dev/null"
			owner = ""; cmd | getline owner; close(cmd)
			if (owner != uid) next
		}
		print
	    }' listen.out | grep -v "$SCANS_ADDR .*python3" > other.listen
	[ -s other.listen ] && fail "listening: $(cat other.listen)"
	grep -q "$SCANS_ADDR .*python3" listen.out ||
	    fail "control: the source's listening socket was not seen"
	[ "$(wc -l < namespaces)" -ge 4 ] ||
	    fail "fewer namespaces than the machine's, the gate's, the keep's and the box's: $(cat namespaces)"
	seen "other: Permission denied on gate.sock; $(wc -l < namespaces) network namespaces of the operator's processes and its boxes' during the job ($r), $gone of them ended before they were read: no socket listens but the operator's source on $SCANS_ADDR (control)"
}

# subordinate_runs LOW HIGH: a process runs as a uid from LOW to HIGH.
subordinate_runs()
{
	ps -eo uid= | awk -v lo="$1" -v hi="$2" '$1 >= lo && $1 <= hi { f = 1 }
	    END { exit !f }'
}

atf_test_case restart
restart_head()
{
	atf_set "descr" "S4 B3: each unit killed with SIGKILL in the middle of a job: systemd restarts it, the job ends once at its source (released at most once before), and nothing is left behind: no box of the core's, one pasta"
	atf_set "timeout" "1500"
}
restart_body()
{
	set -- $(awk -F: -v u="$OP" '$1 == u { print $2, $2 + $3 - 1 }' /etc/subuid)
	for u in sandcastle-gate sandcastle-keep sandcastle; do
		n0=$(restarts "$u")
		lab_start "hold 15"
		wait_for 300 box_running || fail "$u: no box started"
		# While the box runs: its own process (a subordinate uid), not
		# the launcher's podman run still making its container.
		wait_for 120 subordinate_runs "$1" "$2" ||
		    fail "$u: no process of the box within 120 s"
		op_login "systemctl --user kill -s KILL $u.service" || fail "kill $u"
		wait_for 120 restarted "$u" "$n0" || fail "$u was not restarted"
		wait_for 60 active "$u" || fail "$u is not active again"
		r=$(lab_result 1 400) || { cat "$STATE/lab.log"; fail "$u: the job did not end"; }
		sleep 5
		finals=$(grep -Ec 'image 1 \(.*\) (reads|failed:)' "$STATE/lab.log")
		released=$(grep -c 'image 1 (.*) released' "$STATE/lab.log")
		gone=$(grep -c ' 409 ' "$STATE/lab.log")
		# A result sent again and refused (409) is the source's own
		# guard: the job still ended once there.
		[ "$finals" -eq 1 ] && [ "$released" -le 1 ] ||
		    { cat "$STATE/lab.log"; fail "$u: $finals ends, $released releases, $gone refused"; }
		wait_for 120 no_box || fail "$u: a box still runs"
		left=$(boxes_left)
		[ -z "$left" ] || fail "$u: boxes left: $left"
		[ "$(pgrep -u "$OP" -f '^pasta ' | wc -l)" -eq 1 ] ||
		    fail "$u: pasta: $(pgrep -a -u "$OP" -f '^pasta ')"
		seen "$u killed mid-job: restarted ($(restarts "$u") restarts); the job: $r$([ "$released" -eq 1 ] && echo ', released once before')$([ "$gone" -gt 0 ] && echo ", a result sent again refused $gone time(s) (409)"); no box left, one pasta"
	done
}

restarted()
{
	[ "$(restarts "$1")" -gt "$2" ]
}

active() { unit_is active "$1"; }
inactive() { unit_is inactive "$1"; }
unit_is()
{
	[ "$(op_do systemctl --user is-active "$2")" = "$1" ]
}

no_box()
{
	! box_running
}

atf_test_case upgrade
upgrade_head()
{
	atf_set "descr" "I1 S4: a second build installed while a job runs, as the manual's Upgrade has it: install builds its images while the old pieces run, restarts the target, removes the older images only once no box uses them, the job ends once, and check prints no FAIL"
	atf_set "timeout" "1800"
}
upgrade_body()
{
	old=$(build)
	# A job that outlasts the install: the restart stops it.
	lab_start "hold 1100"
	wait_for 300 box_running || fail "no box started"
	t0=$(date +%s)
	since=$(date -u '+%Y-%m-%dT%H:%M:%SZ')
	# The new build installed into a folder of its own, then its
	# sandcastlectl install, then the folder removed (sandcastle(7),
	# Upgrade, make install PREFIX=~/.local/share/sandcastle-new):
	# nothing in ~/.local/bin or ~/.local/libexec changes before the images.
	stamped install.out "mkdir -p ~/.local/share/sandcastle-new &&
	    cp -R $IN/second/. ~/.local/share/sandcastle-new/ &&
	    ~/.local/share/sandcastle-new/bin/sandcastlectl install &&
	    rm -r ~/.local/share/sandcastle-new"
	st=$?
	t1=$(date +%s)
	cat install.out
	seen "images: $(image_times install.out)"
	new=$(build)
	[ "$new" != "$old" ] || fail "the second build has the first's id"
	[ "$st" -eq 0 ] || fail "install exited $st"
	seen "install of build $new over $old, a job running: $((t1 - t0)) s, exit 0"
	in_order install.out '^install: images ready$' \
	    '^install: the binaries are in .*/\.local/bin and .*/\.local/libexec/sandcastle, each put there by a rename$' \
	    '^install: sandcastle.target is restarted$' \
	    '^install: the keep is ready at ' \
	    "^install: removing localhost/sandcastle-ocr:$old\$" \
	    '^install: the images of older builds are removed$' \
	    '^install: running sandcastlectl check$'
	grep '^FAIL' install.out && fail "check has a FAIL line"
	has install.out "^ok    units: sandcastle.target and its three services are this build's\$" ||
	    fail "check: the units are not this build's"
	op_do podman events --since "$since" --stream=false \
	    --format '{{.Time}} {{.Type}} {{.Status}} {{.Name}} {{.Image}}' > events 2>&1
	old_box=$(awk -v img="sandcastle-ocr:$old" '$0 ~ img && / container remove / { print NR; exit }' events)
	old_img=$(awk -v img="sandcastle-ocr:$old" '$0 ~ img && / image (remove|untag) / { print NR; exit }' events)
	[ -n "$old_box" ] && [ -n "$old_img" ] && [ "$old_box" -lt "$old_img" ] ||
	    { cat events; fail "the old image went before its box, or the events do not say (box $old_box, image $old_img)"; }
	seen "podman's events: the old build's box removed (event $old_box), then its image (event $old_img)"
	r=$(lab_result 1 600) || { cat "$STATE/lab.log"; fail "the job did not end"; }
	sleep 5
	finals=$(grep -Ec 'image 1 \(.*\) (reads|failed:)' "$STATE/lab.log")
	released=$(grep -c 'image 1 (.*) released' "$STATE/lab.log")
	[ "$finals" -eq 1 ] && [ "$released" -le 1 ] ||
	    { cat "$STATE/lab.log"; fail "$finals ends, $released releases"; }
	seen "the job in flight: $([ "$released" -eq 1 ] && echo 'released once, then ')$r"
	op_do podman images --format '{{.Repository}}:{{.Tag}}' | grep sandcastle- | sort > images
	printf 'localhost/sandcastle-claude:%s\nlocalhost/sandcastle-ocr:%s\n' "$new" "$new" |
	    diff - images || fail "images left: $(tr '\n' ' ' < images)"
	op_login "sandcastlectl version" > version.out
	grep -q "^commit  .*+upgrade\$" version.out || fail "version: $(cat version.out)"
	# install's own check, after the restart and the old images' removal,
	# is the check after the upgrade: it had no FAIL (above).
	seen "check, at install's end: $(grep -c '^ok' install.out) ok, $(grep -c '^warn' install.out) warn, no FAIL"
	seen "images: this build's two alone; version: $(tr -s ' \n' ' ' < version.out)"
	# The lab goes, as "Remove a source" has it.
	lab_stop
	op_login "rm ~/.config/sandcastle/sources/lab.yaml &&
	    systemctl --user restart sandcastle.target &&
	    sandcastlectl secret rm lab" || fail "removing the lab source"
}

# in_order FILE PATTERN...: each line is in FILE, in this order.
in_order()
{
	_f=$1; shift
	_last=0
	for _l in "$@"; do
		_n=$(grep -n -E -e "$_l" "$_f" | head -n 1 | cut -d: -f1)
		[ -n "$_n" ] || fail "no line: $_l"
		[ "$_n" -gt "$_last" ] || fail "out of order: $_l"
		_last=$_n
	done
}

atf_test_case boot
boot_head()
{
	atf_set "descr" "I1: the machine rebooted with nobody logged in: lingering brings up the user manager and sandcastle.target, the gate, the keep and the core; with the source started again check prints no FAIL and the next job runs"
	atf_set "timeout" "900"
}
boot_body()
{
	s=$(logins)
	[ -z "$s" ] || fail "someone is logged in: $(echo "$s" | paste -sd';' -)"
	wait_for 300 active sandcastle.service ||
	    fail "sandcastle.service is not active after the boot"
	for u in sandcastle.target sandcastle-gate.service \
	    sandcastle-keep.service sandcastle.service; do
		st=$(op_do systemctl --user is-active "$u")
		[ "$st" = active ] || fail "$u is $st"
	done
	seen "nobody logged in ($(loginctl list-sessions --no-legend | wc -l) sessions, none a login); up $(cut -d' ' -f1 /proc/uptime) s: user@$OPUID.service $(systemctl is-active user@$OPUID.service), sandcastle.target and its three services active through lingering"
	scans_start
	check_clean
	op_login "systemctl --user restart sandcastle" || fail "restart sandcastle"
	r=$(scans_result 300) || fail "the next job did not come back"
	case $r in *'reads "HELLO WORLD'*) ;; *) fail "the next job: $r" ;; esac
	seen "the next job: $r"
}

atf_test_case reinstall
reinstall_head()
{
	atf_set "descr" "I1: uninstall stops the target, removes the units and the images and keeps the configuration, the secrets, the records, the binaries and a drop-in; install again puts everything back as it was: the same units, the same records, the drop-in in force, check with no FAIL"
	atf_set "timeout" "1500"
}
reinstall_body()
{
	op_login "mkdir -p ~/.config/systemd/user/sandcastle.service.d &&
	    printf '[Service]\nEnvironment=SCTEST_DROPIN=1\n' > ~/.config/systemd/user/sandcastle.service.d/10-reference.conf &&
	    systemctl --user daemon-reload" || fail "the drop-in"
	cp -R "$UNITS" units.before
	ctl show jobs || fail "show jobs"
	mv ctl.out jobs.before
	(cd "$OPHOME" && find .config/sandcastle .local/share/sandcastle .local/bin \
	    .local/libexec/sandcastle -type f |
	    sort | xargs sha256sum) > files.before
	ctl uninstall
	st=$?
	cat ctl.out
	[ "$st" -eq 0 ] || fail "uninstall exited $st"
	s=$(op_do systemctl --user is-active sandcastle.target)
	[ "$s" = inactive ] || fail "sandcastle.target is $s after uninstall"
	for u in sandcastle.target sandcastle-gate.service \
	    sandcastle-keep.service sandcastle.service; do
		[ -e "$UNITS/$u" ] && fail "$u stayed"
	done
	[ -z "$(op_do podman images -q --filter reference='sandcastle-*')" ] ||
	    fail "images stayed: $(op_do podman images)"
	(cd "$OPHOME" && find .config/sandcastle .local/share/sandcastle .local/bin \
	    .local/libexec/sandcastle -type f |
	    sort | xargs sha256sum) | diff files.before - ||
	    fail "uninstall changed the configuration, the secrets, the records or the binaries"
	[ -f "$UNITS/sandcastle.service.d/10-reference.conf" ] || fail "the drop-in went"
	seen "uninstall: target inactive, units and images gone; configuration, secrets, records, binaries and the drop-in kept"
	t0=$(date +%s)
	stamped ctl.out "sandcastlectl install"
	st=$?
	cat ctl.out
	seen "images: $(image_times ctl.out)"
	[ "$st" -eq 0 ] || fail "install exited $st"
	grep '^FAIL' ctl.out && fail "check has a FAIL line"
	diff -r units.before "$UNITS" || fail "the units are not as they were"
	ctl show jobs
	diff jobs.before ctl.out || fail "the records are not as they were"
	op_do systemctl --user show -p Environment sandcastle | grep -q SCTEST_DROPIN=1 ||
	    fail "the drop-in is not in force"
	seen "install again: $(( $(date +%s) - t0 )) s, exit 0; the same units, the same records, the drop-in in force, no FAIL"
}

atf_test_case traffic
traffic_head()
{
	atf_set "descr" "N1: every connection the machine and the gate's namespace carried during the run, captured by tcpdump, went to a configured destination's address and port or to the resolver; control: a connection of the operator's to the printer, made during the capture, is the one found outside"
	atf_set "timeout" "600"
}
traffic_body()
{
	# The control: a connection of the operator's own, not sandcastle's.
	op_do python3 -c "
import socket
s = socket.socket(); s.settimeout(3)
try: s.connect(('$PRINTER', 9))
except OSError: pass"
	sleep 2
	# The destinations, and the gate's lookups: to pasta's DNS forward in
	# its namespace, which pasta sends on to the machine's resolver
	# (gated(8)).
	# A flow is what opened it: a TCP SYN, or a datagram other than a
	# resolver's answer (from port 53, to the port the lookup came from).
	# security's probe of IPAddressDeny=, a loopback flow of its own.
	allowed="$SCANS_ADDR $LAB_ADDR $RESOLVER:53 169.254.77.53:53 $(cat "$STATE/ipdeny.flow" 2>/dev/null)"
	: > flows
	for f in "$STATE"/capture-*.pcap; do
		[ -s "$f" ] || continue
		tcpdump -nn -r "$f" \
		    'ip and ((tcp[tcpflags] & tcp-syn != 0 and tcp[tcpflags] & tcp-ack == 0) or (udp and not src port 53))' \
		    2>/dev/null | awk -v f="${f##*/}" '{
			for (i = 1; i < NF; i++) if ($i == ">") break
			dst = $(i + 1); sub(/:$/, "", dst)
			n = split(dst, a, "."); port = a[n]
			ip = a[1] "." a[2] "." a[3] "." a[4]
			print f, ip ":" port }' >> flows
	done
	sort flows | uniq -c | sort -rn > flows.count
	cat flows.count
	awk '{ print $3 }' flows.count | sort -u > destinations
	for a in $allowed; do grep -vx "$a" destinations > d.tmp; mv d.tmp destinations; done
	[ "$(cat destinations)" = "$PRINTER:9" ] ||
	    fail "destinations outside the allowed: $(tr '\n' ' ' < destinations)"
	grep -q "$SCANS_ADDR" flows || fail "the capture has no flow to the source: it saw nothing"
	grep -q "capture-gate.pcap $SCANS_ADDR" flows || fail "the gate's capture has no flow to the source"
	seen "$(wc -l < flows) connections in $(ls "$STATE"/capture-*.pcap | wc -l) captures: $(grep -v "$PRINTER:9" flows.count | awk '{ printf "%s%s x%s", s, $3, $1; s = ", " }'); outside the allowed, only the control's $PRINTER:9"
}

atf_test_case upgrade_window
upgrade_window_head()
{
	atf_set "descr" "I1: binaries put in ~/.local before install made their images (a make install PREFIX=~/.local over the running pieces) never run: the core started then exits 78 with sandcastled(8)'s line naming the missing image and sandcastlectl install, and systemd leaves it stopped; control: the installed build's binaries back, the target restarts and the core runs"
	atf_set "timeout" "600"
}
upgrade_window_body()
{
	old=$(build)
	# A new build as make install puts it: sandcastle-box-ocr changed,
	# put in place by a rename (a running binary cannot be written).
	op_login "mkdir -p ~/window && cp -p ~/.local/libexec/sandcastle/* ~/window/ &&
	    cd ~/.local/libexec/sandcastle && cp sandcastle-box-ocr .new &&
	    printf '\n' >> .new && mv .new sandcastle-box-ocr" ||
	    fail "the new binaries"
	new=$(build)
	[ "$new" != "$old" ] || fail "the changed binary kept the build id"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	op_do systemctl --user restart sandcastle
	wait_for 60 exited_78 || fail "the core of build $new did not exit 78"
	# Past RestartSec=2s: not started again.
	sleep 10
	[ "$(op_do systemctl --user is-active sandcastle)" != active ] ||
	    fail "systemd started the core of build $new again"
	op_do journalctl --user -u sandcastle --since "$since" --no-pager \
	    -o cat > journal
	# journald may not tie the last line of a process that ended at once
	# to its user unit (systemd issue 2913): the account's journal by
	# sandcastled's identifier holds it then (sandcastled(8)).
	has journal '^sandcastled: the image' ||
	    journalctl --since "$since" --no-pager -o cat _UID="$OPUID" \
	    SYSLOG_IDENTIFIER=sandcastled > journal
	has journal "^sandcastled: the image sandcastle-(claude|ocr):$new of this build is missing, so this build does not start: run sandcastlectl install, which makes its images before it starts it\$" ||
	    { cat journal; fail "the journal does not name the missing image"; }
	seen "build $new in ~/.local without its images: the core exited 78, $(grep -c '^sandcastled: the image' journal) start(s), not restarted; the journal: $(grep '^sandcastled: the image' journal | head -n 1)"
	# The control: the installed build's binaries back, each by a rename.
	op_login 'cd ~/.local/libexec/sandcastle && for f in ~/window/*; do
	    cp -p "$f" .back && mv .back "${f##*/}" || exit 1; done &&
	    rm -r ~/window' || fail "the installed binaries back"
	[ "$(build)" = "$old" ] || fail "the binaries back are not build $old"
	op_do systemctl --user restart sandcastle.target || fail "restart"
	wait_for 60 active sandcastle || fail "the core of build $old does not run"
	sleep 5
	active sandcastle || fail "the core of build $old ended"
	seen "build $old back: the target restarted and the core runs"
}

exited_78()
{
	[ "$(op_do systemctl --user show -p ExecMainStatus --value sandcastle)" = 78 ] &&
	    ! active sandcastle
}

atf_test_case hints
hints_head()
{
	atf_set "descr" "I1: check's hint for other ocr languages and for a missing image (a new build in ~/.local without its images, the core exited 78) is a step of sandcastlectl(8), run as it is printed: after it the core runs again, check prints no FAIL and a job runs, with no other restart"
	atf_set "timeout" "1500"
}
hints_body()
{
	td=/usr/share/tesseract-ocr/5/tessdata
	# 1. Another language, eng's data standing for its package (the
	# guest has no network for apt), added to the configuration.
	cp "$td/eng.traineddata" "$td/deu.traineddata" || fail "deu's data"
	op_login "sed -i 's/^    languages: \\[eng\\]\$/    languages: [eng, deu]/' ~/.config/sandcastle/config.yaml &&
	    grep -q '^    languages: \\[eng, deu\\]\$' ~/.config/sandcastle/config.yaml" ||
	    fail "the languages were not changed"
	hint_step "FAIL  capability ocr: the image has eng, the configuration asks for eng deu; run "
	# The source again, with a job: the core, restarted by the step,
	# takes it at its next poll.
	scans_start
	check_clean
	r=$(scans_result 600) || { cat "$OPHOME/scans.log"; fail "no job ran after the step"; }
	case $r in *reads*) ;; *) fail "the job after the step: $r" ;; esac
	seen "languages eng deu: the job: $r"

	# 2. The languages back, and a new build in ~/.local without its
	# images: the core started then exits 78 and stays stopped.
	op_login "sed -i 's/^    languages: \\[eng, deu\\]\$/    languages: [eng]/' ~/.config/sandcastle/config.yaml &&
	    cd ~/.local/libexec/sandcastle && cp sandcastle-box-ocr .new &&
	    printf '\\n' >> .new && mv .new sandcastle-box-ocr" ||
	    fail "the new binaries"
	new=$(build)
	op_do systemctl --user restart sandcastle
	wait_for 60 exited_78 || fail "the core of build $new did not exit 78"
	# The source waits with a job; the stopped core cannot take it.
	scans_start
	hint_step "FAIL  capability ocr: the image sandcastle-ocr:$new of this build is missing; run "
	check_clean
	r=$(scans_result 600) || { cat "$OPHOME/scans.log"; fail "no job ran after the step"; }
	case $r in *reads*) ;; *) fail "the job after the step: $r" ;; esac
	seen "build $new without its images: the job: $r"
	rm -f "$td/deu.traineddata"
}

# hint_step PREFIX: check as the operator fails with a line PREFIX STEP;
# STEP, run as printed, must be install's, exit 0 and leave the core
# running, started after it began.
hint_step()
{
	ctl check
	line=$(grep -F -x -e "$1sandcastlectl install" ctl.out)
	[ -n "$line" ] || { cat ctl.out; fail "check has no line: $1sandcastlectl install"; }
	step=${line##*; run }
	t0=$(op_do systemctl --user show -p ActiveEnterTimestampMonotonic --value sandcastle)
	stamped step.out "$step"
	st=$?
	cat step.out
	[ "$st" -eq 0 ] || fail "$step exited $st"
	wait_for 60 active sandcastle || fail "the core does not run after $step"
	t1=$(op_do systemctl --user show -p ActiveEnterTimestampMonotonic --value sandcastle)
	[ "$t1" -gt "$t0" ] || fail "$step did not start the core again"
	seen "check: $line; $step: exit 0, $(grep -c '^install: ' step.out) steps, the core started again"
}

atf_test_case delegation
delegation_head()
{
	atf_set "descr" "B5: sandcastle(7) Delegate the cgroup controllers, step by step on the real user manager: the drop-in, daemon-reload, the manager restarted; its controllers then name cpuset and io beside cpu, memory and pids, sandcastle.target comes back with it, and check prints the recipe's three lines"
	atf_set "timeout" "600"
}
delegation_body()
{
	uid=$(id -u "$OP")
	mkdir -p /etc/systemd/system/user@.service.d
	cat > /etc/systemd/system/user@.service.d/delegate.conf <<'EOF'
[Service]
Delegate=cpu cpuset io memory pids
EOF
	systemctl daemon-reload || fail "systemctl daemon-reload"
	systemctl restart "user@$uid.service" || fail "restart user@$uid.service"
	held=$(cat "/sys/fs/cgroup/user.slice/user-$uid.slice/user@$uid.service/cgroup.controllers")
	for c in cpuset cpu io memory pids; do
		echo " $held " | grep -q " $c " || fail "user@$uid.service holds $held: no $c"
	done
	seen "user@$uid.service holds: $held"
	wait_for 120 active sandcastle ||
	    fail "sandcastle did not come back with the manager"
	ctl check
	cgroup_holds ctl.out
	seen "check: $(grep '^ok    toolbox: box\.\(memory\|cpus\|pids\)' ctl.out | tr '\n' ';')"
}

atf_test_case advice
advice_head()
{
	atf_set "descr" "I1: with the units installed, check's lines for a keep and a gate that do not answer, and for a gate whose network lets a range through, name the unit's command and the journal to read (sandcastlectl(8)); each command, run as printed, mends its line: the keep answers, the gate answers, its network refuses every bogon again; the control: the target started again, check prints no FAIL"
	atf_set "timeout" "600"
}
advice_body()
{
	op_do systemctl --user stop sandcastle.target || fail "stopping the target"
	# The target's stop job ends before its units' (no ordering between
	# them): check waits for the three to end.
	for u in sandcastle sandcastle-keep sandcastle-gate; do
		wait_for 120 inactive "$u" ||
		    fail "$u is $(op_do systemctl --user is-active "$u") after the target's stop"
	done
	ctl check
	cat ctl.out
	has ctl.out '^FAIL  keep: the keep does not answer at .*; start it: systemctl --user start sandcastle-keep; its log: journalctl --user -u sandcastle-keep$' ||
	    fail "check's keep line does not name the unit and the journal"
	grep -q 'in a terminal of its own' ctl.out &&
	    fail "check gives the advice of a machine without units"
	seen "the target stopped: $(grep '^FAIL  keep:' ctl.out | sed 's/.*); //')"
	advice_step '^FAIL  keep: ' '^ok    keep: ready at '
	# The keep's unit Requires= the gate's, so starting the keep started
	# the gate: a gate that ended on its own (SIGTERM, a clean end its
	# Restart=on-failure leaves) with the keep still up.
	op_do systemctl --user kill sandcastle-gate || fail "killing the gate"
	wait_for 60 inactive sandcastle-gate ||
	    fail "the gate's unit is $(op_do systemctl --user is-active sandcastle-gate) after SIGTERM"
	active sandcastle-keep || fail "the keep's unit ended with the gate"
	advice_step '^warn  gate: no gate answers at ' \
	    '^ok    gate: its network refuses every bogon and this machine '
	# A prohibit route gone from the gate's namespace, as root.
	gate=$(op_do systemctl --user show -p MainPID --value sandcastle-gate)
	[ "${gate:-0}" -gt 0 ] || fail "the gate's unit has no main process"
	nsenter -t "$gate" -n ip route del prohibit 172.16.0.0/12 ||
	    fail "the gate's route to 172.16.0.0/12 could not be removed"
	advice_step '^FAIL  gate: its network lets through: 172\.16\.0\.0 ' \
	    '^ok    gate: its network refuses every bogon and this machine '
	op_do systemctl --user start sandcastle.target || fail "starting the target"
	wait_for 120 active sandcastle || fail "sandcastle did not start again"
	scans_start
	check_clean
}

# advice_step LINE OK: check's line matching LINE names a unit's command
# ("start it: CMD; its log: ..." or "restart it: CMD"), run as printed;
# then check has a line matching OK.
advice_step()
{
	ctl check
	line=$(grep -E -e "$1" ctl.out | head -n 1)
	[ -n "$line" ] || { cat ctl.out; fail "check has no line: $1"; }
	step=$(printf '%s\n' "$line" |
	    sed -n 's/.*; \(re\)\{0,1\}start it: \(systemctl --user [a-z]* sandcastle-[a-z]*\)\(; its log: .*\)\{0,1\}$/\2/p')
	[ -n "$step" ] || fail "no unit's command in: $line"
	op_login "$step" > step.out 2>&1 || { cat step.out; fail "$step failed"; }
	_t=$(( $(date +%s) + 60 ))
	until ctl check; has ctl.out "$2"; do
		[ "$(date +%s)" -lt "$_t" ] || { cat ctl.out; fail "after $step, no line: $2"; }
		sleep 2
	done
	seen "$(printf '%s\n' "$line" | cut -c 1-60)...: $step, then $(grep -E -e "$2" ctl.out | cut -c 1-40)..."
}

atf_test_case package
package_head()
{
	atf_set "descr" "I1: the Debian package of this build, installed with apt offline over the source install (its Depends are in the image) and lintian's word on it clean: the operator's /usr/bin/sandcastlectl install runs the units on the package's binaries where they are and removes the copies in ~/.local, and a first job runs; uninstall leaves nothing of the package's in the account, apt purge removes the package, and the configuration, the secrets and the records are as they were"
	atf_set "timeout" "1800"
}
package_body()
{
	# run.sh builds it while the cases before this one run.
	wait_for 900 test -f "$IN/deb/done" || fail "the package was not built in time"
	deb=$(ls "$IN"/deb/sandcastle_*_amd64.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || fail "no package on the share: $(cat "$IN/deb/why" 2>/dev/null)"
	[ -s "$IN/deb/lintian.log" ] && fail "lintian: $(head -n 3 "$IN/deb/lintian.log" | tr '\n' ';')"
	[ -f "$IN/deb/lintian.log" ] || fail "lintian did not run on the package"
	op_files .config/sandcastle .local/share/sandcastle/secrets > conf.before
	t0=$(date +%s)
	apt-get install -y --no-install-recommends "$deb" > apt.out 2>&1 ||
	    { cat apt.out; fail "apt-get install $deb"; }
	seen "apt-get install ${deb##*/}, offline: $(( $(date +%s) - t0 )) s; $(op_do /usr/bin/sandcastlectl version | head -n 1); lintian: nothing to say"
	# The source runs, so that install's check has no FAIL.
	scans_start
	t0=$(date +%s)
	stamped install.out "/usr/bin/sandcastlectl install"
	st=$?
	cat install.out
	[ "$st" -eq 0 ] || fail "install exited $st"
	in_order install.out '^install: images ready$' \
	    "^install: the binaries are the package's, in /usr/bin and /usr/libexec/sandcastle: the units run them there\$" \
	    '^install: sandcastle.target is restarted$' \
	    "^install: removed $OPHOME/.local/bin/sandcastlectl, of an earlier install\$" \
	    "^install: removed $OPHOME/.local/libexec/sandcastle/keepd, of an earlier install\$" \
	    '^install: running sandcastlectl check$'
	grep '^FAIL' install.out && fail "check has a FAIL line"
	grep -q '^ExecStart=/usr/libexec/sandcastle/keepd ' "$UNITS/sandcastle-keep.service" &&
	    grep -q '^ExecStart=/usr/bin/sandcastled ' "$UNITS/sandcastle.service" ||
	    fail "the units do not run the package's binaries: $(grep -h '^ExecStart=' "$UNITS"/*.service | tr '\n' ';')"
	left=$(ls "$OPHOME/.local/bin" "$OPHOME/.local/libexec/sandcastle" 2>/dev/null | grep -E '^(sandcastle|keepd|gated)')
	[ -z "$left" ] || fail "left in ~/.local: $left"
	[ "$(op_login 'command -v sandcastlectl')" = /usr/bin/sandcastlectl ] ||
	    fail "sandcastlectl in PATH is $(op_login 'command -v sandcastlectl')"
	seen "install from /usr/bin: $(( $(date +%s) - t0 )) s, exit 0, images: $(image_times install.out); the units run /usr/bin and /usr/libexec/sandcastle, ~/.local holds no binary of sandcastle's"
	scans_start
	op_login "systemctl --user restart sandcastle" || fail "restart sandcastle"
	r=$(scans_result 300) || { cat "$OPHOME/scans.log"; fail "no result of the first job under the package"; }
	case $r in *'reads "HELLO WORLD'*) ;; *) fail "the first job: $r" ;; esac
	seen "the first job under the package: $r"
	scans_stop
	ctl uninstall || { cat ctl.out; fail "uninstall"; }
	for u in sandcastle.target sandcastle-gate.service \
	    sandcastle-keep.service sandcastle.service; do
		[ -e "$UNITS/$u" ] && fail "$u stayed"
	done
	# Nothing of the package's: no file of the account is one of its binaries.
	for f in $(dpkg -L sandcastle | grep -E '^/usr/(bin|libexec)/.*(sandcastle|keepd|gated)'); do
		[ -f "$f" ] && sha256sum < "$f"
	done | sort -u > package.sums
	find "$OPHOME" -type f -size +100k -exec sha256sum {} + 2>/dev/null |
	    awk '{ print $1 "  -" }' | sort -u | comm -12 - package.sums > same
	[ -s same ] && fail "the account holds $(wc -l < same) of the package's binaries after uninstall"
	op_files .config/sandcastle .local/share/sandcastle > files.uninstalled
	t0=$(date +%s)
	apt-get purge -y sandcastle > purge.out 2>&1 || { cat purge.out; fail "apt-get purge"; }
	dpkg-query -W sandcastle > /dev/null 2>&1 && fail "the package is still known to dpkg"
	[ -e /usr/bin/sandcastlectl ] || [ -e /usr/libexec/sandcastle ] && fail "the purge left the package's files"
	op_files .config/sandcastle .local/share/sandcastle | diff files.uninstalled - ||
	    fail "apt purge changed the configuration, the secrets or the records"
	op_files .config/sandcastle .local/share/sandcastle/secrets | diff conf.before - ||
	    fail "the configuration or the secrets changed since before apt install"
	seen "uninstall: the units and the images gone, no binary of the package's in the account; apt purge: $(( $(date +%s) - t0 )) s; the $(wc -l < files.uninstalled) files of the configuration, the secrets and the records as they were, those of the configuration and the secrets as before apt install"
}

# op_files DIR...: the files of the operator's DIRs (below the home), a
# line each: path, mode, size, time and SHA-256.
op_files()
{
	(cd "$OPHOME" && find "$@" -type f \
	    -printf '%p %m %s %T@ ' -exec sha256sum {} \; | awk '{ print $1, $2, $3, $4, $5 }' | sort)
}

atf_init_test_cases()
{
	atf_add_test_case install
	atf_add_test_case units
	atf_add_test_case security
	atf_add_test_case first_job
	atf_add_test_case a1
	atf_add_test_case a3
	atf_add_test_case cgroup
	atf_add_test_case jobs
	atf_add_test_case a2
	atf_add_test_case a4
	atf_add_test_case restart
	atf_add_test_case upgrade
	atf_add_test_case upgrade_window
	atf_add_test_case hints
	atf_add_test_case boot
	atf_add_test_case reinstall
	atf_add_test_case traffic
	atf_add_test_case delegation
	atf_add_test_case advice
	atf_add_test_case package
}
