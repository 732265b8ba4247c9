/* keep.sock's client and its answer between processes: a silence fails. */
#ifndef SANDCASTLE_KEEPCLI_H
#define SANDCASTLE_KEEPCLI_H

#include <stddef.h>
#include <stdint.h>

#include "keep.h"
#include "msg.h"

#define KEEPCLI_HELLO_SECONDS	5
/* keepd ends a call; its answer has a little longer to come back. */
#define KEEPCLI_MARGIN		5
#define KEEPCLI_SECONDS		(KEEP_CALL_SECONDS + KEEPCLI_MARGIN)
#define KEEPCLI_CALL_MAX	3600	/* a capability's longest timeout */
#define KEEPCLI_REASON_MAX	256

struct keepcli;

struct keepcli_answer {
	int		 refused;
	uint32_t	 status;
	uint32_t	 retry_after;	/* seconds, 0 when none */
	char		*ctype;
	int		 body_fd;	/* keepd's sealed memfd, when body_len > 0 */
	size_t		 body_len;
	const char	*body;		/* body_len bytes, no NUL after: mapped */
	void		*map;
	uint32_t	 code;		/* enum keep_refusal */
	char		 reason[KEEPCLI_REASON_MAX];
	uint32_t	 seconds;	/* what the call had at the keep */
	void		*held;		/* the payload ctype and body lie in */
};

/* An answer in a message: then reason and ctype, each and a NUL. */
struct keepcli_wire {
	uint32_t	 refused;
	uint32_t	 status;
	uint32_t	 retry_after;
	uint32_t	 code;
	uint32_t	 seconds;
	uint32_t	 reason_len;
	uint32_t	 ctype_len;
	uint32_t	 body_len;
};
#define KEEPCLI_WIRE_MIN	(sizeof(struct keepcli_wire) + 2)
#define KEEPCLI_WIRE_MAX	(KEEPCLI_WIRE_MIN + KEEPCLI_REASON_MAX - 1 + \
				    KEEP_CTYPE_MAX)

/* Connects and says hello: the handle, or NULL and why (static text). */
struct keepcli	*keepcli_open(const char *path, const char **why);
struct keepcli	*keepcli_fdopen(int fd, const char **why);
uint32_t	 keepcli_ndestinations(const struct keepcli *);
/* seconds at the keep (0: KEEP_CALL_SECONDS); on -1 the handle is unusable. */
int		 keepcli_request(struct keepcli *, const char *envelope,
		    size_t len, unsigned int seconds, struct keepcli_answer *,
		    const char **why);
/* In two steps; receive: 1 and a, 0 not yet, -1 and why (then unusable). */
int		 keepcli_send(struct keepcli *, const char *envelope,
		    size_t len, unsigned int seconds, const char **why);
int		 keepcli_fd(const struct keepcli *);
int		 keepcli_wait_ms(const struct keepcli *);	/* -1: none asked */
int		 keepcli_receive(struct keepcli *, struct keepcli_answer *,
		    const char **why);
/* a->body: the memfd mapped read only; 0, or -1 and errno. */
int		 keepcli_answer_map(struct keepcli_answer *);
void		 keepcli_answer_free(struct keepcli_answer *);
/* The answer as a message of type, a copy of its memfd along; -1, errno. */
int		 keepcli_answer_send(struct msgchan *, uint32_t type,
		    uint32_t id, const struct keepcli_answer *);
/* m's payload and memfd become a's; -1 when the lengths or memfd are wrong. */
int		 keepcli_answer_take(struct msg *m, struct keepcli_answer *a);
void		 keepcli_close(struct keepcli *);

#endif
