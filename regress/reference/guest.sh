#!/bin/sh
# The reference suite's runner, in the guest, as root: the image's unit
# sandcastle-reference.service starts it at each boot once the machine
# is up (regress/reference/image.sh), with the home network that
# sandcastle-homenet.service made at boot.  It starts a capture of the
# machine's interfaces and runs the cases of t_reference.sh in ORDER,
# each in an atf-sh process of its own with its timeout, from where the
# last boot stopped: @reboot restarts the machine there.  Each case
# leaves in /share/out/cases/ its result (atf's "passed" or "failed:
# why"), what it saw, its log and its time; /share/out/state says where
# the run is, "done" at its end, when the machine powers off.
set -u

ORDER="install units security first_job a1 a3 cgroup jobs a2 a4 restart upgrade
upgrade_window hints @reboot boot reinstall traffic delegation advice package"

IN=/share/in
OUT=/share/out
REF=$IN/reference
STATE=/var/lib/sandcastle-reference

say() { echo "guest: $(date -u '+%H:%M:%S') $*"; }

# The machine is up: every unit of the boot started (ours is Type=simple).
wait_up()
{
	# A unit that never ends its start would hold the run here.
	_s=$(timeout 600 systemctl is-system-running --wait 2>/dev/null)
	say "system $_s after $(cut -d' ' -f1 /proc/uptime) s"
	systemctl --failed --no-legend --plain 2>/dev/null | sed 's/^/guest: failed: /'
	# Where the boot's time went, for the record's times.
	systemd-analyze 2>/dev/null | head -n 1 | sed 's/^/guest: /'
	systemd-analyze blame --no-pager 2>/dev/null | head -n 6 | sed 's/^ */guest: blame: /'
}

versions()
{
	{
		echo "kernel $(uname -r)"
		echo "systemd $(systemctl --version | head -n 1)"
		echo "pasta $(dpkg-query -W -f '${Version}' passt)"
		echo "crun $(crun --version | head -n 1)"
		echo "debian $(cat /etc/debian_version)"
	} > "$OUT/versions"
}

capture_start()
{
	tcpdump -i any -nn -U -s 128 -w "$STATE/capture-boot$1.pcap" \
	    > /dev/null 2>&1 &
	echo $! > "$STATE/capture.pid"
}

capture_stop()
{
	[ -f "$STATE/capture.pid" ] && kill "$(cat "$STATE/capture.pid")" 2>/dev/null
	rm -f "$STATE/capture.pid"
	sleep 1
}

# timeout_of CASE: the seconds its head allows, read from the script
# (atf-sh -l, which runs every head, takes most of a minute here).
timeout_of()
{
	awk -v c="$1" '
	    $0 ~ "^" c "_head\\(\\)" { h = 1; next }
	    h && /^}/ { exit }
	    h && /atf_set "timeout"/ { gsub(/[^0-9]/, ""); print; exit }' \
	    "$REF/t_reference.sh"
}

run_case()
{
	_c=$1
	_t=$(timeout_of "$_c")
	# Open to the accounts the case runs programs as (its scripts are
	# there); what must stay root's is in $STATE.
	_w=/var/tmp/reference-work/$_c
	rm -rf "$_w" "$OUT/cases/$_c".*
	mkdir -p "$_w"
	_t0=$(date +%s)
	say "case $_c (at most ${_t:-600} s; $((_t0 - ${LAST_END:-$_t0})) s since the case before)"
	(cd "$_w" && REF_CASE=$_c timeout -k 10 "${_t:-600}" atf-sh \
	    "$REF/t_reference.sh" -s "$REF" -r "$OUT/cases/$_c.result" "$_c") \
	    > "$OUT/cases/$_c.log" 2>&1
	_st=$?
	echo $(( $(date +%s) - _t0 )) > "$OUT/cases/$_c.time"
	if [ ! -s "$OUT/cases/$_c.result" ]; then
		if [ "$_st" -eq 124 ] || [ "$_st" -eq 137 ]; then
			echo "failed: it ran past its ${_t:-600} s" > "$OUT/cases/$_c.result"
		else
			echo "failed: atf-sh exited $_st with no result" > "$OUT/cases/$_c.result"
		fi
	fi
	say "case $_c: $(head -n 1 "$OUT/cases/$_c.result") ($(cat "$OUT/cases/$_c.time") s)"
	LAST_END=$(date +%s)
}

mkdir -p "$STATE" "$OUT/cases"
chmod 0700 "$STATE"
boot=$(( $(cat "$STATE/boots" 2>/dev/null || echo 0) + 1 ))
echo "$boot" > "$STATE/boots"
say "boot $boot"
wait_up
[ "$boot" -eq 1 ] && versions
# The image's sandcastle-homenet.service made the home network at boot.
systemctl is-active -q sandcastle-homenet.service ||
    say "the home network is not up: $(systemctl is-active sandcastle-homenet.service)"
capture_start "$boot"
say "the capture runs"

# make reference REFERENCE_CASES=... runs those alone (for a case being
# written, on a disk kept from a run before: REFERENCE_KEEP=1).
[ -s "$IN/order" ] && ORDER=$(cat "$IN/order")
[ -s "$IN/omit" ] &&
    ORDER=$(for c in $ORDER; do grep -qxF "$c" "$IN/omit" || echo "$c"; done)
next=$(cat "$OUT/state" 2>/dev/null || echo 0)
i=0
for c in $ORDER; do
	i=$((i + 1))
	[ "$i" -le "$next" ] && continue
	if [ "$c" = @reboot ]; then
		# Nobody stays logged in: the operator's sources end with
		# their sessions; the sources are started again after it.
		[ -f /home/op/scans.pid ] && kill "$(cat /home/op/scans.pid)" 2>/dev/null
		[ -f "$STATE/lab.pid" ] && kill "$(cat "$STATE/lab.pid")" 2>/dev/null
		rm -f /home/op/scans.pid "$STATE/lab.pid"
		capture_stop
		echo "$i" > "$OUT/state"
		say "rebooting; sessions: $(loginctl list-sessions --no-legend | wc -l)"
		sync
		systemctl reboot
		exit 0
	fi
	run_case "$c"
	echo "$i" > "$OUT/state"
done
capture_stop
echo done > "$OUT/state"
say "done"
sync
systemctl poweroff
