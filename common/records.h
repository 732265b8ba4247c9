/*
 * The job records (sandcastled(8), RECORDS): openat only, for the core's
 * filter; written to a temporary, synced and renamed; no link followed.
 */
#ifndef SANDCASTLE_RECORDS_H
#define SANDCASTLE_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "contract.h"
#include "outcome.h"

#define RECORDS_META_MAX	(256U * 1024)	/* bytes of a meta.json read back */
#define RECORDS_STDERR_MAX	JOB_STDERR_MAX
#define RECORDS_WHY_MAX		512
#define RECORDS_NOTE_GONE	"the source no longer held the job"

enum records_status {
	RECORDS_RUNNING,	/* claimed and noted, not finished */
	RECORDS_SUCCEEDED,
	RECORDS_FAILED,
	RECORDS_RELEASED
};

enum records_result {
	RECORDS_PENDING,
	RECORDS_SENT,
	RECORDS_GONE		/* 409: kept here, never sent again */
};

struct records_job {
	const char	*source;
	const char	*id;
	int		 numeric;
	int		 cap;		/* enum cap_id, or -1: none offered */
	const char	*input;		/* the raw input, never parsed */
	size_t		 inputlen;
	time_t		 started_at;	/* wall clock */
};

struct records_meta {
	char		 source[NAME_LEN + 1];
	char		 job[CONTRACT_ID_MAX + 1];
	int		 numeric;
	int		 cap;
	enum records_status status;
	char		 error[JOB_ERROR_MAX];
	char		 stderr_head[RECORDS_STDERR_MAX + 1];
	size_t		 stderr_len;
	time_t		 started_at;
	time_t		 finished_at;	/* 0 while running */
	struct job_usage usage;
	enum records_result result;
	char		 note[64];
};

struct records_ref {
	char		 source[NAME_LEN + 1];
	char		 job[CONTRACT_ID_MAX + 1];
	int		 numeric;
	enum records_status status;	/* RECORDS_RUNNING: send it back released */
	enum records_result result;	/* RECORDS_PENDING: its result was never sent */
};

/* Each 0, or -1 with why; begin notes a job before it runs, for a crash. */
int	 records_begin(int dfd, const struct records_job *, char *why,
	    size_t whysz);
int	 records_finish(int dfd, const struct records_job *,
	    const struct job_outcome *, time_t finished_at, char *why,
	    size_t whysz);
/* 1, why saying so, when the record is gone: nothing is left to say it. */
int	 records_result(int dfd, const char *source, const char *id,
	    enum records_result, char *why, size_t whysz);

int	 records_read(int dfd, const char *source, const char *id,
	    struct records_meta *, char *why, size_t whysz);
int	 records_meta_parse(const char *buf, size_t len, struct records_meta *,
	    char *why, size_t whysz);

/* *refs to free(); unreadable records skipped and counted. */
int	 records_unfinished(int dfd, struct records_ref **refs, size_t *n,
	    size_t *unreadable, char *why, size_t whysz);
/* What max_jobs_per_hour counted before a restart, oldest first, to free(). */
int	 records_starts(int dfd, const char *source, time_t since, time_t now,
	    time_t **starts, size_t *n, size_t *unreadable, char *why,
	    size_t whysz);
/* By finished_at, else mtime; never a running or pending job's: how many. */
long	 records_prune(int dfd, uint32_t days, time_t now, char *why,
	    size_t whysz);

const char *records_status_name(enum records_status);
const char *records_result_name(enum records_result);
struct json_writer;
/* As members of w's open object: meta.json and show jobs -j alike. */
void	 records_json_names(struct json_writer *, const struct records_meta *);
/* RFC 3339 UTC, "2026-01-02T03:04:05Z"; -1 when it is not. */
int	 records_time(time_t, char *, size_t);
int	 records_time_parse(const char *, time_t *);

#endif
