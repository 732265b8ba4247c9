#! /usr/bin/env atf-sh
# I1: the units install writes are valid for systemd (systemd-analyze
# verify, as the account, with no manager running), and check warns of a
# unit changed by hand or of another build, and of every drop-in line
# that removes a lock; a harmless drop-in (Environment=) does not warn;
# where the units are, the keep's and the gate's lines say systemctl's.
# install runs with install.subr's fakes and a podman whose build
# succeeds at once: these tests are about the units, not the images.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"
. "$(atf_get_srcdir)/install.subr"

UNITS="sandcastle.target sandcastle-gate.service sandcastle-keep.service sandcastle.service"

# un_install: the good fixture, installed (the controllers delegated in
# install.subr's cgroup tree); $units is where the units are.
un_install()
{
	in_base
	in_mkwrap
	touch "$SC_ROOT/answer/podman-build"
	units=$SC_HOME/.config/systemd/user
	./cgtree "$ALL" ./ctl install > install.out 2>&1
	grep -q '^install: the units are written in ' install.out ||
	    { cat install.out; atf_fail "install wrote no units"; }
}

# units_lines: check's lines about the units.
units_lines()
{
	./ctl check > check.out 2>&1
	grep '^[a-zA-Z]* *units:' check.out > units.out
	cat units.out
}

atf_test_case verify cleanup
verify_head()
{
	atf_set "descr" "I1: systemd-analyze verify finds nothing to say of the units install wrote; control: it does of a unit with an unknown directive or a missing program"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
verify_body()
{
	un_install
	cd "$units" || atf_fail "no units"
	atf_check -s exit:0 -o empty -e empty \
	    "$OLDPWD/asuser" systemd-analyze verify --man=no --user $UNITS
	cd "$OLDPWD" || atf_fail "cd"
	# Control: the same verify speaks of what systemd would refuse.
	mkdir -p bad && cp "$units"/sandcastle* bad/
	echo "NoSuchDirective=yes" >> bad/sandcastle-keep.service
	sed -i 's|^ExecStart=[^ ]*gated|ExecStart=/nonexistent/gated|' \
	    bad/sandcastle-gate.service
	chown -R "$SC_USER" bad
	chmod 0755 bad
	cd bad || atf_fail "cd"
	atf_check -s not-exit:0 -o ignore \
	    -e match:"Unknown key 'NoSuchDirective'" \
	    -e match:'/nonexistent/gated is not executable' \
	    "$OLDPWD/asuser" systemd-analyze verify --man=no --user $UNITS
}
verify_cleanup()
{
	sc_cleanup
}

# figure UNIT: UNIT's exposure in sandcastle(7), times ten (systemd's
# --threshold= counts in tenths).
figure()
{
	awk -v u="$1" '$1 == ".It" && $2 == "Pa" && $3 == u && $4 == "Ta" {
		print $5 * 10; exit }' "$(sc_srcdir)/man/sandcastle.7"
}

# The settings the units set for systemd's sandbox, which the control
# takes out.
SANDBOX='KeyringMode|Private[A-Za-z]*|Protect[A-Za-z]*|BindPaths|ReadWritePaths|RuntimeDirectory[A-Za-z]*|CapabilityBoundingSet|SystemCallFilter'

