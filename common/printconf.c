/* -nv: the configuration as read, every default written out. */
#include <sys/queue.h>

#include <stdio.h>

#include "cap.h"
#include "config.h"
#include "confparse.h"

static void
print_source(FILE *fp, const struct source *src)
{
	const char	*sep = "";
	int		 c;

	fprintf(fp, "  %s:\n", src->name);
	print_destination(fp, &src->dest, 4);
	print_duration(fp, "poll_interval", src->poll_interval, 4);
	fprintf(fp, "    capabilities: [");
	for (c = 0; c < CAP_COUNT; c++) {
		if (src->capabilities & CAP_BIT(c)) {
			fprintf(fp, "%s%s", sep, cap_name(c));
			sep = ", ";
		}
	}
	fprintf(fp, "]\n    max_jobs_per_hour: %u\n", src->max_jobs_per_hour);
	print_duration(fp, "job_timeout", src->job_timeout, 4);
	fprintf(fp, "    jobs: %u\n", src->jobs);
}

void
config_print(FILE *fp, const struct config *cfg)
{
	const struct source *src;
	int		 c;

	fprintf(fp, "# %s, every default written out\n", cfg->dir);
	print_str(fp, "data_dir", cfg->data_dir ? cfg->data_dir : "", 0);
	fprintf(fp, "retention_days: %u\njobs: %u\ncapabilities:\n",
	    cfg->retention_days, cfg->jobs);
	for (c = 0; c < CAP_COUNT; c++) {
		if (!cfg->caps[c].enabled)
			continue;
		fprintf(fp, "  %s:\n", cap_table[c]->name);
		cap_table[c]->print(fp, cfg);
		print_cap(fp, &cfg->caps[c]);
	}
	fprintf(fp, "sources:\n");
	TAILQ_FOREACH(src, &cfg->sources, entry)
		print_source(fp, src);
}
