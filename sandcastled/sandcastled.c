/*
 * sandcastled: the worker's daemon.  The parent reads the
 * configuration, binds the control socket and starts its three
 * children (core, keep-frontend, box launcher), each a fresh exec of
 * this program with -P <title>.  See sandcastled(8).
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "build.h"
#include "cap.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "paths.h"
#include "podman.h"
#include "sandcastled.h"

extern char **environ;

static const struct option longopts[] = {
	{ "config",	required_argument,	NULL,	'c' },
	{ "secrets",	required_argument,	NULL,	's' },
	{ NULL,		0,			NULL,	0 }
};

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: sandcastled [-1dinv] [-c dir] [-s dir]\n");
	exit(1);
}

/* A daemon's stdin, stdout and stderr exist, so no socket takes their numbers. */
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

/* The children get these on their command line, after daemon(3) went to /. */
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

static struct config *
load_config(const char *dir, int noaction, int verbose)
{
	struct config	*conf;

	conf = daemon_config(dir);
	if (noaction) {
		if (verbose)
			config_print(stdout, conf);
		fprintf(stderr, "configuration OK\n");
		exit(0);
	}
	return conf;
}

/*
 * -i, the units' way: no start of a build whose images install has not
 * made, such as binaries that make install put under the running pieces
 * before sandcastlectl install.  EX_CONFIG, which the unit does not
 * restart; podman that cannot answer is 1, which it does.
 */
static void
images_present(const struct config *conf)
{
	char		 dir[PATH_MAX], id[BUILD_ID_LEN + 1], why[PATH_MAX + 128];
	char		 image[64], out[256];
	const char	*args[] = { "image", "exists", image, NULL };
	int		 c, status;

	if (self_bindir(dir, sizeof(dir)) == -1)
		err(EX_CONFIG, "the folder of this binary");
	if (build_id(dir, id, why, sizeof(why)) == -1)
		errx(EX_CONFIG, "the build id: %s", why);
	if (podman_init(why, sizeof(why)) == -1)
		errx(1, "%s", why);
	for (c = 0; c < CAP_COUNT; c++) {
		if (!conf->caps[c].enabled)
			continue;
		(void)snprintf(image, sizeof(image), "sandcastle-%s:%s",
		    cap_name(c), id);
		if (podman_cmd(args, out, sizeof(out), &status) == -1)
			err(1, "podman image exists %s", image);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
			out[strcspn(out, "\n")] = '\0';
			errx(1, "podman image exists %s did not answer (status "
			    "%d): %s", image, status, out);
		}
		errx(EX_CONFIG, "the image %s of this build is missing, so "
		    "this build does not start: run sandcastlectl install, "
		    "which makes its images before it starts it", image);
	}
}

int
main(int argc, char *argv[])
{
	struct options	 opts;
	struct config	*conf;
	const char	*confflag = NULL, *secretsflag = NULL, *title = NULL;
	int		 ch, noaction = 0, images = 0, exefd;

	setproctitle_init(argc, argv, environ);
	memset(&opts, 0, sizeof(opts));
	while ((ch = getopt_long(argc, argv, "1c:D:dinP:s:v", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case '1':
			/* One round, in the foreground: its status says how. */
			opts.once = 1;
			opts.foreground = 1;
			break;
		case 'c':
			confflag = optarg;
			break;
		case 'D':
			/* Copied: setproctitle(3) writes over argv. */
			if ((opts.digests = strdup(optarg)) == NULL)
				err(1, "-D");
			break;
		case 'd':
			opts.foreground = 1;
			break;
		case 'i':
			images = 1;
			break;
		case 'n':
			noaction = 1;
			break;
		case 'P':
			title = optarg;
			break;
		case 's':
			secretsflag = optarg;
			break;
		case 'v':
			opts.verbose++;
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();
	if (geteuid() == 0 || getuid() == 0)
		errx(1, "refusing to run as root");
	stdio_fds();
	absolute_dir(opts.confdir, sizeof(opts.confdir), path_config_dir,
	    confflag);
	absolute_dir(opts.secretsdir, sizeof(opts.secretsdir),
	    path_secrets_dir, secretsflag);
	/* On stderr until daemon(3), so that a refusal reaches the operator. */
	log_init("sandcastled", 1, opts.verbose);
	if (title != NULL)
		child_main(title, &opts);
	conf = load_config(opts.confdir, noaction, opts.verbose);
	if (images)
		images_present(conf);
	opts.digests = config_digests(conf);
	/* Each child is a fresh exec of this very binary, even if it is replaced on disk. */
	if ((exefd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
		fatal("/proc/self/exe");
	parent_main(conf, &opts, exefd);
}
