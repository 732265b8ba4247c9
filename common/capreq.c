/* The request's values and a box's words quoted, for each row's check. */
#include <stdio.h>
#include <string.h>

#include "capreq.h"
#include "json.h"
#include "log.h"

/* The box's value as a reason may quote it: a string unescaped, printable. */
const char *
capreq_quote(const struct json *j, size_t tok, char *buf, size_t bufsz)
{
	const char	*raw;
	size_t		 n, i;

	if (j->toks[tok].type == JSON_STRING)
		(void)json_string_copy(j, tok, buf, bufsz, &n);
	else {
		raw = json_raw(j, tok, &n);
		if (n >= bufsz)
			n = bufsz - 1;
		memcpy(buf, raw, n);
		buf[n] = '\0';
	}
	if (n >= bufsz)
		n = bufsz - 1;
	for (i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			buf[i] = '?';
	buf[n] = '\0';
	return buf;
}

int
capreq_string_is(const struct json *j, long tok, const char *s)
{
	return tok > 0 && j->toks[tok].type == JSON_STRING &&
	    json_streq(j, tok, s);
}

/* obj an object of exactly keys (NULL-ended): the first other, or missing. */
int
capreq_keys(const struct json *j, size_t obj, const char *const *keys,
    const char *what, char *why, size_t whysz)
{
	char	 q[CAPREQ_QUOTE_MAX + 1];
	size_t	 m, k, i;

	if (obj == 0 || j->toks[obj].type != JSON_OBJECT)
		return failwhy(why, whysz, "%s is not an object", what);
	for (m = 0, k = obj + 1; m < j->toks[obj].size;
	    m++, k = json_next(j, k + 1)) {
		for (i = 0; keys[i] != NULL; i++)
			if (json_streq(j, k, keys[i]))
				break;
		if (keys[i] == NULL)
			return failwhy(why, whysz, "%s: %s is a key the box "
			    "never sends", what, capreq_quote(j, k, q,
			    sizeof(q)));
	}
	for (i = 0; keys[i] != NULL; i++)
		if (json_find(j, obj, keys[i]) == -1)
			return failwhy(why, whysz, "%s: no %s", what, keys[i]);
	return 0;
}

void
capreq_of(struct capreq *r, const struct json *j, size_t obj)
{
	long	 t;

	memset(r, 0, sizeof(*r));
	r->j = j;
	if ((t = json_find(j, obj, "method")) != -1)
		r->method = t;
	if ((t = json_find(j, obj, "path")) != -1)
		r->path = t;
	if ((t = json_find(j, obj, "headers")) != -1)
		r->headers = t;
	if ((t = json_find(j, obj, "body")) != -1)
		r->body = t;
}
