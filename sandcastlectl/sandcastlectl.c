/*
 * sandcastlectl: the operator's command.  The words name a command
 * (parser.c), whose row says whether it may run as root, needs the folders.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctlcmd.h"
#include "note.h"
#include "parser.h"
#include "paths.h"

PROGRAM_NOTE("sandcastlectl");

static void	usage(void) __attribute__((noreturn));
static void	env_init(struct ctl_env *, const char *, const char *);

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

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "config",	required_argument,	NULL,	'c' },
		{ "secrets",	required_argument,	NULL,	's' },
		{ "prefix",	required_argument,	NULL,	'P' },
		{ NULL,		0,			NULL,	0 }
	};
	const struct parse_result	*res;
	const struct command		*cmd;
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
		case 'P':
			/* The manual's: an operator may well type it. */
			errx(1, "--prefix was removed: a second installation "
			    "runs as an account of its own (sandcastle(7), Run "
			    "two installations side by side)");
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
	cmd = &commands[res->action];
	if (cmd->run == NULL)
		usage();
	if ((cmd->flags & CMD_ROOT) == 0 && (getuid() == 0 || geteuid() == 0))
		errx(1, "refusing to run as root: run it as the operator");
	if (cmd->flags & CMD_FOLDERS)
		env_init(&env, cflag, sflag);
	return cmd->run(res, &env);
}
