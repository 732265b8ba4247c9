/*
 * The reply's check against the job's schema, in the subset of JSON
 * Schema the Claude API takes for a structured output: type (one name
 * or a list; an integer is a number with no fraction, so 1.0 is one),
 * properties, required, additionalProperties (false, true or a schema),
 * items, enum, const, anyOf, allOf, and $ref to "#", "#/$defs/<name>"
 * or "#/definitions/<name>".  Every other keyword (description, title,
 * and those outside the subset, which the API refuses itself) is left
 * alone: the API judges the schema, this only judges the reply.
 *
 * The walk is bounded: SCHEMA_MAXDEPTH schemas inside each other,
 * SCHEMA_MAXREFS $ref in a row with no step into the reply (a loop),
 * and SCHEMA_MAXSTEPS steps in all.
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

/*
 * Checks the value vtok of v against the schema stok of s.  Anything
 * but SCHEMA_OK comes with why, which names the reply's JSON path:
 * "$.tags[2]: is a number, the schema wants a string".
 */
enum schema_verdict schema_validate(const struct json *s, size_t stok,
		    const struct json *v, size_t vtok, char *why,
		    size_t whysz);

#endif
