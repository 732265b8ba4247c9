/* A job's outcome in a message: the launcher's, and the box reader's. */
#include <sys/types.h>
#include <sys/uio.h>

#include <stdlib.h>
#include <string.h>

#include "cap.h"
#include "log.h"
#include "msg.h"
#include "outcome.h"

/* sandcastled(8)'s words, BOXES: a box sends one of its row's (cap.h). */
static const char *const job_words[JW_COUNT] = {
	[JW_NONE] = "none",
	[JW_INPUT] = "input",
	[JW_CAPABILITY] = "capability",
	[JW_BOX] = "box",
	[JW_PROTOCOL] = "protocol",
	[JW_TIME] = "time",
	[JW_OUTPUT] = "output",
	[JW_FILTER] = "filter",
	[JW_KILLED] = "killed",
	[JW_EXIT] = "exit",
	[JW_PODMAN] = "podman",
	[JW_BUILD] = "build",
	[JW_LEFTOVER] = "leftover",
	[JW_UNREACHABLE] = "unreachable",
	[JW_RELEASED] = "released",
	[JW_RECORD] = "record",
	[JW_STOPPED] = "stopped",
	[JW_LAUNCHER] = "launcher",
};

static size_t
outcome_len(const char *s)
{
	return s != NULL ? strlen(s) : 0;
}

int
outcome_send(struct msgchan *chan, uint32_t type, uint32_t id,
    const struct job_outcome *o, const void *extra, size_t extralen)
{
	static struct outcome_wire	 w;
	struct iovec			 iov[5];

	memset(&w, 0, sizeof(w));
	w.status = o->status;
	w.word = o->word;
	(void)strlcpy(w.error, o->error, sizeof(w.error));
	w.stderr_len = o->stderr_len < JOB_STDERR_MAX ? o->stderr_len :
	    JOB_STDERR_MAX;
	memcpy(w.stderr_head, o->stderr_head, w.stderr_len);
	w.usage = o->usage;
	w.box_started = o->box_started;
	w.box_removed = o->box_removed;
	w.millis = o->seconds > 0 ? (uint32_t)(o->seconds * 1000) : 0;
	w.rest = o->rest;
	w.output_len = outcome_len(o->output);
	w.reply_len = outcome_len(o->reply);
	w.record_len = outcome_len(o->record);
	iov[0].iov_base = &w;
	iov[0].iov_len = sizeof(w);
	iov[1].iov_base = (void *)extra;
	iov[1].iov_len = extralen;
	iov[2].iov_base = o->output;
	iov[2].iov_len = w.output_len;
	iov[3].iov_base = o->reply;
	iov[3].iov_len = w.reply_len;
	iov[4].iov_base = o->record;
	iov[4].iov_len = w.record_len;
	return msg_composev(chan, type, id, -1, iov, 5);
}

static char *
outcome_text(const char *p, size_t len)
{
	char	*s;

	if (len == 0)
		return NULL;
	if ((s = malloc(len + 1)) == NULL)
		fatal("an outcome's text");
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

int
outcome_take(const struct msg *m, struct job_outcome *o, void *extra,
    size_t extralen)
{
	static struct outcome_wire	 w;
	const char			*p;

	if (m->len < sizeof(w) + extralen)
		return -1;
	memcpy(&w, m->data, sizeof(w));
	if ((uint64_t)sizeof(w) + extralen + w.output_len + w.reply_len +
	    w.record_len != m->len || w.status > JOB_RELEASED ||
	    (w.word >= JW_COUNT && cap_word_name(w.word) == NULL) ||
	    w.stderr_len > JOB_STDERR_MAX ||
	    w.rest > JOB_REST_MAX ||
	    memchr(w.error, '\0', sizeof(w.error)) == NULL ||
	    memchr(w.usage.model, '\0', sizeof(w.usage.model)) == NULL)
		return -1;
	p = (const char *)m->data + sizeof(w);
	if (extralen > 0)
		memcpy(extra, p, extralen);
	p += extralen;
	memset(o, 0, sizeof(*o));
	o->status = w.status;
	o->word = w.word;
	memcpy(o->error, w.error, sizeof(o->error));
	memcpy(o->stderr_head, w.stderr_head, w.stderr_len);
	o->stderr_len = w.stderr_len;
	o->usage = w.usage;
	o->usage.has = w.usage.has != 0;
	o->box_started = w.box_started != 0;
	o->box_removed = w.box_removed != 0;
	o->seconds = w.millis / 1000.0;
	o->rest = w.rest;
	o->output = outcome_text(p, w.output_len);
	o->reply = outcome_text(p + w.output_len, w.reply_len);
	o->record = outcome_text(p + w.output_len + w.reply_len,
	    w.record_len);
	return 0;
}

void
job_outcome_free(struct job_outcome *o)
{
	free(o->output);
	free(o->reply);
	free(o->record);
	o->output = o->reply = o->record = NULL;
}

const char *
job_word_name(enum job_word w)
{
	const char	*name;

	if ((unsigned int)w < JW_COUNT)
		return job_words[w];
	return (name = cap_word_name(w)) != NULL ? name : "unknown";
}

/* Any job's word first, then the first row's that has the name. */
int
job_word_of_name(const char *name)
{
	int	 w;

	for (w = 0; w < JW_COUNT; w++)
		if (strcmp(name, job_words[w]) == 0)
			return w;
	return cap_word_of_name(name);
}
