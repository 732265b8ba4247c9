/*
 * keepd: the keep, the only process that reads a secret.  Everything it
 * needs is opened here, before anything hostile is read: the
 * configuration, each destination's TLS with its CA bundle in memory,
 * the secrets folder and keep.sock.  Then it leaves the network for a
 * namespace of its own, puts on its Landlock ruleset and its filter,
 * and serves.  See keepd(8).
 */
#include <sys/types.h>

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "keepd.h"
#include "daemon.h"
#include "log.h"
#include "paths.h"
#include "secrets.h"

static const struct option longopts[] = {
	{ "config",	required_argument,	NULL,	'c' },
	{ "secrets",	required_argument,	NULL,	's' },
	{ NULL,		0,			NULL,	0 }
};

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: keepd [-dnv] [-c dir] [-s dir]\n");
	exit(1);
}

static int
open_secrets(const char *dir)
{
	char	 why[PATH_MAX + 128];
	int	 fd;

	if ((fd = secrets_dir_open(dir, 0, why, sizeof(why))) == -1)
		fatalx("secrets folder %s: %s (sandcastlectl secret set "
		    "makes it)", dir, why);
	return fd;
}

static int
open_keepsock(char *dir, size_t dirsz, char *gatepath, size_t gatepathsz)
{
	char	 sock[PATH_MAX], why[PATH_MAX + 128];

	if (path_runtime_dir(dir, dirsz) == -1 ||
	    path_runtime_file(KEEP_SOCK, sock, sizeof(sock)) == -1 ||
	    path_runtime_file(GATE_SOCK, gatepath, gatepathsz) == -1)
		fatalx("%s", path_why());
	if (path_private_dir(dir, why, sizeof(why)) == -1)
		fatalx("%s", why);
	return keepsock_open(sock);
}

static __attribute__((noreturn)) void
run(struct config *conf, const char *secretsdir)
{
	char	 gatepath[PATH_MAX], sockdir[PATH_MAX];
	int	 secretsfd, listenfd;

	dest_init(conf);
	secretsfd = open_secrets(secretsdir);
	listenfd = open_keepsock(sockdir, sizeof(sockdir), gatepath,
	    sizeof(gatepath));
	netns_enter();
	/* The time zone too is read now, by the ruleset's frame. */
	landlock_keepd(secretsfd, secretsdir, sockdir);
	sandbox_keepd(secretsfd);
	log_info("ready: %zu destinations", dest_count());
	serve(listenfd, secretsfd, gatepath);
	exit(0);
}

int
main(int argc, char *argv[])
{
	const char	*confflag = NULL, *secretsflag = NULL;
	char		 confdir[PATH_MAX], secretsdir[PATH_MAX];
	struct config	*conf;
	int		 ch, foreground = 0, noaction = 0, verbose = 0;

	while ((ch = getopt_long(argc, argv, "c:dns:v", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			confflag = optarg;
			break;
		case 'd':
			foreground = 1;
			break;
		case 'n':
			noaction = 1;
			break;
		case 's':
			secretsflag = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();
	if (geteuid() == 0 || getuid() == 0)
		errx(1, "refusing to run as root");
	if (path_config_dir(confflag, confdir, sizeof(confdir)) == -1 ||
	    path_secrets_dir(secretsflag, secretsdir, sizeof(secretsdir)) == -1)
		errx(1, "%s", path_why());
	conf = daemon_config(confdir);
	if (noaction) {
		fprintf(stderr, "configuration OK\n");
		return 0;
	}
	log_init("keepd", foreground, verbose);
	run(conf, secretsdir);
}
