/*
 * libFuzzer target for common/boxproto.c: each line of the input through the
 * strict parser and the order of the exchange.  A line taken must hold
 * the fields its type needs, and the order must never take a line after
 * the last.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boxproto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
one_line(struct proto_seq *seq, const char *line, size_t len)
{
	struct proto_msg	 m;
	const char		*why;
	char			 reason[PROTO_WHY_MAX];

	if (proto_parse(&m, line, len, reason, sizeof(reason)) == -1) {
		if (reason[0] == '\0' || m.j.toks != NULL)
			abort();
		return;
	}
	if (m.type < PROTO_HELLO || m.type >= PROTO_NTYPES)
		abort();
	if (m.type == PROTO_JOB && (m.f[PF_BUILD] == 0 ||
	    m.f[PF_SETTINGS] == 0 || m.max_input == 0 || m.max_output == 0 ||
	    (m.check != (m.f[PF_INPUT] == 0))))
		abort();
	if (m.type == PROTO_ANSWER && (m.status < 100 || m.status > 599))
		abort();
	if (m.type == PROTO_FAILURE && (m.word[0] == '\0' ||
	    strspn(m.word, "abcdefghijklmnopqrstuvwxyz_") != strlen(m.word)))
		abort();
	if (proto_seq_next(seq, m.type, &why) == -1 && why == NULL)
		abort();
	if (seq->state == PS_DONE && proto_seq_next(seq, PROTO_RESULT,
	    &why) != -1)
		abort();
	proto_msg_free(&m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_seq	 seq;
	const char		*p = (const char *)data, *nl;
	char			*copy;

	if ((copy = malloc(size + 1)) == NULL)
		return 0;
	memcpy(copy, p, size);
	copy[size] = '\0';
	proto_seq_init(&seq, size > 0 ? data[0] % CAP_COUNT : 0);
	for (p = copy; p < copy + size; p = nl + 1) {
		if ((nl = memchr(p, '\n', copy + size - p)) == NULL)
			nl = copy + size;
		one_line(&seq, p, nl - p);
	}
	free(copy);
	return 0;
}
