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
#include <sys/types.h>

#include <string.h>

#include <atf-c.h>

#include "landlock.h"
#include "probebox.h"

/* The probe with the box's own box_landlock(), as "landlock". */
static const struct probe llprobe = { "sandcastle-llprobe",
    "regress/box/probe/llprobe.c regress/box/probe/probe.c "
    "regress/lib/kids.h common/landlock.c common/landlock.h box/landlock.c",
    "regress/box/probe/llprobe.c common/landlock.c box/landlock.c",
    "-Icommon -Ibox" };

static void
expect(const char *word, const char *const *reqs, const char *const *want)
{
	expect_word(word, NULL, reqs, want);
}

/* B10: a box opens no file of its own image once the ruleset is on. */
static void
body_no_file(void)
{
	const char *reqs[] = { "read /etc/passwd", "read /sandcastle/build",
	    "write /tmp/x", NULL };
	const char *locked[] = { "read err EACCES", "read err EACCES",
	    "write err EACCES", NULL };
	const char *open[] = { "read ok", "read ok", "write ok", NULL };

	setup_probe(&llprobe);
	expect("landlock", reqs, locked);
	expect("probe", reqs, open);
}

/*
 * B10 B2: no TCP from ABI 4, refused before any route: EACCES, where the
 * box's own loopback answers ECONNREFUSED; before ABI 4, the control.
 */
static void
body_no_tcp(void)
{
	const char *reqs[] = { "tcp 127.0.0.1 9", NULL };
	const char *locked[] = { "tcp err EACCES", NULL };
	const char *open[] = { "tcp err ECONNREFUSED", NULL };
	const char *why;

	setup_probe(&llprobe);
	expect("landlock", reqs, landlock_abi(&why) >= 4 ? locked : open);
	expect("probe", reqs, open);
}

static const struct account_case cases[] = {
	{ "box_no_file",
	    "Inside a box, the box's ruleset refuses /etc/passwd and /tmp "
	    "with EACCES; the same box without it reads and writes them",
	    "180", body_no_file },
	{ "box_no_tcp",
	    "Inside a box, the box's ruleset refuses a TCP connect with "
	    "EACCES; without it the box's own loopback answers ECONNREFUSED",
	    "180", body_no_tcp },
};

ATF_TP_ADD_TCS(tp)
{
	return account_add(tp, cases, sizeof(cases) / sizeof(cases[0]));
}
