/* The daemons' common start (daemon.h). */
#include <sys/types.h>

#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "config.h"
#include "daemon.h"
#include "heapown.h"
#include "log.h"
#include "paths.h"

static const struct option longopts[] = {
	{ "config",	required_argument,	NULL,	'c' },
	{ "secrets",	required_argument,	NULL,	's' },
	{ NULL,		0,			NULL,	0 }
};

static __attribute__((noreturn)) void
usage(const struct daemon_start *d)
{
	fprintf(stderr, "usage: %s %s\n", d->name, d->usage);
	exit(1);
}

static void
flags(struct daemon_start *d, int argc, char *argv[], const char **confflag,
    const char **secretsflag)
{
	char	 optstr[64];
	int	 ch;

	(void)snprintf(optstr, sizeof(optstr), "c:dnVv%s%s",
	    d->secrets ? "s:" : "", d->flags != NULL ? d->flags : "");
	while ((ch = getopt_long(argc, argv, optstr, longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			*confflag = optarg;
			break;
		case 'd':
			d->foreground = 1;
			break;
		case 'n':
			d->noaction = 1;
			break;
		case 's':
			if (!d->secrets)
				usage(d);
			*secretsflag = optarg;
			break;
		case 'V':
			build_print(d->name);
			exit(0);
		case 'v':
			d->verbose++;
			break;
		default:
			if (ch == '?' || d->flag == NULL ||
			    d->flag(d, ch, optarg) == -1)
				usage(d);
		}
	}
	if (argc != optind)
		usage(d);
}

/* A socket or a file that took 0, 1 or 2 would get stdio's bytes. */
static void
stdio_fds(void)
{
	int	 fd;

	while ((fd = open("/dev/null", O_RDWR)) != -1 && fd <= STDERR_FILENO)
		;
	if (fd == -1)
		err(1, "/dev/null");
	close(fd);
}

/* Absolute, so that a daemon(3) gone to / and a child exec'd read the same. */
static void
absolute_dir(char *buf, size_t bufsz, int (*fn)(const char *, char *, size_t),
    const char *flag)
{
	char	 cwd[PATH_MAX], rel[PATH_MAX];

	if (fn(flag, buf, bufsz) == -1)
		errx(1, "%s", path_why());
	if (buf[0] == '/')
		return;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		err(1, "getcwd");
	strlcpy(rel, buf, sizeof(rel));
	if ((size_t)snprintf(buf, bufsz, "%s/%s", cwd, rel) >= bufsz)
		errx(1, "%s/%s: path too long", cwd, rel);
}

struct config *
daemon_start(struct daemon_start *d, int argc, char *argv[])
{
	struct config	*conf;
	const char	*confflag = NULL, *secretsflag = NULL;

	heap_mark();
	flags(d, argc, argv, &confflag, &secretsflag);
	if (geteuid() == 0 || getuid() == 0)
		errx(1, "refusing to run as root");
	stdio_fds();
	absolute_dir(d->confdir, sizeof(d->confdir), path_config_dir,
	    confflag);
	if (d->secrets)
		absolute_dir(d->secretsdir, sizeof(d->secretsdir),
		    path_secrets_dir, secretsflag);
	/* On stderr until the daemon leaves it, so that a refusal is seen. */
	log_init(d->name, 1, d->verbose);
	if (d->before_config != NULL)
		d->before_config(d);
	conf = daemon_config(d->confdir);
	if (d->noaction) {
		if (d->verbose)
			config_print(stdout, conf);
		fprintf(stderr, "configuration OK\n");
		exit(0);
	}
	return conf;
}

struct config *
daemon_config(const char *dir)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct config	*conf;

	if ((conf = config_load(dir, &errs)) == NULL) {
		if (TAILQ_EMPTY(&errs))
			err(1, "%s", dir);
		conferrs_print(stderr, &errs);
		exit(1);
	}
	conferrs_free(&errs);
	return conf;
}

static void
proc_self_write(const char *file, const char *text)
{
	size_t	 len = strlen(text);
	int	 fd;

	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) == -1)
		fatal("%s", file);
	if (write(fd, text, len) != (ssize_t)len)
		fatal("%s: cannot write \"%s\"", file, text);
	close(fd);
}

void
daemon_own_netns(void)
{
	char	 map[64];
	uid_t	 uid = geteuid();
	gid_t	 gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == -1)
		fatal("unshare: cannot make a user and network namespace of "
		    "its own (are unprivileged user namespaces allowed here? "
		    "see user.max_user_namespaces)");
	(void)snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
	proc_self_write("/proc/self/uid_map", map);
	/* An unprivileged map of gids needs setgroups(2) closed first. */
	proc_self_write("/proc/self/setgroups", "deny");
	(void)snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
	proc_self_write("/proc/self/gid_map", map);
}

static void
daemon_ended_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGCHLD);
}

void
daemon_hold_signals(void)
{
	sigset_t	 block;

	daemon_ended_signals(&block);
	sigprocmask(SIG_BLOCK, &block, NULL);
}

void
daemon_signals(void (*handler)(int), sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t	 block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	daemon_ended_signals(&block);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGCHLD);
}
