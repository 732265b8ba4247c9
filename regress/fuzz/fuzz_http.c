/*
 * libFuzzer target for keepd/http.c: an answer fed whole and in steps
 * must end the same way; the same bytes as a path, a header's value and
 * a secret are refused or make exactly the lines the keep writes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../keepd/http.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct http_response	 whole, steps;
static unsigned char		 stepsbody[HTTP_BODY_MAX];

static int
run(struct http_response *r, const uint8_t *p, size_t n, size_t step,
    size_t *off)
{
	size_t	 took, k;
	int	 rv = HTTP_MORE;

	*off = 0;
	while (*off < n && rv == HTTP_MORE) {
		k = n - *off < step ? n - *off : step;
		rv = http_response_feed(r, p + *off, k, &took);
		if (took > k || (rv == HTTP_MORE && took != k))
			abort();
		*off += took;
	}
	if (rv == HTTP_MORE)
		rv = http_response_eof(r);
	if ((rv == HTTP_ERROR) != (r->why != NULL) || r->bodylen > HTTP_BODY_MAX)
		abort();
	return rv;
}

static size_t
take(char *dst, size_t dstsz, const uint8_t **p, size_t *n)
{
	size_t	 k;

	if (*n == 0)
		return 0;
	k = **p % dstsz;
	(*p)++;
	(*n)--;
	if (k > *n)
		k = *n;
	memcpy(dst, *p, k);
	dst[k] = '\0';
	*p += k;
	*n -= k;
	return k;
}

/* Request line, Host, User-Agent, the secret, Accept, the end. */
static void
request(const uint8_t *p, size_t n)
{
	static struct envelope	 env;
	struct destination	 d;
	char			 secret[256], *req;
	const char		*why, *c, *end;
	size_t			 slen, len, lines = 0;

	memset(&env, 0, sizeof(env));
	memset(&d, 0, sizeof(d));
	strlcpy(d.host, "notes.example.com", sizeof(d.host));
	d.port = 443;
	d.tls = 1;
	env.method = ENVELOPE_GET;
	env.path[0] = '/';
	(void)take(env.path + 1, sizeof(env.path) - 1, &p, &n);
	env.nhdrs = 1;
	(void)strlcpy(env.name[0], "accept", sizeof(env.name[0]));
	(void)take(env.value[0], sizeof(env.value[0]), &p, &n);
	slen = take(secret, sizeof(secret), &p, &n);
	if (http_request_build(&d, &env, &http_bearer, secret, slen,
	    &req, &len, &why) != 0) {
		if (why == NULL || req != NULL)
			abort();
		return;
	}
	end = req + len;
	for (c = req; c < end; c++) {
		if ((*c == '\n' && (c == req || c[-1] != '\r')) ||
		    (*c == '\r' && (c + 1 == end || c[1] != '\n')))
			abort();
		lines += *c == '\n';
	}
	if (lines != 6 || memcmp(end - 4, "\r\n\r\n", 4) != 0)
		abort();
	http_request_free(req, len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t	 step, off1, off2;
	int	 head, rv1, rv2;

	if (size < 1)
		return 0;
	step = (data[0] & 0x7f) + 1;
	head = data[0] >> 7;
	http_response_init(&whole, head);
	http_response_init(&steps, head);
	/* The keep's own way: the body in a buffer of the caller's. */
	http_response_body_in(&steps, stepsbody, sizeof(stepsbody));
	rv1 = run(&whole, data + 1, size - 1, size, &off1);
	rv2 = run(&steps, data + 1, size - 1, step, &off2);
	if (rv1 != rv2 || (rv1 == HTTP_DONE && (off1 != off2 ||
	    whole.status != steps.status || whole.bodylen != steps.bodylen ||
	    http_response_reusable(&whole) != http_response_reusable(&steps) ||
	    (whole.bodylen > 0 && memcmp(whole.body, steps.body,
	    whole.bodylen) != 0))))
		abort();
	if (rv1 == HTTP_ERROR && strcmp(whole.why, steps.why) != 0)
		abort();
	http_response_free(&whole);
	http_response_free(&steps);
	request(data + 1, size - 1);
	return 0;
}
