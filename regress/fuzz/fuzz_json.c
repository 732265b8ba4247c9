/*
 * libFuzzer target for common/json.c: whatever json_parse() takes must
 * hold together (every token inside the text, every step forward), and
 * every string in it must come back the same through the writer and the
 * parser again.  json_parse_lone() takes all json_parse() takes, the same
 * tokens, and its strings copy whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A string written by the writer and parsed back is the same string. */
static void
round_trip(const struct json *j, size_t tok)
{
	struct json_writer	 w;
	struct json		 back;
	const char		*why;
	char			*s, *out, *again;
	size_t			 len, outlen, againlen, raw;

	raw = j->toks[tok].end - j->toks[tok].start;
	if ((s = malloc(raw + 1)) == NULL || (again = malloc(raw + 1)) == NULL)
		abort();
	if (json_string_copy(j, tok, s, raw + 1, &len) != 0 || len > raw)
		abort();
	json_writer_init(&w);
	json_write_string_len(&w, s, len);
	if ((out = json_writer_finish(&w, &outlen)) == NULL)
		abort();
	if (json_parse(&back, out, outlen, &why) != 0 ||
	    back.toks[0].type != JSON_STRING)
		abort();
	if (json_string_copy(&back, 0, again, raw + 1, &againlen) != 0 ||
	    againlen != len || memcmp(s, again, len) != 0)
		abort();
	json_free(&back);
	free(out);
	free(again);
	free(s);
}

/* The lenient parse: its strings copy whole, and it agrees with the strict one. */
static void
lone(const char *data, size_t size, const struct json *strict)
{
	struct json	 j;
	const char	*why;
	char		*s;
	size_t		 i, raw, len;

	if (json_parse_lone(&j, data, size, &why) != 0) {
		if (strict != NULL || why == NULL || j.toks != NULL)
			abort();
		return;
	}
	if (strict != NULL && (strict->ntoks != j.ntoks || memcmp(strict->toks,
	    j.toks, j.ntoks * sizeof(*j.toks)) != 0))
		abort();
	for (i = 0; i < j.ntoks; i++) {
		if (j.toks[i].type != JSON_STRING)
			continue;
		raw = j.toks[i].end - j.toks[i].start;
		if ((s = malloc(raw + 1)) == NULL)
			abort();
		if (json_string_copy(&j, i, s, raw + 1, &len) != 0 || len > raw)
			abort();
		free(s);
	}
	json_free(&j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json	 j;
	const char	*why;
	size_t		 i;

	if (json_parse(&j, (const char *)data, size, &why) != 0) {
		if (why == NULL || j.toks != NULL || j.erroff > size)
			abort();
		lone((const char *)data, size, NULL);
		return 0;
	}
	lone((const char *)data, size, &j);
	if (j.ntoks == 0 || j.toks[0].next != j.ntoks)
		abort();
	for (i = 0; i < j.ntoks; i++) {
		if (j.toks[i].next <= i || j.toks[i].next > j.ntoks ||
		    j.toks[i].start > j.toks[i].end || j.toks[i].end > size)
			abort();
		if (j.toks[i].type == JSON_STRING)
			round_trip(&j, i);
	}
	json_free(&j);
	return 0;
}
