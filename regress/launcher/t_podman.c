/*
 * podman's words, read without podman: the cgroup controllers a line
 * of cgroup.controllers delegates (whole words: cpuset is not cpu), and
 * the cause podman's stderr gives when it could not run a box, on the
 * words podman 4.3 and 5, runc and crun really print.  t_job runs real
 * podman on the missing image and runtime.  podman_rm runs a stand-in
 * podman that says a box is still there as often as it is told.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../sandcastled/podman.h"

ATF_TC_WITHOUT_HEAD(controllers);
ATF_TC_BODY(controllers, tc)
{
	/* cpuset delegated, cpu not: --cpus would fail every box. */
	ATF_CHECK_EQ(cgroup_words_hold("cpuset io memory pids\n"), 0);
	ATF_CHECK_EQ(cgroup_words_hold("cpuset io memory pids"), 0);
	ATF_CHECK_EQ(cgroup_words_hold("cpuset io hugetlb pids rdma misc\n"),
	    0);
	ATF_CHECK_EQ(cgroup_words_hold("cpu cpuset io pids\n"), 0);
	ATF_CHECK_EQ(cgroup_words_hold("\n"), 0);
	/* The controls: cpu beside cpuset, first, last, alone. */
	ATF_CHECK_EQ(cgroup_words_hold("cpu cpuset io memory pids\n"), 1);
	ATF_CHECK_EQ(cgroup_words_hold("cpuset io memory pids cpu\n"), 1);
	ATF_CHECK_EQ(cgroup_words_hold("memory pids cpu"), 1);
}

static enum podman_cause
said(const char *err)
{
	return podman_said(err, strlen(err));
}

ATF_TC_WITHOUT_HEAD(causes);
ATF_TC_BODY(causes, tc)
{
	/* The image: podman run --pull=never of a tag not there. */
	ATF_CHECK_EQ(said("Error: sandcastle-ocr:aaaaaaaaaaaa: image not "
	    "known\n"), PODMAN_IMAGE);
	/* The image without the box's command (exit 127). */
	ATF_CHECK_EQ(said("Error: runc: runc create failed: unable to start "
	    "container process: exec: \"/sandcastle-box\": stat "
	    "/sandcastle-box: no such file or directory: OCI runtime "
	    "attempted to invoke a command that was not found\n"),
	    PODMAN_IMAGE);
	/* The runtime not found: --runtime a path, then a name. */
	ATF_CHECK_EQ(said("Error: no valid executable found for OCI runtime "
	    "/nonexistent/sc-runtime: invalid argument\n"), PODMAN_RUNTIME);
	ATF_CHECK_EQ(said("Error: default OCI runtime \"crun\" not found: "
	    "invalid argument\n"), PODMAN_RUNTIME);
	/* The runtime failing: --runtime=/bin/false (exit 126). */
	ATF_CHECK_EQ(said("time=\"2026-12-03T10:44:26Z\" level=error "
	    "msg=\"Removing container f9db from runtime after creation "
	    "failed\"\nError: container create failed (no logs from conmon): "
	    "conmon bytes \"\": readObjectStart: expect { or n, but found  "
	    "\n"), PODMAN_RUNTIME_FAILED);
	ATF_CHECK_EQ(said("Error: OCI runtime error: crun: unknown version "
	    "specified\n"), PODMAN_RUNTIME_FAILED);
	/* A cgroup: crun and runc, a controller, a mount, the manager. */
	ATF_CHECK_EQ(said("Error: OCI runtime error: crun: the requested "
	    "cgroup controller `cpu` is not available\n"), PODMAN_CGROUP);
	ATF_CHECK_EQ(said("Error: OCI runtime error: writing file "
	    "`/sys/fs/cgroup/cgroup.subtree_control`: Invalid argument\n"),
	    PODMAN_CGROUP);
	ATF_CHECK_EQ(said("Error: runc: runc create failed: unable to start "
	    "container process: error during container init: error mounting "
	    "\"cgroup\" to rootfs at \"/sys/fs/cgroup\": mount cgroup:/sys/fs/"
	    "cgroup/openrc (via /proc/self/fd/7), flags: 0xe, data: openrc: "
	    "invalid argument: OCI runtime error\n"), PODMAN_CGROUP);
	ATF_CHECK_EQ(said("Error: invalid configuration, cannot specify "
	    "resource limits without cgroups v2 and --cgroup-manager=systemd"
	    "\n"), PODMAN_CGROUP);
	/*
	 * Only "Error: " lines count: podman's warning on cgroup v1 beside
	 * a missing image is the image's, not a cgroup's.
	 */
	ATF_CHECK_EQ(said("Resource limits are not supported and ignored on "
	    "cgroups V1 rootless systems\nError: sandcastle-ocr:bbbbbbbbbbbb: "
	    "image not known\n"), PODMAN_IMAGE);
	ATF_CHECK_EQ(said("time=\"x\" level=warning msg=\"\\\"/\\\" is not a "
	    "shared mount, this could cause issues or missing mounts with "
	    "rootless containers\"\n"), PODMAN_OTHER);
	/* Nothing podman said: no cause, and no image blamed. */
	ATF_CHECK_EQ(said(""), PODMAN_OTHER);
	ATF_CHECK_EQ(said("Error: something else entirely\n"), PODMAN_OTHER);
	ATF_CHECK_EQ(podman_said("Error: image not known", 10), PODMAN_OTHER);
}

