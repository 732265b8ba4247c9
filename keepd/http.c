/*
 * HTTP/1.1 for the keep, whose answers may be hostile: one framing only,
 * and every ambiguity that lets two readers disagree on an end refused.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "envelope.h"
#include "http.h"
#include "secrets.h"

enum http_state {
	HS_STATUS,
	HS_HEADER,
	HS_BODY,
	HS_EOF_BODY,
	HS_CHUNK_SIZE,
	HS_CHUNK_DATA,
	HS_CHUNK_CR,
	HS_CHUNK_LF,
	HS_TRAILER,
	HS_DONE,
	HS_ERROR
};

const struct cap_credential http_bearer = { "Authorization", "Bearer " };

static const char	*req_secret_check(const char *, size_t);
static const char	*req_dest_check(const struct destination *);
static const char	*req_env_check(const struct envelope *);
static int	 req_hdrs(const struct envelope *, char *, size_t);
static int	 req_format(char *, size_t, const struct destination *,
		    const struct envelope *, const struct cap_credential *,
		    const char *, size_t, const char *);
static int	 resp_fail(struct http_response *, const char *);
static int	 resp_is_tchar(int);
static int	 resp_is_text(int);
static size_t	 resp_byte(struct http_response *, int);
static void	 resp_line(struct http_response *);
static void	 resp_status(struct http_response *, const char *, size_t);
static void	 resp_header(struct http_response *, const char *, size_t);
static void	 resp_keep(struct http_response *, const char *, size_t,
		    const char *, size_t);
static int	 resp_once(struct http_response *, char **, const char *,
		    const char *, size_t);
static void	 resp_length(struct http_response *, const char *, size_t);
static void	 resp_connection(struct http_response *, const char *, size_t);
static void	 resp_head_end(struct http_response *);
static void	 resp_chunk_size(struct http_response *, const char *, size_t);
static int	 resp_grow(struct http_response *, size_t);
static size_t	 resp_body(struct http_response *, const unsigned char *,
		    size_t);
static size_t	 resp_crlf(struct http_response *, int);

static const char *
req_secret_check(const char *s, size_t len)
{
	size_t	 i;

	if (len == 0)
		return "the secret is empty";
	if (len > SECRET_MAX)
		return "the secret is larger than 16 KiB";
	for (i = 0; i < len; i++) {
		if (s[i] == '\r' || s[i] == '\n')
			return "the secret holds a line break";
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return "the secret holds a control character or a "
			    "byte outside printable ASCII";
	}
	return NULL;
}

/* Only what can never split the request line or a header. */
static const char *
req_dest_check(const struct destination *d)
{
	const char	*p;

	if (d->host[0] == '\0')
		return "the destination has no host";
	for (p = d->host; *p != '\0'; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') &&
		    *p != '-' && *p != '.' && !(*p >= 'A' && *p <= 'Z'))
			return "the destination's host is not a name";
	if (d->path == NULL)
		return NULL;
	if (d->path[0] != '\0' && d->path[0] != '/')
		return "the destination's path does not start with /";
	for (p = d->path; *p != '\0'; p++)
		if (*p <= 0x20 || *p > 0x7e)
			return "the destination's path holds a space, a "
			    "control character or a byte outside ASCII";
	return NULL;
}

static const char *
req_env_check(const struct envelope *env)
{
	const char	*p;
	size_t		 h;

	if (env->method != ENVELOPE_GET && env->method != ENVELOPE_POST)
		return "the method is not GET or POST";
	if (env->method == ENVELOPE_GET && env->body != NULL)
		return "a GET has no body";
	if (env->path[0] != '/')
		return "the path does not start with /";
	for (p = env->path; *p != '\0'; p++)
		if (*p <= 0x20 || *p > 0x7e)
			return "the path holds a space, a control character "
			    "or a byte outside ASCII";
	for (h = 0; h < env->nhdrs; h++) {
		for (p = env->value[h]; *p != '\0'; p++) {
			if (*p == '\r' || *p == '\n')
				return "a header's value holds a line break";
			if (*p < 0x20 || *p > 0x7e)
				return "a header's value holds a control "
				    "character or a byte outside ASCII";
		}
	}
	return NULL;
}

