/*
 * For the atf-c tests whose checks must run as the test account (real
 * rootless podman refuses root's boxes to be what is tested): the suite
 * runs as root, so as_account() forks, the child becomes the account
 * and runs the body, and sends each failed check on a pipe (a REQUIRE
 * ends it), and the test case, still root, reports them, since Kyua's
 * result file is root's.
 *
 * Included by one test program each; every function is static.
 */
#ifndef REGRESS_ACCOUNT_H
#define REGRESS_ACCOUNT_H

#include <sys/types.h>
#include <sys/wait.h>

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#define LOCKS		"/run/sandcastle-regress/accounts"

static char	 account[32];

static int	 report_fd = -1;

static void	 report(int, const char *, int, const char *, ...)
		    __attribute__((format(printf, 4, 5), unused));

static void
report(int fatal, const char *file, int line, const char *fmt, ...)
{
	va_list	 ap;

	dprintf(report_fd, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vdprintf(report_fd, fmt, ap);
	va_end(ap);
	dprintf(report_fd, "\n");
	if (fatal)
		_exit(1);
}

#define CHECK(c, ...)	do { if (!(c)) report(0, __FILE__, __LINE__, \
			    __VA_ARGS__); } while (0)
#define REQUIRE(c, ...)	do { if (!(c)) report(1, __FILE__, __LINE__, \
			    __VA_ARGS__); } while (0)
#define CHECK_STR(a, b)	CHECK(strcmp((a), (b)) == 0, "\"%s\" != \"%s\"", \
			    (a), (b))

/* The account of the pool held for the case's work folder, or -1. */
static int __attribute__((unused))
held_account(void)
{
	char	 cwd[PATH_MAX], link[PATH_MAX], to[PATH_MAX];
	ssize_t	 n;
	int	 i;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return -1;
	for (i = 1; i <= 64; i++) {
		(void)snprintf(link, sizeof(link), LOCKS "/sctest%d", i);
		if ((n = readlink(link, to, sizeof(to) - 1)) == -1)
			continue;
		to[n] = '\0';
		if (strcmp(to, cwd) == 0)
			return i;
	}
	return -1;
}

/* Once the child is gone: the account it took given back, not one the case held before. */
static void __attribute__((unused))
free_account(int before)
{
	char	 link[PATH_MAX];
	int	 i;

	if (before != -1 || (i = held_account()) == -1)
		return;
	(void)snprintf(link, sizeof(link), LOCKS "/sctest%d", i);
	(void)unlink(link);
}

/*
 * Runs body() as the account in a child and fails the test case with
 * each check it reports; after(), unless NULL, runs as root once the
 * child is gone, even when it ended early (to remove what it left).
 */
static void __attribute__((unused))
as_account(void (*body)(void), void (*after)(pid_t))
{
	char	 buf[8192];
	FILE	*f;
	pid_t	 pid;
	int	 p[2], status, n = 0, before = held_account();

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		body();
		_exit(0);
	}
	close(p[1]);
	ATF_REQUIRE((f = fdopen(p[0], "r")) != NULL);
	while (fgets(buf, sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		atf_tc_fail_nonfatal("%s", buf);
		n++;
	}
	fclose(f);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	if (after != NULL)
		after(pid);
	free_account(before);
	if (n == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		atf_tc_fail("the account's half ended with status %d", status);
}

/*
 * Takes an account of the pool for this case, as helpers.subr's
 * sc_account does: a link from its name to the case's work folder, free
 * once that folder is gone; waits while all are held.
 */
static void __attribute__((unused))
take_account(void)
{
	struct stat	 sb;
	char		 cwd[PATH_MAX], link[PATH_MAX], to[PATH_MAX];
	ssize_t		 n;
	int		 fd, i, pass, tries;

	REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL, "%s", "getcwd");
	REQUIRE((fd = open(LOCKS "/.lock", O_RDWR | O_CREAT, 0600)) != -1,
	    "%s", "no " LOCKS ": run regress/lib/accounts.sh");
	for (tries = 0; tries < 1200; tries++) {
		REQUIRE(flock(fd, LOCK_EX) == 0, "%s", "flock");
		/* The case's own first (a program its shell test runs), then a free one. */
		for (pass = 0; pass < 2; pass++) {
			for (i = 1; i <= 64; i++) {
				(void)snprintf(account, sizeof(account),
				    "sctest%d", i);
				if (getpwnam(account) == NULL)
					break;
				(void)snprintf(link, sizeof(link), LOCKS "/%s",
				    account);
				if ((n = readlink(link, to, sizeof(to) - 1)) != -1) {
					to[n] = '\0';
					if (strcmp(to, cwd) == 0) {
						close(fd);
						return;
					}
					if (pass == 0 || stat(to, &sb) == 0)
						continue;
					(void)unlink(link);
				} else if (pass == 0)
					continue;
				if (symlink(cwd, link) == 0) {
					close(fd);
					return;
				}
			}
		}
		(void)flock(fd, LOCK_UN);
		sleep(1);
	}
	REQUIRE(0, "%s", "no account of the pool free in 20 minutes");
}

