/*
 * podman's words, read without podman: the cgroup controllers a line
 * of cgroup.controllers delegates (whole words: cpuset is not cpu), and
 * the cause podman's stderr gives when it could not run a box, on the
 * words podman 4.3 and 5, runc and crun really print.  t_job runs real
 * podman on the missing image and runtime.
 */
#include <string.h>

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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controllers);
	ATF_TP_ADD_TC(tp, causes);
	return 0;
}
