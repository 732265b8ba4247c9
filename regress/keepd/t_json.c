/*
 * S7: the strict JSON parser and the writer (common/json.c).  Each refusal
 * is checked for its reason, beside a control that the parser takes;
 * then JSONTestSuite's test_parsing, read from beside the checkout.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "json.h"
#include "../lib/slurp.h"

static const char *
parse_why(const char *s, size_t len)
{
	struct json	 j;
	const char	*why = NULL;

	if (json_parse(&j, s, len, &why) == 0) {
		json_free(&j);
		return NULL;
	}
	ATF_REQUIRE(why != NULL);
	return why;
}

static void
ok(const char *s)
{
	const char	*why = parse_why(s, strlen(s));

	ATF_CHECK_MSG(why == NULL, "%s refused: %s", s, why ? why : "");
}

static void
refused(const char *s, const char *reason)
{
	const char	*why = parse_why(s, strlen(s));

	ATF_CHECK_MSG(why != NULL && strcmp(why, reason) == 0,
	    "%s: wanted \"%s\", got \"%s\"", s, reason,
	    why ? why : "(taken)");
}

static char *
nested(int depth, char open, char close)
{
	char	*s = malloc(2 * depth + 1);
	int	 i;

	ATF_REQUIRE(s != NULL);
	for (i = 0; i < depth; i++) {
		s[i] = open;
		s[2 * depth - 1 - i] = close;
	}
	s[2 * depth] = '\0';
	return s;
}

ATF_TC_WITHOUT_HEAD(valid);
ATF_TC_BODY(valid, tc)
{
	ok("{}");
	ok("[]");
	ok(" \t\r\n{ } \n");
	ok("{\"a\":[1,-2.5,3e10,-0,0.5E-3,1E+2,true,false,null,\"x\"],"
	    "\"b\":{\"c\":{}}}");
	ok("1");
	ok("-0.0 ");
	ok("true");
	ok(" null");
	ok("\"\"");
	ok("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"");
	ok("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	ok("1e1000");
	ok("[1e-1000]");
}

ATF_TC_WITHOUT_HEAD(tokens);
ATF_TC_BODY(tokens, tc)
{
	const char	*s = "{\"a\":[1,2,{\"b\":null}],\"c\":\"d\\u0041\","
			    "\"e\":-12}";
	struct json	 j;
	const char	*why;
	char		 buf[16];
	size_t		 len;
	long		 v;
	int64_t		 n;

	ATF_REQUIRE(json_parse(&j, s, strlen(s), &why) == 0);
	ATF_CHECK_EQ(j.toks[0].type, JSON_OBJECT);
	ATF_CHECK_EQ(j.toks[0].size, 3);
	ATF_REQUIRE((v = json_find(&j, 0, "a")) > 0);
	ATF_CHECK_EQ(j.toks[v].type, JSON_ARRAY);
	ATF_CHECK_EQ(j.toks[v].size, 3);
	ATF_CHECK(json_streq(&j, json_next(&j, v), "c"));
	ATF_REQUIRE((v = json_find(&j, 0, "c")) > 0);
	ATF_CHECK(json_streq(&j, v, "dA"));
	ATF_CHECK(!json_streq(&j, v, "d"));
	ATF_CHECK(json_string_copy(&j, v, buf, sizeof(buf), &len) == 0);
	ATF_CHECK_STREQ(buf, "dA");
	ATF_CHECK(json_string_copy(&j, v, buf, 2, &len) == -1);
	ATF_CHECK_EQ(len, 1);
	ATF_REQUIRE((v = json_find(&j, 0, "e")) > 0);
	ATF_CHECK(json_int(&j, v, -100, 100, &n) == 0 && n == -12);
	ATF_CHECK(json_int(&j, v, 0, 100, &n) == -1);
	ATF_CHECK_EQ(json_find(&j, 0, "b"), -1);
	ATF_CHECK_EQ(json_next(&j, 0), j.ntoks);
	json_free(&j);
}

ATF_TC_WITHOUT_HEAD(duplicate_keys);
ATF_TC_BODY(duplicate_keys, tc)
{
	char	 big[4096];
	size_t	 n = 0;
	int	 i;

	ok("{\"a\":1,\"b\":2}");
	ok("[{\"a\":1},{\"a\":1}]");
	ok("{\"a\":{\"a\":1}}");
	refused("{\"a\":1,\"a\":2}", "a key given twice in one object");
	refused("{\"a\":1,\"\\u0061\":2}", "a key given twice in one object");
	refused("{\"x\":{\"b\":1,\"c\":2,\"b\":3}}",
	    "a key given twice in one object");
	/* Enough keys that the check sorts them. */
	n += snprintf(big + n, sizeof(big) - n, "{");
	for (i = 0; i < 200; i++)
		n += snprintf(big + n, sizeof(big) - n, "\"k%d\":%d,", i, i);
	n += snprintf(big + n, sizeof(big) - n, "\"k%d\":0}", 200);
	ok(big);
	memcpy(big + n - 7, "277", 3);	/* the last key becomes "k277" */
	ok(big);
	memcpy(big + n - 7, "130", 3);	/* "k130", given before */
	refused(big, "a key given twice in one object");
}

