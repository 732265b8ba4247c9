/*
 * The reply's check against the job's schema (box/schema.c): for each
 * keyword a reply it takes (the control) and one it refuses, with the
 * reason and the reply's path; then the bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../../box/schema.h"

static char	 why[SCHEMA_WHY_MAX];

static int
verdict(const char *schema, const char *value)
{
	struct json	 s, v;
	const char	*jwhy;
	int		 r;

	ATF_REQUIRE_MSG(json_parse(&s, schema, strlen(schema), &jwhy) == 0,
	    "schema %s: %s", schema, jwhy);
	ATF_REQUIRE_MSG(json_parse(&v, value, strlen(value), &jwhy) == 0,
	    "value %s: %s", value, jwhy);
	r = schema_validate(&s, 0, &v, 0, why, sizeof(why));
	json_free(&s);
	json_free(&v);
	return r;
}

static void
takes(const char *schema, const char *value)
{
	ATF_CHECK_MSG(verdict(schema, value) == SCHEMA_OK, "%s against %s: %s",
	    value, schema, why);
}

static void
refuses(const char *schema, const char *value, int want, const char *reason)
{
	int	 r = verdict(schema, value);

	ATF_CHECK_MSG(r == want && strcmp(why, reason) == 0,
	    "%s against %s: wanted \"%s\", got %d \"%s\"", value, schema,
	    reason, r, why);
}

ATF_TC_WITHOUT_HEAD(type);
ATF_TC_BODY(type, tc)
{
	takes("{\"type\":\"string\"}", "\"a\"");
	refuses("{\"type\":\"string\"}", "1", SCHEMA_MISMATCH,
	    "$: is a number, the schema wants a string");
	takes("{\"type\":\"boolean\"}", "false");
	refuses("{\"type\":\"boolean\"}", "null", SCHEMA_MISMATCH,
	    "$: is null, the schema wants a boolean");
	takes("{\"type\":\"null\"}", "null");
	takes("{\"type\":\"object\"}", "{}");
	refuses("{\"type\":\"array\"}", "{}", SCHEMA_MISMATCH,
	    "$: is an object, the schema wants an array");
	takes("{\"type\":[\"string\",\"null\"]}", "null");
	takes("{\"type\":[\"string\",\"null\"]}", "\"x\"");
	refuses("{\"type\":[\"string\",\"null\"]}", "[]", SCHEMA_MISMATCH,
	    "$: is an array, the schema wants a string or null");
	refuses("{\"type\":\"text\"}", "1", SCHEMA_UNUSABLE,
	    "the schema, at $: type names no JSON Schema type");
}

/* JSON Schema: a number with a zero fraction is an integer. */
ATF_TC_WITHOUT_HEAD(integer);
ATF_TC_BODY(integer, tc)
{
	takes("{\"type\":\"integer\"}", "3");
	takes("{\"type\":\"integer\"}", "-3");
	takes("{\"type\":\"integer\"}", "1.0");
	takes("{\"type\":\"integer\"}", "1.5e1");
	takes("{\"type\":\"integer\"}", "100e-2");
	takes("{\"type\":\"integer\"}", "0.0");
	refuses("{\"type\":\"integer\"}", "1.5", SCHEMA_MISMATCH,
	    "$: is a number, the schema wants an integer");
	refuses("{\"type\":\"integer\"}", "15e-1", SCHEMA_MISMATCH,
	    "$: is a number, the schema wants an integer");
	refuses("{\"type\":\"integer\"}", "\"1\"", SCHEMA_MISMATCH,
	    "$: is a string, the schema wants an integer");
	takes("{\"type\":\"number\"}", "1.5");
}

ATF_TC_WITHOUT_HEAD(properties);
ATF_TC_BODY(properties, tc)
{
	const char	*s = "{\"type\":\"object\",\"properties\":{\"tags\":"
			    "{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
			    "\"n\":{\"type\":\"integer\"}},\"required\":[\"tags\"]}";

	takes(s, "{\"tags\":[\"a\",\"b\"],\"n\":2,\"other\":true}");
	refuses(s, "{\"tags\":[\"a\",\"b\",3]}", SCHEMA_MISMATCH,
	    "$.tags[2]: is a number, the schema wants a string");
	refuses(s, "{\"n\":1}", SCHEMA_MISMATCH,
	    "$: lacks the required property \"tags\"");
	refuses(s, "{\"tags\":[],\"n\":\"x\"}", SCHEMA_MISMATCH,
	    "$.n: is a string, the schema wants an integer");
	refuses("{\"properties\":{\"a b\":{\"type\":\"null\"}}}",
	    "{\"a b\":1}", SCHEMA_MISMATCH,
	    "$[\"a b\"]: is a number, the schema wants null");
}

