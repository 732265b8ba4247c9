/*
 * The gate's Landlock rulesets, the real functions of libgated.a
 * (landlock_gate(), then landlock_tunnel() stacked on it, as a tunnel's
 * child has them), each put on in a forked child with no seccomp
 * filter, so that a refusal can only be Landlock's (the gate's filter
 * refuses openat(2) with EACCES too); each with its control, the same
 * call without the ruleset.  Built twice: t_landlock on this kernel's
 * ABI, t_landlock.abi1 on ABI 1, where the rights of later ABIs are the
 * controls.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../gated/gate.h"
#include "../lib/landlocked.h"

static struct gate	gate;
static int		refusalfd = -1;

/*
 * The operator's home with a file in it, the state folder with the
 * refusals, opened for appending as the gate opens them at start, and
 * the runtime folder with gate.sock.
 */
static void
layout(void)
{
	static const char *const tree[] = { "home/", "home/notes.txt",
	    "state/", "run/", "run/gate.sock", NULL };

	landlocked_tree(tree);
	ATF_REQUIRE((refusalfd = open("state/gate-refusals", O_WRONLY |
	    O_APPEND | O_CREAT, 0600)) != -1);
	(void)snprintf(gate.sock, sizeof(gate.sock), "run/gate.sock");
}

static int
gate_ruleset(void)
{
	return landlock_gate(&gate);
}

static int
tunnel_ruleset(void)
{
	int	 abi;

	if ((abi = landlock_gate(&gate)) < 1)
		return abi;
	return landlock_tunnel();
}

/* A refusal appended through the descriptor opened before the ruleset. */
static int
append_refusal(void)
{
	return landlocked_result(write(refusalfd, "refusal\n", 8) == 8 ? 0 :
	    -1);
}

/* N7: a taken gate opens no file of the operator's, nor of the machine's. */
ATF_TC_WITHOUT_HEAD(gate_no_file);
ATF_TC_BODY(gate_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "the gate: a file of the home", gate_ruleset,
		    "read home/notes.txt", EACCES, 0, NULL },
		{ "control: the home", NULL, "read home/notes.txt", 0, 0,
		    NULL },
		{ "the gate: /etc/passwd", gate_ruleset, "read /etc/passwd",
		    EACCES, 0, NULL },
		{ "the gate: the resolver's file, again", gate_ruleset,
		    "read /etc/resolv.conf", EACCES, 0, NULL },
		{ "control: the resolver's file", NULL, "read /etc/resolv.conf",
		    0, 0, NULL },
		{ "the gate: the hosts file, again", gate_ruleset,
		    "read /etc/hosts", EACCES, 0, NULL },
		{ "control: the hosts file", NULL, "read /etc/hosts", 0, 0,
		    NULL },
		{ "the gate: removing a file of the home", gate_ruleset,
		    "remove home/notes.txt", EACCES, 0, NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7: the refusals are appended through the descriptor opened at start, and only so. */
ATF_TC_WITHOUT_HEAD(gate_refusals_fd_only);
ATF_TC_BODY(gate_refusals_fd_only, tc)
{
	static const struct landlocked_case c[] = {
		{ "the gate: the refusals opened again", gate_ruleset,
		    "write state/gate-refusals", EACCES, 0, NULL },
		{ "control: the refusals opened again", NULL,
		    "write state/gate-refusals", 0, 0, NULL },
		{ "the gate: a refusal appended", gate_ruleset, NULL, 0, 0,
		    append_refusal },
	};
	struct stat	 st;

	layout();
	LANDLOCKED_CASES(c);
	ATF_REQUIRE(stat("state/gate-refusals", &st) == 0);
	ATF_CHECK_EQ(st.st_size, 8);
}

/* The gate still removes gate.sock as it ends, and ends pasta's helper. */
ATF_TC_WITHOUT_HEAD(gate_removes_its_socket);
ATF_TC_BODY(gate_removes_its_socket, tc)
{
	static const struct landlocked_case c[] = {
		{ "the gate: a signal to a process it forked before",
		    gate_ruleset, NULL, 0, 0, landlocked_signal },
		{ "the gate: gate.sock removed", gate_ruleset,
		    "remove run/gate.sock", 0, 0, NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7: from ABI 6, no abstract socket beyond its own. */
ATF_TC_WITHOUT_HEAD(gate_scopes);
ATF_TC_BODY(gate_scopes, tc)
{
	static const struct landlocked_case c[] = {
		{ "the gate: the test's abstract socket", gate_ruleset, NULL,
		    EPERM, 6, landlocked_abstract_connect },
		{ "control: the test's abstract socket", NULL, NULL, 0, 0,
		    landlocked_abstract_connect },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7: a tunnel's child opens and removes nothing, and signals nothing beyond it. */
ATF_TC_WITHOUT_HEAD(tunnel_no_file);
ATF_TC_BODY(tunnel_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "a tunnel: a file of the home", tunnel_ruleset,
		    "read home/notes.txt", EACCES, 0, NULL },
		{ "a tunnel: removing gate.sock", tunnel_ruleset,
		    "remove run/gate.sock", EACCES, 0, NULL },
		{ "a tunnel: a signal to the test", tunnel_ruleset, NULL, EPERM,
		    6, landlocked_signal },
		{ "a tunnel: a refusal appended", tunnel_ruleset, NULL, 0, 0,
		    append_refusal },
		{ "control: gate.sock removed under the gate's alone",
		    gate_ruleset, "remove run/gate.sock", 0, 0, NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, gate_no_file);
	ATF_TP_ADD_TC(tp, gate_refusals_fd_only);
	ATF_TP_ADD_TC(tp, gate_removes_its_socket);
	ATF_TP_ADD_TC(tp, gate_scopes);
	ATF_TP_ADD_TC(tp, tunnel_no_file);
	return atf_no_error();
}
