/*
 * check: the toolbox and the images, then each capability's proof in a
 * box of role check; a box that ran proves its image, else podman says.
 */
#include <sys/wait.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "keepcli.h"
#include "paths.h"
#include "../sandcastled/boxrun.h"
#include "../sandcastled/job.h"
#include "../sandcastled/jobrun.h"
#include "../sandcastled/podman.h"
#include "../sandcastled/readlock.h"
#include "check.h"

#define BOX_MIN_MEMORY	(128 * CHECK_MiB)	/* runc's own start, under the data rlimit */

static int	 toolbox_ready;
static int	 image_ready[CAP_COUNT];
static struct proof {
	int			 ran;		/* else not proved: line says why */
	enum check_mark		 mark;
	char			 line[512];
} proofs[CAP_COUNT];

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

	check_size(l->memory, v, sizeof(v));
	check_size(d->memory, dv, sizeof(dv));
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
	check_size(l->tmp, v, sizeof(v));
	check_size(d->tmp, dv, sizeof(dv));
	if (l->tmp > d->tmp)
		limit_warn(c, cap, "tmp", v, dv);
}

static void prove(struct check *, enum cap_id);

static void
check_image(struct check *c, enum cap_id cap)
{
	char	 image[PODMAN_IMAGE_LEN + 1], why[512];
	int	 r;

	prove(c, cap);
	if (proofs[cap].ran && proofs[cap].mark == MARK_OK) {
		image_ready[cap] = 1;
		return;
	}
	podman_image_name(cap, job_build(), image, sizeof(image));
	if ((r = podman_image_exists(image, why, sizeof(why))) == 1) {
		image_ready[cap] = 1;
		return;
	}
	if (r == -1)
		check_line(c, MARK_FAIL, "capability %s: %s", cap_name(cap),
		    why);
	else
		check_line(c, MARK_FAIL, "capability %s: the image %s of this "
		    "build is missing; run sandcastlectl install",
		    cap_name(cap), image);
}

/* podman and this build, once: 0, or -1 with a FAIL line. */
static int
toolbox_init(struct check *c)
{
	const char	*id;
	char		 why[256];

	if ((id = check_build(c, why, sizeof(why))) == NULL ||
	    job_init(id, why, sizeof(why)) == -1) {
		check_line(c, MARK_FAIL, "toolbox: %s", why);
		return -1;
	}
	toolbox_ready = 1;
	return 0;
}

/* Each box limit and what holds it here; one that holds less than its key says warns. */
static void
check_holds(struct check *c)
{
	const struct box_hold	*h;
	size_t			 i, n;

	h = box_holds(box_cgroup_layer(), &n);
	for (i = 0; i < n; i++)
		check_line(c, h[i].warn ? MARK_WARN : MARK_OK, "toolbox: %s "
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
	check_jobs(c);
	for (cap = 0; cap < CAP_COUNT; cap++)
		if (c->conf->caps[cap].enabled) {
			check_limits(c, cap);
			check_image(c, cap);
		}
	return 0;
}

static int
check_keep_fn(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	struct keepcli	*k;
	int		 r;

	if ((k = keepcli_open(arg, why)) == NULL)
		return -1;
	r = keepcli_request(k, env, len, seconds, a, why);
	keepcli_close(k);
	return r;
}

/* The keep for a box that makes a request; the row reads the outcome. */
static void
prove(struct check *c, enum cap_id cap)
{
	const struct cap_row	*row = cap_table[cap];
	struct proof		*p = &proofs[cap];
	struct job_outcome	 o;
	char			 path[PATH_MAX];

	if (row->request && !c->keep) {
		p->mark = MARK_WARN;
		(void)snprintf(p->line, sizeof(p->line), "not proved: it "
		    "needs the keep, which does not answer");
		return;
	}
	if (row->request &&
	    path_runtime_file(KEEP_SOCK, path, sizeof(path)) == -1)
		return;
	job_run(c->conf, cap, JOB_CHECK, NULL, 0, 0, reader_lock,
	    row->request ? check_keep_fn : NULL, row->request ? path : NULL,
	    &o);
	p->ran = 1;
	p->mark = row->proved(c->conf, &o, p->line, sizeof(p->line)) == 0 ?
	    MARK_OK : MARK_FAIL;
	job_outcome_free(&o);
}

int
check_capabilities(struct check *c)
{
	int	 cap;

	if (!toolbox_ready)
		return 0;
	for (cap = 0; cap < CAP_COUNT; cap++)
		if (c->conf->caps[cap].enabled && image_ready[cap] &&
		    proofs[cap].line[0] != '\0')
			check_line(c, proofs[cap].mark, "capability %s: %s",
			    cap_name(cap), proofs[cap].line);
	return 0;
}
