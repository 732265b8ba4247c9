/*
 * sandcastlectl show sources [-j]: each source as the core last
 * scheduled it, from the copy sandcastled's parent keeps (ctl.h, struct
 * ctl_source): when it is asked next, its back-off, its jobs of the
 * last hour against max_jobs_per_hour, its resting capabilities and the
 * error of its last call.  The parent checked every text; they are
 * still cut at their NUL and made printable ASCII here, before the
 * output (output.h) sees them.
 */
#include <stdlib.h>
#include <time.h>

#include "ctl.h"
#include "output.h"
#include "sandcastlectl.h"
#include "show.h"

int
ctl_show_sources(const struct parse_result *res, const struct ctl_env *env)
{
	const struct output	*out = output_of(res);
	struct ctl_source	*v;
	size_t			 i, n;
	time_t			 now;

	v = show_ask(CTL_SHOW_SOURCES, CTL_SOURCE, sizeof(*v), &n);
	now = time(NULL);
	out->head(SHOW_SOURCES);
	for (i = 0; i < n; i++) {
		show_text(v[i].name, sizeof(v[i].name));
		show_text(v[i].error, sizeof(v[i].error));
		out->source(&v[i], now);
	}
	out->tail(SHOW_SOURCES);
	free(v);
	return 0;
}
