#! /usr/bin/env atf-sh
# I1 B5: sandcastlectl install changes nothing on a machine that does
# not serve (each lack faked with PATH, or with a file bound over the
# real one in a mount namespace of the test's, never with a switch of
# the binary), the cgroup controllers among them, and on one that serves
# takes every step in order; uninstall removes what install made and
# keeps the rest; each hint of check for an image names install, whose
# restart fixes it.  Real rootless podman as the test account; systemctl
# and loginctl are install.subr's fakes, the delegated controllers its
# cgroup tree (this machine has cgroup v1).

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"
. "$(atf_get_srcdir)/install.subr"

in_setup()
{
	in_base
	# Podman makes its own files in the home the first time it is asked
	# anything: a machine install serves has used it already.
	sc_as_user podman info > /dev/null 2>&1
}

# refused LINE [PREFIX...]: PREFIX ./ctl install refuses with LINE under
# the heading, prints no step, and changes nothing.
refused()
{
	_want=$1; shift
	in_state > before
	"$@" ./ctl install > out 2> err && { cat out err; atf_fail "install passed"; }
	cat err
	grep -qxF "this machine does not serve, nothing was changed:" err ||
	    atf_fail "no heading"
	grep -qxF "  $_want" err || atf_fail "no line: $_want"
	[ -s out ] && { cat out; atf_fail "install took a step"; }
	in_state > after
	diff before after || atf_fail "install changed something"
}

# bound FILE CONTENT: runs the rest with FILE replaced by CONTENT, in a
# mount namespace of its own.
mkbound()
{
	cat > bound <<'EOS'
#!/bin/sh
f=$1 c=$2; shift 2
printf '%s\n' "$c" > "$PWD/bound.$$" && chmod 0644 "$PWD/bound.$$"
exec unshare -m sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' \
    "$PWD/bound.$$" "$f" "$@"
EOS
	chmod 0755 bound
}

