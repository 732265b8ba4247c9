/*
 * libFuzzer target for the receiving side of msg.c: the input is what
 * a hostile peer writes on the stream.  It goes into one end of a
 * non-blocking socketpair in chunks of changing sizes, so that headers
 * and payloads split across reads; the other end drains msg_get()
 * after every read and frees every message, until an error or EOF.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"

#define FUZZ_MAXPAYLOAD	(64 * 1024)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const size_t chunks[] = { 1, 3, 16, 17, 200, 4096, 65536 };

/* Takes every whole message; 0 when more bytes are needed, -1 on error. */
static int
drain(struct msgchan *chan)
{
	struct msg	 m;
	int		 r;

	while ((r = msg_get(chan, &m)) == 1) {
		if (m.len > FUZZ_MAXPAYLOAD || (m.len > 0) != (m.data != NULL))
			abort();
		msg_free(&m);
	}
	return r;
}

/* Reads what is there; 1 to go on, 0 at EOF or error. */
static int
pump(struct msgchan *chan)
{
	ssize_t	 n;

	if ((n = msgchan_read(chan)) == -1)
		return errno == EAGAIN ? drain(chan) == 0 : 0;
	if (n == 0)
		return 0;
	return drain(chan) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msgchan	 chan;
	size_t		 off = 0, i = 0, len;
	ssize_t		 n;
	int		 sv[2], alive = 1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == -1)
		abort();
	msgchan_init(&chan, sv[1], FUZZ_MAXPAYLOAD);
	while (alive && off < size) {
		len = chunks[i++ % (sizeof(chunks) / sizeof(chunks[0]))];
		if (len > size - off)
			len = size - off;
		if ((n = write(sv[0], data + off, len)) > 0)
			off += (size_t)n;
		else if (n == -1 && errno != EAGAIN)
			abort();
		alive = pump(&chan);
	}
	close(sv[0]);
	while (alive)
		alive = pump(&chan);
	msgchan_clear(&chan);
	close(sv[1]);
	return 0;
}
