/*
 * libFuzzer target for box/schema.c: the input is a schema, a newline
 * and a value.  The walk must end within its bounds whatever the two
 * are, and say why whenever it refuses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../box/schema.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data, *nl, *why;
	struct json	 s;
	char		 reason[SCHEMA_WHY_MAX];
	int		 r;

	if ((nl = memchr(p, '\n', size)) == NULL)
		return 0;
	if (json_parse(&s, p, nl - p, &why) == -1)
		return 0;
	r = schema_reply(&s, 0, nl + 1, size - (nl + 1 - p), reason,
	    sizeof(reason));
	if (r != SCHEMA_OK && r != SCHEMA_MISMATCH && r != SCHEMA_UNUSABLE &&
	    r != SCHEMA_NOTJSON)
		abort();
	if (r != SCHEMA_OK && r != SCHEMA_NOTJSON &&
	    (reason[0] != '$' && reason[0] != 't'))
		abort();
	json_free(&s);
	return 0;
}
