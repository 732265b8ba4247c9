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
	int	 fd;

	ATF_REQUIRE(mkdir("home", 0700) == 0);
	ATF_REQUIRE((fd = open("home/notes.txt", O_WRONLY | O_CREAT, 0600)) !=
	    -1);
	close(fd);
	ATF_REQUIRE(mkdir("state", 0700) == 0);
	ATF_REQUIRE((refusalfd = open("state/gate-refusals", O_WRONLY |
	    O_APPEND | O_CREAT, 0600)) != -1);
	ATF_REQUIRE(mkdir("run", 0700) == 0);
	ATF_REQUIRE((fd = open("run/gate.sock", O_WRONLY | O_CREAT, 0600)) !=
	    -1);
	close(fd);
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

static int
read_home(void)
{
	return landlocked_result(open("home/notes.txt", O_RDONLY));
}

static int
read_passwd(void)
{
	return landlocked_result(open("/etc/passwd", O_RDONLY));
}

/* What the resolver would read again: it read /etc/resolv.conf at start. */
static int
read_resolver(void)
{
	int	 r;

	if ((r = landlocked_result(open("/etc/resolv.conf", O_RDONLY))) != 0)
		return r;
	return landlocked_result(open("/etc/hosts", O_RDONLY));
}

/* The refusals opened again by name, as a taken gate would to rewrite them. */
static int
open_refusals(void)
{
	return landlocked_result(open("state/gate-refusals", O_WRONLY));
}

/* A refusal appended through the descriptor opened before the ruleset. */
static int
append_refusal(void)
{
	return landlocked_result(write(refusalfd, "refusal\n", 8) == 8 ? 0 :
	    -1);
}

static int
remove_gatesock(void)
{
	return landlocked_result(unlink("run/gate.sock"));
}

static int
remove_home(void)
{
	return landlocked_result(unlink("home/notes.txt"));
}

/* N7: a taken gate opens no file of the operator's, nor of the machine's. */
ATF_TC_WITHOUT_HEAD(gate_no_file);
ATF_TC_BODY(gate_no_file, tc)
{
	layout();
	require_refused(landlocked_run(gate_ruleset, read_home), EACCES,
	    "the gate: a file of the home");
	require_done(landlocked_run(NULL, read_home), "control: the home");
	require_refused(landlocked_run(gate_ruleset, read_passwd), EACCES,
	    "the gate: /etc/passwd");
	require_refused(landlocked_run(gate_ruleset, read_resolver), EACCES,
	    "the gate: the resolver's files, again");
	require_done(landlocked_run(NULL, read_resolver),
	    "control: the resolver's files");
	require_refused(landlocked_run(gate_ruleset, remove_home), EACCES,
	    "the gate: removing a file of the home");
}

/* N7: the refusals are appended through the descriptor opened at start, and only so. */
ATF_TC_WITHOUT_HEAD(gate_refusals_fd_only);
ATF_TC_BODY(gate_refusals_fd_only, tc)
{
	struct stat	 st;

	layout();
	require_refused(landlocked_run(gate_ruleset, open_refusals), EACCES,
	    "the gate: the refusals opened again");
	require_done(landlocked_run(NULL, open_refusals),
	    "control: the refusals opened again");
	require_done(landlocked_run(gate_ruleset, append_refusal),
	    "the gate: a refusal appended");
	ATF_REQUIRE(stat("state/gate-refusals", &st) == 0);
	ATF_CHECK_EQ(st.st_size, 8);
}

/* The gate still removes gate.sock as it ends, and ends pasta's helper. */
ATF_TC_WITHOUT_HEAD(gate_removes_its_socket);
ATF_TC_BODY(gate_removes_its_socket, tc)
{
	layout();
	require_done(landlocked_run(gate_ruleset, landlocked_signal),
	    "the gate: a signal to a process it forked before");
	require_done(landlocked_run(gate_ruleset, remove_gatesock),
	    "the gate: gate.sock removed");
}

/* N7: from ABI 6, no abstract socket beyond its own. */
ATF_TC_WITHOUT_HEAD(gate_scopes);
ATF_TC_BODY(gate_scopes, tc)
{
	int	 fd;

	layout();
	(void)landlocked_abstract_listener(&fd);
	require_from_abi(landlocked_run(gate_ruleset,
	    landlocked_abstract_connect), 6, EPERM,
	    "the gate: the test's abstract socket");
	require_done(landlocked_run(NULL, landlocked_abstract_connect),
	    "control: the test's abstract socket");
	close(fd);
}

/* N7: a tunnel's child opens and removes nothing, and signals nothing beyond it. */
ATF_TC_WITHOUT_HEAD(tunnel_no_file);
ATF_TC_BODY(tunnel_no_file, tc)
{
	layout();
	require_refused(landlocked_run(tunnel_ruleset, read_home), EACCES,
	    "a tunnel: a file of the home");
	require_refused(landlocked_run(tunnel_ruleset, remove_gatesock),
	    EACCES, "a tunnel: removing gate.sock");
	require_from_abi(landlocked_run(tunnel_ruleset, landlocked_signal), 6,
	    EPERM, "a tunnel: a signal to the test");
	require_done(landlocked_run(tunnel_ruleset, append_refusal),
	    "a tunnel: a refusal appended");
	require_done(landlocked_run(gate_ruleset, remove_gatesock),
	    "control: gate.sock removed under the gate's alone");
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
