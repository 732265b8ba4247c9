#!/bin/sh
# homenet.sh up|down: the reference machine's home network, made in the
# guest as root (it has no network of its own: qemu -nic none).  The
# guest's own namespace stands for the operator's machine, with one
# interface on a private /24, as GETTING STARTED has it:
#
#   machine  (the guest)  home0 192.168.1.20/24, default via the router
#   router   (ns router)  br0 192.168.1.1/24, the home segment's bridge;
#                         198.20.5.2 towards the world, forwarding
#   nas      (ns nas)     192.168.1.30/24, another host of the home
#   printer  (ns printer) 192.168.1.31/24, another host of the home
#   world    (ns world)   198.20.5.1, the internet: the resolver the
#                         machine names in /etc/resolv.conf on
#                         198.20.5.53, a public host on 198.20.5.10
#
# No packet leaves the guest, which has no interface to leave by.
set -eu

HOME_NET=192.168.1
WORLD_NET=198.20.5

veth()
{
	# veth NS_A NAME_A NS_B NAME_B: a pair, each end in its namespace
	# ("-" is the machine's own).
	ip link add "$2" type veth peer name "$4"
	[ "$1" = - ] || ip link set "$2" netns "$1"
	[ "$3" = - ] || ip link set "$4" netns "$3"
}

up()
{
	for ns in router nas printer world; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
	done
	ip -n router link add br0 type bridge
	ip -n router addr add "$HOME_NET.1/24" dev br0
	ip -n router link set br0 up
	ip netns exec router sysctl -qw net.ipv4.ip_forward=1

	veth - home0 router r-home
	ip addr add "$HOME_NET.20/24" dev home0
	ip link set home0 up
	ip route add default via "$HOME_NET.1"
	for h in nas:30 printer:31; do
		veth "${h%:*}" eth0 router "r-${h%:*}"
		ip -n "${h%:*}" addr add "$HOME_NET.${h#*:}/24" dev eth0
		ip -n "${h%:*}" link set eth0 up
		ip -n "${h%:*}" route add default via "$HOME_NET.1"
	done
	for p in r-home r-nas r-printer; do
		ip -n router link set "$p" master br0
		ip -n router link set "$p" up
	done

	veth router r-world world w-up
	ip -n router addr add "$WORLD_NET.2/24" dev r-world
	ip -n router link set r-world up
	ip -n router route add default via "$WORLD_NET.1"
	ip -n world addr add "$WORLD_NET.1/24" dev w-up
	for a in 53 10; do
		ip -n world addr add "$WORLD_NET.$a/32" dev w-up
	done
	ip -n world link set w-up up
	ip -n world route add "$HOME_NET.0/24" via "$WORLD_NET.2"

	# The resolver: it knows no name of the home, and answers at once.
	mkdir -p /run/homenet
	: > /run/homenet/hosts
	ip netns exec world dnsmasq --no-resolv --no-hosts --bind-interfaces \
	    --listen-address="$WORLD_NET.53" --port=53 \
	    --addn-hosts=/run/homenet/hosts --user=root \
	    --pid-file=/run/homenet/dnsmasq.pid --log-facility=/run/homenet/dnsmasq.log
}

down()
{
	[ -f /run/homenet/dnsmasq.pid ] &&
	    kill "$(cat /run/homenet/dnsmasq.pid)" 2>/dev/null
	for ns in router nas printer world; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL
		ip netns del "$ns" 2>/dev/null || true
	done
	ip link del home0 2>/dev/null || true
	rm -rf /run/homenet
}

case ${1:-} in
up)	up ;;
down)	down ;;
*)	echo "usage: homenet.sh up|down" >&2; exit 2 ;;
esac
