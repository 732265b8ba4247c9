/*
 * What the show commands print, apart from how they get it (bgpctl's
 * output.c): the plain table (output.c) or JSON (output_json.c, -j).
 */
#ifndef SANDCASTLECTL_OUTPUT_H
#define SANDCASTLECTL_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ctlcmd.h"


struct ctl_jobs;
struct ctl_proc;
struct ctl_source;
struct records_meta;

#define JOB_FILES	3		/* input.json, output.json, meta.json */

struct job_file {
	const char	*name;
	char		 path[PATH_MAX];
};

struct job_shown {
	const char	*meta;		/* safe for a terminal; NULL: unreadable */
	size_t		 metalen;
	struct job_file	 files[JOB_FILES];	/* those of them that exist */
	size_t		 nfiles;
};

struct output {
	void	(*head)(enum action);		/* before a list */
	/* show status: the processes, then the jobs running. */
	void	(*status)(const struct ctl_proc *, size_t,
		    const struct ctl_jobs *, size_t);
	void	(*source)(const struct ctl_source *, time_t now);
	void	(*job)(const struct records_meta *);	/* show jobs */
	void	(*tail)(enum action);		/* after a list */
	void	(*record)(const struct job_shown *);	/* show job */
};

extern const struct output plain_output;
extern const struct output json_output;

const struct output *output_of(const struct parse_result *);

#endif
