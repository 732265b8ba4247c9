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

/* In the case, once its child is gone: the account taken given back. */
static void __attribute__((unused))
free_account(void)
{
	char	 cwd[PATH_MAX], link[PATH_MAX], to[PATH_MAX];
	ssize_t	 n;
	int	 i;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return;
	for (i = 1; i <= 64; i++) {
		(void)snprintf(link, sizeof(link), LOCKS "/sctest%d", i);
		if ((n = readlink(link, to, sizeof(to) - 1)) == -1)
			continue;
		to[n] = '\0';
		if (strcmp(to, cwd) == 0)
			(void)unlink(link);
	}
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
	int	 p[2], status, n = 0;

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
	free_account();
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
	int		 fd, i, tries;

	REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL, "%s", "getcwd");
	REQUIRE((fd = open(LOCKS "/.lock", O_RDWR | O_CREAT, 0600)) != -1,
	    "%s", "no " LOCKS ": run regress/lib/accounts.sh");
	for (tries = 0; tries < 1200; tries++) {
		REQUIRE(flock(fd, LOCK_EX) == 0, "%s", "flock");
		for (i = 1; i <= 64; i++) {
			(void)snprintf(account, sizeof(account), "sctest%d", i);
			if (getpwnam(account) == NULL)
				break;
			(void)snprintf(link, sizeof(link), LOCKS "/%s", account);
			if ((n = readlink(link, to, sizeof(to) - 1)) != -1) {
				to[n] = '\0';
				if (strcmp(to, cwd) != 0 && stat(to, &sb) == 0)
					continue;
				(void)unlink(link);
			}
			if (symlink(cwd, link) == 0) {
				close(fd);
				return;
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

#endif