ATF_TC_WITHOUT_HEAD(depth);
ATF_TC_BODY(depth, tc)
{
	char	*s;
	char	 obj[33 * 6 + 8];
	size_t	 n = 0;
	int	 i;

	ok((s = nested(32, '[', ']')));
	free(s);
	refused((s = nested(33, '[', ']')), "nested deeper than 32");
	free(s);
	refused((s = nested(100000, '[', ']')), "nested deeper than 32");
	free(s);
	for (i = 0; i < 33; i++)
		n += snprintf(obj + n, sizeof(obj) - n, "{\"a\":");
	n += snprintf(obj + n, sizeof(obj) - n, "1");
	for (i = 0; i < 33; i++)
		obj[n++] = '}';
	obj[n] = '\0';
	refused(obj, "nested deeper than 32");
	obj[n - 1] = '\0';
	ok(obj + 5);		/* the same, one level less */
	/* Brackets inside a string are not nesting. */
	s = nested(40, '[', ']');
	n = strlen(s);
	ATF_REQUIRE((s = realloc(s, n + 3)) != NULL);
	memmove(s + 1, s, n + 1);
	s[0] = '"';
	s[n + 1] = '"';
	s[n + 2] = '\0';
	ok(s);
	free(s);
}

ATF_TC_WITHOUT_HEAD(bad_utf8);
ATF_TC_BODY(bad_utf8, tc)
{
	const char	*why = "a string that is not UTF-8";

	ok("\"\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf\"");
	refused("\"\xc0\xaf\"", why);		/* overlong / */
	refused("\"\xe0\x80\xaf\"", why);	/* overlong, three bytes */
	refused("\"\xf0\x80\x80\xaf\"", why);	/* overlong, four bytes */
	refused("\"\xed\xa0\x80\"", why);	/* a surrogate, U+D800 */
	refused("\"\xed\xbf\xbf\"", why);	/* U+DFFF */
	refused("\"\xe2\x82\"", why);		/* truncated */
	refused("\"\xf0\x9f\x98\"", why);
	refused("\"\x80\"", why);		/* a lone continuation */
	refused("\"\xf4\x90\x80\x80\"", why);	/* over U+10FFFF */
	refused("\"\xff\"", why);
	refused("{\"\xc3\":1}", why);		/* in a key too */
}

ATF_TC_WITHOUT_HEAD(bad_escapes);
ATF_TC_BODY(bad_escapes, tc)
{
	ok("\"\\u0000\"");
	ok("\"\\ud800\\udc00\"");
	refused("\"\\x\"", "a bad escape in a string");
	refused("\"\\u12g4\"", "a bad escape in a string");
	refused("[\"\\u12\"]", "a bad escape in a string");
	refused("\"\\ud800\"", "a lone surrogate escape in a string");
	refused("\"\\udc00\"", "a lone surrogate escape in a string");
	refused("\"\\ud800\\u0041\"", "a lone surrogate escape in a string");
	refused("\"\\ud800x\"", "a lone surrogate escape in a string");
	refused("\"a\x01\"", "a control character in a string");
	refused("\"a\tb\"", "a control character in a string");
	refused("\"a\nb\"", "a control character in a string");
}

/* The string of json_parse_lone(text), as bytes in hex, or "!why". */
static void
lone_copy(const char *text, char *out, size_t outsz)
{
	struct json	 j;
	const char	*why;
	char		 s[64];
	size_t		 len, i;

	out[0] = '\0';
	if (json_parse_lone(&j, text, strlen(text), &why) == -1) {
		(void)snprintf(out, outsz, "!%s", why);
		return;
	}
	ATF_REQUIRE(json_string_copy(&j, 0, s, sizeof(s), &len) == 0);
	for (i = 0; i < len; i++)
		(void)snprintf(out + 2 * i, outsz - 2 * i, "%02x",
		    (unsigned char)s[i]);
	json_free(&j);
}

