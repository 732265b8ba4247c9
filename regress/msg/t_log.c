/*
 * log.c: the tag, the escaping of what a hostile name could carry, the
 * errno a log call must leave alone, and the exit of fatal().  Each case
 * logs in a child whose stderr atf keeps, and compares it whole.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "log.h"

ATF_TC_WITHOUT_HEAD(plain_text_unchanged);
ATF_TC_BODY(plain_text_unchanged, tc)
{
	pid_t	 pid;

	/* The control of the escaping cases: plain text comes out as is. */
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		log_warnx("source %s: %d jobs", "plain name-1.2", 3);
		exit(0);
	}
	atf_utils_wait(pid, 0, "", "t_log: source plain name-1.2: 3 jobs\n");
}

ATF_TC_WITHOUT_HEAD(newline_escaped);
ATF_TC_BODY(newline_escaped, tc)
{
	pid_t	 pid;

	/* A name with a newline cannot forge a second line. */
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		log_warnx("source %s", "evil\nt_log: forged");
		exit(0);
	}
	atf_utils_wait(pid, 0, "", "t_log: source evil\\nt_log: forged\n");
}

ATF_TC_WITHOUT_HEAD(controls_escaped);
ATF_TC_BODY(controls_escaped, tc)
{
	pid_t	 pid;

	/*
	 * Escape sequences, carriage returns and tabs; a backslash doubles,
	 * so that an escape in the log is never ambiguous.
	 */
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		log_info("%s", "a\033[2Jb\rc\td\\n");
		exit(0);
	}
	atf_utils_wait(pid, 0, "", "t_log: a\\033[2Jb\\rc\\td\\\\n\n");
}

ATF_TC_WITHOUT_HEAD(warn_appends_strerror);
ATF_TC_BODY(warn_appends_strerror, tc)
{
	pid_t	 pid;

	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		errno = ENOENT;
		log_warn("open %s", "config.yaml");
		log_warnx("open %s", "config.yaml");
		exit(0);
	}
	atf_utils_wait(pid, 0, "",
	    "t_log: open config.yaml: No such file or directory\n"
	    "t_log: open config.yaml\n");
}

ATF_TC_WITHOUT_HEAD(errno_kept);
ATF_TC_BODY(errno_kept, tc)
{
	pid_t	 pid;

	/*
	 * Exits 2 when a log call changed errno; the last call's write(2)
	 * fails with EBADF, which must not leak out either.
	 */
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 1);
		errno = EACCES;
		log_warn("a");
		log_warnx("b");
		log_info("c");
		log_debug("d");
		if (errno != EACCES)
			exit(2);
		close(STDERR_FILENO);
		log_warnx("lost");
		exit(errno == EACCES ? 0 : 2);
	}
	atf_utils_wait(pid, 0, "",
	    "t_log: a: Permission denied\nt_log: b\nt_log: c\nt_log: d\n");
}

ATF_TC_WITHOUT_HEAD(debug_needs_verbose);
ATF_TC_BODY(debug_needs_verbose, tc)
{
	pid_t	 pid;

	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		log_debug("hidden");
		log_info("shown");
		exit(log_verbose() == 0 ? 0 : 2);
	}
	atf_utils_wait(pid, 0, "", "t_log: shown\n");

	/* The control: the same call with -v shows it. */
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 1);
		log_debug("hidden");
		exit(log_verbose() == 1 ? 0 : 2);
	}
	atf_utils_wait(pid, 0, "", "t_log: hidden\n");
}

ATF_TC_WITHOUT_HEAD(procname_tags);
ATF_TC_BODY(procname_tags, tc)
{
	pid_t	 pid;

	if ((pid = atf_utils_fork()) == 0) {
		log_init("sandcastled", 1, 0);
		log_info("parent");
		log_procname("core");
		log_info("child");
		log_procname("sandcastled");
		log_info("parent again");
		exit(0);
	}
	atf_utils_wait(pid, 0, "", "sandcastled: parent\n"
	    "sandcastled: core: child\nsandcastled: parent again\n");
}

ATF_TC_WITHOUT_HEAD(syslog_not_stderr);
ATF_TC_BODY(syslog_not_stderr, tc)
{
	pid_t	 pid;

	/* Out of the foreground nothing goes to stderr, all to syslog. */
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 0, 1);
		log_info("to syslog");
		log_debug("to syslog");
		exit(0);
	}
	atf_utils_wait(pid, 0, "", "");
}

ATF_TC_WITHOUT_HEAD(fatal_exits_1);
ATF_TC_BODY(fatal_exits_1, tc)
{
	pid_t	 pid;

	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		errno = EPERM;
		fatal("setuid %d", 5);
	}
	atf_utils_wait(pid, 1, "",
	    "t_log: setuid 5: Operation not permitted\n");

	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		fatalx("core sent %s", "garbage\n");
	}
	atf_utils_wait(pid, 1, "", "t_log: core sent garbage\\n\n");
}

ATF_TC_WITHOUT_HEAD(long_line_cut);
ATF_TC_BODY(long_line_cut, tc)
{
	char	 big[4096];
	pid_t	 pid;

	/* A line longer than the buffer is cut: still one line, escaped. */
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_log", 1, 0);
		log_warnx("%s", big);
		exit(0);
	}
	atf_utils_wait(pid, 0, "", "save:long.err");
	ATF_REQUIRE(atf_utils_grep_file("^t_log: (\\\\n)+$", "long.err"));
	ATF_REQUIRE(!atf_utils_grep_file("^$", "long.err"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, plain_text_unchanged);
	ATF_TP_ADD_TC(tp, newline_escaped);
	ATF_TP_ADD_TC(tp, controls_escaped);
	ATF_TP_ADD_TC(tp, warn_appends_strerror);
	ATF_TP_ADD_TC(tp, errno_kept);
	ATF_TP_ADD_TC(tp, debug_needs_verbose);
	ATF_TP_ADD_TC(tp, procname_tags);
	ATF_TP_ADD_TC(tp, syslog_not_stderr);
	ATF_TP_ADD_TC(tp, fatal_exits_1);
	ATF_TP_ADD_TC(tp, long_line_cut);
	return atf_no_error();
}
