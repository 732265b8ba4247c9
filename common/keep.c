/* The keep protocol's table: each message's size, said here alone. */
#include <stddef.h>
#include <stdint.h>

#include "keep.h"
#include "msg.h"

const struct msg_rule keep_rules[] = {
	{ KEEP_HELLO, "KEEP_HELLO", sizeof(struct keep_hello),
	    sizeof(struct keep_hello), 0 },
	{ KEEP_REQUEST, "KEEP_REQUEST", sizeof(struct keep_request) + 1,
	    KEEP_MAXENVELOPE, 0 },
	{ KEEP_ANSWER, "KEEP_ANSWER", sizeof(struct keep_answer),
	    sizeof(struct keep_answer) + KEEP_CTYPE_MAX, 2 },
	{ KEEP_REFUSED, "KEEP_REFUSED", sizeof(struct keep_refused),
	    sizeof(struct keep_refused) + KEEP_REFUSAL_MAX, 0 },
};
const size_t keep_nrules = sizeof(keep_rules) / sizeof(keep_rules[0]);
