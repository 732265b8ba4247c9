/*
 * sandcastlectl: the operator's command.  It sets, lists and removes
 * secrets, checks an installation and asks sandcastled how it is.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "sandcastlectl.h"

static void	usage(void) __attribute__((noreturn));
static void	env_init(struct ctl_env *, const char *, const char *);
static int	run(const struct parse_result *, const struct ctl_env *);

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-c dir] [-s dir] command [args]\n",
	    getprogname());
	exit(1);
}

static void
env_init(struct ctl_env *env, const char *cflag, const char *sflag)
{
	if (path_config_dir(cflag, env->confdir, sizeof(env->confdir)) == -1)
		errx(1, "the configuration folder: %s", path_why());
	if (path_secrets_dir(sflag, env->secdir, sizeof(env->secdir)) == -1)
		errx(1, "the secrets folder: %s", path_why());
}

static int
run(const struct parse_result *res, const struct ctl_env *env)
{
	switch (res->action) {
	case CHECK:
		return ctl_check(env);
	case INSTALL:
		return ctl_install(env);
	case INSTALL_IMAGES:
		return ctl_install_images(env);
	case SECRET_LIST:
		return ctl_secret_list(env);
	case SECRET_RM:
		return ctl_secret_rm(env, res->name);
	case SECRET_SET:
		return ctl_secret_set(env, res->name);
	case SHOW_JOB:
		return ctl_show_job(env, res->name, res->id);
	case SHOW_JOBS:
		return ctl_show_jobs(env, res->name, res->json);
	case SHOW_SOURCES:
		return ctl_show_sources(res->json);
	case SHOW_STATUS:
		return ctl_show_status();
	case UNINSTALL:
		return ctl_uninstall(env);
	case VERSION:
		return ctl_version();
	case NONE:
		break;
	}
	usage();
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "config",	required_argument,	NULL,	'c' },
		{ "secrets",	required_argument,	NULL,	's' },
		{ NULL,		0,			NULL,	0 }
	};
	const struct parse_result	*res;
	struct ctl_env			 env;
	const char			*cflag = NULL, *sflag = NULL;
	int				 ch;

	while ((ch = getopt_long(argc, argv, "+c:s:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			cflag = optarg;
			break;
		case 's':
			sflag = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
	memset(&env, 0, sizeof(env));

	res = parse(argc, argv);
	/*
	 * version only reads the binaries; the rest is the operator's alone.
	 * install says it among the machine's lacks, changing nothing.
	 */
	if (res->action != VERSION && res->action != INSTALL &&
	    (getuid() == 0 || geteuid() == 0))
		errx(1, "refusing to run as root: run it as the operator");
	if (res->action != VERSION && res->action != SHOW_STATUS &&
	    res->action != SHOW_SOURCES)
		env_init(&env, cflag, sflag);
	return run(res, &env);
}
