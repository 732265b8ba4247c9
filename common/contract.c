/*
 * The source contract.  Everything a source sends is hostile: a text of
 * it in a reason is cut short and made printable (\xNN), since reasons
 * go to the journal and to check's lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "contract.h"
#include "httpjson.h"
#include "json.h"
#include "keep.h"
#include "log.h"

#define CAPNAME_MAX	32	/* bytes of a capability's name a reason quotes */

static void	 quote(const char *, size_t, size_t, char *, size_t);
static void	 envelope_head(struct json_writer *, const char *,
		    const char *, const char *);
static char	*envelope_end(struct json_writer *, size_t *);
static int	 job_id(const struct json *, size_t, struct contract_job *,
		    char *, size_t);
static void	 job_cap(const struct json *, long, unsigned int,
		    struct contract_job *);
static int	 job_parse(const struct json *, size_t, size_t, unsigned int,
		    struct contract_job *, char *, size_t);
static int	 claim_jobs(const struct json *, size_t, unsigned int,
		    struct contract_claim *, char *, size_t);
static int	 top_object(struct json *, const char *, size_t, char *,
		    size_t);

/* At most max bytes of s, printable ASCII as is, the rest as \xNN. */
static void
quote(const char *s, size_t len, size_t max, char *out, size_t outsz)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i, n = 0;

	for (i = 0; i < len && i < max && n + 5 < outsz; i++) {
		if (u[i] >= 0x20 && u[i] < 0x7f)
			out[n++] = u[i];
		else
			n += snprintf(out + n, outsz - n, "\\x%02x", u[i]);
	}
	if (i < len && n + 4 < outsz) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

int
contract_id_valid(const char *id)
{
	size_t	 i, len = strlen(id);

	if (len == 0 || len > CONTRACT_ID_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		/* The keep's path rules: no . / \ ? # : %, no space, ASCII only. */
		if (id[i] <= 0x20 || id[i] >= 0x7f ||
		    strchr("/\\.?#:%", id[i]) != NULL)
			return 0;
	}
	return 1;
}

const char *
contract_status_name(enum contract_status s)
{
	switch (s) {
	case CONTRACT_SUCCEEDED:
		return "succeeded";
	case CONTRACT_FAILED_JOB:
		return "failed";
	case CONTRACT_RELEASED:
		return "released";
	}
	return "unknown";
}

static void
envelope_head(struct json_writer *w, const char *source, const char *method,
    const char *path)
{
	json_writer_init(w);
	http_json_head(w, "destination", source, method, path, "accept",
	    "application/json");
}

static char *
envelope_end(struct json_writer *w, size_t *len)
{
	char	*s;

	json_write_close(w);
	if ((s = json_writer_finish(w, len)) == NULL)
		errno = ENOMEM;
	json_writer_free(w);
	return s;
}

char *
contract_ping_envelope(const char *source, size_t *len)
{
	struct json_writer	 w;

	envelope_head(&w, source, "GET", "/ping");
	return envelope_end(&w, len);
}

char *
contract_claim_envelope(const char *source, unsigned int caps,
    unsigned int limit, size_t *len)
{
	struct json_writer	 w;
	int			 c;

	envelope_head(&w, source, "POST", "/jobs/claim");
	json_write_key(&w, "body");
	json_write_object(&w);
	json_write_key(&w, "capabilities");
	json_write_array(&w);
	for (c = 0; c < CAP_COUNT; c++)
		if (caps & CAP_BIT(c))
			json_write_string(&w, cap_name(c));
	json_write_close(&w);
	json_write_key(&w, "limit");
	json_write_uint(&w, limit);
	json_write_close(&w);
	return envelope_end(&w, len);
}

char *
contract_result_envelope(const char *source, const char *id,
    enum contract_status st, const char *output, size_t outputlen,
    const char *error, size_t *len)
{
	struct json_writer	 w;
	struct json		 j;
	const char		*why;
	char			 path[sizeof("/jobs//result") + CONTRACT_ID_MAX];

	if (!contract_id_valid(id) || (st == CONTRACT_SUCCEEDED &&
	    (output == NULL || json_parse(&j, output, outputlen, &why) == -1))) {
		errno = EINVAL;
		return NULL;
	}
	if (st == CONTRACT_SUCCEEDED)
		json_free(&j);
	(void)snprintf(path, sizeof(path), "/jobs/%s/result", id);
	envelope_head(&w, source, "POST", path);
	json_write_key(&w, "body");
	json_write_object(&w);
	json_write_key(&w, "status");
	json_write_string(&w, contract_status_name(st));
	if (st == CONTRACT_SUCCEEDED) {
		json_write_key(&w, "output");
		json_write_raw(&w, output, outputlen);
	} else if (st == CONTRACT_FAILED_JOB) {
		json_write_key(&w, "error");
		json_write_string(&w, error != NULL ? error : "");
	}
	json_write_close(&w);
	return envelope_end(&w, len);
}

