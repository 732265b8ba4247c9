/* keepd: the keep, the only process that reads a secret (keepd(8)). */
#include <sys/types.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "codeidle.h"
#include "config.h"
#include "conn.h"
#include "daemon.h"
#include "dest.h"
#include "fetchmsg.h"
#include "fetchtab.h"
#include "listen.h"
#include "lock.h"
#include "log.h"
#include "netns.h"
#include "note.h"
#include "paths.h"
#include "secrets.h"
#include "serve.h"

PROGRAM_NOTE("keepd");

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
	daemon_hold_signals();
	listenfd = open_keepsock(sockdir, sizeof(sockdir), gatepath,
	    sizeof(gatepath));
	netns_enter();
	/* The time zone too is read now, by the ruleset's frame. */
	landlock_keepd(secretsfd, secretsdir, sockdir);
	sandbox_keepd(secretsfd);
	/* Its request children run TLS; keepd has done with it. */
	code_idle(keepd_tls_libs);
	log_info("ready: %zu destinations", dest_count());
	serve(listenfd, secretsfd, gatepath);
	exit(0);
}

int
main(int argc, char *argv[])
{
	struct daemon_start	 d = { .name = "keepd",
				    .usage = "[-dnVv] [-c dir] [-s dir]",
				    .secrets = 1 };
	struct config		*conf;

	fetch_msgs_use(fetch_msgtab);
	conf = daemon_start(&d, argc, argv);
	/* Without -d, syslog(3), in the foreground of its unit. */
	log_init("keepd", d.foreground, d.verbose);
	run(conf, d.secretsdir);
}