/* A header's name as it goes on the wire: Content-Type. */
static void
req_hdr_name(const char *name, char *out, size_t outsz)
{
	size_t	 i;

	(void)strlcpy(out, name, outsz);
	for (i = 0; out[i] != '\0'; i++)
		if ((i == 0 || out[i - 1] == '-') && out[i] >= 'a' &&
		    out[i] <= 'z')
			out[i] -= 'a' - 'A';
}

static int
req_hdrs(const struct envelope *env, char *buf, size_t bufsz)
{
	char	 name[ENVELOPE_NAME_MAX + 1];
	size_t	 n = 0, h;
	int	 r;

	buf[0] = '\0';
	for (h = 0; h < env->nhdrs; h++) {
		req_hdr_name(env->name[h], name, sizeof(name));
		r = snprintf(buf + n, bufsz - n, "%s: %s\r\n", name,
		    env->value[h]);
		if (r < 0 || (size_t)r >= bufsz - n)
			return -1;
		n += r;
	}
	if (env->method == ENVELOPE_POST) {
		r = snprintf(buf + n, bufsz - n, "Content-Length: %zu\r\n",
		    env->bodylen);
		if (r < 0 || (size_t)r >= bufsz - n)
			return -1;
	}
	return 0;
}

/* The request's head: called once to size it, and once to write it. */
static int
req_format(char *out, size_t outsz, const struct destination *d,
    const struct envelope *env, const struct cap_credential *auth,
    const char *secret, size_t secretlen, const char *hdrs)
{
	char	 port[8] = "";

	if (d->port != (d->tls ? 443 : 80))
		(void)snprintf(port, sizeof(port), ":%u", (unsigned int)d->port);
	return snprintf(out, outsz, "%s %s%s HTTP/1.1\r\nHost: %s%s\r\n"
	    "User-Agent: sandcastle-keep\r\n%s: %s%.*s\r\n%s\r\n",
	    env->method == ENVELOPE_GET ? "GET" : "POST",
	    d->path != NULL ? d->path : "", env->path, d->host, port,
	    auth->header, auth->scheme, (int)secretlen, secret, hdrs);
}

int
http_request_build(const struct destination *d, const struct envelope *env,
    const struct cap_credential *auth, const char *secret, size_t secretlen,
    char **req, size_t *reqlen, const char **why)
{
	char	 hdrs[ENVELOPE_NHDRS * (ENVELOPE_VALUE_MAX + 32) + 64];
	int	 len;

	*req = NULL;
	if ((*why = req_secret_check(secret, secretlen)) != NULL ||
	    (*why = req_dest_check(d)) != NULL ||
	    (*why = req_env_check(env)) != NULL)
		return -1;
	*why = "the request does not fit";
	if (auth == NULL || auth->header == NULL || auth->scheme == NULL ||
	    req_hdrs(env, hdrs, sizeof(hdrs)) == -1 ||
	    (len = req_format(NULL, 0, d, env, auth, secret, secretlen,
	    hdrs)) < 0)
		return -1;
	if ((*req = malloc((size_t)len + 1 + env->bodylen)) == NULL) {
		*why = "out of memory";
		return -1;
	}
	(void)req_format(*req, (size_t)len + 1, d, env, auth, secret,
	    secretlen, hdrs);
	if (env->bodylen > 0)
		memcpy(*req + len, env->body, env->bodylen);
	*reqlen = (size_t)len + env->bodylen;
	*why = NULL;
	return 0;
}

void
http_request_free(char *req, size_t reqlen)
{
	if (req != NULL)
		freezero(req, reqlen);
}

void
http_response_init(struct http_response *r, int head)
{
	memset(r, 0, offsetof(struct http_response, line));
	r->line[0] = '\0';
	r->content_length = -1;
	r->nobody = head;
	r->state = HS_STATUS;
}

void
http_response_body_in(struct http_response *r, void *buf, size_t size)
{
	r->body = buf;
	r->bodysize = size;
	r->bodyfixed = 1;
}

