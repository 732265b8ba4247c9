/*
 * The reply against the job's schema, in the subset of JSON Schema the
 * Claude API takes for a structured output (1.0 is an integer); other
 * keywords are left alone: the API judges the schema, this the reply.
 * Bounded by SCHEMA_MAXDEPTH, SCHEMA_MAXREFS (a $ref loop) and
 * SCHEMA_MAXSTEPS.
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
	SCHEMA_MISMATCH = -1,	/* the reply does not satisfy the schema */
	SCHEMA_UNUSABLE = -2	/* the schema or a bound stopped the walk */
};

/* why names the reply's JSON path: "$.tags[2]: is a number, ...". */
enum schema_verdict schema_validate(const struct json *s, size_t stok,
		    const struct json *v, size_t vtok, char *why,
		    size_t whysz);

#endif