/*
 * The stand-in: rm finds no box, as when conmon's cleanup removes it at
 * the same moment; container exists says it is there while the count
 * in "left" is above 0 (taking one each time), or fails once with 125
 * when "fail" is there.  Each call is a line of "calls".
 */
static const char fake[] = "#!/bin/sh\n"
    "d=${0%/podman}\n"
    "echo \"$*\" >> \"$d/calls\"\n"
    "case $1 in\n"
    "rm) echo 'Error: no container with name or ID found' >&2; exit 1 ;;\n"
    "container)\n"
    "\tif [ -f \"$d/fail\" ]; then /bin/rm \"$d/fail\"; exit 125; fi\n"
    "\tread n < \"$d/left\"\n"
    "\t[ \"$n\" -eq 0 ] && exit 1\n"
    "\techo $((n - 1)) > \"$d/left\"; exit 0 ;;\n"
    "esac\n"
    "exit 2\n";

static char	 fakedir[PATH_MAX];

static void
fake_podman(void)
{
	char	 path[PATH_MAX + 16], why[256];
	FILE	*f;

	ATF_REQUIRE(getcwd(fakedir, sizeof(fakedir)) != NULL);
	(void)snprintf(path, sizeof(path), "%s/podman", fakedir);
	ATF_REQUIRE((f = fopen(path, "w")) != NULL);
	ATF_REQUIRE(fputs(fake, f) != EOF && fclose(f) == 0);
	ATF_REQUIRE(chmod(path, 0755) == 0);
	ATF_REQUIRE(setenv("PATH", fakedir, 1) == 0);
	ATF_REQUIRE(setenv("HOME", fakedir, 1) == 0);
	ATF_REQUIRE(setenv("XDG_RUNTIME_DIR", fakedir, 1) == 0);
	ATF_REQUIRE_MSG(podman_init(why, sizeof(why)) == 0, "%s", why);
	ATF_REQUIRE_STREQ(podman_path(), path);
}

/* podman_rm with the box there for `left` asks; how many rm it ran. */
static int
rm_with(int left, int fail, int *rms)
{
	char	 line[256];
	FILE	*f;
	int	 rv;

	ATF_REQUIRE((f = fopen("left", "w")) != NULL);
	ATF_REQUIRE(fprintf(f, "%d\n", left) > 0 && fclose(f) == 0);
	if (fail)
		ATF_REQUIRE((f = fopen("fail", "w")) != NULL && fclose(f) == 0);
	(void)unlink("calls");
	rv = podman_rm("sandcastle-core-0123456789abcdef");
	*rms = 0;
	ATF_REQUIRE((f = fopen("calls", "r")) != NULL);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strcmp(line, "rm -f --time 0 "
		    "sandcastle-core-0123456789abcdef\n") == 0)
			(*rms)++;
	(void)fclose(f);
	return rv;
}

ATF_TC_WITHOUT_HEAD(rm_race);
ATF_TC_BODY(rm_race, tc)
{
	int	 rms;

	fake_podman();
	/* Gone at the first ask: one rm. */
	ATF_CHECK_EQ(rm_with(0, 0, &rms), 0);
	ATF_CHECK_EQ(rms, 1);
	/* Still in storage after rm, twice, then gone: asked again. */
	ATF_CHECK_EQ(rm_with(2, 0, &rms), 0);
	ATF_CHECK_EQ(rms, 3);
	/* container exists failing once (125) is asked again too. */
	ATF_CHECK_EQ(rm_with(0, 1, &rms), 0);
	ATF_CHECK_EQ(rms, 2);
	/* The control: a box that stays is not gone after five tries. */
	ATF_CHECK_EQ(rm_with(99, 0, &rms), -1);
	ATF_CHECK_EQ(rms, 5);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controllers);
	ATF_TP_ADD_TC(tp, causes);
	ATF_TP_ADD_TC(tp, rm_race);
	return 0;
}
