/*
 * The box's Landlock ruleset inside a real box: the probe of t_box,
 * built with the box's own box_landlock() (regress/box/probe/llprobe.c),
 * run with the launcher's own argv (podman_run_argv()) and boxrun.c, as
 * the test account, under no_new_privs as the launcher's filter sets
 * it.  As "landlock" it puts the ruleset on before its first request,
 * as sandcastle-box does before the job's first byte, and exits 3 when
 * the ruleset could not go on (podman's seccomp profile, say); as
 * "probe" it is the control, the same box without the ruleset.
 */
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "landlock.h"
#include "../../sandcastled/boxrun.h"
#include "../../sandcastled/podman.h"
#include "../lib/account.h"

#define IMAGE	"sandcastle-llprobe:test"
#define MiB	(1024ULL * 1024)

static struct box_limits limits = { 256 * MiB, 1000, 32, 1 * MiB };

/* This program's folder, regress/launcher of the checkout. */
static void
here(char *dir, size_t dirsz)
{
	char	 exe[PATH_MAX];
	ssize_t	 n;

	REQUIRE((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0,
	    "%s", "readlink /proc/self/exe");
	exe[n] = '\0';
	(void)strlcpy(dir, dirname(exe), dirsz);
}

/* The probe's image, built again whenever one of its sources changed. */
static void
probe_image(void)
{
	char	 dir[PATH_MAX], srcs[8 * PATH_MAX], sum[9 * PATH_MAX];
	char	 cmd[24 * PATH_MAX], tmp[] = "/tmp/sc-llprobe.XXXXXX";

	here(dir, sizeof(dir));
	(void)snprintf(srcs, sizeof(srcs), "%s/../box/probe/llprobe.c "
	    "%s/../box/probe/probe.c %s/../../common/landlock.c "
	    "%s/../../common/landlock.h %s/../../box/landlock.c", dir, dir,
	    dir, dir, dir);
	(void)snprintf(sum, sizeof(sum), "cat %s | sha256sum | cut -c1-64",
	    srcs);
	(void)snprintf(cmd, sizeof(cmd), "test \"$(podman image inspect "
	    "--format '{{index .Labels \"sandcastle.probe\"}}' " IMAGE
	    " 2>/dev/null)\" = \"$(%s)\"", sum);
	if (sh(cmd) == 0)
		return;
	REQUIRE(mkdtemp(tmp) != NULL, "%s", "mkdtemp");
	(void)snprintf(cmd, sizeof(cmd), "cc -std=c11 -D_GNU_SOURCE -O2 "
	    "-static -I%s/../../common -I%s/../../box -o %s/probe "
	    "%s/../box/probe/llprobe.c %s/../../common/landlock.c "
	    "%s/../../box/landlock.c && sh %s/../box/probe/build.sh %s/probe "
	    "\"$(%s)\" " IMAGE "; r=$?; rm -rf %s; exit $r", dir, dir, tmp,
	    dir, dir, dir, dir, tmp, sum, tmp);
	REQUIRE(sh(cmd) == 0, "%s", "building the probe image");
}

/* The test account, podman prepared, then no_new_privs as under the filter. */
static void
setup(void)
{
	char	 why[256];

	become_account();
	REQUIRE(box_init("test", why, sizeof(why)) == 0, "%s", why);
	REQUIRE(box_prepare(why, sizeof(why)) == 0, "%s", why);
	probe_image();
	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "%s",
	    "no_new_privs");
}

/* Requests to one box of the launcher's flags; each answer must hold want. */
static void
expect(const char *word, const char *const *reqs, const char *const *want)
{
	struct box_params	 p;
	struct box_end	 o;
	struct box		*b;
	const char		*line;
	char			 name[BOX_NAME_LEN + 1], **argv;
	size_t			 len;

	REQUIRE(box_params_init(&p, IMAGE, word, BOX_CHECK, &limits, 30,
	    65536) == 0, "%s", "box_params_init");
	podman_box_name(name, p.role);
	argv = podman_run_argv(&p, name);
	free(argv[0]);
	argv[0] = strdup(podman_path());
	REQUIRE((b = box_spawn(&p, argv, name)) != NULL, "%s", "box_spawn");
	podman_argv_free(argv);
	for (; *reqs != NULL; reqs++, want++) {
		REQUIRE(box_write_line(b, *reqs, strlen(*reqs)) == 0, "%s",
		    *reqs);
		if (box_read_line(b, &line, &len) != 1)
			break;
		CHECK(strstr(line, *want) != NULL, "%s (%s): got \"%.*s\", "
		    "want \"%s\"", *reqs, word, (int)len, line, *want);
	}
	box_finish(b, &o);
	REQUIRE(*reqs == NULL, "%s (%s): no answer (exit %d): %.*s", *reqs,
	    word, o.code, (int)o.errlen, o.errhead);
	CHECK(o.exited && o.code == 0, "%s: exit %d signal %d: %s", word,
	    o.code, o.signal, o.why);
}

/* B10: a box opens no file of its own image once the ruleset is on. */
ATF_TC(box_no_file);
ATF_TC_HEAD(box_no_file, tc)
{
	atf_tc_set_md_var(tc, "descr", "Inside a box, the box's ruleset "
	    "refuses /etc/passwd and /tmp with EACCES; the same box without "
	    "it reads and writes them");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "180");
}
static void
body_no_file(void)
{
	const char *reqs[] = { "read /etc/passwd", "read /sandcastle/build",
	    "write /tmp/x", NULL };
	const char *locked[] = { "read err EACCES", "read err EACCES",
	    "write err EACCES", NULL };
	const char *open[] = { "read ok", "read ok", "write ok", NULL };

	setup();
	expect("landlock", reqs, locked);
	expect("probe", reqs, open);
}
ATF_TC_BODY(box_no_file, tc)
{
	as_account(body_no_file, NULL);
}

/*
 * B10 B2: no TCP from ABI 4, refused before any route: EACCES, where the
 * box's own loopback answers ECONNREFUSED; before ABI 4, the control.
 */
ATF_TC(box_no_tcp);
ATF_TC_HEAD(box_no_tcp, tc)
{
	atf_tc_set_md_var(tc, "descr", "Inside a box, the box's ruleset "
	    "refuses a TCP connect with EACCES; without it the box's own "
	    "loopback answers ECONNREFUSED");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "180");
}
static void
body_no_tcp(void)
{
	const char *reqs[] = { "tcp 127.0.0.1 9", NULL };
	const char *locked[] = { "tcp err EACCES", NULL };
	const char *open[] = { "tcp err ECONNREFUSED", NULL };
	const char *why;

	setup();
	expect("landlock", reqs, landlock_abi(&why) >= 4 ? locked : open);
	expect("probe", reqs, open);
}
ATF_TC_BODY(box_no_tcp, tc)
{
	as_account(body_no_tcp, NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, box_no_file);
	ATF_TP_ADD_TC(tp, box_no_tcp);
	return atf_no_error();
}
