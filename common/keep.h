/*
 * The keep's protocol on keep.sock, framed with msg.h (keepd(8)).  The
 * peer's uid is checked before a byte is read.  Each KEEP_REQUEST gets
 * one KEEP_ANSWER or KEEP_REFUSED with its id, in order, one at a time.
 * A wrong uid, version or order gets one KEEP_REFUSED (id 0) and the
 * end.  Texts are not NUL-terminated: their lengths say where they end.
 *
 * An answer's body comes as a sealed memfd passed with KEEP_ANSWER
 * (none when body_len is 0): 32 MiB cost a copy in and out, not a trip
 * through every socket buffer.
 */
#ifndef SANDCASTLE_KEEP_H
#define SANDCASTLE_KEEP_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define KEEP_VERSION		4
#define KEEP_MAXENVELOPE	(33U * 1024 * 1024)	/* with its struct keep_request */
#define KEEP_MAXBODY		(32U * 1024 * 1024)
#define KEEP_CTYPE_MAX		(32U * 1024)	/* a content-type: a header section's most */
#define KEEP_CALL_SECONDS	30	/* a source's call; a capability's, its timeout */
#define KEEP_REFUSAL_MAX	4096U	/* a refusal's reason, the most a client takes */
/* What a body's memfd must hold: no byte of it can change once checked. */
#define KEEP_BODY_SEALS		(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | \
				 F_SEAL_WRITE)

enum keep_type {
	KEEP_HELLO = 1,		/* both ways: struct keep_hello */
	KEEP_REQUEST,		/* client: struct keep_request, then the envelope, JSON */
	KEEP_ANSWER,		/* keepd: struct keep_answer, then content-type; the body's memfd */
	KEEP_REFUSED,		/* keepd: struct keep_refused, then the reason */
};

#define KEEP_KEEPD	0x1	/* the sides: keepd */
#define KEEP_CLIENT	0x2	/* and its client, the keep frontend or check */
#define KEEP_ASKS	(MSG_BIT(KEEP_HELLO) | MSG_BIT(KEEP_REQUEST))

/*
 * A row a message, all that is said of it: its type, least and most
 * bytes, descriptor (0 never, 2 maybe), the sides that send it, the
 * questions it answers, and keepd's take (keepd/client.c).  keep.c
 * writes the rows without the takes, for the clients.
 */
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

/*
 * The seconds the client gives the call, 0 for the destination's own
 * (its call_seconds): keepd takes the lesser, so that a box's call ends
 * before its box does.
 */
struct keep_request {
	uint32_t	seconds;
};

/* The destination's answer: a status, two headers and the body. */
struct keep_answer {
	uint32_t	status;		/* the HTTP status, a redirect's included */
	uint32_t	retry_after;	/* seconds, 0 when none or unreadable */
	uint32_t	ctype_len;	/* bytes of content-type after this struct */
	uint32_t	body_len;	/* bytes of body, in the memfd */
};

/* Why no answer came: the reason is text for a person, never a secret. */
enum keep_refusal {
	KEEP_R_ENVELOPE = 1,	/* the envelope breaks a rule */
	KEEP_R_SECRET,		/* "unusable secret: <name>" */
	KEEP_R_GATE,		/* the gate does not answer, or cannot reach it */
	KEEP_R_TLS,		/* the destination's certificate was refused */
	KEEP_R_HTTP,		/* the answer broke HTTP, or was too large */
	KEEP_R_TIMEOUT,		/* the call's seconds passed */
	KEEP_R_INTERNAL,	/* the keep itself failed */
	KEEP_R_PROTOCOL,	/* another version, or no hello first */
	KEEP_R_PEER,		/* the client is not the operator */
	KEEP_R_REFUSED,		/* the gate refused it by its rules (403) */
};

struct keep_refused {
	uint32_t	code;		/* enum keep_refusal */
	uint32_t	reason_len;
};

#endif