ATF_TC_WITHOUT_HEAD(additional);
ATF_TC_BODY(additional, tc)
{
	const char	*s = "{\"type\":\"object\",\"properties\":{\"a\":{}},"
			    "\"additionalProperties\":false}";

	takes(s, "{\"a\":1}");
	refuses(s, "{\"a\":1,\"b\":2}", SCHEMA_MISMATCH,
	    "$.b: is not allowed: additionalProperties is false");
	takes("{\"properties\":{\"a\":{}},\"additionalProperties\":true}",
	    "{\"a\":1,\"b\":2}");
	takes("{\"additionalProperties\":{\"type\":\"number\"}}",
	    "{\"b\":2}");
	refuses("{\"additionalProperties\":{\"type\":\"number\"}}",
	    "{\"b\":\"2\"}", SCHEMA_MISMATCH,
	    "$.b: is a string, the schema wants a number");
}

ATF_TC_WITHOUT_HEAD(enum_const);
ATF_TC_BODY(enum_const, tc)
{
	takes("{\"enum\":[\"red\",1,null,{\"a\":[1]}]}", "\"red\"");
	takes("{\"enum\":[\"red\",1,null,{\"a\":[1]}]}", "1.0");
	takes("{\"enum\":[\"red\",1,null,{\"a\":[1]}]}", "{\"a\":[1]}");
	takes("{\"enum\":[\"r\\u0065d\"]}", "\"red\"");
	refuses("{\"enum\":[\"red\",1]}", "\"blue\"", SCHEMA_MISMATCH,
	    "$: is none of the schema's enum values");
	takes("{\"const\":{\"x\":true,\"y\":false}}", "{\"y\":false,\"x\":true}");
	refuses("{\"const\":{\"x\":true}}", "{\"x\":false}", SCHEMA_MISMATCH,
	    "$: is not the schema's const value");
}

ATF_TC_WITHOUT_HEAD(any_all);
ATF_TC_BODY(any_all, tc)
{
	const char	*any = "{\"anyOf\":[{\"type\":\"string\"},"
			    "{\"type\":\"integer\"}]}";
	const char	*all = "{\"allOf\":[{\"type\":\"object\"},"
			    "{\"required\":[\"a\"]}]}";

	takes(any, "\"x\"");
	takes(any, "4");
	refuses(any, "true", SCHEMA_MISMATCH, "$: matches none of the 2 "
	    "schemas of anyOf (the first says $: is a boolean, the schema "
	    "wants a string)");
	takes(all, "{\"a\":0}");
	refuses(all, "{\"b\":0}", SCHEMA_MISMATCH,
	    "$: lacks the required property \"a\"");
}

ATF_TC_WITHOUT_HEAD(ref);
ATF_TC_BODY(ref, tc)
{
	const char	*s = "{\"$defs\":{\"tag\":{\"type\":\"string\"}},"
			    "\"definitions\":{\"n\":{\"type\":\"integer\"}},"
			    "\"properties\":{\"t\":{\"$ref\":\"#/$defs/tag\"},"
			    "\"n\":{\"$ref\":\"#/definitions/n\"}}}";
	const char	*tree = "{\"type\":\"object\",\"properties\":{\"kids\":"
			    "{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}}}";

	takes(s, "{\"t\":\"a\",\"n\":1}");
	refuses(s, "{\"t\":1}", SCHEMA_MISMATCH,
	    "$.t: is a number, the schema wants a string");
	refuses(s, "{\"n\":1.5}", SCHEMA_MISMATCH,
	    "$.n: is a number, the schema wants an integer");
	/* A recursive schema steps into the reply each time: no loop. */
	takes(tree, "{\"kids\":[{\"kids\":[{}]},{}]}");
	refuses(tree, "{\"kids\":[{\"kids\":[1]}]}", SCHEMA_MISMATCH,
	    "$.kids[0].kids[0]: is a number, the schema wants an object");
	refuses("{\"$ref\":\"https://example.com/s.json\"}", "1",
	    SCHEMA_UNUSABLE, "the schema, at $: the $ref "
	    "https://example.com/s.json is not a definition of the schema "
	    "(#/$defs/... or #/definitions/...)");
	refuses("{\"$ref\":\"#/$defs/none\",\"$defs\":{}}", "1",
	    SCHEMA_UNUSABLE, "the schema, at $: the $ref #/$defs/none is not "
	    "a definition of the schema (#/$defs/... or #/definitions/...)");
}

