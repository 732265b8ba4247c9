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

#include "../../keepd/keepd.h"
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
	int	 fd;

	ATF_REQUIRE(mkdir("secrets", 0700) == 0);
	ATF_REQUIRE((secretsfd = open("secrets", O_RDONLY | O_DIRECTORY)) !=
	    -1);
	ATF_REQUIRE((fd = openat(secretsfd, "notes", O_WRONLY | O_CREAT,
	    0600)) != -1);
	ATF_REQUIRE(write(fd, "canary-value\n", 13) == 13);
	close(fd);
	ATF_REQUIRE(mkdir("config", 0700) == 0);
	ATF_REQUIRE((fd = open("config/config.yaml", O_WRONLY | O_CREAT,
	    0600)) != -1);
	close(fd);
	ATF_REQUIRE(mkdir("run", 0700) == 0);
	ATF_REQUIRE((fd = open("run/keep.sock", O_WRONLY | O_CREAT, 0600)) !=
	    -1);
	close(fd);
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

static int
read_config(void)
{
	return landlocked_result(open("config/config.yaml", O_RDONLY));
}

static int
read_passwd(void)
{
	return landlocked_result(open("/etc/passwd", O_RDONLY));
}

static int
write_secret(void)
{
	return landlocked_result(openat(secretsfd, "notes", O_WRONLY));
}

static int
create_secret(void)
{
	return landlocked_result(openat(secretsfd, "new", O_WRONLY | O_CREAT,
	    0600));
}

static int
remove_secret(void)
{
	return landlocked_result(unlinkat(secretsfd, "notes", 0));
}

static int
truncate_secret(void)
{
	return landlocked_result(truncate("secrets/notes", 0));
}

static int
remove_keepsock(void)
{
	return landlocked_result(unlink("run/keep.sock"));
}

static struct sockaddr_un	gatesock;

/* What a request's child does first: connect to gate.sock, a named socket. */
static int
connect_gate(void)
{
	int	 s;

	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return 1;
	return landlocked_result(connect(s, (struct sockaddr *)&gatesock,
	    sizeof(gatesock)));
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
	layout();
	require_done(landlocked_run(keepd_ruleset, read_secret),
	    "keepd: a secret, by the folder it holds");
	require_refused(landlocked_run(keepd_ruleset, read_config), EACCES,
	    "keepd: the configuration");
	require_done(landlocked_run(NULL, read_config),
	    "control: the configuration");
	require_refused(landlocked_run(keepd_ruleset, read_passwd), EACCES,
	    "keepd: /etc/passwd");
	require_done(landlocked_run(NULL, read_passwd), "control: /etc/passwd");
}

/* N7: the secrets are read only: no write, no new one, no removal, no truncation. */
ATF_TC_WITHOUT_HEAD(keepd_secrets_read_only);
ATF_TC_BODY(keepd_secrets_read_only, tc)
{
	layout();
	require_refused(landlocked_run(keepd_ruleset, write_secret), EACCES,
	    "keepd: writing a secret");
	require_refused(landlocked_run(keepd_ruleset, create_secret), EACCES,
	    "keepd: making a secret");
	require_refused(landlocked_run(keepd_ruleset, remove_secret), EACCES,
	    "keepd: removing a secret");
	require_from_abi(landlocked_run(keepd_ruleset, truncate_secret), 3,
	    EACCES, "keepd: truncate(2) of a secret");
	require_done(landlocked_run(NULL, write_secret), "control: writing");
	require_done(landlocked_run(NULL, create_secret), "control: making");
	require_done(landlocked_run(NULL, truncate_secret),
	    "control: truncating");
	require_done(landlocked_run(NULL, remove_secret), "control: removing");
}

/* keepd still removes keep.sock as it ends. */
ATF_TC_WITHOUT_HEAD(keepd_removes_its_socket);
ATF_TC_BODY(keepd_removes_its_socket, tc)
{
	layout();
	require_done(landlocked_run(keepd_ruleset, remove_keepsock),
	    "keepd: keep.sock removed");
}

/* N7: no TCP, from ABI 4: keepd makes Unix sockets only. */
ATF_TC_WITHOUT_HEAD(keepd_no_tcp);
ATF_TC_BODY(keepd_no_tcp, tc)
{
	int	 fd;

	layout();
	landlocked_port = landlocked_listener(&fd);
	require_done(landlocked_run(NULL, landlocked_tcp_connect),
	    "control: a TCP connect");
	require_from_abi(landlocked_run(keepd_ruleset, landlocked_tcp_connect),
	    4, EACCES, "keepd: a TCP connect");
	require_from_abi(landlocked_run(fetch_ruleset, landlocked_tcp_connect),
	    4, EACCES, "a request's child: a TCP connect");
	require_done(landlocked_run(NULL, landlocked_tcp_bind),
	    "control: a TCP bind");
	require_from_abi(landlocked_run(keepd_ruleset, landlocked_tcp_bind), 4,
	    EACCES, "keepd: a TCP bind");
	close(fd);
}

/* N7: from ABI 6 keepd signals its own requests alone, and no abstract socket. */
ATF_TC_WITHOUT_HEAD(keepd_scopes);
ATF_TC_BODY(keepd_scopes, tc)
{
	int	 fd;

	layout();
	(void)landlocked_abstract_listener(&fd);
	require_done(landlocked_run(NULL, landlocked_signal),
	    "control: a signal to the test");
	require_from_abi(landlocked_run(keepd_ruleset, landlocked_signal), 6,
	    EPERM, "keepd: a signal to the test");
	require_done(landlocked_run(keepd_ruleset, signal_request),
	    "keepd: a signal to its request's child");
	require_from_abi(landlocked_run(keepd_ruleset,
	    landlocked_abstract_connect), 6, EPERM,
	    "keepd: the test's abstract socket");
	require_done(landlocked_run(NULL, landlocked_abstract_connect),
	    "control: the test's abstract socket");
	close(fd);
}

/* N7 S1: a request's child reads no secret, not even its own destination's again. */
ATF_TC_WITHOUT_HEAD(fetch_no_file);
ATF_TC_BODY(fetch_no_file, tc)
{
	int	 fd;

	layout();
	memset(&gatesock, 0, sizeof(gatesock));
	gatesock.sun_family = AF_UNIX;
	(void)snprintf(gatesock.sun_path, sizeof(gatesock.sun_path),
	    "run/gate.sock");
	ATF_REQUIRE((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(fd, (struct sockaddr *)&gatesock,
	    sizeof(gatesock)) == 0);
	ATF_REQUIRE(listen(fd, 8) == 0);
	require_refused(landlocked_run(fetch_ruleset, read_secret), EACCES,
	    "a request's child: a secret");
	require_done(landlocked_run(keepd_ruleset, read_secret),
	    "control: the same under keepd's alone");
	require_refused(landlocked_run(fetch_ruleset, read_config), EACCES,
	    "a request's child: the configuration");
	require_refused(landlocked_run(fetch_ruleset, remove_keepsock), EACCES,
	    "a request's child: removing keep.sock");
	require_done(landlocked_run(fetch_ruleset, connect_gate),
	    "a request's child: gate.sock");
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
