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
#include "../../sandcastled/lock.h"
#include "../../sandcastled/readlock.h"
#include "../lib/landlocked.h"

#define NOW	1780000000
#define DAYS(n)	((time_t)(n) * 86400)

static int	datafd = -1;

/* data_dir, a secret and the configuration beside it, as an account keeps them. */
static void
layout(void)
{
	static const char *const tree[] = { "data/", "secrets/",
	    "secrets/claude=sk-canary\n", "config/", "config/config.yaml",
	    "outside/", "data/link>../outside", NULL };

	landlocked_tree(tree);
	ATF_REQUIRE((datafd = open("data", O_RDONLY | O_DIRECTORY)) != -1);
}

static int
core_ruleset(void)
{
	return landlock_core(datafd, "data");
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
	static const struct landlocked_case c[] = {
		{ "control: a secret", NULL, "read secrets/claude", 0, 0,
		    NULL },
		{ "the core: a secret", core_ruleset, "read secrets/claude",
		    EACCES, 0, NULL },
		{ "control: the configuration", NULL, "read config/config.yaml",
		    0, 0, NULL },
		{ "the core: the configuration", core_ruleset,
		    "read config/config.yaml", EACCES, 0, NULL },
		{ "control: /etc/passwd", NULL, "read /etc/passwd", 0, 0,
		    NULL },
		{ "the core: /etc/passwd", core_ruleset, "read /etc/passwd",
		    EACCES, 0, NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* S8: nor writes a file outside data_dir, by its name or through a link. */
ATF_TC_WITHOUT_HEAD(core_writes_records_only);
ATF_TC_BODY(core_writes_records_only, tc)
{
	/* Out of data_dir through a link inside it: Landlock sees where it lands. */
	static const struct landlocked_case c[] = {
		{ "the core: a file outside data_dir", core_ruleset,
		    "make outside/new", EACCES, 0, NULL },
		{ "the core: a file through a link in data_dir", core_ruleset,
		    "make data/link/new", EACCES, 0, NULL },
		{ "control: a file outside data_dir", NULL, "make outside/new",
		    0, 0, NULL },
	};
	static const struct landlocked_case link[] = {
		{ "control: through the link", NULL, "make data/link/new", 0, 0,
		    NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
	ATF_REQUIRE(unlink("outside/new") == 0);
	LANDLOCKED_CASES(link);
}

/* S8: truncate(2) of a secret, held from ABI 3; before it, the control. */
ATF_TC_WITHOUT_HEAD(core_truncate);
ATF_TC_BODY(core_truncate, tc)
{
	static const struct landlocked_case c[] = {
		{ "the core: truncate(2) of a secret", core_ruleset,
		    "truncate secrets/claude", EACCES, 3, NULL },
	};
	struct stat	 st;

	layout();
	LANDLOCKED_CASES(c);
	ATF_REQUIRE(stat("secrets/claude", &st) == 0);
	ATF_CHECK_EQ(st.st_size, landlocked_abi() >= 3 ? 10 : 0);
}

/* Its records, the whole life of a job, under the ruleset. */
ATF_TC_WITHOUT_HEAD(core_keeps_records);
ATF_TC_BODY(core_keeps_records, tc)
{
	static const struct landlocked_case c[] = {
		{ "the core: a job's records begun, finished, read and pruned",
		    core_ruleset, NULL, 0, 0, records_life },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* S8: no signal or abstract socket beyond its own, from ABI 6. */
ATF_TC_WITHOUT_HEAD(core_scopes);
ATF_TC_BODY(core_scopes, tc)
{
	static const struct landlocked_case c[] = {
		{ "control: a signal to the test", NULL, NULL, 0, 0,
		    landlocked_signal },
		{ "the core: a signal to the test", core_ruleset, NULL, EPERM,
		    6, landlocked_signal },
		{ "control: the test's abstract socket", NULL, NULL, 0, 0,
		    landlocked_abstract_connect },
		{ "the core: the test's abstract socket", core_ruleset, NULL,
		    EPERM, 6, landlocked_abstract_connect },
	};

	layout();
	LANDLOCKED_CASES(c);
}

/* S8: a taken keep frontend opens no file at all, and still reaches the keep. */
ATF_TC_WITHOUT_HEAD(keepfe_no_file);
ATF_TC_BODY(keepfe_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "the keep frontend: a secret", landlock_keepfe,
		    "read secrets/claude", EACCES, 0, NULL },
		{ "the keep frontend: the configuration", landlock_keepfe,
		    "read config/config.yaml", EACCES, 0, NULL },
		{ "the keep frontend: /etc/passwd", landlock_keepfe,
		    "read /etc/passwd", EACCES, 0, NULL },
		{ "the keep frontend: keep.sock", landlock_keepfe,
		    "connect keep.sock", 0, 0, NULL },
		{ "the keep frontend: the test's abstract socket",
		    landlock_keepfe, NULL, EPERM, 6,
		    landlocked_abstract_connect },
		{ "control: the test's abstract socket", NULL, NULL, 0, 0,
		    landlocked_abstract_connect },
	};
	int	 fd;

	layout();
	landlocked_unix_listener("keep.sock", &fd);
	LANDLOCKED_CASES(c);
	close(fd);
}

/* The runtime folder, control.sock in it, as the parent leaves it at start. */
static void
runtime(void)
{
	static const char *const tree[] = { "run/", "run/control.sock",
	    "outside/file", NULL };

	landlocked_tree(tree);
}

static int
parent_ruleset(void)
{
	return landlock_parent("run");
}

/* N5: a taken parent opens no file: no secret, no configuration, none of the machine's. */
ATF_TC_WITHOUT_HEAD(parent_no_file);
ATF_TC_BODY(parent_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "control: a secret", NULL, "read secrets/claude", 0, 0,
		    NULL },
		{ "the parent: a secret", parent_ruleset, "read secrets/claude",
		    EACCES, 0, NULL },
		{ "the parent: the configuration", parent_ruleset,
		    "read config/config.yaml", EACCES, 0, NULL },
		{ "the parent: /etc/passwd", parent_ruleset, "read /etc/passwd",
		    EACCES, 0, NULL },
		{ "the parent: a new file in the runtime folder",
		    parent_ruleset, "make run/new", EACCES, 0, NULL },
		{ "the parent: a file removed outside the runtime folder",
		    parent_ruleset, "remove outside/file", EACCES, 0, NULL },
		{ "control: the file outside removed", NULL,
		    "remove outside/file", 0, 0, NULL },
	};

	layout();
	runtime();
	LANDLOCKED_CASES(c);
}

/* N5: its end: control.sock removed, and a process outside its domain signalled. */
ATF_TC_WITHOUT_HEAD(parent_removes_control);
ATF_TC_BODY(parent_removes_control, tc)
{
	static const struct landlocked_case c[] = {
		{ "the parent: control.sock removed", parent_ruleset,
		    "remove run/control.sock", 0, 0, NULL },
	};
	static const struct landlocked_case signal[] = {
		{ "the parent: a signal to a process outside its domain",
		    parent_ruleset, NULL, 0, 0, landlocked_signal },
	};

	layout();
	runtime();
	LANDLOCKED_CASES(c);
	ATF_REQUIRE(access("run/control.sock", F_OK) == -1 && errno == ENOENT);
	LANDLOCKED_CASES(signal);
}

/*
 * T3: a taken box reader opens no file at all, reading nor writing;
 * the control, without its ruleset, opens each.
 */
ATF_TC_WITHOUT_HEAD(reader_no_file);
ATF_TC_BODY(reader_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "control: a secret", NULL, "read secrets/claude", 0, 0,
		    NULL },
		{ "the box reader: a secret", landlock_reader,
		    "read secrets/claude", EACCES, 0, NULL },
		{ "control: /etc/passwd", NULL, "read /etc/passwd", 0, 0,
		    NULL },
		{ "the box reader: /etc/passwd", landlock_reader,
		    "read /etc/passwd", EACCES, 0, NULL },
		{ "control: a new file", NULL, "make outside/new", 0, 0, NULL },
		{ "the box reader: a new file", landlock_reader,
		    "make outside/new", EACCES, 0, NULL },
	};

	layout();
	LANDLOCKED_CASES(c);
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
		_exit(landlocked_path("read /etc/passwd"));
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
