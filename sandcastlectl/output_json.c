/*
 * The show commands' -j: times RFC 3339 UTC, null for none, texts escaped.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cap.h"
#include "ctl.h"
#include "ctlcmd.h"
#include "json.h"
#include "output.h"
#include "records.h"

static void	json_head(enum action);
static void	json_status(const struct ctl_proc *, size_t,
		    const struct ctl_jobs *, size_t);
static void	json_source(const struct ctl_source *, time_t);
static void	json_job(const struct records_meta *);
static void	json_tail(enum action);
static void	json_record(const struct job_shown *);

const struct output json_output = {
	json_head,
	json_status,
	json_source,
	json_job,
	json_tail,
	json_record
};

static struct json_writer	 w;

static void
json_print(void)
{
	char	*s;
	size_t	 len;

	if ((s = json_writer_finish(&w, &len)) == NULL)
		errx(1, "out of memory");
	printf("%s\n", s);
	free(s);
	json_writer_free(&w);
}

static void
json_head(enum action action)
{
	json_writer_init(&w);
	json_write_array(&w);
}

static void
json_tail(enum action action)
{
	json_write_close(&w);
	json_print();
}

/* RFC 3339 UTC; null for 0 or a time it cannot say. */
static void
json_time(int64_t t)
{
	char	 buf[32];

	if (t != 0 && records_time((time_t)t, buf, sizeof(buf)) == 0)
		json_write_string(&w, buf);
	else
		json_write_null(&w);
}

static void
json_proc(const struct ctl_proc *p)
{
	json_write_object(&w);
	json_write_key(&w, "process");
	json_write_string(&w, p->title);
	json_write_key(&w, "pid");
	json_write_int(&w, p->pid);
	json_write_key(&w, "state");
	json_write_string(&w, ctl_state_name(p->state));
	json_write_key(&w, "since");
	json_time(p->started);
	json_write_close(&w);
}

static void
json_running(const struct ctl_jobs *j)
{
	json_write_key(&w, "running");
	json_write_uint(&w, j->running);
	json_write_key(&w, "jobs");
	json_write_uint(&w, j->jobs);
}

/* key: an array of the rows of kind, each { name: ..., running, jobs }. */
static void
json_rows(const char *key, const char *name, int32_t kind,
    const struct ctl_jobs *j, size_t nj)
{
	size_t	 i;

	json_write_key(&w, key);
	json_write_array(&w);
	for (i = 0; i < nj; i++) {
		if (j[i].kind != kind)
			continue;
		json_write_object(&w);
		json_write_key(&w, name);
		json_write_string(&w, j[i].name);
		json_running(&j[i]);
		json_write_close(&w);
	}
	json_write_close(&w);
}

/* { "processes": [...], "running", "jobs", "capabilities", "sources", "as_of" } */
static void
json_status(const struct ctl_proc *p, size_t np, const struct ctl_jobs *j,
    size_t nj)
{
	struct ctl_jobs	 all = { 0, CTL_JOBS_ALL, 0, 0, "" };
	size_t		 i;

	for (i = 0; i < nj; i++)
		if (j[i].kind == CTL_JOBS_ALL)
			all = j[i];
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "processes");
	json_write_array(&w);
	for (i = 0; i < np; i++)
		json_proc(&p[i]);
	json_write_close(&w);
	json_running(&all);
	json_rows("capabilities", "capability", CTL_JOBS_CAP, j, nj);
	json_rows("sources", "source", CTL_JOBS_SOURCE, j, nj);
	json_write_key(&w, "as_of");
	json_time(all.at);
	json_write_close(&w);
	json_print();
}

static void
json_resting(const struct ctl_source *v, time_t now)
{
	int	 c;

	json_write_array(&w);
	for (c = 0; c < CAP_COUNT; c++) {
		if ((v->caps & CAP_BIT(c)) == 0 || v->rest[c] <= now)
			continue;
		json_write_object(&w);
		json_write_key(&w, "capability");
		json_write_string(&w, cap_name(c));
		json_write_key(&w, "until");
		json_time(v->rest[c]);
		json_write_close(&w);
	}
	json_write_close(&w);
}

static void
json_source(const struct ctl_source *v, time_t now)
{
	json_write_object(&w);
	json_write_key(&w, "source");
	json_write_string(&w, v->name);
	json_write_key(&w, "next_poll");
	if (v->next <= now)
		json_write_string(&w, "now");
	else
		json_time(v->next);
	json_write_key(&w, "backoff_seconds");
	json_write_uint(&w, v->backoff);
	json_write_key(&w, "failures");
	json_write_uint(&w, v->failures);
	json_write_key(&w, "jobs_last_hour");
	json_write_uint(&w, v->jobs_hour);
	json_write_key(&w, "max_jobs_per_hour");
	json_write_uint(&w, v->max_jobs);
	json_write_key(&w, "running");
	json_write_uint(&w, v->running);
	json_write_key(&w, "jobs");
	json_write_uint(&w, v->jobs);
	json_write_key(&w, "resting");
	json_resting(v, now);
	json_write_key(&w, "last_error");
	if (v->error[0] != '\0')
		json_write_string(&w, v->error);
	else
		json_write_null(&w);
	json_write_key(&w, "last_error_at");
	json_time(v->error[0] != '\0' ? v->error_at : 0);
	json_write_key(&w, "as_of");
	json_time(v->at);
	json_write_close(&w);
}

static void
json_tokens(int has, uint64_t n)
{
	if (has)
		json_write_uint(&w, n);
	else
		json_write_null(&w);
}

static void
json_job(const struct records_meta *m)
{
	json_write_object(&w);
	json_write_key(&w, "time");
	json_time(m->started_at);
	records_json_names(&w, m);
	json_write_key(&w, "seconds");
	if (m->finished_at != 0)
		json_write_int(&w, (int64_t)(m->finished_at - m->started_at));
	else
		json_write_null(&w);
	json_write_key(&w, "input_tokens");
	json_tokens(m->usage.has, m->usage.input_tokens);
	json_write_key(&w, "output_tokens");
	json_tokens(m->usage.has, m->usage.output_tokens);
	json_write_close(&w);
}

/* { "meta": meta.json's object or null, "files": { name: path } } */
static void
json_record(const struct job_shown *js)
{
	size_t	 i, len = js->metalen;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "meta");
	if (js->meta != NULL) {
		while (len > 0 && (js->meta[len - 1] == '\n' ||
		    js->meta[len - 1] == ' ' || js->meta[len - 1] == '\t' ||
		    js->meta[len - 1] == '\r'))
			len--;
		json_write_raw(&w, js->meta, len);
	} else
		json_write_null(&w);
	json_write_key(&w, "files");
	json_write_object(&w);
	for (i = 0; i < js->nfiles; i++) {
		json_write_key(&w, js->files[i].name);
		json_write_string(&w, js->files[i].path);
	}
	json_write_close(&w);
	json_write_close(&w);
	json_print();
}