void
http_response_body_to(struct http_response *r, int fd)
{
	r->body = NULL;
	r->bodysize = HTTP_BODY_MAX;
	r->bodyfixed = 1;
	r->bodyfd = fd;
}

void
http_response_free(struct http_response *r)
{
	free(r->content_type);
	free(r->retry_after);
	free(r->location);
	if (!r->bodyfixed)
		free(r->body);
	http_response_init(r, r->nobody);
}

static int
resp_fail(struct http_response *r, const char *why)
{
	if (r->state != HS_ERROR) {
		r->state = HS_ERROR;
		r->why = why;
	}
	return HTTP_ERROR;
}

static int
resp_is_tchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int
resp_is_text(int c)
{
	return c == '\t' || (c >= 0x20 && c <= 0x7e);
}

/* A byte of a line: CRLF ends it, and a CR or an LF alone is an error. */
static size_t
resp_byte(struct http_response *r, int c)
{
	int	 head = r->state != HS_CHUNK_SIZE;

	if (head && ++r->seclen > HTTP_HEAD_MAX) {
		resp_fail(r, r->state == HS_TRAILER ?
		    "trailer section over 32 KiB" :
		    "header section over 32 KiB");
		return 1;
	}
	if (c == '\n') {
		if (r->linelen == 0 || r->line[r->linelen - 1] != '\r') {
			resp_fail(r, "a bare LF");
			return 1;
		}
		r->line[--r->linelen] = '\0';
		resp_line(r);
		r->linelen = 0;
	} else if (r->linelen > 0 && r->line[r->linelen - 1] == '\r')
		resp_fail(r, "a bare CR");
	else if (!head && r->linelen >= HTTP_CHUNKLINE_MAX)
		resp_fail(r, "bad chunk size");
	else
		r->line[r->linelen++] = c;
	return 1;
}

static void
resp_line(struct http_response *r)
{
	switch (r->state) {
	case HS_STATUS:
		resp_status(r, r->line, r->linelen);
		break;
	case HS_HEADER:
	case HS_TRAILER:
		if (r->linelen == 0 && r->state == HS_TRAILER)
			r->state = HS_DONE;
		else if (r->linelen == 0)
			resp_head_end(r);
		else if (++r->nlines > HTTP_MAXLINES)
			resp_fail(r, r->state == HS_TRAILER ?
			    "too many trailer lines" : "too many header lines");
		else
			resp_header(r, r->line, r->linelen);
		break;
	case HS_CHUNK_SIZE:
		resp_chunk_size(r, r->line, r->linelen);
		break;
	}
}

static void
resp_status(struct http_response *r, const char *s, size_t n)
{
	size_t	 i;

	if (n < 13 || (memcmp(s, "HTTP/1.1 ", 9) != 0 &&
	    memcmp(s, "HTTP/1.0 ", 9) != 0) ||
	    s[9] < '1' || s[9] > '5' || s[10] < '0' || s[10] > '9' ||
	    s[11] < '0' || s[11] > '9' || s[12] != ' ') {
		resp_fail(r, "bad status line");
		return;
	}
	for (i = 13; i < n; i++)
		if (!resp_is_text((unsigned char)s[i])) {
			resp_fail(r, "bad status line");
			return;
		}
	r->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	r->http11 = s[7] == '1';
	if (r->status < 200)
		resp_fail(r, "an informational answer");
	else
		r->state = HS_HEADER;
}