/* A lone half is taken by json_parse_lone alone, and copied as WTF-8. */
ATF_TC_WITHOUT_HEAD(lone_surrogates);
ATF_TC_BODY(lone_surrogates, tc)
{
	static const struct {
		const char	*text, *bytes;
	} cases[] = {
		{ "\"\\ud83d\\ude00\"", "f09f9880" },	/* the pair, joined */
		{ "\"\\ud83d\"", "eda0bd" },
		{ "\"\\ude00\"", "edb880" },
		{ "\"\\ude00\\ud83d\"", "edb880eda0bd" },	/* low, high: two */
		{ "\"\\ud800\\u0041\"", "eda08041" },	/* not joined to A */
		{ "\"\\ud800abcdef\"", "eda080616263646566" },
		{ "\"\\ud800\\ud800\\udc00\"", "eda080f0908080" },
		{ "\"\\ud800\\u12g4\"", "!a bad escape in a string" },
	};
	char	 out[128];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lone_copy(cases[i].text, out, sizeof(out));
		ATF_CHECK_MSG(strcmp(out, cases[i].bytes) == 0,
		    "%s: %s, not %s", cases[i].text, out, cases[i].bytes);
	}
	/* The control: json_parse() refuses every half alone still. */
	refused("\"\\ud83d\"", "a lone surrogate escape in a string");
	ok("\"\\ud83d\\ude00\"");
}

ATF_TC_WITHOUT_HEAD(trailing);
ATF_TC_BODY(trailing, tc)
{
	ok("{} \n");
	refused("{} x", "an unexpected character");
	refused("{}{}", "more after the value");
	refused("[1] ]", "an unexpected character");
	refused("\"a\" \"b\"", "more after the value");
	refused("1 2", "not a number, true, false or null");
	ATF_CHECK_STREQ(parse_why("{}\0", 3), "a NUL byte");
	ATF_CHECK_STREQ(parse_why("{\"a\0\":1}", 8), "a NUL byte");
	refused("", "no value");
	refused("  ", "no value");
	refused("{", "the text ends inside a value");
	refused("[1,", "the text ends inside a value");
}

ATF_TC_WITHOUT_HEAD(numbers);
ATF_TC_BODY(numbers, tc)
{
	ok("[0,-0,10,0.01,1e5,1E-5,-1.5e+300]");
	refused("[01]", "a number with a leading zero");
	refused("[-01]", "a number with a leading zero");
	refused("00", "a number with a leading zero");
	refused("[1e1001]", "a number with an exponent over 1000");
	refused("[1e-99999999999999999999]",
	    "a number with an exponent over 1000");
	ok("[1e0001000]");
	refused("[1.]", "not a number, true, false or null");
	refused("[-]", "not a number, true, false or null");
	refused("[1e]", "not a number, true, false or null");
	refused("[1e+]", "not a number, true, false or null");
	refused("[0x10]", "not a number, true, false or null");
	refused("[.5]", "an unexpected character");
	refused("[+1]", "an unexpected character");
	refused("[tru]", "not a number, true, false or null");
	refused("[nulll]", "not a number, true, false or null");
	refused("truex", "not a number, true, false or null");
}

ATF_TC_WITHOUT_HEAD(grammar);
ATF_TC_BODY(grammar, tc)
{
	ok("[1,2]");
	refused("[1 2]", "expected , or ] after a value");
	refused("[1,]", "a value is missing");
	refused("[,1]", "an unexpected character");
	refused("{\"a\" 1}", "an unexpected character");
	refused("{\"a\":1,}", "a value is missing");
	refused("{\"a\"}", "expected : after a key");
	refused("{\"a\",\"b\"}", "expected : after a key");
	refused("{1:2}", "an unexpected character");
	refused("{\"a\":1 \"b\":2}", "expected , or } after a member");
	refused("{\"a\":1}}", "an unexpected character");
	refused("[1}", "an unexpected character");
	refused("{\"a\"::1}", "an unexpected character");
	refused("{:1}", "an unexpected character");
}

