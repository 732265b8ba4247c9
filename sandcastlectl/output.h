/*
 * What the show commands print, apart from how they get it (as bgpctl's
 * output.c and output_json.c): each show computes its data once and
 * hands it to an output, the plain table (output.c) or JSON
 * (output_json.c, with -j).  A list is head, one call per item, tail;
 * show status is one call, status, and show job one, record.
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

/* show job SOURCE ID: its record's files, and meta.json's text. */
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

extern const struct output plain_output;	/* output.c */
extern const struct output json_output;		/* output_json.c */

const struct output *output_of(const struct parse_result *);
/* A process's state as both outputs name it: "running", ... */

#endif
