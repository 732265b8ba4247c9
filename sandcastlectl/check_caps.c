/*
 * check: the toolbox and the images (which limits hold here, each box
 * limit above its default, each enabled capability's image of this
 * build), then the capabilities, each asked to prove itself in a box of
 * role check (job.h): claude looks its model up through the keep, ocr
 * lists the languages of its image.  Without a keep that answers,
 * claude's proof is not tried: it needs the keep.
 */
#include <sys/wait.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "config.h"
#include "json.h"
#include "keepcli.h"
#include "paths.h"
#include "../sandcastled/box.h"
#include "../sandcastled/job.h"
#include "check.h"
#include "sandcastlectl.h"

#define MiB		(1024ULL * 1024)
#define BOX_MIN_MEMORY	(128 * MiB)	/* runc's own start, under the data rlimit */

static int	 toolbox_ready;			/* job_init() succeeded */
static int	 image_ready[CAP_COUNT];

static void
fmt_size(uint64_t v, char *buf, size_t bufsz)
{
	if (v != 0 && v % (1024 * MiB) == 0)
		(void)snprintf(buf, bufsz, "%lluGiB",
		    (unsigned long long)(v / (1024 * MiB)));
	else if (v != 0 && v % MiB == 0)
		(void)snprintf(buf, bufsz, "%lluMiB",
		    (unsigned long long)(v / MiB));
	else
		(void)snprintf(buf, bufsz, "%llu", (unsigned long long)v);
}

static void
fmt_cpus(uint32_t m, char *buf, size_t bufsz)
{
	if (m % 1000 == 0)
		(void)snprintf(buf, bufsz, "%u", m / 1000);
	else
		(void)snprintf(buf, bufsz, "%u.%03u", m / 1000, m % 1000);
	while (strchr(buf, '.') != NULL && buf[strlen(buf) - 1] == '0')
		buf[strlen(buf) - 1] = '\0';
}

static void
limit_warn(struct check *c, enum cap_id cap, const char *key,
    const char *v, const char *dflt)
{
	check_line(c, MARK_WARN, "capability %s: box.%s %s is above its "
	    "default %s: what the box then spends is outside the promise",
	    cap_name(cap), key, v, dflt);
}

/* Each box limit above its default, and a memory no box can start in. */
static void
check_limits(struct check *c, enum cap_id cap)
{
	const struct box_limits	*l = &c->conf->caps[cap].box;
	const struct box_limits	*d = cap_default_box(cap);
	char			 v[32], dv[32];

	fmt_size(l->memory, v, sizeof(v));
	fmt_size(d->memory, dv, sizeof(dv));
	if (l->memory > d->memory)
		limit_warn(c, cap, "memory", v, dv);
	if (l->memory < BOX_MIN_MEMORY)
		check_line(c, MARK_WARN, "capability %s: box.memory %s is below "
		    "128MiB: a box cannot start below about 128MiB here (runc's "
		    "own start needs it under the data rlimit)", cap_name(cap),
		    v);
	fmt_cpus(l->millicpus, v, sizeof(v));
	fmt_cpus(d->millicpus, dv, sizeof(dv));
	if (l->millicpus > d->millicpus)
		limit_warn(c, cap, "cpus", v, dv);
	(void)snprintf(v, sizeof(v), "%u", l->pids);
	(void)snprintf(dv, sizeof(dv), "%u", d->pids);
	if (l->pids > d->pids)
		limit_warn(c, cap, "pids", v, dv);
	fmt_size(l->tmp, v, sizeof(v));
	fmt_size(d->tmp, dv, sizeof(dv));
	if (l->tmp > d->tmp)
		limit_warn(c, cap, "tmp", v, dv);
}

