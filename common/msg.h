/* Framing between processes, as OpenBSD's imsg, checked by each table. */
#ifndef SANDCASTLE_MSG_H
#define SANDCASTLE_MSG_H

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include <stddef.h>
#include <stdint.h>

/* A body of up to 32 MiB travels between processes, with room for its envelope. */
#define MSG_MAXPAYLOAD	(33U * 1024 * 1024)

struct msg_hdr {
	uint32_t	type;
	uint32_t	id;		/* free for the protocol: a request id */
	uint32_t	flags;
	uint32_t	len;
};
#define MSGF_FD		0x1

struct msg {
	uint32_t	 type;
	uint32_t	 id;
	int		 fd;		/* -1 when none came */
	size_t		 len;
	void		*data;
};

struct msgout;
TAILQ_HEAD(msgoutq, msgout);

struct msgchan {
	int		 fd;
	size_t		 maxpayload;
	unsigned char	*rbuf;
	size_t		 rpos;
	size_t		 rlen;
	size_t		 rsize;
	int		 rfd;
	size_t		 rfdoff;	/* to rfdend: the read that brought rfd */
	size_t		 rfdend;
	struct msgoutq	 outq;
	size_t		 outqlen;
	int		 wipe;		/* zero all but msg_get()'s data */
};

/* A protocol's row for one message; an answer's take is its question's wait. */
struct msg;
struct msg_rule {
	uint32_t	 type;
	const char	*name;
	size_t		 minlen;
	size_t		 maxlen;
	int		 fd;		/* 0: never, 1: required, 2: optional */
	uint32_t	 from;		/* the sides that send it, a bit each */
	uint32_t	 pays;		/* an answer: the question it answers */
	void		(*take)(void *, struct msg *);
};

/* A receiver's set of types, each below 32; MSG_ANY: every type of the table. */
#define MSG_BIT(type)	(1U << (type))
#define MSG_ANY		0xffffffffU

void	msgchan_init(struct msgchan *, int fd, size_t maxpayload);
void	msgchan_clear(struct msgchan *);
int	msg_compose(struct msgchan *, uint32_t type, uint32_t id, int fd,
	    const void *data, size_t len);	/* on -1, fd is still ours */
int	msg_composev(struct msgchan *, uint32_t type, uint32_t id, int fd,
	    const struct iovec *, int iovcnt);
int	msgchan_flush(struct msgchan *);	/* 0 all sent, 1 more queued (EAGAIN), -1 error */
int	msgchan_flush_all(struct msgchan *);
ssize_t	msgchan_read(struct msgchan *);		/* >0 bytes, 0 EOF, -1 error; EOF mid-message is -1 EPROTO */
int	msg_get(struct msgchan *, struct msg *);	/* 1 a message, 0 need more, -1 error (EMSGSIZE, EPROTO) */
/* Call msg_get() until it returns 0 after each msgchan_read(): a second descriptor read before the first is taken is EPROTO. */
int	msg_read_one(struct msgchan *, struct msg *);
void	msg_free(struct msg *);
int	msg_check(const struct msg_rule *, size_t nrules, const struct msg *,
	    char *why, size_t whysz);
void	msg_verify(const struct msg_rule *, size_t nrules, const struct msg *, const char *peer);
int	msg_check_set(const struct msg_rule *, size_t nrules, uint32_t set,
	    const struct msg *, char *why, size_t whysz);
void	msg_verify_set(const struct msg_rule *, size_t nrules, uint32_t set,
	    const struct msg *, const char *peer);
const struct msg_rule *
	msg_rule_find(const struct msg_rule *, size_t, uint32_t);
uint32_t msg_takes(const struct msg_rule *, size_t nrules, uint32_t side);
int	msg_answers(const struct msg_rule *, size_t nrules, uint32_t question,
	    const struct msg *);

/* A table's rows, with the take (MSG_ROW) where the taker links it. */
#define MSG_ROW(t, least, most, fd, from, pays, take) \
	{ t, #t, least, most, fd, from, pays, take },
#define MSG_ROW_NO_TAKE(t, least, most, fd, from, pays, take) \
	{ t, #t, least, most, fd, from, pays, NULL },

#endif
