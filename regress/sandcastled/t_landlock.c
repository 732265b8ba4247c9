/*
 * The parent's, the core's and the keep frontend's Landlock rulesets,
 * the real functions of libsandcastled.a (landlock_parent(),
 * landlock_core(), landlock_keepfe()), each put on alone in a forked
 * child, with no seccomp filter: what a taken process would try is refused with EACCES (EPERM for a
 * scope) by Landlock and nothing else, and its control, the same call
 * without the ruleset, succeeds.  Built twice: t_landlock on this
 * kernel's ABI, t_landlock.abi1 on ABI 1, where the rights of later
 * ABIs are the controls.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>
#include <seccomp.h>

#include "records.h"
#include "../../sandcastled/job.h"
#include "../../sandcastled/sandcastled.h"
#include "../lib/landlocked.h"

#define NOW	1780000000
#define DAYS(n)	((time_t)(n) * 86400)

static int	datafd = -1;

/* data_dir, a secret and the configuration beside it, as an account keeps them. */
static void
layout(void)
{
	int	 fd;

	ATF_REQUIRE(mkdir("data", 0700) == 0);
	ATF_REQUIRE((datafd = open("data", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE(mkdir("secrets", 0700) == 0);
	ATF_REQUIRE((fd = open("secrets/claude", O_WRONLY | O_CREAT, 0600)) !=
	    -1);
	ATF_REQUIRE(write(fd, "sk-canary\n", 10) == 10);
	close(fd);
	ATF_REQUIRE(mkdir("config", 0700) == 0);
	ATF_REQUIRE((fd = open("config/config.yaml", O_WRONLY | O_CREAT,
	    0600)) != -1);
	close(fd);
	ATF_REQUIRE(mkdir("outside", 0700) == 0);
	ATF_REQUIRE(symlink("../outside", "data/link") == 0);
}

static int
core_ruleset(void)
{
	return landlock_core(datafd, "data");
}

static int
read_secret(void)
{
	return landlocked_result(open("secrets/claude", O_RDONLY));
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
write_outside(void)
{
	return landlocked_result(open("outside/new", O_WRONLY | O_CREAT, 0600));
}

/* Out of data_dir through a link inside it: Landlock sees where it lands. */
static int
write_through_link(void)
{
	return landlocked_result(openat(datafd, "link/new", O_WRONLY | O_CREAT,
	    0600));
}

static int
truncate_secret(void)
{
	return landlocked_result(truncate("secrets/claude", 0));
}

/* A job's whole life in its records, by the core's own code. */
static int
records_life(void)
{
	struct records_job	 j = { "notes", "1", 1, CAP_CLAUDE, "{}", 2,
	    NOW - 60 };
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];

	memset(&o, 0, sizeof(o));
	o.status = JOB_SUCCEEDED;
	o.output = "{\"tag\":\"recipes\"}";
	o.box_started = 1;
	if (records_begin(datafd, &j, why, sizeof(why)) == -1 ||
	    records_finish(datafd, &j, &o, NOW, why, sizeof(why)) == -1 ||
	    records_result(datafd, "notes", "1", RECORDS_SENT, why,
	    sizeof(why)) != 0 ||
	    records_read(datafd, "notes", "1", &m, why, sizeof(why)) == -1 ||
	    m.status != RECORDS_SUCCEEDED) {
		fprintf(stderr, "records: %s\n", why);
		return 3;
	}
	if (records_prune(datafd, 30, NOW + DAYS(40), why, sizeof(why)) != 1) {
		fprintf(stderr, "records_prune: %s\n", why);
		return 4;
	}
	return 0;
}

/* S8: a taken core opens no secret, no configuration, no file of the machine's. */
ATF_TC_WITHOUT_HEAD(core_reads_records_only);
ATF_TC_BODY(core_reads_records_only, tc)
{
	layout();
	require_done(landlocked_run(NULL, read_secret), "control: a secret");
	require_refused(landlocked_run(core_ruleset, read_secret), EACCES,
	    "the core: a secret");
	require_done(landlocked_run(NULL, read_config),
	    "control: the configuration");
	require_refused(landlocked_run(core_ruleset, read_config), EACCES,
	    "the core: the configuration");
	require_done(landlocked_run(NULL, read_passwd), "control: /etc/passwd");
	require_refused(landlocked_run(core_ruleset, read_passwd), EACCES,
	    "the core: /etc/passwd");
}

/* S8: nor writes a file outside data_dir, by its name or through a link. */
ATF_TC_WITHOUT_HEAD(core_writes_records_only);
ATF_TC_BODY(core_writes_records_only, tc)
{
	layout();
	require_refused(landlocked_run(core_ruleset, write_outside), EACCES,
	    "the core: a file outside data_dir");
	require_refused(landlocked_run(core_ruleset, write_through_link),
	    EACCES, "the core: a file through a link in data_dir");
	require_done(landlocked_run(NULL, write_outside),
	    "control: a file outside data_dir");
	ATF_REQUIRE(unlink("outside/new") == 0);
	require_done(landlocked_run(NULL, write_through_link),
	    "control: through the link");
}

/* S8: truncate(2) of a secret, held from ABI 3; before it, the control. */
ATF_TC_WITHOUT_HEAD(core_truncate);
ATF_TC_BODY(core_truncate, tc)
{
	struct stat	 st;

	layout();
	require_from_abi(landlocked_run(core_ruleset, truncate_secret), 3,
	    EACCES, "the core: truncate(2) of a secret");
	ATF_REQUIRE(stat("secrets/claude", &st) == 0);
	ATF_CHECK_EQ(st.st_size, landlocked_abi() >= 3 ? 10 : 0);
}

/* Its records, the whole life of a job, under the ruleset. */
ATF_TC_WITHOUT_HEAD(core_keeps_records);
ATF_TC_BODY(core_keeps_records, tc)
{
	layout();
	require_done(landlocked_run(core_ruleset, records_life),
	    "the core: a job's records begun, finished, read and pruned");
}

/* S8: no signal or abstract socket beyond its own, from ABI 6. */
ATF_TC_WITHOUT_HEAD(core_scopes);
ATF_TC_BODY(core_scopes, tc)
{
	int	 fd;

	layout();
	(void)landlocked_abstract_listener(&fd);
	require_done(landlocked_run(NULL, landlocked_signal),
	    "control: a signal to the test");
	require_from_abi(landlocked_run(core_ruleset, landlocked_signal), 6,
	    EPERM, "the core: a signal to the test");
	require_done(landlocked_run(NULL, landlocked_abstract_connect),
	    "control: the test's abstract socket");
	require_from_abi(landlocked_run(core_ruleset,
	    landlocked_abstract_connect), 6, EPERM,
	    "the core: the test's abstract socket");
	close(fd);
}

static struct sockaddr_un	keepsock;

/* What the frontend does: connect to keep.sock, a named Unix socket. */
static int
connect_keep(void)
{
	int	 s;

	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return 1;
	return landlocked_result(connect(s, (struct sockaddr *)&keepsock,
	    sizeof(keepsock)));
}

/* S8: a taken keep frontend opens no file at all, and still reaches the keep. */
ATF_TC_WITHOUT_HEAD(keepfe_no_file);
ATF_TC_BODY(keepfe_no_file, tc)
{
	int	 fd, abs;

	layout();
	memset(&keepsock, 0, sizeof(keepsock));
	keepsock.sun_family = AF_UNIX;
	(void)snprintf(keepsock.sun_path, sizeof(keepsock.sun_path),
	    "keep.sock");
	ATF_REQUIRE((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(fd, (struct sockaddr *)&keepsock,
	    sizeof(keepsock)) == 0);
	ATF_REQUIRE(listen(fd, 8) == 0);
	(void)landlocked_abstract_listener(&abs);
	require_refused(landlocked_run(landlock_keepfe, read_secret), EACCES,
	    "the keep frontend: a secret");
	require_refused(landlocked_run(landlock_keepfe, read_config), EACCES,
	    "the keep frontend: the configuration");
	require_refused(landlocked_run(landlock_keepfe, read_passwd), EACCES,
	    "the keep frontend: /etc/passwd");
	require_done(landlocked_run(landlock_keepfe, connect_keep),
	    "the keep frontend: keep.sock");
	require_from_abi(landlocked_run(landlock_keepfe,
	    landlocked_abstract_connect), 6, EPERM,
	    "the keep frontend: the test's abstract socket");
	require_done(landlocked_run(NULL, landlocked_abstract_connect),
	    "control: the test's abstract socket");
	close(fd);
	close(abs);
}

/* The runtime folder, control.sock in it, as the parent leaves it at start. */
static void
runtime(void)
{
	int	 fd;

	ATF_REQUIRE(mkdir("run", 0700) == 0);
	ATF_REQUIRE((fd = open("run/control.sock", O_WRONLY | O_CREAT,
	    0600)) != -1);
	close(fd);
	ATF_REQUIRE((fd = open("outside/file", O_WRONLY | O_CREAT,
	    0600)) != -1);
	close(fd);
}

static int
parent_ruleset(void)
{
	return landlock_parent("run");
}

static int
remove_control(void)
{
	return landlocked_result(unlink("run/control.sock"));
}

static int
remove_outside(void)
{
	return landlocked_result(unlink("outside/file"));
}

static int
make_in_runtime(void)
{
	return landlocked_result(open("run/new", O_WRONLY | O_CREAT, 0600));
}

/* N5: a taken parent opens no file: no secret, no configuration, none of the machine's. */
ATF_TC_WITHOUT_HEAD(parent_no_file);
ATF_TC_BODY(parent_no_file, tc)
{
	layout();
	runtime();
	require_done(landlocked_run(NULL, read_secret), "control: a secret");
	require_refused(landlocked_run(parent_ruleset, read_secret), EACCES,
	    "the parent: a secret");
	require_refused(landlocked_run(parent_ruleset, read_config), EACCES,
	    "the parent: the configuration");
	require_refused(landlocked_run(parent_ruleset, read_passwd), EACCES,
	    "the parent: /etc/passwd");
	require_refused(landlocked_run(parent_ruleset, make_in_runtime), EACCES,
	    "the parent: a new file in the runtime folder");
	require_refused(landlocked_run(parent_ruleset, remove_outside), EACCES,
	    "the parent: a file removed outside the runtime folder");
	require_done(landlocked_run(NULL, remove_outside),
	    "control: the file outside removed");
}

/* N5: its end: control.sock removed, and a process outside its domain signalled. */
ATF_TC_WITHOUT_HEAD(parent_removes_control);
ATF_TC_BODY(parent_removes_control, tc)
{
	layout();
	runtime();
	require_done(landlocked_run(parent_ruleset, remove_control),
	    "the parent: control.sock removed");
	ATF_REQUIRE(access("run/control.sock", F_OK) == -1 && errno == ENOENT);
	require_done(landlocked_run(parent_ruleset, landlocked_signal),
	    "the parent: a signal to a process outside its domain");
}

/*
 * T3: a taken box reader opens no file at all, reading nor writing;
 * the control, without its ruleset, opens each.
 */
ATF_TC_WITHOUT_HEAD(reader_no_file);
ATF_TC_BODY(reader_no_file, tc)
{
	layout();
	require_done(landlocked_run(NULL, read_secret), "control: a secret");
	require_refused(landlocked_run(landlock_reader, read_secret), EACCES,
	    "the box reader: a secret");
	require_done(landlocked_run(NULL, read_passwd), "control: /etc/passwd");
	require_refused(landlocked_run(landlock_reader, read_passwd), EACCES,
	    "the box reader: /etc/passwd");
	require_done(landlocked_run(NULL, write_outside),
	    "control: a new file");
	require_refused(landlocked_run(landlock_reader, write_outside), EACCES,
	    "the box reader: a new file");
}

/*
 * Where Landlock is missing (a filter makes the kernel's call fail, as
 * a kernel without it does), the process says so in its log and goes on
 * with what it has: never open silently.
 */
ATF_TC_WITHOUT_HEAD(none_said);
ATF_TC_BODY(none_said, tc)
{
	scmp_filter_ctx	 ctx;
	pid_t		 pid;
	int		 fd, status;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("log", O_WRONLY | O_CREAT, 0600)) == -1 ||
		    dup2(fd, STDERR_FILENO) == -1 ||
		    (ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(landlock_create_ruleset), 0) != 0 ||
		    seccomp_load(ctx) != 0)
			_exit(2);
		if (landlock_keepfe() != 0)
			_exit(3);
		_exit(read_passwd());
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	require_done(status, "the keep frontend without Landlock: /etc/passwd");
	ATF_CHECK(atf_utils_grep_file("no Landlock: this kernel has no "
	    "Landlock .*: keep frontend sees every file the account can "
	    "read; its seccomp filter still holds", "log"));
}

/* The ABI the rulesets use: the kernel's, or the one this build forces. */
ATF_TC_WITHOUT_HEAD(abi_used);
ATF_TC_BODY(abi_used, tc)
{
	const char	*why;

	ATF_CHECK_EQ(landlock_abi(&why), landlocked_abi());
#ifdef LANDLOCK_ABI_MAX
	ATF_CHECK_EQ(landlocked_abi(), LANDLOCK_ABI_MAX);
#endif
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, core_reads_records_only);
	ATF_TP_ADD_TC(tp, core_writes_records_only);
	ATF_TP_ADD_TC(tp, core_truncate);
	ATF_TP_ADD_TC(tp, core_keeps_records);
	ATF_TP_ADD_TC(tp, core_scopes);
	ATF_TP_ADD_TC(tp, keepfe_no_file);
	ATF_TP_ADD_TC(tp, reader_no_file);
	ATF_TP_ADD_TC(tp, parent_no_file);
	ATF_TP_ADD_TC(tp, parent_removes_control);
	ATF_TP_ADD_TC(tp, none_said);
	ATF_TP_ADD_TC(tp, abi_used);
	return atf_no_error();
}
