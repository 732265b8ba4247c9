/*
 * The reply against the job's schema, in the subset of JSON Schema the API
 * takes for structured outputs: the API judges the schema, this the reply.
 */
#ifndef SANDCASTLE_BOX_SCHEMA_H
#define SANDCASTLE_BOX_SCHEMA_H

#include <stddef.h>

#include "json.h"

#define SCHEMA_MAXDEPTH		64
#define SCHEMA_MAXREFS		32
#define SCHEMA_MAXSTEPS		100000
#define SCHEMA_WHY_MAX		384

enum schema_verdict {
	SCHEMA_OK = 0,
	SCHEMA_MISMATCH = -1,
	SCHEMA_UNUSABLE = -2,	/* the schema or a bound stopped the walk */
	SCHEMA_NOTJSON = -3
};

/*
 * text parsed as JSON, then held to the schema at root ("#" for $ref); why
 * names the reply's JSON path ("$.tags[2]: ..."), or the parser's reason.
 */
enum schema_verdict schema_reply(const struct json *s, size_t root,
		    const char *text, size_t len, char *why, size_t whysz);
/* 1 for a keyword the box checks, 0 for one it leaves to the API. */
int		 schema_keyword(const char *name);

#endif
