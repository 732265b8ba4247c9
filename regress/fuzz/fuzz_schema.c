/*
 * libFuzzer target for box/schema.c: the input is a schema, a newline
 * and a value.  The walk must end within its bounds whatever the two
 * are, and say why whenever it refuses.  The schema is checked twice,
 * alone and inside a job line as the box has it, and must be judged the
 * same both times: a $ref is read within the schema, wherever it sits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../box/schema.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
check(const struct json *s, size_t root, const char *value, size_t len,
    char *why, size_t whysz)
{
	int	 r;

	r = schema_reply(s, root, value, len, why, whysz);
	if (r != SCHEMA_OK && r != SCHEMA_MISMATCH && r != SCHEMA_UNUSABLE &&
	    r != SCHEMA_NOTJSON)
		abort();
	if ((r == SCHEMA_MISMATCH || r == SCHEMA_UNUSABLE) &&
	    why[0] != '$' && why[0] != 't')
		abort();
	return r;
}

/* The job line around the schema, with a $defs of its own as a decoy. */
static void
nested(const char *schema, size_t slen, const char *value, size_t vlen,
    const int *alone, const char *whyalone)
{
	struct json	 job;
	const char	*jwhy, *raw;
	char		*line, why[SCHEMA_WHY_MAX];
	size_t		 rawlen;
	long		 root;
	int		 n, r;

	if ((n = asprintf(&line, "{\"prompt\":\"p\",\"$defs\":{\"a\":false},"
	    "\"schema\":%.*s}", (int)slen, schema)) == -1)
		abort();
	if (json_parse(&job, line, (size_t)n, &jwhy) == -1) {
		free(line);
		return;
	}
	if ((root = json_find(&job, 0, "schema")) != -1) {
		r = check(&job, root, value, vlen, why, sizeof(why));
		raw = json_raw(&job, root, &rawlen);
		/* The schema alone parsed to the same text: the same verdict. */
		if (alone != NULL && rawlen == slen &&
		    memcmp(raw, schema, slen) == 0 &&
		    (r != *alone || strcmp(why, whyalone) != 0))
			abort();
	}
	json_free(&job);
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data, *nl, *why;
	struct json	 s;
	char		 reason[SCHEMA_WHY_MAX];
	size_t		 slen, vlen;
	int		 r, parsed;

	if ((nl = memchr(p, '\n', size)) == NULL)
		return 0;
	slen = nl - p;
	vlen = size - slen - 1;
	if ((parsed = json_parse(&s, p, slen, &why) == 0)) {
		r = check(&s, 0, nl + 1, vlen, reason, sizeof(reason));
		json_free(&s);
	}
	nested(p, slen, nl + 1, vlen, parsed ? &r : NULL, reason);
	return 0;
}
