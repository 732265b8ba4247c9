#!/bin/sh
# The suite's accounts, made once by make test (as root): sctest is the
# operator sandcastle runs as, sctest-other another account with no
# privileges.  sandcastle never runs as root.
set -eu

mkaccount()
{
	id -u "$1" >/dev/null 2>&1 && return 0
	useradd --create-home --shell /bin/sh --user-group "$1"
	echo "accounts: made $1"
}

subrange()
{
	# $1 account, $2 file: one range of 65536 ids, after any other.
	grep -q "^$1:" "$2" 2>/dev/null && return 0
	last=$(awk -F: 'BEGIN { m = 100000 } { e = $2 + $3; if (e > m) m = e } END { print m }' "$2" 2>/dev/null || echo 100000)
	echo "$1:$last:65536" >> "$2"
}

[ "$(id -u)" -eq 0 ] || { echo "accounts: run as root" >&2; exit 1; }
mkaccount sctest
mkaccount sctest-other
touch /etc/subuid /etc/subgid
subrange sctest /etc/subuid
subrange sctest /etc/subgid
# pasta, which the gate starts as the operator, opens /dev/net/tun.
[ -c /dev/net/tun ] && chmod 0666 /dev/net/tun
