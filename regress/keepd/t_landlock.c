/*
 * keepd's Landlock rulesets, the real functions of libkeepd.a
 * (landlock_keepd(), then landlock_fetch() stacked on it, as a
 * request's child has them), each put on in a forked child with no
 * seccomp filter, so that a refusal can only be Landlock's; each with
 * its control, the same call without the ruleset.  Built twice:
 * t_landlock on this kernel's ABI, t_landlock.abi1 on ABI 1, where the
 * rights of later ABIs (truncate, TCP, scopes) are the controls.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../keepd/lock.h"
#include "../lib/landlocked.h"

static int	secretsfd = -1;

/*
 * The secrets folder with one secret, the configuration, and the
 * runtime folder with keep.sock and the others' sockets, as an account
 * keeps them.
 */
static void
layout(void)
{
	static const char *const tree[] = { "secrets/",
	    "secrets/notes=canary-value\n", "config/", "config/config.yaml",
	    "run/", "run/keep.sock", NULL };

	landlocked_tree(tree);
	ATF_REQUIRE((secretsfd = open("secrets", O_RDONLY | O_DIRECTORY)) !=
	    -1);
}

static int
keepd_ruleset(void)
{
	return landlock_keepd(secretsfd, "secrets", "run");
}

/* A request's child: keepd's ruleset, then its own on top. */
static int
fetch_ruleset(void)
{
	int	 abi;

	if ((abi = landlock_keepd(secretsfd, "secrets", "run")) < 1)
		return abi;
	return landlock_fetch();
}

static int
read_secret(void)
{
	char	 buf[64];
	int	 fd;

	if ((fd = openat(secretsfd, "notes", O_RDONLY | O_NOFOLLOW)) == -1)
		return landlocked_result(-1);
	return read(fd, buf, sizeof(buf)) == 13 ? 0 : 1;
}

/* keepd ends a request's child that overran: a signal inside its domain. */
static int
signal_request(void)
{
	pid_t	 pid;
	int	 r, status;

	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		if (landlock_fetch() < 1)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(100 * 1000);
	r = landlocked_result(kill(pid, SIGKILL));
	(void)waitpid(pid, &status, 0);
	return r;
}

/* N7: a taken keepd reads the secrets and nothing else: not the configuration. */
ATF_TC_WITHOUT_HEAD(keepd_reads_secrets_only);
ATF_TC_BODY(keepd_reads_secrets_only, tc)
{
	static const struct landlocked_case c[] = {
		{ "keepd: a secret, by the folder it holds", keepd_ruleset,
		    NULL, 0, 0, read_secret },
		{ "keepd: the configuration", keepd_ruleset,
		    "read config/config.yaml", EACCES, 0, NULL },
		{ "control: the configuration", NULL, "read config/config.yaml",
		    0, 0, NULL },
		{ "keepd: /etc/passwd", keepd_ruleset, "read /etc/passwd",
		    EACCES, 0, NULL },
		{ "control: /etc/passwd", NULL, "read /etc/passwd", 0, 0,
		    NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7: the secrets are read only: no write, no new one, no removal, no truncation. */
ATF_TC_WITHOUT_HEAD(keepd_secrets_read_only);
ATF_TC_BODY(keepd_secrets_read_only, tc)
{
	static const struct landlocked_case c[] = {
		{ "keepd: writing a secret", keepd_ruleset,
		    "write secrets/notes", EACCES, 0, NULL },
		{ "keepd: making a secret", keepd_ruleset, "make secrets/new",
		    EACCES, 0, NULL },
		{ "keepd: removing a secret", keepd_ruleset,
		    "remove secrets/notes", EACCES, 0, NULL },
		{ "keepd: truncate(2) of a secret", keepd_ruleset,
		    "truncate secrets/notes", EACCES, 3, NULL },
		{ "control: writing", NULL, "write secrets/notes", 0, 0, NULL },
		{ "control: making", NULL, "make secrets/new", 0, 0, NULL },
		{ "control: truncating", NULL, "truncate secrets/notes", 0, 0,
		    NULL },
		{ "control: removing", NULL, "remove secrets/notes", 0, 0,
		    NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* keepd still removes keep.sock as it ends. */
ATF_TC_WITHOUT_HEAD(keepd_removes_its_socket);
ATF_TC_BODY(keepd_removes_its_socket, tc)
{
	static const struct landlocked_case c[] = {
		{ "keepd: keep.sock removed", keepd_ruleset,
		    "remove run/keep.sock", 0, 0, NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7: no TCP, from ABI 4: keepd makes Unix sockets only. */
ATF_TC_WITHOUT_HEAD(keepd_no_tcp);
ATF_TC_BODY(keepd_no_tcp, tc)
{
	static const struct landlocked_case c[] = {
		{ "control: a TCP connect", NULL, NULL, 0, 0,
		    landlocked_tcp_connect },
		{ "keepd: a TCP connect", keepd_ruleset, NULL, EACCES, 4,
		    landlocked_tcp_connect },
		{ "a request's child: a TCP connect", fetch_ruleset, NULL,
		    EACCES, 4, landlocked_tcp_connect },
		{ "control: a TCP bind", NULL, NULL, 0, 0,
		    landlocked_tcp_bind },
		{ "keepd: a TCP bind", keepd_ruleset, NULL, EACCES, 4,
		    landlocked_tcp_bind },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7: from ABI 6 keepd signals its own requests alone, and no abstract socket. */
ATF_TC_WITHOUT_HEAD(keepd_scopes);
ATF_TC_BODY(keepd_scopes, tc)
{
	static const struct landlocked_case c[] = {
		{ "control: a signal to the test", NULL, NULL, 0, 0,
		    landlocked_signal },
		{ "keepd: a signal to the test", keepd_ruleset, NULL, EPERM, 6,
		    landlocked_signal },
		{ "keepd: a signal to its request's child", keepd_ruleset, NULL,
		    0, 0, signal_request },
		{ "keepd: the test's abstract socket", keepd_ruleset, NULL,
		    EPERM, 6, landlocked_abstract_connect },
		{ "control: the test's abstract socket", NULL, NULL, 0, 0,
		    landlocked_abstract_connect },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* N7 S1: a request's child reads no secret, not even its own destination's again. */
ATF_TC_WITHOUT_HEAD(fetch_no_file);
ATF_TC_BODY(fetch_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "a request's child: a secret", fetch_ruleset, NULL, EACCES, 0,
		    read_secret },
		{ "control: the same under keepd's alone", keepd_ruleset, NULL,
		    0, 0, read_secret },
		{ "a request's child: the configuration", fetch_ruleset,
		    "read config/config.yaml", EACCES, 0, NULL },
		{ "a request's child: removing keep.sock", fetch_ruleset,
		    "remove run/keep.sock", EACCES, 0, NULL },
		{ "a request's child: gate.sock", fetch_ruleset,
		    "connect run/gate.sock", 0, 0, NULL },
	};
	int	 fd;

	layout();
	landlocked_unix_listener("run/gate.sock", &fd);
	LANDLOCKED_CASES(c);
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, keepd_reads_secrets_only);
	ATF_TP_ADD_TC(tp, keepd_secrets_read_only);
	ATF_TP_ADD_TC(tp, keepd_removes_its_socket);
	ATF_TP_ADD_TC(tp, keepd_no_tcp);
	ATF_TP_ADD_TC(tp, keepd_scopes);
	ATF_TP_ADD_TC(tp, fetch_no_file);
	return atf_no_error();
}