ATF_TC_WITHOUT_HEAD(string_dup);
ATF_TC_BODY(string_dup, tc)
{
	const char	*s = "[\"a\\u0000b\",\"abc\"]";
	struct json	 j;
	const char	*why;
	char		*d, buf[8];
	size_t		 len;

	ATF_REQUIRE(json_parse(&j, s, strlen(s), &why) == 0);
	ATF_CHECK(json_string_dup(&j, 1, 64) == NULL);
	ATF_CHECK(json_string_copy(&j, 1, buf, sizeof(buf), &len) == 0);
	ATF_CHECK_EQ(len, 3);
	ATF_CHECK(memcmp(buf, "a\0b", 3) == 0);
	ATF_REQUIRE((d = json_string_dup(&j, 2, 3)) != NULL);
	ATF_CHECK_STREQ(d, "abc");
	free(d);
	ATF_CHECK(json_string_dup(&j, 2, 2) == NULL);
	json_free(&j);
}

/* Writes s, parses it back, and checks that the string came back whole. */
static void
round_trip(const char *s, size_t len, const char *want, size_t wantlen)
{
	struct json_writer	 w;
	struct json		 j;
	const char		*why;
	char			*out, *back;
	size_t			 outlen, backlen;

	json_writer_init(&w);
	json_write_array(&w);
	json_write_string_len(&w, s, len);
	json_write_close(&w);
	ATF_REQUIRE((out = json_writer_finish(&w, &outlen)) != NULL);
	ATF_REQUIRE_MSG(json_parse(&j, out, outlen, &why) == 0,
	    "%s: %s", out, why);
	ATF_REQUIRE((back = malloc(wantlen + 1)) != NULL);
	ATF_CHECK(json_string_copy(&j, 1, back, wantlen + 1, &backlen) == 0);
	ATF_CHECK_EQ(backlen, wantlen);
	ATF_CHECK(memcmp(back, want, wantlen) == 0);
	free(back);
	json_free(&j);
	free(out);
}

ATF_TC_WITHOUT_HEAD(writer_escaping);
ATF_TC_BODY(writer_escaping, tc)
{
	char	 all[128];
	int	 i;

	for (i = 0; i < 128; i++)
		all[i] = i;
	round_trip(all, sizeof(all), all, sizeof(all));
	round_trip("\"\\/", 3, "\"\\/", 3);
	round_trip("caf\xc3\xa9 \xf0\x9f\x98\x80", 10,
	    "caf\xc3\xa9 \xf0\x9f\x98\x80", 10);
	/* Bytes that are not UTF-8 become U+FFFD: the output stays JSON. */
	round_trip("a\xffz", 3, "a\xef\xbf\xbdz", 5);
	round_trip("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	    9);
}

ATF_TC_WITHOUT_HEAD(writer_shape);
ATF_TC_BODY(writer_shape, tc)
{
	struct json_writer	 w;
	char			*out;
	size_t			 len;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "a\"b");
	json_write_array(&w);
	json_write_int(&w, -5);
	json_write_uint(&w, 18446744073709551615ULL);
	json_write_bool(&w, 1);
	json_write_null(&w);
	json_write_raw(&w, "{\"x\":1}", 7);
	json_write_close(&w);
	json_write_key(&w, "c");
	json_write_string(&w, "d");
	json_write_close(&w);
	ATF_REQUIRE((out = json_writer_finish(&w, &len)) != NULL);
	ATF_CHECK_STREQ(out, "{\"a\\\"b\":[-5,18446744073709551615,true,"
	    "null,{\"x\":1}],\"c\":\"d\"}");
	ATF_CHECK_EQ(len, strlen(out));
	ATF_CHECK(parse_why(out, len) == NULL);
	free(out);

	/* Misuse gives no text rather than a broken one. */
	json_writer_init(&w);
	json_write_object(&w);
	json_write_string(&w, "no key");
	json_write_close(&w);
	ATF_CHECK(json_writer_finish(&w, &len) == NULL);
	json_writer_init(&w);
	json_write_array(&w);
	ATF_CHECK(json_writer_finish(&w, &len) == NULL);
	json_writer_init(&w);
	json_write_int(&w, 1);
	json_write_int(&w, 2);
	ATF_CHECK(json_writer_finish(&w, &len) == NULL);
	json_writer_init(&w);
	ATF_CHECK(json_writer_finish(&w, &len) == NULL);
}

#define PARSING_DIR	"../shared/peer-data/JSONTestSuite/test_parsing"

/*
 * y_ files json.h refuses on purpose: RFC 8259 has names SHOULD be
 * unique, and readers differ on which of two values wins, so a line
 * the box, the launcher and the keep each read could mean two things.
 */
