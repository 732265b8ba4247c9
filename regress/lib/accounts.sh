#!/bin/sh
# The suite's accounts, made once by make test (as root): sctest1 to
# sctestN, the pool of operators a case takes one of for itself alone
# (helpers.subr sc_account, account.h), so that cases run side by side
# never meet; sctest, the operator of make demo and make bench;
# sctest-other, an account with no privileges.  sandcastle never runs
# as root.
set -eu

# As many as Kyua may run at once, and some to spare.
POOL=${SC_POOL:-8}

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
touch /etc/subuid /etc/subgid
for a in sctest $(seq -f 'sctest%g' 1 "$POOL"); do
	mkaccount "$a"
	subrange "$a" /etc/subuid
	subrange "$a" /etc/subgid
done
mkaccount sctest-other
# The pool's locks (helpers.subr sc_account): gone at a reboot.
install -d -m 0755 /run/sandcastle-regress /run/sandcastle-regress/accounts
# And a lock of a run that was killed: its case's folder is still there,
# so the account would stay held.  With no Kyua running, none is held;
# nor are the images a run keeps (helpers.subr sc_images).
pgrep -x kyua > /dev/null || rm -rf /run/sandcastle-regress/accounts/sctest* \
    /run/sandcastle-regress/images
# pasta, which the gate starts as the operator, opens /dev/net/tun.
[ -c /dev/net/tun ] && chmod 0666 /dev/net/tun