atf_test_case lacks cleanup
lacks_head()
{
	atf_set "descr" "I1 B5: each lack of the machine is refused with its line and nothing changes, the cgroup controllers cpu, memory and pids among them (this machine's cgroup v1, and a tree without cpu or without memory and pids); control: with nothing lacking, the controllers in a tree of the test's, install goes on"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
lacks_body()
{
	in_setup
	mkbound
	in_mkwrap
	uid=$(id -u "$SC_USER")
	# Control first: nothing lacks, so install goes past the machine,
	# and stops at a configuration it cannot read, changing nothing.
	cp "$SC_CONFIG/config.yaml" config.good
	echo "no_such_key: 1" >> "$SC_CONFIG/config.yaml"
	in_state > before
	atf_check -s exit:1 -o save:machine.out \
	    -e match:'^install: the configuration is not valid, nothing was changed$' \
	    ./cgtree "$ALL" ./ctl install
	atf_check -o match:'^install: the machine serves: podman [0-9.]+ with (runc|crun), systemd 252, cgroup v2 with cpu, memory and pids delegated, pasta' \
	    cat machine.out
	in_state > after
	diff before after || atf_fail "a refused configuration changed something"
	cp config.good "$SC_CONFIG/config.yaml"

	# B5: the controllers, each a whole word (cpuset is not cpu), and
	# the drop-in that delegates them named, as sandcastle(7) has it.
	cg=/sys/fs/cgroup/user.slice/user-$uid.slice/user@$uid.service/cgroup.controllers
	fix="rootless podman ignores --memory, --cpus and --pids-limit without cpu, memory and pids: as root, put Delegate=cpu cpuset io memory pids under [Service] in /etc/systemd/system/user@.service.d/delegate.conf, run systemctl daemon-reload, then restart user@$uid.service (sandcastle(7), Delegate the cgroup controllers)"
	grep -q '^\.Ss Delegate the cgroup controllers$' \
	    "$(sc_srcdir)/man/sandcastle.7" ||
	    atf_fail "sandcastle(7) has no section Delegate the cgroup controllers"
	grep -q '^Delegate=cpu cpuset io memory pids$' \
	    "$(sc_srcdir)/man/sandcastle.7" ||
	    atf_fail "sandcastle(7) has no drop-in with Delegate=cpu cpuset io memory pids"
	refused "cgroup: not delegated to your user manager: cpu, memory, pids ($cg: no such file); $fix" \
	    ./cgtree -
	refused "cgroup: not delegated to your user manager: cpu ($cg: cpuset io memory pids); $fix" \
	    ./cgtree "cpuset io memory pids"
	refused "cgroup: not delegated to your user manager: memory, pids ($cg: cpuset cpu io); $fix" \
	    ./cgtree "cpuset cpu io"
	# This machine as it is: cgroup v1, no user manager's tree.
	if [ ! -e "$cg" ]; then
		refused "cgroup: not delegated to your user manager: cpu, memory, pids ($cg: no such file); $fix"
	fi

	echo 4.2.0 > "$SC_ROOT/answer/podman-version"
	refused "podman: version 4.2.0 found; 4.3.1 or later is needed"
	rm "$SC_ROOT/answer/podman-version"
	echo kata > "$SC_ROOT/answer/podman-runtime"
	refused "podman: OCI runtime kata found; runc or crun is needed"
	rm "$SC_ROOT/answer/podman-runtime"
	echo 251.4 > "$SC_ROOT/answer/version"
	refused "systemd: user manager version 251 found; 252 or later is needed"
	echo none > "$SC_ROOT/answer/version"
	refused "systemd: no user manager answers (systemctl --user show: Failed to connect to bus: No medium found); a user manager of systemd 252 or later is needed: log in, or as root loginctl enable-linger $SC_USER"
	echo 252.38-1~deb12u1 > "$SC_ROOT/answer/version"

	rm "$SC_ROOT/fake/podman"
	in_hide podman
	refused "podman: not found on PATH; podman 4.3.1 or later is needed, rootless"
	in_hide pasta
	refused "pasta: not found on PATH; the gate needs it (package passt)"
	in_mkfakes
	rm "$SC_ROOT/fake/systemctl"
	in_hide systemctl
	refused "systemctl: not found on PATH; systemd 252 or later with a user manager for this account is needed"
	in_mkfakes

	refused "/etc/subuid: no range for $SC_USER (uid $uid); at least 65536 ids are needed: as root, usermod --add-subuids 100000-165535 $SC_USER, then podman system migrate" \
	    ./bound /etc/subuid "someone:100000:65536"
	refused "/etc/subgid: 1000 ids for $SC_USER; at least 65536 are needed" \
	    ./bound /etc/subgid "$uid:100000:1000"
	refused "/proc/sys/user/max_user_namespaces: 0; more than 0 is needed for unprivileged user namespaces (sysctl user.max_user_namespaces=15000)" \
	    ./bound /proc/sys/user/max_user_namespaces 0
	refused "/etc/resolv.conf: names only resolvers on loopback or IPv6 (127.0.0.53); the gate needs an IPv4 resolver off loopback: with systemd-resolved, link /etc/resolv.conf to /run/systemd/resolve/resolv.conf, which names the real ones" \
	    ./bound /etc/resolv.conf "nameserver 127.0.0.53"
	refused "/etc/resolv.conf: names no resolver; the gate needs an IPv4 resolver off loopback (your router's, say) named there" \
	    ./bound /etc/resolv.conf "search home.arpa"
	refused "/dev/net/tun: cannot be opened by this account (Permission denied); pasta needs it for the gate's link: as root, chmod 0666 /dev/net/tun, as Debian has it" \
	    ./bound /dev/net/tun ""
	refused "/dev/net/tun: missing; pasta needs it for the gate's link: as root, modprobe tun" \
	    unshare -m sh -c 'mount -t tmpfs none /dev/net && exec "$@"' sh
	# A network of its own with no default route, as a machine offline.
	refused "IPv4: no default route (ip -4 route show default shows none); the gate reaches its destinations by the machine's IPv4 default route" \
	    unshare -n
	# The control of the bound files: the real ones, bound, serve.
	atf_check -s exit:1 -o match:'^install: the machine serves' \
	    -e match:'configuration is not valid' ./bound /etc/subuid \
	    "$(grep "^$SC_USER:" /etc/subuid)" ./cgtree "$ALL" sh -c \
	    "echo no_such_key: 1 >> '$SC_CONFIG/config.yaml' && exec ./ctl install"
	cp config.good "$SC_CONFIG/config.yaml"
	atf_check -s exit:1 -o match:'^install: the machine serves' \
	    -e match:'configuration is not valid' ./bound /etc/resolv.conf \
	    "nameserver 127.0.0.53
nameserver 198.51.100.53" ./cgtree "$ALL" sh -c \
	    "echo no_such_key: 1 >> '$SC_CONFIG/config.yaml' && exec ./ctl install"

	# root: refused before podman is asked anything.
	in_state > before
	atf_check -s exit:1 -o empty \
	    -e match:"^  root: this is uid 0; install runs as the operator's own account, never as root$" \
	    env HOME="$SC_HOME" "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" \
	    -s "$SC_SECRETS" install
	in_state > after
	diff before after || atf_fail "install as root changed something"
}
lacks_cleanup()
{
	sc_cleanup
}

atf_test_case full cleanup
full_head()
{
	atf_set "descr" "I1: install on a machine that serves: the steps in order, the binaries by rename, the units, the calls to systemd, check; again: the same units, a drop-in untouched, an older build's image removed after the restart; uninstall keeps the rest and names an image in use"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
full_body()
{
	in_setup
	in_mkwrap
	rm "$SC_ROOT/fake/podman"
	bin=$SC_HOME/.local/bin
	libexec=$SC_HOME/.local/libexec/sandcastle
	units=$SC_HOME/.config/systemd/user
	# An older keepd, held open: a rename leaves it whole to its reader.
	# It is sandcastle's (its note), so install may replace it.
	mkdir -p "$bin" "$libexec"
	{ cat "$(sc_bin keepd)"; echo "old keepd"; } > "$libexec/keepd"
	cp "$libexec/keepd" old.keepd
	# An earlier install's keepd and gated in ~/.local/bin go; a file
	# there without the note stays.
	cp "$libexec/keepd" "$bin/keepd"
	echo "the routing daemon" > "$bin/gated"
	chown -R "$SC_USER:$SC_USER" "$SC_HOME/.local"
	old_inode=$(stat -c %i "$libexec/keepd")
	exec 3< "$libexec/keepd"

	./cgtree "$ALL" ./ctl install > out 2> err
	st=$?
	cat out err
	in_steps out \
	    '^install: the machine serves: podman .*, cgroup v2 with cpu, memory and pids delegated, ' \
	    '^install: the configuration is valid$' \
	    '^install: build [0-9a-f]{12}, binaries in ' \
	    '^install: images ready$' \
	    "^install: the binaries are in $bin and $libexec, each put there by a rename\$" \
	    "^install: the units are written in $units\$" \
	    '^install: systemd reloaded the units$' \
	    '^install: sandcastle.target is enabled$' \
	    '^install: lingering is on$' \
	    '^install: sandcastle.target is restarted$' \
	    "^install: the keep is ready at $SC_RUN/sandcastle/keep.sock\$" \
	    "^install: removed $bin/keepd, of an earlier install\$" \
	    '^install: the images of older builds are removed$' \
	    '^install: running sandcastlectl check$' \
	    '^ok    keep: ready' \
	    "^ok    units: sandcastle.target and its three services are this build's\$"
	# check's status is install's.
	./ctl check > check.out 2>&1
	[ "$st" -eq $? ] || atf_fail "install exited $st, check another"

	for b in sandcastled sandcastlectl keepd gated sandcastle-box-claude \
	    sandcastle-box-ocr; do
		f=$(sc_bin_in "$SC_HOME/.local" "$b")
		cmp "$(sc_bin "$b")" "$f" || atf_fail "$b not installed"
		[ -x "$f" ] || atf_fail "$b not executable"
	done
	[ "$(stat -c %i "$libexec/keepd")" != "$old_inode" ] ||
	    atf_fail "keepd was written in place"
	cmp - old.keepd <&3 || atf_fail "the old keepd was changed"
	exec 3<&-
	[ -e "$bin/keepd" ] && atf_fail "the earlier install's keepd stayed"
	[ "$(cat "$bin/gated")" = "the routing daemon" ] ||
	    atf_fail "a file without the note was touched"
	ls -A "$bin" "$libexec" | grep '^\.' && atf_fail "a temporary file was left"
	build=$(./ctl version | awk '$1 == "build" { print $2 }')
	for u in sandcastle-gate.service sandcastle-keep.service \
	    sandcastle.service sandcastle.target; do
		head -n 1 "$units/$u" | grep -q "^# sandcastle build $build, written by sandcastlectl install" ||
		    atf_fail "$u: no marker of build $build"
	done
	grep -q "^ExecStart=$libexec/keepd -d -c $SC_CONFIG -s $SC_SECRETS\$" \
	    "$units/sandcastle-keep.service" || atf_fail "keep's ExecStart"
	grep -q "^ExecStart=$libexec/gated -d -c $SC_CONFIG\$" \
	    "$units/sandcastle-gate.service" || atf_fail "gate's ExecStart"
	grep -q "^ExecStart=$bin/sandcastled -d -i -c $SC_CONFIG -s $SC_SECRETS\$" \
	    "$units/sandcastle.service" || atf_fail "the core's ExecStart"
	cat > want.calls <<EOF
systemctl --user daemon-reload
systemctl --user enable sandcastle.target
loginctl show-user $SC_USER --property=Linger --value
loginctl enable-linger $SC_USER
systemctl --user restart sandcastle.target
EOF
	grep -v -e ' --version$' -e '^systemctl --user show' \
	    "$SC_ROOT/log/calls" > got.calls
	diff want.calls got.calls || atf_fail "the calls to systemd"
	for cap in $(sc_caps); do
		atf_check -s exit:0 ./asuser podman image exists \
		    "sandcastle-$cap:$build"
	done

	# Again: the same units, lingering left as it is, a drop-in untouched.
	mkdir -p "$units/sandcastle-keep.service.d"
	printf '[Service]\nEnvironment=MINE=1\n' \
	    > "$units/sandcastle-keep.service.d/10-mine.conf"
	chown -R "$SC_USER:$SC_USER" "$units"
	touch -d '2020-01-01' "$units/sandcastle-keep.service.d/10-mine.conf"
	stat -c '%i %s %Y' "$units/sandcastle-keep.service.d/10-mine.conf" > dropin.before
	cp -R "$units" units.before
	# An image of an older build: it goes after the restart, when the
	# core that made boxes of it has stopped, never before.
	# An image of its own, with a box of it podman holds in its storage
	# alone (a core killed while podman made a box): it blocks podman
	# rmi, and install removes it first.
	tar -cf empty.tar -T /dev/null && chmod 0644 empty.tar
	atf_check -s exit:0 -o ignore -e ignore ./asuser podman import \
	    "$PWD/empty.tar" sandcastle-claude:000000000000
	left=sandcastle-box-00000000000000cc
	sc_storage_only "$left" sandcastle-claude:000000000000
	: > "$SC_ROOT/log/calls"
	./cgtree "$ALL" ./ctl install > out2 2> err2
	cat out2 err2
	in_steps out2 '^install: images ready$' \
	    '^install: lingering is already on$' \
	    '^install: sandcastle.target is restarted$' \
	    '^install: the keep is ready at ' \
	    '^install: removing localhost/sandcastle-claude:000000000000$' \
	    "^install: removing $left, a box of localhost/sandcastle-claude:000000000000 podman left in its storage alone\$" \
	    '^install: the images of older builds are removed$' \
	    '^install: running sandcastlectl check$' \
	    "^ok    units: sandcastle.target and its three services are this build's\$"
	atf_check -s exit:1 ./asuser podman image exists sandcastle-claude:000000000000
	grep -q 'enable-linger' "$SC_ROOT/log/calls" && atf_fail "linger asked again"
	diff -r units.before "$units" || atf_fail "the units changed"
	stat -c '%i %s %Y' "$units/sandcastle-keep.service.d/10-mine.conf" |
	    diff dropin.before - || atf_fail "the drop-in was touched"

	# uninstall, with an image in use: it stays, named, exit 1.
	atf_check -s exit:0 -o ignore -e ignore ./asuser podman create \
	    --name sc-inuse "sandcastle-claude:$build"
	: > "$SC_ROOT/log/calls"
	atf_check -s exit:1 \
	    -o match:"^uninstall: removed $units/sandcastle-keep.service\$" \
	    -o match:"^uninstall: removing localhost/sandcastle-ocr:$build\$" \
	    -e match:"localhost/sandcastle-claude:$build is in use: it stays; stop the box that uses it and run uninstall again" \
	    ./ctl uninstall
	grep -qx 'systemctl --user disable --now sandcastle.target' \
	    "$SC_ROOT/log/calls" || atf_fail "the target was not stopped"
	atf_check -s exit:0 ./asuser podman image exists "sandcastle-claude:$build"
	atf_check -s exit:1 ./asuser podman image exists "sandcastle-ocr:$build"
	atf_check -s exit:0 -o ignore -e ignore ./asuser podman rm sc-inuse
	atf_check -s exit:0 -o match:'^uninstall: the images are removed$' \
	    -o match:"^uninstall: done; the configuration, the secrets, the records, the binaries and the drop-ins stay\$" \
	    ./ctl uninstall
	atf_check -s exit:1 ./asuser podman image exists "sandcastle-claude:$build"
	for u in sandcastle-gate.service sandcastle-keep.service \
	    sandcastle.service sandcastle.target; do
		[ -e "$units/$u" ] && atf_fail "$u stayed"
	done
	[ -f "$units/sandcastle-keep.service.d/10-mine.conf" ] ||
	    atf_fail "the drop-in went"
	[ -f "$SC_CONFIG/config.yaml" ] && [ -f "$SC_SECRETS/claude" ] ||
	    atf_fail "the configuration or a secret went"
	for b in sandcastled sandcastlectl keepd gated sandcastle-box-claude \
	    sandcastle-box-ocr; do
		[ -x "$(sc_bin_in "$SC_HOME/.local" "$b")" ] || atf_fail "$b went"
	done
}
full_cleanup()
{
	sc_load && sc_as_user podman rm -f sc-inuse >/dev/null 2>&1
	sc_cleanup
}

atf_test_case foreign cleanup
foreign_head()
{
	atf_set "descr" "I1: install never replaces a file it did not put there: a file without sandcastle's note where a binary goes (text, another ELF program, a symbolic link) is refused, named, left byte for byte, and nothing changes; control: an earlier build's program of sandcastle there is replaced"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
foreign_body()
{
	in_setup
	in_mkwrap
	bin=$SC_HOME/.local/bin
	libexec=$SC_HOME/.local/libexec/sandcastle
	mkdir -p "$bin" "$libexec"
	chown -R "$SC_USER:$SC_USER" "$SC_HOME/.local"
	# Each foreign file alone, at one of the two folders.
	for kind in text elf link; do
		rm -f "$libexec/gated" "$bin/sandcastlectl"
		case $kind in
		text)	f=$libexec/gated
			echo "#!/bin/sh
# the routing daemon" > "$f"
			why="carries no note of sandcastle (readelf -n shows a program's notes)" ;;
		elf)	f=$libexec/gated
			cp /usr/bin/true "$f"
			why="carries no note of sandcastle (readelf -n shows a program's notes)" ;;
		link)	f=$bin/sandcastlectl
			ln -s /usr/bin/true "$f"
			why="is a symbolic link" ;;
		esac
		chown -h "$SC_USER:$SC_USER" "$f"
		cp -P "$f" "foreign.$kind"
		in_state > before
		atf_check -s exit:1 -o save:out.$kind \
		    -e inline:"install: $f $why, so it is not a file install put there, and install replaces no other: move it away and run sandcastlectl install again; nothing was changed\n" \
		    ./cgtree "$ALL" ./ctl install
		grep -q '^install: build' "out.$kind" &&
		    atf_fail "$kind: install went on to the images"
		in_state > after
		diff before after || atf_fail "$kind: install changed something"
		if [ $kind = link ]; then
			[ "$(readlink "$f")" = /usr/bin/true ] ||
			    atf_fail "the link was changed"
		else
			cmp "foreign.$kind" "$f" || atf_fail "$kind: $f was changed"
		fi
	done
	rm -f "$bin/sandcastlectl"

	# The control: an earlier build's gated (its note, a byte more) is
	# replaced by this build's.  The images are the fake podman's.
	{ cat "$(sc_bin gated)"; echo; } > "$libexec/gated"
	chown "$SC_USER:$SC_USER" "$libexec/gated"
	: > "$SC_ROOT/answer/podman-build"
	./cgtree "$ALL" ./ctl install > out 2> err
	cat out err
	in_steps out '^install: the configuration is valid$' \
	    '^install: images ready$' \
	    "^install: the binaries are in $bin and $libexec, each put there by a rename\$"
	cmp "$(sc_bin gated)" "$libexec/gated" || atf_fail "gated was not replaced"
}
foreign_cleanup()
{
	sc_load && [ -f "$SC_ROOT/log/keepd.pid" ] &&
	    kill "$(cat "$SC_ROOT/log/keepd.pid")" 2>/dev/null
	sc_cleanup
}