/* In the child: the case's account, with the environment its podman needs and no more. */
static void __attribute__((unused))
become_account(void)
{
	struct passwd	*pw;
	char		 run[64], home[PATH_MAX];

	take_account();
	REQUIRE((pw = getpwnam(account)) != NULL, "no account %s: run "
	    "regress/lib/accounts.sh", account);
	(void)snprintf(run, sizeof(run), "/run/user/%u", (unsigned)pw->pw_uid);
	(void)strlcpy(home, pw->pw_dir, sizeof(home));
	REQUIRE(initgroups(account, pw->pw_gid) == 0 &&
	    setgid(pw->pw_gid) == 0 && setuid(pw->pw_uid) == 0,
	    "cannot become %s", account);
	REQUIRE(clearenv() == 0, "%s", "clearenv");
	setenv("HOME", home, 1);
	setenv("XDG_RUNTIME_DIR", run, 1);
	setenv("PATH", "/usr/bin:/bin:/usr/sbin:/sbin", 1);
}

/* Runs a command through sh as the account: its exit status, -1 when killed. */
static int __attribute__((unused))
sh(const char *cmd)
{
	int	 status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A program's test cases as a table: each runs its body as the account,
 * as root (Kyua's require.user), within its timeout in seconds.
 */
struct account_case {
	const char	*name;
	const char	*descr;
	const char	*timeout;
	void		(*body)(void);
};

static const struct account_case	*account_cases;
static size_t				 account_ncases;

static const struct account_case *
account_case(const atf_tc_t *tc)
{
	const char	*name = atf_tc_get_ident(tc);
	size_t		 i;

	for (i = 0; i < account_ncases; i++)
		if (strcmp(account_cases[i].name, name) == 0)
			return &account_cases[i];
	atf_tc_fail("no test case %s", name);
}

static void
account_head(atf_tc_t *tc)
{
	const struct account_case	*c = account_case(tc);

	atf_tc_set_md_var(tc, "descr", "%s", c->descr);
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "%s", c->timeout);
}

static void
account_body(const atf_tc_t *tc)
{
	as_account(account_case(tc)->body, NULL);
}

/* Adds each case of the table, for ATF_TP_ADD_TCS to return. */
static atf_error_t __attribute__((unused))
account_add(atf_tp_t *tp, const struct account_case *c, size_t n)
{
	static atf_tc_t	 tcs[32];
	atf_error_t	 e = atf_no_error();
	char		**config;
	size_t		 i;

	account_cases = c;
	account_ncases = n;
	if (n > sizeof(tcs) / sizeof(tcs[0]))
		return atf_no_memory_error();
	if ((config = atf_tp_get_config(tp)) == NULL)
		return atf_no_memory_error();
	for (i = 0; i < n && !atf_is_error(e); i++) {
		e = atf_tc_init(&tcs[i], c[i].name, account_head, account_body,
		    NULL, (const char *const *)config);
		if (!atf_is_error(e))
			e = atf_tp_add_tc(tp, &tcs[i]);
	}
	atf_utils_free_charpp(config);
	return e;
}

#endif
