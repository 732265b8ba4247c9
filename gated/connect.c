/* One byte at a time: never more than one line, never a byte of the tunnel. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>

#include "connect.h"

static enum connect_state
fail(struct connect_req *req, const char *why)
{
	req->why = why;
	req->state = CONNECT_ERROR;
	return req->state;
}

void
connect_init(struct connect_req *req)
{
	memset(req, 0, sizeof(*req));
	req->state = CONNECT_MORE;
}

static int
name_normalise(const char *raw, size_t len, char *host, size_t hostsz)
{
	size_t	i;

	if (len > 0 && raw[len - 1] == '.')
		len--;
	if (len > HOST_LEN || len >= hostsz)
		return -1;
	for (i = 0; i < len; i++) {
		host[i] = raw[i];
		if (raw[i] >= 'A' && raw[i] <= 'Z')
			host[i] = raw[i] - 'A' + 'a';
	}
	host[i] = '\0';
	return 0;
}

static int
all_of(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

/* inet_aton(3)'s spellings (127.1, 0x7f.1), and any numeric last label. */
static int
name_is_literal(const char *host)
{
	struct in_addr	 in;
	const char	*last;

	if (inet_aton(host, &in) != 0)
		return 1;
	last = strrchr(host, '.');
	last = last == NULL ? host : last + 1;
	if (*last != '\0' && all_of(last, "0123456789"))
		return 1;
	if (strncmp(last, "0x", 2) == 0 &&
	    all_of(last + 2, "0123456789abcdef"))
		return 1;
	return 0;
}

static int
label_valid(const char *label, size_t len)
{
	size_t	i;

	if (len < 1 || len > 63 || label[0] == '-' || label[len - 1] == '-')
		return 0;
	for (i = 0; i < len; i++) {
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789-",
		    label[i]) == NULL || label[i] == '\0')
			return 0;
	}
	return 1;
}

static int
name_is_dns(const char *host)
{
	const char	*p, *dot;

	if (*host == '\0' || strlen(host) > HOST_LEN)
		return 0;
	for (p = host;; p = dot + 1) {
		if ((dot = strchr(p, '.')) == NULL)
			return label_valid(p, strlen(p));
		if (!label_valid(p, dot - p))
			return 0;
	}
}

/* Plain decimal, no sign, no leading zero, 1..65535. */
static int
port_parse(const char *s, uint16_t *port)
{
	unsigned long	v = 0;
	size_t		i, len = strlen(s);

	if (len < 1 || len > 5 || s[0] == '0' || !all_of(s, "0123456789"))
		return -1;
	for (i = 0; i < len; i++)
		v = v * 10 + (s[i] - '0');
	if (v > 65535)
		return -1;
	*port = v;
	return 0;
}

int
connect_target(const char *target, char *host, size_t hostsz,
    uint16_t *port, const char **why, int *literal)
{
	const char	*colon;
	size_t		 len;

	*literal = 0;
	*port = 0;
	colon = strrchr(target, ':');
	len = colon == NULL ? strlen(target) : (size_t)(colon - target);
	/* A literal's port is kept, for the refusal's record. */
	if (colon != NULL)
		(void)port_parse(colon + 1, port);
	if (strcspn(target, ":[]") < len) {
		*literal = 1;
		*why = "an IP literal";
		return -1;
	}
	if (name_normalise(target, len, host, hostsz) == -1) {
		*why = "not a DNS name";
		return -1;
	}
	if (name_is_literal(host)) {
		*literal = 1;
		*why = "an IP literal";
		return -1;
	}
	if (!name_is_dns(host)) {
		*why = "not a DNS name";
		return -1;
	}
	if (colon == NULL || *port == 0) {
		*why = "bad port";
		return -1;
	}
	return 0;
}

/* CONNECT SP target SP HTTP/1.1, one space each, nothing else. */
static enum connect_state
request_line(struct connect_req *req)
{
	char	*target, *version;
	int	 literal;

	if ((target = strchr(req->line, ' ')) == NULL)
		return fail(req, "malformed request line");
	*target++ = '\0';
	if (strcmp(req->line, "CONNECT") != 0)
		return fail(req, "not CONNECT");
	if ((version = strchr(target, ' ')) == NULL || version == target)
		return fail(req, "malformed request line");
	*version++ = '\0';
	if (strcmp(version, "HTTP/1.1") != 0)
		return fail(req, "not HTTP/1.1");
	if (connect_target(target, req->host, sizeof(req->host), &req->port,
	    &req->why, &literal) == -1) {
		req->literal = literal;
		return fail(req, req->why);
	}
	req->in_headers = 1;
	return CONNECT_MORE;
}

/* token ":" value; the value's bytes were checked as they came. */
static enum connect_state
header_line(struct connect_req *req)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~0123456789"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	size_t	n;

	if (++req->nheaders > CONNECT_NHEADERS_MAX)
		return fail(req, "over 32 header lines");
	n = strspn(req->line, tchar);
	if (n == 0 || req->line[n] != ':')
		return fail(req, "malformed header line");
	return CONNECT_MORE;
}

static enum connect_state
end_of_line(struct connect_req *req)
{
	size_t	len = req->linelen;

	req->line[len] = '\0';
	req->linelen = 0;
	if (!req->in_headers)
		return request_line(req);
	req->hdrbytes += len + 2;
	if (len == 0)
		return req->state = CONNECT_DONE;
	return header_line(req);
}

static enum connect_state
feed_byte(struct connect_req *req, unsigned char c)
{
	size_t	bytes = req->linelen + req->cr + 1;

	if (!req->in_headers && bytes > CONNECT_LINE_MAX)
		return fail(req, "request line over 512 bytes");
	if (req->in_headers && req->hdrbytes + bytes > CONNECT_HEADERS_MAX)
		return fail(req, "header section over 4096 bytes");
	if (req->cr && c != '\n')
		return fail(req, "bare CR");
	if (c == '\n') {
		if (!req->cr)
			return fail(req, "bare LF");
		req->cr = 0;
		return end_of_line(req);
	}
	if (c == '\r') {
		req->cr = 1;
		return CONNECT_MORE;
	}
	if ((c < 0x20 && (c != '\t' || !req->in_headers)) || c == 0x7f)
		return fail(req, "control character");
	req->line[req->linelen++] = c;
	return CONNECT_MORE;
}

enum connect_state
connect_feed(struct connect_req *req, const void *buf, size_t len,
    size_t *used)
{
	const unsigned char	*p = buf;
	size_t			 i;

	*used = 0;
	for (i = 0; i < len && req->state == CONNECT_MORE; i++) {
		feed_byte(req, p[i]);
		*used = i + 1;
	}
	return req->state;
}