/* The body's first line, cut and escaped, for a failed call's reason. */
static void
first_line(const struct keepcli_answer *a, char *out, size_t outsz)
{
	size_t	 n;

	for (n = 0; n < a->body_len && a->body[n] != '\n' &&
	    a->body[n] != '\r'; n++)
		;
	quote(a->body, n, CONTRACT_LINE_MAX, out, outsz);
}

static enum contract_verdict
refusal(const struct keepcli_answer *a, char *why, size_t whysz)
{
	char	 r[KEEPCLI_REASON_MAX * 4 + 8];

	quote(a->reason, strnlen(a->reason, sizeof(a->reason)),
	    sizeof(a->reason), r, sizeof(r));
	failwhy(why, whysz, "the keep refused the call: %s", r);
	switch (a->code) {
	case KEEP_R_GATE:
	case KEEP_R_TLS:
	case KEEP_R_HTTP:
	case KEEP_R_TIMEOUT:
		return CONTRACT_UNREACHABLE;
	case KEEP_R_REFUSED:
		return CONTRACT_REFUSED;
	}
	return CONTRACT_KEEP;
}

enum contract_verdict
contract_answer(const struct keepcli_answer *a, int result, char *why,
    size_t whysz)
{
	char	 line[CONTRACT_LINE_MAX * 4 + 8];

	if (a->refused)
		return refusal(a, why, whysz);
	if (a->status >= 200 && a->status <= 299)
		return CONTRACT_OK;
	if (a->status >= 300 && a->status <= 399) {
		failwhy(why, whysz, "status %u: a redirect is never followed",
		    a->status);
		return CONTRACT_REDIRECT;
	}
	if (a->status == 401 || a->status == 403) {
		failwhy(why, whysz, "status %u: the token was rejected",
		    a->status);
		return CONTRACT_TOKEN;
	}
	if (a->status == 409 && result) {
		failwhy(why, whysz, "status 409: the source no longer holds "
		    "the job");
		return CONTRACT_GONE;
	}
	first_line(a, line, sizeof(line));
	failwhy(why, whysz, "status %u: %s", a->status, *line ? line :
	    "(the body is empty)");
	return CONTRACT_FAILED;
}

int
contract_backs_off(enum contract_verdict v)
{
	return v != CONTRACT_OK && v != CONTRACT_GONE && v != CONTRACT_KEEP &&
	    v != CONTRACT_REFUSED;
}

static int
top_object(struct json *j, const char *body, size_t len, char *why,
    size_t whysz)
{
	const char	*jwhy;

	if (json_parse(j, body, len, &jwhy) == -1) {
		failwhy(why, whysz, "the answer is not JSON: %s at byte %zu",
		    jwhy, j->erroff);
		return -1;
	}
	if (j->toks[0].type != JSON_OBJECT) {
		json_free(j);
		failwhy(why, whysz, "the answer is not a JSON object");
		return -1;
	}
	return 0;
}

int
contract_ping_parse(const char *body, size_t len, uint64_t *waiting,
    char *why, size_t whysz)
{
	struct json	 j;
	long		 v;
	int64_t		 n;

	if (top_object(&j, body, len, why, whysz) == -1)
		return -1;
	if ((v = json_find(&j, 0, "waiting")) == -1 ||
	    json_int(&j, v, 0, INT64_MAX, &n) == -1) {
		failwhy(why, whysz, v == -1 ? "the answer has no waiting" :
		    "waiting is not a non-negative integer");
		json_free(&j);
		return -1;
	}
	*waiting = (uint64_t)n;
	json_free(&j);
	return 0;
}

/* The id, a number of plain digits or a text the contract takes. */
static int
job_id(const struct json *j, size_t v, struct contract_job *job, char *why,
    size_t whysz)
{
	const char	*raw;
	size_t		 len, i;

	if (j->toks[v].type == JSON_NUMBER) {
		raw = json_raw(j, v, &len);
		for (i = 0; i < len && raw[i] >= '0' && raw[i] <= '9'; i++)
			;
		if (i != len || len > CONTRACT_NUMID_MAX) {
			failwhy(why, whysz, "its id is not an integer of 1 to "
			    "%d digits", CONTRACT_NUMID_MAX);
			return -1;
		}
		memcpy(job->id, raw, len);
		job->id[len] = '\0';
		job->numeric = 1;
		return 0;
	}
	if (j->toks[v].type != JSON_STRING ||
	    json_string_copy(j, v, job->id, sizeof(job->id), &len) == -1 ||
	    strlen(job->id) != len || !contract_id_valid(job->id)) {
		failwhy(why, whysz, "its id is neither a number nor a text of "
		    "1 to %d printable characters without space / \\ . ? # : "
		    "%%",
		    CONTRACT_ID_MAX);
		return -1;
	}
	return 0;
}

