/*
 * gated: the gate, the only way out.  This build parses its flags and
 * checks the configuration (-n); serving gate.sock comes with its own
 * issue.  See gated(8).
 */
#include <sys/types.h>

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "paths.h"

static const struct option longopts[] = {
	{ "config",	required_argument,	NULL,	'c' },
	{ NULL,		0,			NULL,	0 }
};

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: gated [-dnv] [-c dir]\n");
	exit(1);
}

static void
check_config(const char *dir)
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
	config_free(conf);
}

int
main(int argc, char *argv[])
{
	const char	*confflag = NULL;
	char		 confdir[PATH_MAX];
	int		 ch, noaction = 0;

	while ((ch = getopt_long(argc, argv, "c:dnv", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			confflag = optarg;
			break;
		case 'd':
		case 'v':
			/* the foreground and the debug lines: nothing to log yet */
			break;
		case 'n':
			noaction = 1;
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();
	if (geteuid() == 0 || getuid() == 0)
		errx(1, "refusing to run as root");
	if (path_config_dir(confflag, confdir, sizeof(confdir)) == -1)
		errx(1, "%s", path_why());
	check_config(confdir);
	if (noaction) {
		fprintf(stderr, "configuration OK\n");
		return 0;
	}
	errx(1, "this build only checks its configuration (-n)");
}
