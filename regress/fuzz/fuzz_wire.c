/*
 * libFuzzer target for the payloads sandcastled's processes read with
 * keepcli_answer_take() and outcome_take(): the first byte picks one,
 * the rest is the payload.  What is taken keeps its bounds, and crosses
 * a socket again to be taken the same.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keepcli.h"
#include "msg.h"
#include "outcome.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct msgchan	 out, in;

/* The last message sent, read back; aborts unless it crossed. */
static void
crossed(struct msg *m)
{
	if (msgchan_flush_all(&out) == -1 || msg_read_one(&in, m) != 1)
		abort();
}

static void
answer(struct msg *m)
{
	struct keepcli_answer	 a, b;
	struct msg		 again;

	if (keepcli_answer_take(m, &a) == -1)
		return;
	/* No memfd comes: only an answer with no body is taken. */
	if (strlen(a.reason) >= KEEPCLI_REASON_MAX || a.body_len != 0 ||
	    a.body_fd != -1 || keepcli_answer_map(&a) == -1 ||
	    strlen(a.ctype) > KEEP_CTYPE_MAX || m->data != NULL)
		abort();
	if (keepcli_answer_send(&out, 1, 0, &a) == -1)
		abort();
	crossed(&again);
	if (keepcli_answer_take(&again, &b) == -1 || b.body_len != a.body_len ||
	    b.status != a.status || strcmp(b.ctype, a.ctype) != 0 ||
	    strcmp(b.reason, a.reason) != 0)
		abort();
	msg_free(&again);
	keepcli_answer_free(&b);
	keepcli_answer_free(&a);
}

static void
outcome(struct msg *m)
{
	struct job_outcome	 o, r;
	struct msg		 again;
	uint64_t		 extra, back;

	if (outcome_take(m, &o, &extra, sizeof(extra)) == -1)
		return;
	if (o.status > JOB_RELEASED ||
	    strcmp(job_word_name(o.word), "unknown") == 0 ||
	    o.stderr_len > JOB_STDERR_MAX || o.rest > JOB_REST_MAX ||
	    strlen(o.error) >= JOB_ERROR_MAX)
		abort();
	if (outcome_send(&out, 1, 0, &o, &extra, sizeof(extra)) == -1)
		abort();
	crossed(&again);
	if (outcome_take(&again, &r, &back, sizeof(back)) == -1 ||
	    back != extra || r.status != o.status || r.word != o.word)
		abort();
	msg_free(&again);
	job_outcome_free(&r);
	job_outcome_free(&o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg	 m;
	int		 sv[2];

	if (size < 1)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		abort();
	msgchan_init(&out, sv[0], MSG_MAXPAYLOAD);
	msgchan_init(&in, sv[1], MSG_MAXPAYLOAD);
	memset(&m, 0, sizeof(m));
	m.fd = -1;
	m.len = size - 1;
	if (m.len > 0 && (m.data = malloc(m.len)) == NULL)
		abort();
	if (m.len > 0)
		memcpy(m.data, data + 1, m.len);
	if (data[0] & 1)
		outcome(&m);
	else
		answer(&m);
	msg_free(&m);
	msgchan_clear(&out);
	msgchan_clear(&in);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
