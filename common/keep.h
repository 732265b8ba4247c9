/*
 * The keep's protocol on keep.sock over msg.h (keepd(8)): one KEEP_ANSWER
 * or KEEP_REFUSED per KEEP_REQUEST, in order; texts end by their lengths,
 * not a NUL; an answer's body comes as a sealed memfd.
 */
#ifndef SANDCASTLE_KEEP_H
#define SANDCASTLE_KEEP_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define KEEP_VERSION		4
#define KEEP_MAXENVELOPE	(33U * 1024 * 1024)
#define KEEP_MAXBODY		(32U * 1024 * 1024)
#define KEEP_CTYPE_MAX		(32U * 1024)	/* a content-type: a header section's most */
#define KEEP_CALL_SECONDS	30	/* a source's call; a capability's, its timeout */
#define KEEP_REFUSAL_MAX	4096U
#define KEEP_BODY_SEALS		(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | \
				 F_SEAL_WRITE)

enum keep_type {
	KEEP_HELLO = 1,
	KEEP_REQUEST,		/* struct keep_request, the JSON envelope */
	KEEP_ANSWER,		/* struct keep_answer, content-type, memfd */
	KEEP_REFUSED,
};

#define KEEP_KEEPD	0x1
#define KEEP_CLIENT	0x2	/* the keep frontend or check */
#define KEEP_ASKS	(MSG_BIT(KEEP_HELLO) | MSG_BIT(KEEP_REQUEST))

/* A row a message; keepd's takes are in keepd/client.c, keep.c's have none. */
#define KEEP_ROWS(ROW) \
	ROW(KEEP_HELLO, sizeof(struct keep_hello), sizeof(struct keep_hello), \
	    0, KEEP_KEEPD | KEEP_CLIENT, MSG_BIT(KEEP_HELLO), client_hello) \
	ROW(KEEP_REQUEST, sizeof(struct keep_request) + 1, KEEP_MAXENVELOPE, \
	    0, KEEP_CLIENT, 0, client_request) \
	ROW(KEEP_ANSWER, sizeof(struct keep_answer), \
	    sizeof(struct keep_answer) + KEEP_CTYPE_MAX, 2, KEEP_KEEPD, \
	    MSG_BIT(KEEP_REQUEST), NULL) \
	ROW(KEEP_REFUSED, sizeof(struct keep_refused), \
	    sizeof(struct keep_refused) + KEEP_REFUSAL_MAX, 0, KEEP_KEEPD, \
	    KEEP_ASKS, NULL)
extern const struct msg_rule	keep_rules[];
extern const size_t		keep_nrules;

struct keep_hello {
	uint32_t	version;
	uint32_t	ndestinations;	/* keepd's answer: how many it knows */
};

/* seconds: 0 for the destination's own; keepd takes the lesser. */
struct keep_request {
	uint32_t	seconds;
};

struct keep_answer {
	uint32_t	status;		/* the HTTP status, a redirect's included */
	uint32_t	retry_after;	/* seconds, 0 when none or unreadable */
	uint32_t	ctype_len;	/* bytes of content-type after this struct */
	uint32_t	body_len;
};

/* Each is in keepd(8); the reason is text for a person, never a secret. */
enum keep_refusal {
	KEEP_R_ENVELOPE = 1,
	KEEP_R_SECRET,
	KEEP_R_GATE,
	KEEP_R_TLS,
	KEEP_R_HTTP,
	KEEP_R_TIMEOUT,
	KEEP_R_INTERNAL,
	KEEP_R_PROTOCOL,
	KEEP_R_PEER,
	KEEP_R_REFUSED,
};

struct keep_refused {
	uint32_t	code;
	uint32_t	reason_len;
};

#endif