static void
check_image(struct check *c, enum cap_id cap)
{
	char	 image[64], out[512];
	char	*argv[] = { (char *)box_podman(), "image", "exists", image, NULL };
	int	 status;

	(void)snprintf(image, sizeof(image), "sandcastle-%s:%s", cap_name(cap),
	    job_build());
	if (podman_run_cmd(argv, box_environment(), out, sizeof(out),
	    &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		image_ready[cap] = 1;
		return;
	}
	check_line(c, MARK_FAIL, "capability %s: the image %s of this build "
	    "is missing; run sandcastlectl install --images", cap_name(cap),
	    image);
}

/* podman and this build, once: 0, or -1 with a FAIL line. */
static int
toolbox_init(struct check *c)
{
	char	 dir[PATH_MAX], id[BUILD_ID_LEN + 1], why[256];

	if (self_bindir(dir, sizeof(dir)) == -1) {
		check_line(c, MARK_FAIL, "toolbox: cannot find the folder of "
		    "this binary");
		return -1;
	}
	if (build_id(dir, id, why, sizeof(why)) == -1 ||
	    job_init(id, why, sizeof(why)) == -1) {
		check_line(c, MARK_FAIL, "toolbox: %s", why);
		return -1;
	}
	toolbox_ready = 1;
	return 0;
}

/* Each box limit and what holds it here; one held by nothing warns. */
static void
check_holds(struct check *c)
{
	const struct box_hold	*h;
	size_t			 i, n;

	h = box_holds(box_cgroup_layer(), &n);
	for (i = 0; i < n; i++)
		check_line(c, h[i].none ? MARK_WARN : MARK_OK, "toolbox: %s "
		    "held by %s", h[i].limit, h[i].held);
}

int
check_toolbox(struct check *c)
{
	int	 cap, any = 0;

	for (cap = 0; cap < CAP_COUNT; cap++)
		any |= c->conf->caps[cap].enabled;
	if (!any || toolbox_init(c) == -1)
		return 0;
	check_holds(c);
	for (cap = 0; cap < CAP_COUNT; cap++)
		if (c->conf->caps[cap].enabled) {
			check_limits(c, cap);
			check_image(c, cap);
		}
	return 0;
}

/* The keep for claude's one request: a connection of its own. */
static int
check_keep_fn(const char *env, size_t len, struct keepcli_answer *a,
    void *arg, const char **why)
{
	struct keepcli	*k;
	int		 r;

	if ((k = keepcli_open(arg, why)) == NULL)
		return -1;
	r = keepcli_request(k, env, len, 0, a, why);
	keepcli_close(k);
	return r;
}

static void
prove_claude(struct check *c)
{
	const char		*unreach = "the keep or the API could not be "
				    "reached: ";
	struct job_outcome	 o;
	char			 path[PATH_MAX];

	if (!c->keep) {
		check_line(c, MARK_WARN, "capability claude: not proved: it "
		    "needs the keep, which does not answer");
		return;
	}
	if (path_runtime_file(KEEP_SOCK, path, sizeof(path)) == -1)
		return;
	job_run(c->conf, CAP_CLAUDE, JOB_CHECK, NULL, 0, 0, check_keep_fn,
	    path, &o);
	if (o.status == JOB_SUCCEEDED)
		check_line(c, MARK_OK, "capability claude: usable");
	else if (strncmp(o.error, "the key was rejected", 20) == 0)
		check_line(c, MARK_FAIL, "capability claude: the key was "
		    "rejected; create a new key and set it with sandcastlectl "
		    "secret set %s", c->conf->claude.dest.secret);
	else if (strncmp(o.error, "the model ", 10) == 0)
		check_line(c, MARK_FAIL, "capability claude: the model %s is "
		    "not available to this key", c->conf->claude.model);
	else if (strncmp(o.error, unreach, strlen(unreach)) == 0)
		check_line(c, MARK_FAIL, "capability claude: the keep cannot "
		    "reach the API: %s", o.error + strlen(unreach));
	else
		check_line(c, MARK_FAIL, "capability claude: %s", o.error);
	job_outcome_free(&o);
}

/* The languages of {"languages":[...]}, as words. */
static void
ocr_languages(const char *output, char *buf, size_t bufsz)
{
	struct json	 j;
	const char	*why;
	char		 lang[64];
	size_t		 len, k, n;
	long		 a;

	buf[0] = '\0';
	if (output == NULL || json_parse(&j, output, strlen(output), &why) == -1)
		return;
	if ((a = json_find(&j, 0, "languages")) != -1 &&
	    j.toks[a].type == JSON_ARRAY)
		for (n = 0, k = a + 1; n < j.toks[a].size; n++, k = j.toks[k].next)
			if (json_string_copy(&j, k, lang, sizeof(lang),
			    &len) == 0) {
				if (buf[0] != '\0')
					(void)strlcat(buf, " ", bufsz);
				(void)strlcat(buf, lang, bufsz);
			}
	json_free(&j);
}

/* The box says "the languages configured are A+B, the image has C, D: ...". */
static void
ocr_missing(struct check *c, const char *error)
{
	char	 want[256], have[256];
	size_t	 i;

	if (sscanf(error, "the languages configured are %255[^,], the image "
	    "has %255[^:]:", want, have) != 2) {
		check_line(c, MARK_FAIL, "capability ocr: %s", error);
		return;
	}
	for (i = 0; want[i] != '\0'; i++)
		if (want[i] == '+')
			want[i] = ' ';
	for (i = 0; have[i] != '\0'; i++)
		if (have[i] == ',')
			memmove(have + i, have + i + 1, strlen(have + i));
	check_line(c, MARK_FAIL, "capability ocr: the image has %s, the "
	    "configuration asks for %s; run sandcastlectl install --images",
	    have, want);
}

static void
prove_ocr(struct check *c)
{
	struct job_outcome	 o;
	char			 langs[256];

	job_run(c->conf, CAP_OCR, JOB_CHECK, NULL, 0, 0, NULL, NULL, &o);
	ocr_languages(o.output, langs, sizeof(langs));
	if (o.status == JOB_SUCCEEDED)
		check_line(c, MARK_OK, "capability ocr: usable (languages %s)",
		    langs);
	else
		ocr_missing(c, o.error);
	job_outcome_free(&o);
}

int
check_capabilities(struct check *c)
{
	if (!toolbox_ready)
		return 0;
	if (c->conf->caps[CAP_CLAUDE].enabled && image_ready[CAP_CLAUDE])
		prove_claude(c);
	if (c->conf->caps[CAP_OCR].enabled && image_ready[CAP_OCR])
		prove_ocr(c);
	return 0;
}
