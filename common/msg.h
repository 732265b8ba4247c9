/*
 * Framing between sandcastle's processes, in the shape of OpenBSD's
 * imsg: a fixed header, the payload and at most one descriptor.  Each
 * protocol has one table (struct msg_rule); a receiver refuses a type
 * outside its set, a size outside the rule or an unexpected descriptor
 * (msg_verify*() fatally).
 */
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
	uint32_t	flags;		/* MSGF_FD: a descriptor came with it */
	uint32_t	len;		/* payload bytes after the header */
};
#define MSGF_FD		0x1

struct msg {
	uint32_t	 type;
	uint32_t	 id;
	int		 fd;		/* -1 when none came */
	size_t		 len;
	void		*data;		/* len bytes, NULL when len == 0 */
};

struct msgout;
TAILQ_HEAD(msgoutq, msgout);

struct msgchan {
	int		 fd;
	size_t		 maxpayload;	/* larger is EMSGSIZE at msg_compose and msg_get */
	unsigned char	*rbuf;
	size_t		 rpos;		/* start of the next message in rbuf */
	size_t		 rlen;		/* bytes held in rbuf */
	size_t		 rsize;		/* bytes allocated */
	int		 rfd;		/* descriptor received, not yet taken */
	size_t		 rfdoff;	/* rbuf span of the read that brought rfd: */
	size_t		 rfdend;	/* its message's header starts in there */
	struct msgoutq	 outq;
	size_t		 outqlen;	/* messages queued */
	int		 wipe;		/* zero what it lets go: see below */
};

/*
 * One row of a protocol's table: all that is said of one message.  An
 * answer has no take: the wait of the question it pays takes it.
 */
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
/*
 * With wipe, every byte the channel lets go of is zeroed first; data
 * msg_get() hands out is the caller's to zero before msg_free().
 */
void	msgchan_clear(struct msgchan *);	/* frees buffers, closes held fds, not chan->fd */
int	msg_compose(struct msgchan *, uint32_t type, uint32_t id, int fd,
	    const void *data, size_t len);	/* -1 and errno on failure (fd stays the caller's); else fd is passed on and closed after it is sent */
int	msg_composev(struct msgchan *, uint32_t type, uint32_t id, int fd,
	    const struct iovec *, int iovcnt);
int	msgchan_flush(struct msgchan *);	/* 0 all sent, 1 more queued (EAGAIN), -1 error */
int	msgchan_flush_all(struct msgchan *);	/* blocks with poll until sent; 0 or -1 */
ssize_t	msgchan_read(struct msgchan *);		/* >0 bytes, 0 EOF, -1 error; EOF mid-message is -1 EPROTO */
int	msg_get(struct msgchan *, struct msg *);	/* 1 a message, 0 need more, -1 error (EMSGSIZE, EPROTO) */
/* Call msg_get() until it returns 0 after each msgchan_read(): a second descriptor read before the first is taken is EPROTO. */
int	msg_read_one(struct msgchan *, struct msg *);	/* blocks until one message: 1, 0 EOF, -1 error */
void	msg_free(struct msg *);			/* frees data, closes an fd not taken */
int	msg_check(const struct msg_rule *, size_t nrules, const struct msg *,
	    char *why, size_t whysz);		/* 0 accepted, -1 with the reason in why */
void	msg_verify(const struct msg_rule *, size_t nrules, const struct msg *, const char *peer);	/* fatalx on mismatch */
int	msg_check_set(const struct msg_rule *, size_t nrules, uint32_t set,
	    const struct msg *, char *why, size_t whysz);
void	msg_verify_set(const struct msg_rule *, size_t nrules, uint32_t set,
	    const struct msg *, const char *peer);
const struct msg_rule *
	msg_rule_find(const struct msg_rule *, size_t, uint32_t);
/* The types a side takes: each row sent by another side. */
uint32_t msg_takes(const struct msg_rule *, size_t nrules, uint32_t side);
/* 1 when m's row answers the question of type question. */
int	msg_answers(const struct msg_rule *, size_t nrules, uint32_t question,
	    const struct msg *);

/*
 * A table both ends of a socket link is a list of ROW()s (keep.h,
 * ctl.h): MSG_ROW writes a row with its take, where the taker links
 * it, MSG_ROW_NO_TAKE without, where it does not.
 */
#define MSG_ROW(t, least, most, fd, from, pays, take) \
	{ t, #t, least, most, fd, from, pays, take },
#define MSG_ROW_NO_TAKE(t, least, most, fd, from, pays, take) \
	{ t, #t, least, most, fd, from, pays, NULL },

#endif
