/*
 * The reply's check against the job's schema (box/schema.c): for each
 * keyword a reply it takes (the control) and one it refuses, with the
 * reason and the reply's path; then the bounds, and JSON-Schema-Test-Suite
 * through the box's own check.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../../box/schema.h"
#include "../lib/slurp.h"

static char	 why[SCHEMA_WHY_MAX];

/* The schema inside a job line, as the box has it: "#" is not the line. */
static int
verdict(const char *schema, const char *value)
{
	struct json	 job;
	const char	*jwhy;
	char		*line;
	long		 root;
	int		 r;

	ATF_REQUIRE(asprintf(&line, "{\"prompt\":\"p\",\"schema\":%s,"
	    "\"$defs\":{\"a\":{\"type\":\"null\"}}}", schema) != -1);
	ATF_REQUIRE_MSG(json_parse(&job, line, strlen(line), &jwhy) == 0,
	    "schema %s: %s", schema, jwhy);
	ATF_REQUIRE((root = json_find(&job, 0, "schema")) > 0);
	r = schema_reply(&job, root, value, strlen(value), why, sizeof(why));
	ATF_REQUIRE_MSG(r != SCHEMA_NOTJSON, "value %s: %s", value, why);
	json_free(&job);
	free(line);
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
	    "https://example.com/s.json is not a fragment of this schema "
	    "(#/...)");
	refuses("{\"$ref\":\"#/$defs/none\",\"$defs\":{}}", "1",
	    SCHEMA_UNUSABLE, "the schema, at $: the $ref #/$defs/none points "
	    "at nothing in the schema");
	refuses("{\"$ref\":\"#anchor\"}", "1", SCHEMA_UNUSABLE,
	    "the schema, at $: the $ref #anchor is not a fragment of this "
	    "schema (#/...)");
}

/*
 * The job line around the schema holds a $defs of its own (verdict()):
 * a $ref that reached it would take null and refuse 1.
 */
ATF_TC_WITHOUT_HEAD(ref_nested);
ATF_TC_BODY(ref_nested, tc)
{
	const char	*s = "{\"$defs\":{\"a\":{\"type\":\"integer\"}},"
			    "\"$ref\":\"#/$defs/a\"}";

	takes(s, "1");
	refuses(s, "null", SCHEMA_MISMATCH,
	    "$: is null, the schema wants an integer");
	refuses("{\"$ref\":\"#/$defs/a\"}", "1", SCHEMA_UNUSABLE,
	    "the schema, at $: the $ref #/$defs/a points at nothing in the "
	    "schema");
}

/* RFC 6901: ~1 is /, ~0 is ~, decoded after the fragment's %XX. */
ATF_TC_WITHOUT_HEAD(ref_pointer);
ATF_TC_BODY(ref_pointer, tc)
{
	const char	*s = "{\"$defs\":{\"a/b\":{\"type\":\"string\"},"
			    "\"c~d\":{\"type\":\"null\"},\"~1\":{\"const\":2},"
			    "\"e%f\":{\"type\":\"boolean\"},"
			    "\"q\\\"\":{\"const\":3}},"
			    "\"properties\":{\"s\":{\"$ref\":\"#/$defs/a~1b\"},"
			    "\"n\":{\"$ref\":\"#/$defs/c~0d\"},"
			    "\"t\":{\"$ref\":\"#/$defs/~01\"},"
			    "\"p\":{\"$ref\":\"#/$defs/e%25f\"},"
			    "\"q\":{\"$ref\":\"#/$defs/q%22\"},"
			    "\"i\":{\"$ref\":\"#/properties/x/anyOf/1\"},"
			    "\"x\":{\"anyOf\":[false,{\"type\":\"array\"}]}}}";

	takes(s, "{\"s\":\"x\",\"n\":null,\"t\":2,\"p\":true,\"q\":3,"
	    "\"i\":[]}");
	refuses(s, "{\"s\":1}", SCHEMA_MISMATCH,
	    "$.s: is a number, the schema wants a string");
	refuses(s, "{\"n\":1}", SCHEMA_MISMATCH,
	    "$.n: is a number, the schema wants null");
	refuses(s, "{\"t\":1}", SCHEMA_MISMATCH,
	    "$.t: is not the schema's const value");
	refuses(s, "{\"p\":1}", SCHEMA_MISMATCH,
	    "$.p: is a number, the schema wants a boolean");
	refuses(s, "{\"q\":1}", SCHEMA_MISMATCH,
	    "$.q: is not the schema's const value");
	refuses(s, "{\"i\":{}}", SCHEMA_MISMATCH,
	    "$.i: is an object, the schema wants an array");
	refuses("{\"$ref\":\"#/a%2\"}", "1", SCHEMA_UNUSABLE,
	    "the schema, at $: the $ref #/a%2 holds a % not followed by two "
	    "hex digits");
	refuses("{\"$ref\":\"#/a~2\",\"a~2\":{}}", "1", SCHEMA_UNUSABLE,
	    "the schema, at $: the $ref #/a~2 holds a ~ not followed by 0 or "
	    "1");
	refuses("{\"$ref\":\"#/allOf/01\",\"allOf\":[{},{}]}", "1",
	    SCHEMA_UNUSABLE, "the schema, at $: the $ref #/allOf/01 points "
	    "at nothing in the schema");
}