/* A capability not asked for fails the job, never the answer. */
static void
job_cap(const struct json *j, long v, unsigned int caps,
    struct contract_job *job)
{
	char	 name[CAPNAME_MAX + 1], q[CAPNAME_MAX * 4 + 8];
	size_t	 len = 0;
	int	 c = -1;

	job->cap = -1;
	if (v == -1) {
		(void)strlcpy(job->failed, "the job names no capability",
		    sizeof(job->failed));
		return;
	}
	if (j->toks[v].type != JSON_STRING) {
		(void)strlcpy(job->failed, "the job's capability is not a "
		    "text", sizeof(job->failed));
		return;
	}
	if (json_string_copy(j, v, name, sizeof(name), &len) == 0 &&
	    strlen(name) == len)
		c = cap_from_name(name);
	if (c == -1 || (caps & CAP_BIT(c)) == 0) {
		quote(name, len, CAPNAME_MAX, q, sizeof(q));
		(void)snprintf(job->failed, sizeof(job->failed),
		    "capability %s was not offered", q);
		return;
	}
	job->cap = c;
}

static int
job_parse(const struct json *j, size_t t, size_t n, unsigned int caps,
    struct contract_job *job, char *why, size_t whysz)
{
	char		 idwhy[CONTRACT_WHY_MAX];
	const char	*raw;
	long		 v;

	if (j->toks[t].type != JSON_OBJECT) {
		failwhy(why, whysz, "job %zu is not an object", n + 1);
		return -1;
	}
	if ((v = json_find(j, t, "id")) == -1) {
		failwhy(why, whysz, "job %zu has no id", n + 1);
		return -1;
	}
	if (job_id(j, v, job, idwhy, sizeof(idwhy)) == -1) {
		failwhy(why, whysz, "job %zu: %s", n + 1, idwhy);
		return -1;
	}
	job_cap(j, json_find(j, t, "capability"), caps, job);
	if ((v = json_find(j, t, "input")) == -1) {
		if (job->failed[0] == '\0')
			(void)strlcpy(job->failed, CONTRACT_NO_INPUT,
			    sizeof(job->failed));
		job->cap = -1;
		return 0;
	}
	raw = json_raw(j, v, &job->inputlen);
	job->inputoff = raw - j->buf;
	if ((job->input = malloc(job->inputlen + 1)) == NULL) {
		failwhy(why, whysz, "out of memory");
		return -1;
	}
	memcpy(job->input, raw, job->inputlen);
	job->input[job->inputlen] = '\0';
	return 0;
}

static int
claim_jobs(const struct json *j, size_t arr, unsigned int caps,
    struct contract_claim *claim, char *why, size_t whysz)
{
	size_t	 n, k, t;

	if ((claim->jobs = calloc(j->toks[arr].size + 1,
	    sizeof(*claim->jobs))) == NULL) {
		failwhy(why, whysz, "out of memory");
		return -1;
	}
	for (n = 0, t = arr + 1; n < j->toks[arr].size;
	    n++, t = json_next(j, t)) {
		if (job_parse(j, t, n, caps, &claim->jobs[n], why,
		    whysz) == -1)
			return -1;
		claim->njobs = n + 1;
		for (k = 0; k < n; k++)
			if (strcmp(claim->jobs[k].id, claim->jobs[n].id) == 0) {
				failwhy(why, whysz, "job %zu: its id %s is "
				    "job %zu's too", n + 1, claim->jobs[n].id,
				    k + 1);
				return -1;
			}
	}
	return 0;
}

int
contract_claim_parse(const char *body, size_t len, unsigned int caps,
    unsigned int limit, struct contract_claim *claim, char *why, size_t whysz)
{
	struct json	 j;
	long		 v;
	int		 rv = -1;

	memset(claim, 0, sizeof(*claim));
	if (top_object(&j, body, len, why, whysz) == -1)
		return -1;
	if ((v = json_find(&j, 0, "jobs")) == -1)
		failwhy(why, whysz, "the answer has no jobs");
	else if (j.toks[v].type != JSON_ARRAY)
		failwhy(why, whysz, "jobs is not an array");
	else if (j.toks[v].size > limit)
		/* Taking some would exceed what was asked; releasing them trusts their ids. */
		failwhy(why, whysz, "the answer holds %u jobs, more than the "
		    "%u asked for", j.toks[v].size, limit);
	else
		rv = claim_jobs(&j, v, caps, claim, why, whysz);
	json_free(&j);
	if (rv == -1)
		contract_claim_free(claim);
	return rv;
}

void
contract_claim_free(struct contract_claim *claim)
{
	size_t	 i;

	if (claim->jobs != NULL)
		for (i = 0; i < claim->njobs; i++)
			free(claim->jobs[i].input);
	free(claim->jobs);
	claim->jobs = NULL;
	claim->njobs = 0;
}
