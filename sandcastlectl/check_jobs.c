/*
 * check: what holds the jobs at once, and a capability whose boxes at
 * once would ask more memory or processors than this machine has.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "check.h"

#define JOBS_LINE_MAX	8192	/* 64 sources and the capabilities, named */

/* MemTotal in bytes; 0 when /proc/meminfo does not say. */
static uint64_t
machine_memory(void)
{
	FILE			*fp;
	char			 line[256];
	unsigned long long	 kib;
	uint64_t		 total = 0;

	if ((fp = fopen("/proc/meminfo", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
			total = (uint64_t)kib * 1024;
			break;
		}
	(void)fclose(fp);
	return total;
}

/* Online, and of those the ones this process may run on; 0: unknown. */
static long
machine_processors(void)
{
	cpu_set_t	 set;
	long		 online = sysconf(_SC_NPROCESSORS_ONLN);
	int		 mine;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    (mine = CPU_COUNT(&set)) > 0 && (online <= 0 || mine < online))
		return mine;
	return online > 0 ? online : 0;
}

static void
held_add(char *buf, const char *what, const char *name, uint32_t jobs)
{
	char	 one[128];

	(void)snprintf(one, sizeof(one), "%s%s %s %u", buf[0] != '\0' ?
	    ", " : "", what, name, jobs);
	(void)strlcat(buf, one, JOBS_LINE_MAX);
}

/* One line: config.yaml's jobs, then each source and capability below it. */
static void
jobs_held(struct check *c)
{
	const struct config	*conf = c->conf;
	const struct source	*src;
	char			 own[JOBS_LINE_MAX] = "";
	int			 cap;

	TAILQ_FOREACH(src, &conf->sources, entry)
		if (config_jobs_of(conf, src->jobs) < conf->jobs)
			held_add(own, "source", src->name,
			    config_jobs_of(conf, src->jobs));
	for (cap = 0; cap < CAP_COUNT; cap++)
		if (conf->caps[cap].enabled &&
		    config_jobs_of(conf, conf->caps[cap].jobs) < conf->jobs)
			held_add(own, "capability", cap_name(cap),
			    config_jobs_of(conf, conf->caps[cap].jobs));
	if (own[0] == '\0')
		check_line(c, MARK_OK, "toolbox: jobs at once held by "
		    "config.yaml's jobs: %u in all, and for every source and "
		    "capability", conf->jobs);
	else
		check_line(c, MARK_OK, "toolbox: jobs at once held by "
		    "config.yaml's jobs: %u in all; by their own jobs: %s",
		    conf->jobs, own);
}

static void
jobs_memory(struct check *c, enum cap_id cap, uint32_t n, uint64_t total)
{
	uint64_t	 memory = c->conf->caps[cap].box.memory;
	char		 one[32], all[32];

	if (total == 0 || (uint64_t)n * memory <= total)
		return;
	check_size(memory, one, sizeof(one));
	check_size((uint64_t)n * memory, all, sizeof(all));
	check_line(c, MARK_WARN, "capability %s: jobs %u times box.memory %s "
	    "is %s, more than this machine's memory (%lluMiB): its boxes at "
	    "once could run it out of memory; lower its jobs or its "
	    "box.memory", cap_name(cap), n, one, all,
	    (unsigned long long)(total / CHECK_MiB));
}

void
check_jobs(struct check *c)
{
	uint64_t	 total = machine_memory();
	long		 procs = machine_processors();
	uint32_t	 n;
	int		 cap;

	jobs_held(c);
	for (cap = 0; cap < CAP_COUNT; cap++) {
		if (!c->conf->caps[cap].enabled)
			continue;
		n = config_jobs_of(c->conf, c->conf->caps[cap].jobs);
		jobs_memory(c, cap, n, total);
		if (cap_table[cap]->cpu_bound && procs > 0 && n > procs)
			check_line(c, MARK_WARN, "capability %s: jobs %u is "
			    "more than this machine's %ld processor(s): its "
			    "boxes at once share them, so more run no faster "
			    "in all and each takes longer toward its timeout; "
			    "lower its jobs to %ld",
			    cap_name(cap), n, procs, procs);
	}
}