static void
resp_header(struct http_response *r, const char *s, size_t n)
{
	size_t	 name, v, end, i;

	if (s[0] == ' ' || s[0] == '\t') {
		resp_fail(r, "a folded header line (obs-fold)");
		return;
	}
	for (name = 0; name < n && resp_is_tchar((unsigned char)s[name]);
	    name++)
		;
	if (name == 0 || name == n || s[name] != ':') {
		resp_fail(r, "bad header line");
		return;
	}
	for (v = name + 1; v < n && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	for (end = n; end > v && (s[end - 1] == ' ' || s[end - 1] == '\t');
	    end--)
		;
	for (i = v; i < end; i++)
		if (!resp_is_text((unsigned char)s[i])) {
			resp_fail(r, "bad header value");
			return;
		}
	if (r->state == HS_HEADER)
		resp_keep(r, s, name, s + v, end - v);
}

static int
resp_once(struct http_response *r, char **slot, const char *twice,
    const char *v, size_t vlen)
{
	if (*slot != NULL)
		return resp_fail(r, twice);
	if ((*slot = strndup(v, vlen)) == NULL)
		return resp_fail(r, "out of memory");
	return 0;
}

static void
resp_keep(struct http_response *r, const char *name, size_t nlen,
    const char *v, size_t vlen)
{
#define IS(s)	(nlen == sizeof(s) - 1 && strncasecmp(name, s, nlen) == 0)
	if (IS("content-type"))
		(void)resp_once(r, &r->content_type,
		    "two Content-Type headers", v, vlen);
	else if (IS("retry-after"))
		(void)resp_once(r, &r->retry_after,
		    "two Retry-After headers", v, vlen);
	else if (IS("location"))
		(void)resp_once(r, &r->location, "two Location headers",
		    v, vlen);
	else if (IS("content-length"))
		resp_length(r, v, vlen);
	else if (IS("connection"))
		resp_connection(r, v, vlen);
	else if (IS("transfer-encoding")) {
		if (r->chunked)
			resp_fail(r, "two Transfer-Encoding headers");
		else if (vlen != 7 || strncasecmp(v, "chunked", 7) != 0)
			resp_fail(r, "a Transfer-Encoding other than chunked");
		else
			r->chunked = 1;
	}
#undef IS
}

static void
resp_length(struct http_response *r, const char *v, size_t n)
{
	int64_t	 len = 0;
	size_t	 i;

	if (r->content_length != -1) {
		resp_fail(r, "two Content-Length headers");
		return;
	}
	if (n == 0) {
		resp_fail(r, "bad Content-Length");
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9') {
			resp_fail(r, "bad Content-Length");
			return;
		}
		/* Past the cap the value no longer matters: keep it there. */
		if ((len = len * 10 + (v[i] - '0')) > HTTP_BODY_MAX)
			len = (int64_t)HTTP_BODY_MAX + 1;
	}
	r->content_length = len;
}

static void
resp_connection(struct http_response *r, const char *v, size_t n)
{
	size_t	 i = 0, start, end;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		for (start = i; i < n && v[i] != ','; i++)
			;
		for (end = i; end > start && (v[end - 1] == ' ' ||
		    v[end - 1] == '\t'); end--)
			;
		if (end - start == 5 && strncasecmp(v + start, "close", 5) == 0)
			r->close = 1;
	}
}

static void
resp_head_end(struct http_response *r)
{
	if (r->content_length != -1 && r->chunked) {
		resp_fail(r, "Content-Length and Transfer-Encoding both");
		return;
	}
	if (r->nobody || r->status == 204 || (r->status >= 300 &&
	    r->status < 400))
		r->state = HS_DONE;
	else if (r->chunked)
		r->state = HS_CHUNK_SIZE;
	else if (r->content_length > (int64_t)HTTP_BODY_MAX)
		resp_fail(r, "body over 32 MiB");
	else if (r->content_length == 0)
		r->state = HS_DONE;
	else if (r->content_length > 0) {
		r->left = r->content_length;
		if (resp_grow(r, r->left) == 0)
			r->state = HS_BODY;
	} else
		r->state = HS_EOF_BODY;
}

