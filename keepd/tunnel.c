/* The way out: a CONNECT through gate.sock, one a connection (keepd(8)). */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "atomicio.h"
#include "config.h"
#include "keep.h"
#include "tunnel.h"
#include "usock.h"

#define TUNNEL_HEAD_MAX	4096

static int
tunnel_connect(const char *gatepath, char *why, size_t whysz)
{
	int	 fd;

	if ((fd = usock_connect(gatepath)) == -1)
		(void)snprintf(why, whysz, "the gate does not answer on %s: "
		    "%s (is gated running?)", gatepath, strerror(errno));
	return fd;
}

/* Not a byte past the gate's answer: a peek is taken up to its blank line. */
static ssize_t
tunnel_read_head(int fd, char *buf, size_t bufsz)
{
	size_t	 len = 0, from, take;
	ssize_t	 n;
	char	*end;

	while (len + 1 < bufsz) {
		if ((n = recv(fd, buf + len, bufsz - 1 - len, MSG_PEEK)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		from = len >= 3 ? len - 3 : 0;
		end = memmem(buf + from, len + n - from, "\r\n\r\n", 4);
		take = end != NULL ? (size_t)(end + 4 - (buf + len)) : (size_t)n;
		if (read_all(fd, buf + len, take) == -1)
			return -1;
		len += take;
		if (end != NULL) {
			buf[len] = '\0';
			return len;
		}
	}
	return -1;
}

/* The value of header name in head, cut to printable ASCII, or NULL. */
static const char *
tunnel_header(const char *head, const char *name, char *out, size_t outsz)
{
	const char	*p, *v;
	size_t		 nlen = strlen(name), i;

	for (p = strstr(head, "\r\n"); p != NULL; p = strstr(p, "\r\n")) {
		p += 2;
		if (strncasecmp(p, name, nlen) != 0 || p[nlen] != ':')
			continue;
		for (v = p + nlen + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (i = 0; i + 1 < outsz && v[i] >= 0x20 && v[i] < 0x7f; i++)
			out[i] = v[i];
		out[i] = '\0';
		return out;
	}
	return NULL;
}

int
tunnel_answer(const char *head, size_t len, char *why, size_t whysz)
{
	char		 v[256];
	const char	*r;

	if (len < 12 || (strncmp(head, "HTTP/1.1 ", 9) != 0 &&
	    strncmp(head, "HTTP/1.0 ", 9) != 0)) {
		(void)snprintf(why, whysz, "the gate's answer is not HTTP");
		return KEEP_R_GATE;
	}
	if (strncmp(head + 9, "200", 3) == 0 && (head[12] == ' ' ||
	    head[12] == '\r'))
		return 0;
	if (strncmp(head + 9, "403", 3) == 0) {
		r = tunnel_header(head, "Sandcastle-Refusal", v, sizeof(v));
		(void)snprintf(why, whysz, "the gate refused it: %s",
		    r != NULL ? r : "no reason given");
		return KEEP_R_REFUSED;
	} else if (strncmp(head + 9, "502", 3) == 0) {
		r = tunnel_header(head, "Sandcastle-Error", v, sizeof(v));
		(void)snprintf(why, whysz, "the gate cannot reach it: %s",
		    r != NULL ? r : "no reason given");
	} else
		(void)snprintf(why, whysz, "the gate answered %.3s",
		    head + 9);
	return KEEP_R_GATE;
}

int
tunnel_request(const char *gatepath, const char *host, uint16_t port,
    char *why, size_t whysz)
{
	char	 req[HOST_LEN * 2 + 64];
	int	 fd, len;

	if ((fd = tunnel_connect(gatepath, why, whysz)) == -1)
		return -1;
	len = snprintf(req, sizeof(req), "CONNECT %s:%u HTTP/1.1\r\n"
	    "Host: %s:%u\r\n\r\n", host, (unsigned int)port, host,
	    (unsigned int)port);
	if (write_all(fd, req, (size_t)len) == -1) {
		(void)snprintf(why, whysz, "cannot write to the gate: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
tunnel_await(int fd, char *why, size_t whysz, uint32_t *code)
{
	char	 head[TUNNEL_HEAD_MAX];
	ssize_t	 n;
	int	 r;

	*code = KEEP_R_GATE;
	if ((n = tunnel_read_head(fd, head, sizeof(head))) == -1) {
		(void)snprintf(why, whysz, "the gate closed or sent an answer "
		    "over 4 KiB");
		goto fail;
	}
	if ((r = tunnel_answer(head, (size_t)n, why, whysz)) != 0) {
		*code = r;
		goto fail;
	}
	return 0;
fail:
	close(fd);
	return -1;
}