/* "#" is the schema's root: a tree recurses through it. */
ATF_TC_WITHOUT_HEAD(ref_root);
ATF_TC_BODY(ref_root, tc)
{
	const char	*s = "{\"type\":[\"integer\",\"array\"],"
			    "\"items\":{\"$ref\":\"#\"}}";

	takes(s, "[1,[2,[3,[]]],4]");
	refuses(s, "[1,[2,[\"x\"]]]", SCHEMA_MISMATCH,
	    "$[1][1][0]: is a string, the schema wants an integer or an array");
	refuses(s, "null", SCHEMA_MISMATCH,
	    "$: is null, the schema wants an integer or an array");
}

ATF_TC_WITHOUT_HEAD(ref_cycle);
ATF_TC_BODY(ref_cycle, tc)
{
	const char	*loops = "the schema, at $: the $ref #/$defs/a leads "
			    "back to a schema it came from with no step into "
			    "the reply: the $ref loops";

	refuses("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":"
	    "\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "1", SCHEMA_UNUSABLE,
	    loops);
	refuses("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":"
	    "\"#/$defs/a\"}", "1", SCHEMA_UNUSABLE, loops);
	/* Through allOf and anyOf, not only $ref after $ref. */
	refuses("{\"$defs\":{\"a\":{\"allOf\":[{\"$ref\":\"#/$defs/b\"}]},"
	    "\"b\":{\"anyOf\":[{\"$ref\":\"#/$defs/a\"}]}},\"$ref\":"
	    "\"#/$defs/a\"}", "1", SCHEMA_UNUSABLE, loops);
	refuses("{\"anyOf\":[{\"type\":\"string\"},{\"$ref\":\"#\"}]}", "1",
	    SCHEMA_UNUSABLE, "the schema, at $: the $ref # leads back to a "
	    "schema it came from with no step into the reply: the $ref loops");
	/* Controls: a chain without a loop ends; the same $ref twice apart. */
	takes("{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":{\"$ref\":"
	    "\"#/$defs/b\"},\"b\":{\"type\":\"number\"}}}", "1");
	takes("{\"$defs\":{\"i\":{\"type\":\"integer\"}},\"allOf\":[{\"$ref\":"
	    "\"#/$defs/i\"},{\"$ref\":\"#/$defs/i\"}]}", "1");
}

/* 33 definitions, each a $ref to the next: no loop, yet too long a chain. */
ATF_TC_WITHOUT_HEAD(ref_chain);
ATF_TC_BODY(ref_chain, tc)
{
	char	 s[4096], *p = s;
	int	 i;

	p += sprintf(p, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
	for (i = 0; i < SCHEMA_MAXREFS; i++)
		p += sprintf(p, "\"d%d\":{\"$ref\":\"#/$defs/d%d\"},", i, i + 1);
	(void)sprintf(p, "\"d%d\":{\"type\":\"null\"}}}", SCHEMA_MAXREFS);
	refuses(s, "null", SCHEMA_UNUSABLE,
	    "the schema, at $: more than 32 $ref in a row");
	/* Control: one link fewer is checked. */
	(void)sprintf(strstr(s, "\"d31\":"), "\"d31\":{\"type\":\"null\"}}}");
	takes(s, "null");
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
	const char	*s = "{\"$defs\":{\"a\":{\"allOf\":[{\"properties\":"
			    "{\"x\":{\"$ref\":\"#/$defs/a\"}}}]}},"
			    "\"$ref\":\"#/$defs/a\"}";
	char		 v[256], *text;
	int		 i, n;

	/*
	 * The parser stops at 32 levels, so the walk's bound is met through
	 * $ref: three schemas a level of the reply, each a step into it.
	 */
	for (n = 20; n <= 21; n++) {
		for (i = 0; i < n; i++)
			memcpy(v + 5 * i, "{\"x\":", 5);
		v[5 * n] = '1';
		memset(v + 5 * n + 1, '}', n);
		v[6 * n + 1] = '\0';
		if (n == 20)
			takes(s, v);
		else
			ATF_CHECK_MSG(verdict(s, v) == SCHEMA_UNUSABLE &&
			    strstr(why, "schemas nest deeper than 64") != NULL,
			    "%s", why);
	}
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

/*
 * JSON-Schema-Test-Suite (draft 2020-12), beside the checkout as CI
 * clones it.  A group is in scope when its schema is an object, as a
 * job's must be, and each keyword in it is one the box checks or one
 * that asserts nothing ($defs, definitions, $schema, $comment, title,
 * description), each $ref a fragment of the schema itself.
 */
#define SUITE_DIR	"../shared/peer-data/JSON-Schema-Test-Suite/tests/draft2020-12"

struct suite {
	size_t	 groups;
	size_t	 cases;
	size_t	 agree;
};

static const struct {
	const char	*name;
	int		 holds;		/* 'm' a map, 'l' a list, 's' one schema */
} subschemas[] = {
	{ "properties", 'm' },
	{ "$defs", 'm' },
	{ "definitions", 'm' },
	{ "allOf", 'l' },
	{ "anyOf", 'l' },
	{ "items", 's' },
	{ "additionalProperties", 's' },
};

static int	in_scope(const struct json *, size_t);

static int
in_scope_held(const struct json *j, size_t t, int holds)
{
	size_t	 n, e;

	if (holds == 's')
		return in_scope(j, t);
	if ((holds == 'm' && j->toks[t].type != JSON_OBJECT) ||
	    (holds == 'l' && j->toks[t].type != JSON_ARRAY))
		return 0;
	for (n = 0, e = t + 1; n < j->toks[t].size; n++, e = json_next(j, e)) {
		if (holds == 'm')
			e++;
		if (!in_scope(j, e))
			return 0;
	}
	return 1;
}

static int
in_scope(const struct json *j, size_t t)
{
	char	 name[64];
	size_t	 n, k, i, len;

	if (j->toks[t].type == JSON_TRUE || j->toks[t].type == JSON_FALSE)
		return 1;
	if (j->toks[t].type != JSON_OBJECT)
		return 0;
	for (n = 0, k = t + 1; n < j->toks[t].size; n++, k = json_next(j, k + 1)) {
		if (json_string_copy(j, k, name, sizeof(name), &len) == -1)
			return 0;
		if (strcmp(name, "$ref") == 0 &&
		    (j->toks[k + 1].type != JSON_STRING ||
		    j->buf[j->toks[k + 1].start] != '#'))
			return 0;
		for (i = 0; i < sizeof(subschemas) / sizeof(subschemas[0]); i++)
			if (strcmp(name, subschemas[i].name) == 0)
				break;
		if (i < sizeof(subschemas) / sizeof(subschemas[0])) {
			if (!in_scope_held(j, k + 1, subschemas[i].holds))
				return 0;
		} else if (!schema_keyword(name) &&
		    strcmp(name, "$schema") != 0 &&
		    strcmp(name, "$comment") != 0 &&
		    strcmp(name, "title") != 0 &&
		    strcmp(name, "description") != 0)
			return 0;
	}
	return 1;
}

static const char *
verdict_name(int r)
{
	switch (r) {
	case SCHEMA_OK:
		return "valid";
	case SCHEMA_MISMATCH:
		return "invalid";
	case SCHEMA_UNUSABLE:
		return "the schema unusable";
	default:
		return "not JSON";
	}
}

/* The schema as the box sees it: inside the job's line, not its root. */
static void
suite_group(const char *file, const struct json *f, size_t g,
    struct suite *su)
{
	struct json	 job;
	const char	*raw, *jwhy;
	char		*line, *gdesc, *cdesc;
	size_t		 len, n, c;
	long		 schema, tests, data, valid, root;
	int		 r, want;

	schema = json_find(f, g, "schema");
	tests = json_find(f, g, "tests");
	ATF_REQUIRE_MSG(schema != -1 && tests != -1, "%s: a group without "
	    "schema or tests", file);
	if (f->toks[schema].type != JSON_OBJECT || !in_scope(f, schema))
		return;
	raw = json_raw(f, schema, &len);
	ATF_REQUIRE(asprintf(&line, "{\"prompt\":\"Answer.\",\"schema\":%.*s}",
	    (int)len, raw) != -1);
	ATF_REQUIRE_MSG(json_parse(&job, line, strlen(line), &jwhy) == 0,
	    "%s: the job line: %s", file, jwhy);
	ATF_REQUIRE((root = json_find(&job, 0, "schema")) > 0);
	gdesc = json_string_dup(f, json_find(f, g, "description"), 512);
	su->groups++;
	for (n = 0, c = tests + 1; n < f->toks[tests].size;
	    n++, c = json_next(f, c)) {
		data = json_find(f, c, "data");
		valid = json_find(f, c, "valid");
		ATF_REQUIRE(data != -1 && valid != -1);
		want = f->toks[valid].type == JSON_TRUE ? SCHEMA_OK :
		    SCHEMA_MISMATCH;
		raw = json_raw(f, data, &len);
		r = schema_reply(&job, root, raw, len, why, sizeof(why));
		su->cases++;
		if (r == want) {
			su->agree++;
			continue;
		}
		cdesc = json_string_dup(f, json_find(f, c, "description"), 512);
		fprintf(stderr, "%s: \"%s\": \"%s\": wanted %s, got %s: %s\n",
		    file, gdesc != NULL ? gdesc : "?", cdesc != NULL ? cdesc :
		    "?", verdict_name(want), verdict_name(r), why);
		free(cdesc);
	}
	free(gdesc);
	json_free(&job);
	free(line);
}

static int
json_file(const struct dirent *d)
{
	size_t	 n = strlen(d->d_name);

	return n > 5 && strcmp(d->d_name + n - 5, ".json") == 0;
}

ATF_TC(suite);
ATF_TC_HEAD(suite, tc)
{
	atf_tc_set_md_var(tc, "descr", "JSON-Schema-Test-Suite's draft "
	    "2020-12 groups that use only the keywords the box checks agree "
	    "in full, the schema inside a job line as the box has it");
}
ATF_TC_BODY(suite, tc)
{
	struct suite	 su = { 0, 0, 0 };
	struct dirent	**names;
	struct json	 f;
	const char	*jwhy;
	char		 dir[1024], path[1300], *text;
	size_t		 len, n, g;
	int		 i, count;

	if (!atf_tc_has_config_var(tc, "checkout"))
		atf_tc_skip("no checkout variable: run through make run-tests");
	(void)snprintf(dir, sizeof(dir), "%s/" SUITE_DIR,
	    atf_tc_get_config_var(tc, "checkout"));
	if ((count = scandir(dir, &names, json_file, alphasort)) <= 0)
		atf_tc_skip("%s is absent: JSON-Schema-Test-Suite is read "
		    "from there, beside the checkout", dir);
	for (i = 0; i < count; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", dir,
		    names[i]->d_name);
		text = slurp(path, &len);
		ATF_REQUIRE_MSG(json_parse(&f, text, len, &jwhy) == 0,
		    "%s: %s at byte %zu", path, jwhy, f.erroff);
		ATF_REQUIRE(f.toks[0].type == JSON_ARRAY);
		for (n = 0, g = 1; n < f.toks[0].size; n++, g = json_next(&f, g))
			suite_group(names[i]->d_name, &f, g, &su);
		json_free(&f);
		free(text);
		free(names[i]);
	}
	free(names);
	printf("json-schema-test-suite: %zu groups, %zu cases in scope, "
	    "%zu agree\n", su.groups, su.cases, su.agree);
	if (su.groups == 0 || su.agree != su.cases)
		atf_tc_fail("%zu of %zu cases in scope disagree: each is named "
		    "on stderr", su.cases - su.agree, su.cases);
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
	ATF_TP_ADD_TC(tp, ref_nested);
	ATF_TP_ADD_TC(tp, ref_pointer);
	ATF_TP_ADD_TC(tp, ref_root);
	ATF_TP_ADD_TC(tp, ref_cycle);
	ATF_TP_ADD_TC(tp, ref_chain);
	ATF_TP_ADD_TC(tp, depth);
	ATF_TP_ADD_TC(tp, steps);
	ATF_TP_ADD_TC(tp, annotations);
	ATF_TP_ADD_TC(tp, suite);
	return atf_no_error();
}