atf_test_case exposure cleanup
exposure_head()
{
	atf_set "descr" "I1: systemd-analyze security --offline rates each unit install wrote at or below its figure in sandcastle(7); control: each unit without the settings of systemd's sandbox is above it"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
exposure_body()
{
	un_install
	mkdir bare
	for u in sandcastle-gate sandcastle-keep sandcastle; do
		t=$(figure "$u.service")
		[ -n "$t" ] || atf_fail "sandcastle(7) gives no figure of $u.service"
		(cd "$units" && "$OLDPWD/asuser" systemd-analyze security \
		    --offline=yes --user --no-pager --threshold="$t" \
		    "$u.service") > "$u.sec" 2>&1 ||
		    { cat "$u.sec"; atf_fail "$u.service is above $t tenths"; }
		grep -F "Overall exposure level for $u.service" "$u.sec"
		grep -Ev "^($SANDBOX)=" "$units/$u.service" > "bare/$u.service"
		cmp -s "$units/$u.service" "bare/$u.service" &&
		    atf_fail "$u.service sets nothing of systemd's sandbox"
	done
	cp "$units/sandcastle.target" bare/
	chown -R "$SC_USER" bare
	cd bare || atf_fail "cd"
	for u in sandcastle-gate sandcastle-keep sandcastle; do
		atf_check -s not-exit:0 -o match:"Overall exposure level for $u.service" \
		    -e ignore "$OLDPWD/asuser" systemd-analyze security \
		    --offline=yes --user --no-pager --threshold="$(figure "$u.service")" \
		    "$u.service"
	done
}
exposure_cleanup()
{
	sc_cleanup
}

# opens FILE: how many times the trace in FILE opened the installed
# sandcastled, which only the build id's hash reads.
opens()
{
	grep -c "\"$(dirname "$(sc_bin sandcastled)")/sandcastled\", O_RDONLY" "$1"
}

atf_test_case hash_once cleanup
hash_once_head()
{
	atf_set "descr" "check hashes this build's binaries once, though the units' section and the toolbox's both need the build id"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
hash_once_body()
{
	un_install
	# The control: the count sees version's one hash.
	strace -f -qq -e trace=openat -o version.trace ./ctl version > /dev/null
	[ "$(opens version.trace)" -eq 1 ] ||
	    atf_fail "version opened sandcastled $(opens version.trace) times"
	strace -f -qq -e trace=openat -o check.trace ./ctl check > check.out 2>&1
	grep -qxF "ok    units: sandcastle.target and its three services are this build's" check.out ||
	    { cat check.out; atf_fail "no units line: the units' section did not take the id"; }
	grep -q '^[a-zA-Z]* *toolbox: ' check.out ||
	    { cat check.out; atf_fail "no toolbox line"; }
	[ "$(opens check.trace)" -eq 1 ] ||
	    atf_fail "check opened sandcastled $(opens check.trace) times"
}
hash_once_cleanup()
{
	sc_cleanup
}

atf_test_case drift cleanup
drift_head()
{
	atf_set "descr" "I1: check says the units are this build's; a unit changed by hand, or of another build, warns"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
drift_body()
{
	un_install
	units_lines
	grep -qxF "ok    units: sandcastle.target and its three services are this build's" units.out ||
	    atf_fail "no ok line"
	[ "$(grep -c '^warn' units.out)" -eq 0 ] || atf_fail "a warning"
	echo "RestartSec=30s" >> "$units/sandcastle-keep.service"
	units_lines
	grep -qxF "warn  units: sandcastle-keep.service differs from what install writes; run sandcastlectl install" units.out ||
	    atf_fail "a unit changed by hand does not warn"
	grep -q '^ok' units.out && atf_fail "ok with a changed unit"
	sed -i '1s/^# sandcastle build [0-9a-f]*,/# sandcastle build 000000000000,/' \
	    "$units/sandcastle-gate.service"
	units_lines
	grep -qxF "warn  units: sandcastle-gate.service was written by another build; run sandcastlectl install" units.out ||
	    atf_fail "a unit of another build does not warn"
	# Without install's marker, check has nothing to say of units.
	for u in $UNITS; do sed -i 1d "$units/$u"; done
	units_lines
	[ -s units.out ] && atf_fail "units lines without install's units"
	return 0
}
drift_cleanup()
{
	sc_cleanup
}

atf_test_case advice cleanup
advice_head()
{
	atf_set "descr" "where install wrote the units, the keep's and the gate's lines say systemctl --user start and the journal to read; no keep, no gate line; control: without the units, the commands that start keepd and gated by hand"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
advice_body()
{
	un_install
	keep="$SC_RUN/sandcastle/keep.sock" gate="$SC_RUN/sandcastle/gate.sock"
	# install started the keep (the fake systemctl), and no gate.
	./ctl check > check.out 2>&1
	cat check.out
	grep -qxF "warn  gate: no gate answers at $gate: No such file or directory; its network was not looked at; start it: systemctl --user start sandcastle-gate; its log: journalctl --user -u sandcastle-gate" check.out ||
	    atf_fail "no gate line of the units"
	pid=$(cat "$SC_ROOT/log/keepd.pid")
	kill "$pid"
	n=0
	while kill -0 "$pid" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	rm -f "$keep"
	./ctl check > check.out 2>&1
	cat check.out
	grep -qxF "FAIL  keep: the keep does not answer at $keep (No such file or directory); start it: systemctl --user start sandcastle-keep; its log: journalctl --user -u sandcastle-keep" check.out ||
	    atf_fail "no keep line of the units"
	# Nothing runs: the keep's line says what to start, the gate's none.
	grep -q '^[a-zA-Z]* *gate: ' check.out && atf_fail "a gate line without the keep"
	# Control: without the units, the daemons' own commands.
	rm -f "$units"/sandcastle*.service "$units"/sandcastle.target
	./ctl check > check.out 2>&1
	cat check.out
	grep -qxF "FAIL  keep: the keep does not answer at $keep (No such file or directory); start it in a terminal of its own: $(sc_bin keepd) -d -c $SC_CONFIG -s $SC_SECRETS" check.out ||
	    atf_fail "no keep line without the units"
	sc_start keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_file "$keep" 10 || { sc_log keepd; atf_fail "keepd does not serve"; }
	./ctl check > check.out 2>&1
	cat check.out
	grep -qxF "warn  gate: no gate answers at $gate: No such file or directory; its network was not looked at; start it in a terminal of its own: $(sc_bin gated) -d -c $SC_CONFIG" check.out ||
	    atf_fail "no gate line without the units"
}
advice_cleanup()
{
	sc_cleanup
}

atf_test_case dropins cleanup
dropins_head()
{
	atf_set "descr" "I1: a drop-in that removes a lock, adds a capability, replaces a command or changes the account warns, one line each; control: Environment= does not"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
dropins_body()
{
	un_install
	d=$units/sandcastle-keep.service.d
	mkdir -p "$d" "$units/sandcastle-.service.d"
	# Control: a harmless drop-in, and a lock set to its own value.
	printf '[Service]\nEnvironment=MINE=1\nNoNewPrivileges=yes\n' > "$d/10-mine.conf"
	chown -R "$SC_USER" "$units"
	units_lines
	grep -q '^warn' units.out && atf_fail "a harmless drop-in warns"
	grep -q '^ok    units:' units.out || atf_fail "no ok line"
	cat > "$d/20-bad.conf" <<'EOF'
# each line below is one way to take a lock off
[Service]
NoNewPrivileges=no
RestrictAddressFamilies=
AmbientCapabilities=CAP_NET_ADMIN
ExecStart=
ExecStart=/bin/sh -c \
    "cat secrets"
User=root
EOF
	printf '[Service]\nMemoryDenyWriteExecute=no\n' \
	    > "$units/sandcastle-.service.d/30-prefix.conf"
	chown -R "$SC_USER" "$units"
	units_lines
	for l in \
	    "$d/20-bad.conf: NoNewPrivileges=no removes a lock of sandcastle-keep.service; remove the line" \
	    "$d/20-bad.conf: RestrictAddressFamilies= removes a lock of sandcastle-keep.service; remove the line" \
	    "$d/20-bad.conf: AmbientCapabilities=CAP_NET_ADMIN adds a capability to sandcastle-keep.service; remove the line" \
	    "$d/20-bad.conf: ExecStart= replaces the command of sandcastle-keep.service; remove the line" \
	    "$d/20-bad.conf: ExecStart=/bin/sh -c \"cat secrets\" replaces the command of sandcastle-keep.service; remove the line" \
	    "$d/20-bad.conf: User=root changes the account of sandcastle-keep.service; remove the line" \
	    "$units/sandcastle-.service.d/30-prefix.conf: MemoryDenyWriteExecute=no removes a lock of sandcastle-gate.service; remove the line" \
	    "$units/sandcastle-.service.d/30-prefix.conf: MemoryDenyWriteExecute=no removes a lock of sandcastle-keep.service; remove the line"; do
		grep -qxF "warn  units: $l" units.out || atf_fail "no line: $l"
	done
	[ "$(grep -c '^warn' units.out)" -eq 8 ] || atf_fail "other warnings"
	grep -q '10-mine.conf' units.out && atf_fail "the harmless drop-in warns"
	# A drop-in check cannot read is said, with its line.
	printf '[Service]\nNoNewPrivileges\n' > "$d/40-broken.conf"
	chown "$SC_USER" "$d/40-broken.conf"
	units_lines
	grep -qF "warn  units: $d/40-broken.conf: line 2: NoNewPrivileges: neither Key=Value, a [Section] nor a comment;" units.out ||
	    atf_fail "a broken drop-in is not said"
}
dropins_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case verify
	atf_add_test_case exposure
	atf_add_test_case drift
	atf_add_test_case hash_once
	atf_add_test_case advice
	atf_add_test_case dropins
}
