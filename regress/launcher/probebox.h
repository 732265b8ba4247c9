/*
 * For the tests of real boxes (t_box, t_landlock): the box probe
 * (regress/box/probe) in an image of its own, run with the launcher's
 * own argv (podman_run_argv()) and boxrun.c, as the test account,
 * under no_new_privs as the launcher's filter sets it.
 *
 * Included by one test program each; every function is static.
 */
#ifndef REGRESS_PROBEBOX_H
#define REGRESS_PROBEBOX_H

#include <sys/prctl.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sandcastled/boxrun.h"
#include "../../sandcastled/podman.h"
#include "../../sandcastled/profile.h"
#include "../lib/account.h"

#define MiB		(1024ULL * 1024)

/*
 * A probe's image: name:<the first 12 hex digits of the SHA-256 of
 * sources>, built by cc of built with cflags, all paths from the
 * checkout's top.
 */
struct probe {
	const char	*name;
	const char	*sources;
	const char	*built;
	const char	*cflags;
};

static char	 image[64];
static struct box_limits limits = { 256 * MiB, 1000, 32, 1 * MiB };

/* The account, with the operator's proxy set: it must never reach a box. */
static void
run_as_account(void)
{
	become_account();
	setenv("http_proxy", "http://192.0.2.1:3128", 1);
	setenv("HTTPS_PROXY", "http://192.0.2.1:3128", 1);
}

/* The probe's image, built again whenever one of its sources changed. */
static void
probe_image(const struct probe *pr)
{
	char	 exe[PATH_MAX], top[PATH_MAX], cmd[4 * PATH_MAX], sum[80];
	char	 tmp[] = "/tmp/sc-probe-bin.XXXXXX";
	ssize_t	 n;
	FILE	*f;

	REQUIRE((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0,
	    "%s", "readlink /proc/self/exe");
	exe[n] = '\0';
	(void)snprintf(top, sizeof(top), "%s/../..", dirname(exe));
	(void)snprintf(cmd, sizeof(cmd), "cd %s && cat %s | sha256sum", top,
	    pr->sources);
	REQUIRE((f = popen(cmd, "r")) != NULL && fgets(sum, sizeof(sum), f) !=
	    NULL && strlen(sum) > 64, "%s", cmd);
	pclose(f);
	sum[64] = '\0';
	(void)snprintf(image, sizeof(image), "%s:%.12s", pr->name, sum);
	(void)snprintf(cmd, sizeof(cmd), "test \"$(podman image inspect "
	    "--format '{{index .Labels \"sandcastle.probe\"}}' %s "
	    "2>/dev/null)\" = %s", image, sum);
	if (sh(cmd) == 0)
		return;
	REQUIRE(mkdtemp(tmp) != NULL, "%s", "mkdtemp");
	(void)snprintf(cmd, sizeof(cmd), "cd %s && cc -std=c11 -D_GNU_SOURCE "
	    "-O2 -static %s -o %s/probe %s && sh regress/box/probe/build.sh "
	    "%s/probe %s %s; r=$?; rm -rf %s; exit $r", top, pr->cflags, tmp,
	    pr->built, tmp, sum, image, tmp);
	REQUIRE(sh(cmd) == 0, "building the probe image %s", image);
}

/* The test account, podman prepared, then no_new_privs as under the filter. */
static void
setup_probe(const struct probe *pr)
{
	char	 why[256];

	run_as_account();
	REQUIRE(box_init("test", why, sizeof(why)) == 0, "%s", why);
	REQUIRE(box_prepare(why, sizeof(why)) == 0, "%s", why);
	probe_image(pr);
	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "%s",
	    "no_new_privs");
}

/* Swaps one flag of the launcher's argv for a control. */
static void
swap_flag(char **argv, const char *from, const char *to)
{
	for (; *argv != NULL; argv++)
		if (strcmp(*argv, from) == 0) {
			free(*argv);
			REQUIRE((*argv = strdup(to)) != NULL, "%s", "strdup");
			return;
		}
	report(1, __FILE__, __LINE__, "the launcher's argv has no %s", from);
}

/*
 * A box of the probe, run as "sandcastle-box word", with the launcher's
 * argv, each pair of swaps[] (from, to) swapped.
 */
static struct box *
start_word(const char *word, const struct box_limits *l, uint32_t timeout,
    uint64_t max_output, const char *const *swaps)
{
	struct box_params	 p;
	struct box		*b;
	char			 name[BOX_NAME_LEN + 1], **argv;

	REQUIRE(box_params_init(&p, image, word, BOX_CHECK, l, timeout,
	    max_output) == 0, "%s", "box_params_init");
	podman_box_name(name, p.role);
	argv = podman_run_argv(&p, name);
	free(argv[0]);
	argv[0] = strdup(podman_path());
	for (; swaps != NULL && swaps[0] != NULL; swaps += 2)
		swap_flag(argv, swaps[0], swaps[1]);
	REQUIRE((b = box_spawn(&p, argv, name)) != NULL, "%s", "box_spawn");
	podman_argv_free(argv);
	return b;
}

/* One request, its one answer line (copied into ans); podman's stderr when none. */
static void
ask(struct box *b, const char *req, char *ans, size_t anssz)
{
	struct box_end	 o;
	const char	*line;
	size_t		 len;

	REQUIRE(box_write_line(b, req, strlen(req)) == 0, "%s", req);
	if (box_read_line(b, &line, &len) == 1) {
		(void)strlcpy(ans, line, anssz);
		return;
	}
	box_finish(b, &o);
	report(1, __FILE__, __LINE__, "%s: no answer (%s, exit %d): %.*s", req,
	    o.why, o.code, (int)o.errlen, o.errhead);
}

static void
finish_ok(struct box *b)
{
	struct box_end	 o;

	box_finish(b, &o);
	REQUIRE(o.exited && o.code == 0, "exit %d signal %d: %s",
	    o.code, o.signal, o.why);
}

/* Requests to one box of word, swaps swapped; each answer must hold want. */
static void
expect_word(const char *word, const char *const *swaps,
    const char *const *reqs, const char *const *want)
{
	struct box	*b;
	char		 ans[4096];

	b = start_word(word, &limits, 30, 65536, swaps);
	for (; *reqs != NULL; reqs++, want++) {
		ask(b, *reqs, ans, sizeof(ans));
		CHECK(strstr(ans, *want) != NULL, "%s (%s): got \"%s\", "
		    "want \"%s\"", *reqs, word, ans, *want);
	}
	finish_ok(b);
}

#endif
