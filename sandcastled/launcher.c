/*
 * The box launcher: the only process that will run a program, podman,
 * for each job and each check, and remove the boxes a crash left
 * behind.  Its filter is a deny list (sandbox_launcher()): podman
 * inherits it.
 *
 * Everything podman needs from outside the filter's reach is done
 * first: the build id that names the images, podman's path, and
 * podman's user namespace (box_prepare(): the filter's no_new_privs
 * would stop the setuid newuidmap of a podman that has to make one).
 * A launcher that cannot prepare podman still runs: it says why once,
 * and every box is then released with that reason, as the manual has it
 * for a missing Podman.
 */
#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "box.h"
#include "build.h"
#include "config.h"
#include "log.h"
#include "msg.h"
#include "sandcastled.h"

static struct config	*launcher_conf;
static int		 launcher_podman_ok;
static char		 launcher_why[256];

static void
launcher_dispatch(struct msg *m)
{
	/* msg_verify() let through only what the (empty) rule table lists. */
	fatalx("box launcher: no message from the parent is handled yet "
	    "(type %u)", m->type);
}

static int
launcher_build(char id[BUILD_ID_LEN + 1])
{
	char	 dir[PATH_MAX];

	if (self_bindir(dir, sizeof(dir)) == -1) {
		(void)snprintf(launcher_why, sizeof(launcher_why),
		    "cannot find the folder of this binary");
		return -1;
	}
	return build_id(dir, id, launcher_why, sizeof(launcher_why));
}

/* podman made ready before the filter; 0, or -1 with launcher_why. */
static int
launcher_prepare(void)
{
	char	 id[BUILD_ID_LEN + 1];

	if (launcher_build(id) == -1)
		return -1;
	if (box_init(id, launcher_why, sizeof(launcher_why)) == -1 ||
	    box_prepare(launcher_why, sizeof(launcher_why)) == -1 ||
	    box_remove_leftovers(launcher_why, sizeof(launcher_why)) == -1)
		return -1;
	log_info("boxes of build %s; limits in force: rlimits%s", id,
	    box_cgroup_layer() ? " and cgroup v2" : " only (no cgroup v2 "
	    "delegation here: box.memory, box.cpus and box.pids hold as "
	    "rlimits alone)");
	return 0;
}

void
launcher_run(struct config *conf, struct msgchan *chan)
{
	launcher_conf = conf;
	launcher_podman_ok = launcher_prepare() == 0;
	if (!launcher_podman_ok)
		log_warnx("no box can run: %s; every job is released and its "
		    "capability rests", launcher_why);
	sandbox_launcher();
	child_ready(chan);
	log_debug("ready: claude %s, ocr %s",
	    launcher_conf->caps[CAP_CLAUDE].enabled ? "on" : "off",
	    launcher_conf->caps[CAP_OCR].enabled ? "on" : "off");
	child_loop(chan, NULL, 0, "the parent", launcher_dispatch);
}