static void
resp_chunk_size(struct http_response *r, const char *s, size_t n)
{
	size_t	 i, size = 0;
	int	 c;

	for (i = 0; i < n && i < 9; i++) {
		c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			size = size << 4 | (size_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			size = size << 4 | (size_t)((c | 0x20) - 'a' + 10);
		else
			break;
	}
	if (i == 0 || i > 8 || (i < n && s[i] != ';')) {
		resp_fail(r, "bad chunk size");
		return;
	}
	for (; i < n; i++)
		if (!resp_is_text((unsigned char)s[i])) {
			resp_fail(r, "bad chunk size");
			return;
		}
	if (size > HTTP_BODY_MAX - r->bodylen)
		resp_fail(r, "body over 32 MiB");
	else if (size == 0) {
		r->state = HS_TRAILER;
		r->seclen = 0;
		r->nlines = 0;
	} else {
		r->left = size;
		r->state = HS_CHUNK_DATA;
	}
}

/* Room for n more bytes of body; the callers keep it within the cap. */
static int
resp_grow(struct http_response *r, size_t n)
{
	unsigned char	*p;
	size_t		 size;

	if (r->bodylen + n <= r->bodysize)
		return 0;
	if (r->bodyfixed)
		return resp_fail(r, "body over 32 MiB");
	size = r->bodysize == 0 ? 16384 : r->bodysize;
	while (size < r->bodylen + n)
		size *= 2;
	if (size > HTTP_BODY_MAX)
		size = HTTP_BODY_MAX;
	if ((p = realloc(r->body, size)) == NULL)
		return resp_fail(r, "out of memory");
	r->body = p;
	r->bodysize = size;
	return 0;
}

/* Written, not mapped: a store would fault and zero a fresh page first. */
static int
resp_land(struct http_response *r, const unsigned char *p, size_t n)
{
	ssize_t	 w;

	if (r->body != NULL) {
		memcpy(r->body + r->bodylen, p, n);
		return 0;
	}
	while (n > 0) {
		if ((w = write(r->bodyfd, p, n)) == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return resp_fail(r, "the body cannot be written");
		p += w;
		n -= w;
	}
	return 0;
}

static size_t
resp_body(struct http_response *r, const unsigned char *p, size_t n)
{
	if (r->state != HS_EOF_BODY && n > r->left)
		n = r->left;
	if (r->state == HS_EOF_BODY && n > HTTP_BODY_MAX - r->bodylen) {
		resp_fail(r, "body over 32 MiB");
		return n;
	}
	if (resp_grow(r, n) == -1 || resp_land(r, p, n) == -1)
		return n;
	r->bodylen += n;
	if (r->state == HS_EOF_BODY)
		return n;
	if ((r->left -= n) == 0)
		r->state = r->state == HS_BODY ? HS_DONE : HS_CHUNK_CR;
	return n;
}

static size_t
resp_crlf(struct http_response *r, int c)
{
	if (c != (r->state == HS_CHUNK_CR ? '\r' : '\n'))
		resp_fail(r, "missing CRLF after a chunk");
	else
		r->state = r->state == HS_CHUNK_CR ? HS_CHUNK_LF :
		    HS_CHUNK_SIZE;
	return 1;
}

int
http_response_feed(struct http_response *r, const void *buf, size_t len,
    size_t *used)
{
	const unsigned char	*p = buf;
	size_t			 i = 0;

	while (i < len && r->state < HS_DONE) {
		switch (r->state) {
		case HS_BODY:
		case HS_EOF_BODY:
		case HS_CHUNK_DATA:
			i += resp_body(r, p + i, len - i);
			break;
		case HS_CHUNK_CR:
		case HS_CHUNK_LF:
			i += resp_crlf(r, p[i]);
			break;
		default:
			i += resp_byte(r, p[i]);
			break;
		}
	}
	*used = i;
	if (r->state == HS_DONE)
		return HTTP_DONE;
	return r->state == HS_ERROR ? HTTP_ERROR : HTTP_MORE;
}

int
http_response_eof(struct http_response *r)
{
	if (r->state == HS_EOF_BODY || r->state == HS_DONE) {
		r->state = HS_DONE;
		return HTTP_DONE;
	}
	return resp_fail(r, "the answer ended early");
}

int
http_response_reusable(const struct http_response *r)
{
	if (r->state != HS_DONE || !r->http11 || r->close)
		return 0;
	if (r->status >= 300 && r->status < 400)
		return 0;
	if (r->nobody || r->status == 204)
		return 1;
	return r->chunked || r->content_length >= 0;
}