static const struct {
	const char	*file;
	const char	*why;
} refused_on_purpose[] = {
	{ "y_object_duplicated_key.json",
	    "two values of one key: which one a reader takes differs" },
	{ "y_object_duplicated_key_and_value.json",
	    "one key twice, even with one value: refused as any other" },
};

struct parsing {
	size_t	 yes, yes_refused, no, either_taken, either_refused, bad;
};

static int
json_name(const struct dirent *d)
{
	size_t	 n = strlen(d->d_name);

	return n > 5 && strcmp(d->d_name + n - 5, ".json") == 0;
}

/* One file: y_ taken, n_ refused, i_ either, none with a crash. */
static void
parsing_one(const char *dir, const char *name, struct parsing *p)
{
	struct json	 j;
	const char	*why = NULL;
	char		 path[1400], *text;
	size_t		 len, i;
	int		 taken, purpose = 0;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = slurp(path, &len);
	if ((taken = json_parse(&j, text, len, &why) == 0))
		json_free(&j);
	free(text);
	for (i = 0; i < sizeof(refused_on_purpose) /
	    sizeof(refused_on_purpose[0]); i++)
		if (strcmp(name, refused_on_purpose[i].file) == 0)
			purpose = 1;
	if (name[0] == 'i' && taken) {
		p->either_taken++;
		return;
	}
	if (name[0] == 'i') {
		p->either_refused++;
		return;
	}
	if (name[0] == 'y' && purpose && !taken &&
	    strcmp(why, "a key given twice in one object") == 0) {
		p->yes_refused++;
		return;
	}
	if (name[0] == 'y' && !purpose && taken) {
		p->yes++;
		return;
	}
	if (name[0] == 'n' && !taken) {
		p->no++;
		return;
	}
	p->bad++;
	fprintf(stderr, "%s: %s%s\n", name, taken ? "taken" : "refused: ",
	    taken ? "" : why);
}

ATF_TC(jsontestsuite);
ATF_TC_HEAD(jsontestsuite, tc)
{
	atf_tc_set_md_var(tc, "descr", "JSONTestSuite's test_parsing: each "
	    "y_ taken but the duplicate keys refused on purpose, each n_ "
	    "refused, each i_ either, none with a crash");
}
ATF_TC_BODY(jsontestsuite, tc)
{
	struct parsing	 p;
	struct dirent	**names;
	char		 dir[1024];
	int		 i, count;

	memset(&p, 0, sizeof(p));
	if (!atf_tc_has_config_var(tc, "checkout"))
		atf_tc_skip("no checkout variable: run through make run-tests");
	(void)snprintf(dir, sizeof(dir), "%s/" PARSING_DIR,
	    atf_tc_get_config_var(tc, "checkout"));
	if ((count = scandir(dir, &names, json_name, alphasort)) <= 0)
		atf_tc_skip("%s is absent: JSONTestSuite is read from there, "
		    "beside the checkout", dir);
	for (i = 0; i < count; i++) {
		parsing_one(dir, names[i]->d_name, &p);
		free(names[i]);
	}
	free(names);
	printf("jsontestsuite: %zu y_ taken, %zu refused on purpose; %zu n_ "
	    "refused; %zu i_ taken, %zu refused; %zu wrong\n", p.yes,
	    p.yes_refused, p.no, p.either_taken, p.either_refused, p.bad);
	if (p.bad > 0 || p.yes_refused != sizeof(refused_on_purpose) /
	    sizeof(refused_on_purpose[0]))
		atf_tc_fail("%zu files parsed against the suite's verdict, "
		    "%zu of the duplicate keys refused: each is named on "
		    "stderr", p.bad, p.yes_refused);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, valid);
	ATF_TP_ADD_TC(tp, tokens);
	ATF_TP_ADD_TC(tp, duplicate_keys);
	ATF_TP_ADD_TC(tp, depth);
	ATF_TP_ADD_TC(tp, bad_utf8);
	ATF_TP_ADD_TC(tp, bad_escapes);
	ATF_TP_ADD_TC(tp, lone_surrogates);
	ATF_TP_ADD_TC(tp, trailing);
	ATF_TP_ADD_TC(tp, numbers);
	ATF_TP_ADD_TC(tp, grammar);
	ATF_TP_ADD_TC(tp, string_dup);
	ATF_TP_ADD_TC(tp, writer_escaping);
	ATF_TP_ADD_TC(tp, writer_shape);
	ATF_TP_ADD_TC(tp, jsontestsuite);
	return atf_no_error();
}