atf_test_case hints cleanup
hints_head()
{
	atf_set "descr" "I1: check's hint for a missing image and for other ocr languages is sandcastlectl install, and that step builds the image, restarts sandcastle.target and ends in a check where the capability is usable; control: install --images, the step it once named, restarts nothing and, with the units installed, says so"
	atf_set "require.user" "root"
	atf_set "timeout" "900"
}
hints_body()
{
	in_setup
	in_mkwrap
	rm "$SC_ROOT/fake/podman"
	calls=$SC_ROOT/log/calls
	not_restarted="install: the units were not restarted: run sandcastlectl install, which builds the images, restarts sandcastle.target and runs check"
	# Without the units install --images has nothing to say of them.
	./ctl install --images > images.out 2>&1 ||
	    { cat images.out; atf_fail "install --images"; }
	grep -qxF "$not_restarted" images.out &&
	    atf_fail "install --images spoke of units that are not there"
	./cgtree "$ALL" ./ctl install > install.out 2>&1
	grep -q '^install: running sandcastlectl check$' install.out ||
	    { cat install.out; atf_fail "install did not reach its check"; }
	build=$(./ctl version | awk '$1 == "build" { print $2 }')

	# The image missing, as when the binaries changed without install.
	atf_check -s exit:0 -o ignore -e ignore ./asuser podman rmi \
	    "sandcastle-ocr:$build"
	./ctl check > check.out 2>&1
	step=$(in_hint check.out "FAIL  capability ocr: the image sandcastle-ocr:$build of this build is missing; run sandcastlectl install")
	: > "$calls"
	./cgtree "$ALL" ./ctl ${step#sandcastlectl } > step.out 2>&1
	cat step.out
	grep -qx 'systemctl --user restart sandcastle.target' "$calls" ||
	    atf_fail "$step did not restart the target"
	atf_check -s exit:0 ./asuser podman image exists "sandcastle-ocr:$build"
	grep -qxF 'ok    capability ocr: usable (languages eng)' step.out ||
	    atf_fail "$step: its check does not find ocr usable"

	# Another language: the image is built with it, and the core, which
	# sends the list it read at start, restarted.
	sed -i 's/^    languages: \[eng\]$/    languages: [eng, deu]/' \
	    "$SC_CONFIG/config.yaml"
	grep -q '^    languages: \[eng, deu\]$' "$SC_CONFIG/config.yaml" ||
	    atf_fail "the languages were not changed"
	./ctl check > check.out 2>&1
	step=$(in_hint check.out "FAIL  capability ocr: the image has eng, the configuration asks for eng deu; run sandcastlectl install")
	: > "$calls"
	./cgtree "$ALL" ./tessdata deu ./ctl ${step#sandcastlectl } > step.out 2>&1
	cat step.out
	grep -qx 'systemctl --user restart sandcastle.target' "$calls" ||
	    atf_fail "$step did not restart the target"
	grep -qxF 'ok    capability ocr: usable (languages deu eng)' step.out ||
	    atf_fail "$step: its check does not find ocr usable with eng and deu"

	# The control: install --images builds the image and leaves the
	# running core with its list; it says so, and asks nothing of systemd.
	sed -i 's/^    languages: \[eng, deu\]$/    languages: [eng]/' \
	    "$SC_CONFIG/config.yaml"
	: > "$calls"
	./ctl install --images > images.out 2>&1 ||
	    { cat images.out; atf_fail "install --images"; }
	grep -qxF "$not_restarted" images.out ||
	    { cat images.out; atf_fail "install --images does not say the units were not restarted"; }
	grep '^systemctl' "$calls" && atf_fail "install --images called systemd"
	return 0
}
hints_cleanup()
{
	sc_cleanup
}

atf_test_case halfway cleanup
halfway_head()
{
	atf_set "descr" "I1: install stops at the step that fails, says which on standard error, and leaves what sandcastlectl(8) says: an image podman cannot build stops it at the images, with nothing of the account changed; a units folder it cannot write stops it at the units, the binaries in place and nothing asked of systemd; the control: the cause gone, install again goes through to its check"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
halfway_body()
{
	in_setup
	in_mkwrap
	bin=$SC_HOME/.local/bin
	libexec=$SC_HOME/.local/libexec/sandcastle
	units=$SC_HOME/.config/systemd/user
	again="; nothing was undone: fix it and run sandcastlectl install again"
	build=$(./ctl version | awk '$1 == "build" { print $2 }')
	# podman build fails for the ocr image: install stops at the
	# images, before the binaries, the units or systemd.
	: > "$SC_ROOT/answer/podman-build"
	echo "sandcastle-ocr:$build" > "$SC_ROOT/answer/podman-build-fail"
	in_state > before
	atf_check -s exit:1 -o save:out -e save:err ./cgtree "$ALL" ./ctl install
	cat out err
	in_steps out '^install: the configuration is valid$' \
	    "^install: building sandcastle-ocr:$build\$"
	grep -q -e '^install: images ready$' -e '^install: the binaries' out &&
	    atf_fail "install went past the images"
	in_steps err "^sandcastlectl: podman build of sandcastle-ocr:$build failed\$" \
	    "^install: stopped at the images: sandcastle-ocr:$build could not be built; the images built before it stay, and nothing else was changed$again\$"
	in_state > after
	diff before after || atf_fail "a failed image changed the account"
	# The units folder not the account's to write: install stops at the
	# units, after the binaries, and asks nothing of systemd.
	rm "$SC_ROOT/answer/podman-build-fail"
	mkdir -p "$units"
	chown -R "$SC_USER:$SC_USER" "$SC_HOME/.config/systemd"
	chown root:root "$units"
	: > "$SC_ROOT/log/calls"
	atf_check -s exit:1 -o save:out -e save:err ./cgtree "$ALL" ./ctl install
	cat out err
	in_steps out '^install: images ready$' \
	    "^install: the binaries are in $bin and $libexec, each put there by a rename\$"
	grep -q '^install: the units are written' out &&
	    atf_fail "install said it wrote the units"
	atf_check -o match:"^install: stopped at the units: $units/\\..*: Permission denied$again\$" \
	    cat err
	for b in sandcastled sandcastlectl keepd gated; do
		cmp "$(sc_bin "$b")" "$(sc_bin_in "$SC_HOME/.local" "$b")" ||
		    atf_fail "$b is not in place, as install said"
	done
	[ -z "$(ls -A "$units")" ] || atf_fail "a unit was written: $(ls -A "$units")"
	grep '^systemctl --user \(daemon-reload\|enable\|restart\)' \
	    "$SC_ROOT/log/calls" && atf_fail "install asked systemd after the units"
	# The control: the folder the account's, install goes through.
	chown "$SC_USER:$SC_USER" "$units"
	atf_check -s ignore -o save:out -e save:err ./cgtree "$ALL" ./ctl install
	cat out err
	in_steps out "^install: the units are written in $units\$" \
	    '^install: sandcastle.target is restarted$' \
	    '^install: running sandcastlectl check$'
	atf_check -s exit:1 grep -q 'stopped at' err
}
halfway_cleanup()
{
	sc_load && [ -f "$SC_ROOT/log/keepd.pid" ] &&
	    kill "$(cat "$SC_ROOT/log/keepd.pid")" 2>/dev/null
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case lacks
	atf_add_test_case full
	atf_add_test_case foreign
	atf_add_test_case hints
	atf_add_test_case halfway
}
