/* sandcastled: the parent; its three children are re-execs with -P <title>. */
#include <sys/types.h>

#include <err.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "build.h"
#include "cap.h"
#include "child.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "note.h"
#include "parent.h"
#include "paths.h"
#include "podman.h"
#include "proc.h"
#include "proctab.h"
#include "proto.h"

PROGRAM_NOTE("sandcastled");

extern char **environ;

static struct options	 opts;
static const char	*title;
static int		 images;

static int
flag(struct daemon_start *d, int ch, const char *arg)
{
	switch (ch) {
	case '1':
		opts.once = 1;
		d->foreground = 1;
		break;
	case 'D':
		/* Copied: setproctitle(3) writes over argv. */
		if ((opts.digests = strdup(arg)) == NULL)
			err(1, "-D");
		break;
	case 'i':
		images = 1;
		break;
	case 'P':
		title = arg;
		break;
	default:
		return -1;
	}
	return 0;
}

static void
options_of(const struct daemon_start *d)
{
	strlcpy(opts.confdir, d->confdir, sizeof(opts.confdir));
	strlcpy(opts.secretsdir, d->secretsdir, sizeof(opts.secretsdir));
	opts.foreground = d->foreground;
	opts.verbose = d->verbose;
}

static void
child(struct daemon_start *d)
{
	if (title == NULL)
		return;
	options_of(d);
	child_main(title, &opts);
}

/*
 * -i: a build without images is EX_CONFIG, which the unit does not restart;
 * podman not answering is 1, which it does.  A missing image rests its cap.
 */
static void
images_present(const struct config *conf)
{
	char	 dir[PATH_MAX], id[BUILD_ID_LEN + 1], why[PATH_MAX + 128];
	char	 image[CAP_COUNT][PODMAN_IMAGE_LEN + 1];
	int	 c, r, missing[CAP_COUNT], nmissing = 0, nenabled = 0;

	if (self_bindir(dir, sizeof(dir)) == -1)
		err(EX_CONFIG, "the folder of this binary");
	if (build_id(dir, id, why, sizeof(why)) == -1)
		errx(EX_CONFIG, "the build id: %s", why);
	if (podman_init(why, sizeof(why)) == -1)
		errx(1, "%s", why);
	memset(missing, 0, sizeof(missing));
	for (c = 0; c < CAP_COUNT; c++) {
		if (!conf->caps[c].enabled)
			continue;
		nenabled++;
		podman_image_name(c, id, image[c], sizeof(image[c]));
		if ((r = podman_image_exists(image[c], why, sizeof(why))) == -1)
			errx(1, "%s", why);
		if (r == 0) {
			missing[c] = 1;
			nmissing++;
		}
	}
	for (c = 0; c < CAP_COUNT && nmissing == nenabled; c++)
		if (missing[c])
			errx(EX_CONFIG, "the image %s of this build is missing, "
			    "so this build does not start: run sandcastlectl "
			    "install, which makes its images before it starts "
			    "it", image[c]);
	for (c = 0; c < CAP_COUNT; c++)
		if (missing[c])
			warnx("the image %s of this build is missing: %s's "
			    "jobs are released and it rests, the others run; "
			    "run sandcastlectl install", image[c], cap_name(c));
}

int
main(int argc, char *argv[])
{
	struct daemon_start	 d = { .name = "sandcastled",
				    .usage = "[-1dinVv] [-c dir] [-s dir]",
				    .flags = "1D:iP:", .secrets = 1,
				    .flag = flag, .before_config = child };
	struct config		*conf;
	int			 exefd;

	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	setproctitle_init(argc, argv, environ);
	conf = daemon_start(&d, argc, argv);
	options_of(&d);
	if (images)
		images_present(conf);
	opts.digests = config_digests(conf);
	/* Each child is a fresh exec of this very binary, even if it is replaced on disk. */
	if ((exefd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
		fatal("/proc/self/exe");
	parent_main(conf, &opts, exefd);
}