ATF_TC_WITHOUT_HEAD(ref_cycle);
ATF_TC_BODY(ref_cycle, tc)
{
	refuses("{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":{\"$ref\":"
	    "\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/a\"}}}", "1",
	    SCHEMA_UNUSABLE, "the schema, at $: more than 32 $ref in a row: "
	    "the $ref loops");
	refuses("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":"
	    "\"#/$defs/a\"}", "1", SCHEMA_UNUSABLE,
	    "the schema, at $: a $ref to its own schema: the $ref loops");
	/* Control: a chain without a loop ends. */
	takes("{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":{\"$ref\":"
	    "\"#/$defs/b\"},\"b\":{\"type\":\"number\"}}}", "1");
}

/* allOf inside each other, n deep. */
static char *
deep(int n)
{
	char	*s = malloc(n * 12 + 32), *p = s;
	int	 i;

	ATF_REQUIRE(s != NULL);
	for (i = 0; i < n; i++)
		p += sprintf(p, "{\"allOf\":[");
	p += sprintf(p, "true");
	for (i = 0; i < n; i++)
		p += sprintf(p, "]}");
	return s;
}

ATF_TC_WITHOUT_HEAD(depth);
ATF_TC_BODY(depth, tc)
{
	struct json	 s, v;
	const char	*jwhy;
	char		*text;
	int		 r;

	/* The parser stops at 32 levels, so the walk's bound is met through $ref. */
	text = strdup("{\"$defs\":{\"a\":{\"allOf\":[{\"$ref\":\"#/$defs/b\"}]},"
	    "\"b\":{\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}},\"$ref\":\"#/$defs/a\"}");
	ATF_REQUIRE(json_parse(&s, text, strlen(text), &jwhy) == 0);
	ATF_REQUIRE(json_parse(&v, "1", 1, &jwhy) == 0);
	r = schema_validate(&s, 0, &v, 0, why, sizeof(why));
	ATF_CHECK_MSG(r == SCHEMA_UNUSABLE &&
	    strcmp(why, "the schema, at $: schemas nest deeper than 64") == 0,
	    "%d %s", r, why);
	json_free(&s);
	json_free(&v);
	free(text);
	/* Control: 15 allOf inside each other (30 levels of JSON) are checked. */
	text = deep(15);
	takes(text, "1");
	free(text);
}

/* A reply that makes the walk long is stopped by the step bound. */
ATF_TC_WITHOUT_HEAD(steps);
ATF_TC_BODY(steps, tc)
{
	const char	*s = "{\"items\":{\"anyOf\":[{\"type\":\"string\"},"
			    "{\"type\":\"number\"}]}}";
	char		*v;
	size_t		 i, n = 60000;

	ATF_REQUIRE((v = malloc(2 * n + 2)) != NULL);
	v[0] = '[';
	for (i = 0; i < n; i++) {
		v[1 + 2 * i] = '1';
		v[2 + 2 * i] = i + 1 < n ? ',' : ']';
	}
	v[2 * n + 1] = '\0';
	refuses(s, v, SCHEMA_UNUSABLE,
	    "the schema, at $[33333]: the check took more than 100000 steps");
	v[2 * 20000] = ']';
	v[2 * 20000 + 1] = '\0';
	takes(s, v);
	free(v);
}

ATF_TC_WITHOUT_HEAD(annotations);
ATF_TC_BODY(annotations, tc)
{
	/* Keywords outside the subset are the API's to refuse. */
	takes("{\"type\":\"string\",\"description\":\"d\",\"title\":\"t\","
	    "\"minLength\":5}", "\"ab\"");
	takes("true", "1");
	refuses("false", "1", SCHEMA_MISMATCH,
	    "$: is not allowed: the schema is false");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, type);
	ATF_TP_ADD_TC(tp, integer);
	ATF_TP_ADD_TC(tp, properties);
	ATF_TP_ADD_TC(tp, additional);
	ATF_TP_ADD_TC(tp, enum_const);
	ATF_TP_ADD_TC(tp, any_all);
	ATF_TP_ADD_TC(tp, ref);
	ATF_TP_ADD_TC(tp, ref_cycle);
	ATF_TP_ADD_TC(tp, depth);
	ATF_TP_ADD_TC(tp, steps);
	ATF_TP_ADD_TC(tp, annotations);
	return atf_no_error();
}
