/*
 * sandcastlectl show sources: the core's summary, its texts made printable.
 */
#include <stdlib.h>
#include <time.h>

#include "ctl.h"
#include "ctlcmd.h"
#include "output.h"
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
