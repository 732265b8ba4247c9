/*
 * The schema walk: a failing keyword writes why once and the walk unwinds;
 * inside anyOf, reasons go to scratch: only a match of none is a mismatch.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "values.h"

#define PATH_MAX_LEN	160
#define KEY_MAX		1024

struct walk {
	const struct json *s;
	const struct json *v;
	unsigned long	 steps;
	char		 path[PATH_MAX_LEN + 8];
	size_t		 plen;
	char		*why;
	size_t		 whysz;
	size_t		 root;		/* the schema's own root: "#" */
	struct {
		size_t	 schema;
		size_t	 value;
	}		 chain[SCHEMA_MAXDEPTH + 2];
	size_t		 nchain;	/* the root and the $refs taken to here */
};

static enum schema_verdict validate(const struct json *, size_t,
		    const struct json *, char *, size_t);
static int	sv_value(struct walk *, size_t, size_t, unsigned int,
		    unsigned int);
static int	sv_keywords(struct walk *, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_ref(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_type(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_enum(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_const(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_allof(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_anyof(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_required(struct walk *, size_t, size_t, size_t,
		    unsigned int, unsigned int);
static int	kw_properties(struct walk *, size_t, size_t, size_t,
		    unsigned int, unsigned int);
static int	kw_additional(struct walk *, size_t, size_t, size_t,
		    unsigned int, unsigned int);
static int	kw_items(struct walk *, size_t, size_t, size_t, unsigned int,
		    unsigned int);
static int	kw_minitems(struct walk *, size_t, size_t, size_t,
		    unsigned int, unsigned int);
static int	sv_combine(struct walk *, size_t, size_t, int, unsigned int);
static int	sv_member(struct walk *, size_t, size_t, size_t,
		    unsigned int, int);
static long	member_find(const struct json *, size_t, const char *,
		    size_t);
static long	ref_target(const struct walk *, size_t, const char **);
static long	pointer_step(const struct json *, size_t, const char *,
		    size_t);
static int	type_is(const struct json *, size_t, const char *);
static int	integral(const char *, size_t);
static int	equal(struct walk *, const struct json *, size_t,
		    const struct json *, size_t);
static int	mismatch(struct walk *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	unusable(struct walk *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	too_long(struct walk *);

static const struct {
	const char	*name;
	const char	*article;
} typenames[] = {
	{ "string", "a string" },
	{ "number", "a number" },
	{ "integer", "an integer" },
	{ "boolean", "a boolean" },
	{ "object", "an object" },
	{ "array", "an array" },
	{ "null", "null" },
};

/* In the order checked; any other keyword is the API's (sandcastle-box(8)). */
static const struct {
	const char	*name;
	int		 (*check)(struct walk *, size_t, size_t, size_t,
			    unsigned int, unsigned int);
} keywords[] = {
	{ "$ref", kw_ref },
	{ "type", kw_type },
	{ "enum", kw_enum },
	{ "const", kw_const },
	{ "allOf", kw_allof },
	{ "anyOf", kw_anyof },
	{ "required", kw_required },
	{ "properties", kw_properties },
	{ "additionalProperties", kw_additional },
	{ "items", kw_items },
	{ "minItems", kw_minitems },
};

static void
vsay(struct walk *w, const char *prefix, const char *fmt, va_list ap)
{
	int	 n;

	n = snprintf(w->why, w->whysz, "%s%s: ", prefix, w->path);
	if (n >= 0 && (size_t)n < w->whysz)
		(void)vsnprintf(w->why + n, w->whysz - n, fmt, ap);
}

static int
mismatch(struct walk *w, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsay(w, "", fmt, ap);
	va_end(ap);
	return SCHEMA_MISMATCH;
}

static int
unusable(struct walk *w, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsay(w, "the schema, at ", fmt, ap);
	va_end(ap);
	return SCHEMA_UNUSABLE;
}

static int
too_long(struct walk *w)
{
	return unusable(w, "the check took more than %d steps",
	    SCHEMA_MAXSTEPS);
}

/* Appends .key or ["key"] to the path; the old length comes back. */
static size_t
path_key(struct walk *w, const struct json *j, size_t k)
{
	size_t	 old = w->plen, i, n, room = sizeof(w->path) - old;
	char	 key[65];
	int	 ident = 1;

	(void)json_string_copy(j, k, key, sizeof(key), &n);
	for (i = 0; i < n; i++) {
		if (!(key[i] == '_' || (key[i] >= 'a' && key[i] <= 'z') ||
		    (key[i] >= 'A' && key[i] <= 'Z') ||
		    (i > 0 && key[i] >= '0' && key[i] <= '9')))
			ident = 0;
		if ((unsigned char)key[i] < 0x20 || key[i] == '"' ||
		    key[i] == '\\')
			key[i] = '?';
	}
	if (old < PATH_MAX_LEN)
		(void)snprintf(w->path + old, room, ident && n > 0 ? ".%s" :
		    "[\"%s\"]", key);
	else
		(void)snprintf(w->path + old, room, "...");
	w->plen = strlen(w->path);
	return old;
}

static size_t
path_index(struct walk *w, size_t i)
{
	size_t	 old = w->plen;

	(void)snprintf(w->path + old, sizeof(w->path) - old,
	    old < PATH_MAX_LEN ? "[%zu]" : "...", i);
	w->plen = strlen(w->path);
	return old;
}

static void
path_pop(struct walk *w, size_t old)
{
	w->plen = old;
	w->path[old] = '\0';
}

enum schema_verdict
schema_reply(const struct json *s, size_t root, const char *text,
    size_t len, char *why, size_t whysz)
{
	struct json		 v;
	const char		*jwhy;
	enum schema_verdict	 r;

	if (json_parse(&v, text, len, &jwhy) == -1) {
		(void)snprintf(why, whysz, "%s at byte %zu", jwhy, v.erroff);
		return SCHEMA_NOTJSON;
	}
	r = validate(s, root, &v, why, whysz);
	json_free(&v);
	return r;
}

int
schema_keyword(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strcmp(keywords[i].name, name) == 0)
			return 1;
	return 0;
}

static enum schema_verdict
validate(const struct json *s, size_t root, const struct json *v, char *why,
    size_t whysz)
{
	struct walk	 w;

	memset(&w, 0, sizeof(w));
	w.s = s;
	w.v = v;
	w.why = why;
	w.whysz = whysz;
	(void)strlcpy(w.path, "$", sizeof(w.path));
	w.plen = 1;
	w.root = root;
	w.chain[0].schema = root;
	w.nchain = 1;
	if (whysz > 0)
		why[0] = '\0';
	return sv_value(&w, root, 0, 0, 0);
}

static int
sv_value(struct walk *w, size_t st, size_t vt, unsigned int depth,
    unsigned int refs)
{
	enum json_type	 t = w->s->toks[st].type;

	if (++w->steps > SCHEMA_MAXSTEPS)
		return too_long(w);
	if (depth > SCHEMA_MAXDEPTH)
		return unusable(w, "schemas nest deeper than %d",
		    SCHEMA_MAXDEPTH);
	if (t == JSON_TRUE)
		return SCHEMA_OK;
	if (t == JSON_FALSE)
		return mismatch(w, "is not allowed: the schema is false");
	if (t != JSON_OBJECT)
		return unusable(w, "a schema that is neither an object nor "
		    "a boolean");
	return sv_keywords(w, st, vt, depth, refs);
}

static int
sv_keywords(struct walk *w, size_t st, size_t vt, unsigned int depth,
    unsigned int refs)
{
	size_t	 i;
	long	 k;
	int	 r;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if ((k = json_find(w->s, st, keywords[i].name)) != -1 &&
		    (r = keywords[i].check(w, st, k, vt, depth, refs)) !=
		    SCHEMA_OK)
			return r;
	return SCHEMA_OK;
}

/*
 * A $ref's fragment percent-decoded, as a URI's is, then read as a JSON
 * pointer (RFC 6901) from the schema's root, not the document's.
 */
static long
ref_target(const struct walk *w, size_t ref, const char **bad)
{
	char	 buf[KEY_MAX], ptr[KEY_MAX], tok[KEY_MAX];
	size_t	 len, plen, tlen, i;
	long	 cur = (long)w->root;
	int	 hi, lo;

	*bad = "is not a fragment of this schema (#/...)";
	if (json_string_copy(w->s, ref, buf, sizeof(buf), &len) == -1 ||
	    len == 0 || buf[0] != '#')
		return -1;
	for (i = 1, plen = 0; i < len; i++) {
		if (buf[i] != '%') {
			ptr[plen++] = buf[i];
			continue;
		}
		*bad = "holds a % not followed by two hex digits";
		if (i + 2 >= len || (hi = hex_digit(buf[i + 1])) == -1 ||
		    (lo = hex_digit(buf[i + 2])) == -1)
			return -1;
		ptr[plen++] = (char)(hi << 4 | lo);
		i += 2;
	}
	*bad = "is not a fragment of this schema (#/...)";
	if (plen > 0 && ptr[0] != '/')
		return -1;
	for (i = 0; i < plen && cur != -1; ) {
		for (i++, tlen = 0; i < plen && ptr[i] != '/'; i++) {
			if (ptr[i] == '~' && i + 1 < plen &&
			    (ptr[i + 1] == '0' || ptr[i + 1] == '1'))
				tok[tlen++] = ptr[++i] == '0' ? '~' : '/';
			else if (ptr[i] == '~') {
				*bad = "holds a ~ not followed by 0 or 1";
				return -1;
			} else
				tok[tlen++] = ptr[i];
		}
		cur = pointer_step(w->s, cur, tok, tlen);
	}
	*bad = "points at nothing in the schema";
	return cur;
}

/* One reference token: an object's member, or an array's index. */
static long
pointer_step(const struct json *s, size_t cur, const char *tok, size_t len)
{
	size_t	 n = 0, i, e;

	if (s->toks[cur].type == JSON_OBJECT)
		return member_find(s, cur, tok, len);
	if (s->toks[cur].type != JSON_ARRAY || len == 0 ||
	    (tok[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len; i++) {
		if (tok[i] < '0' || tok[i] > '9' || n > s->toks[cur].size)
			return -1;
		n = n * 10 + (tok[i] - '0');
	}
	if (n >= s->toks[cur].size)
		return -1;
	for (i = 0, e = cur + 1; i < n; i++)
		e = json_next(s, e);
	return (long)e;
}

/* A $ref back to a schema taken at this same value: a loop, refused at once. */
static int
kw_ref(struct walk *w, size_t st, size_t ref, size_t vt, unsigned int depth,
    unsigned int refs)
{
	const char	*bad, *raw = w->s->buf + w->s->toks[ref].start;
	size_t		 i;
	long		 target;
	int		 rawlen, r;

	if (w->s->toks[ref].type != JSON_STRING)
		return unusable(w, "a $ref that is not a string");
	rawlen = w->s->toks[ref].end - w->s->toks[ref].start > 64 ? 64 :
	    (int)(w->s->toks[ref].end - w->s->toks[ref].start);
	if ((target = ref_target(w, ref, &bad)) == -1)
		return unusable(w, "the $ref %.*s %s", rawlen, raw, bad);
	if (refs >= SCHEMA_MAXREFS)
		return unusable(w, "more than %d $ref in a row",
		    SCHEMA_MAXREFS);
	for (i = 0; i < w->nchain; i++)
		if ((size_t)target == st || (w->chain[i].schema ==
		    (size_t)target && w->chain[i].value == vt))
			return unusable(w, "the $ref %.*s leads back to a "
			    "schema it came from with no step into the reply: "
			    "the $ref loops", rawlen, raw);
	if (w->nchain == sizeof(w->chain) / sizeof(w->chain[0]))
		return unusable(w, "schemas nest deeper than %d",
		    SCHEMA_MAXDEPTH);
	w->chain[w->nchain].schema = target;
	w->chain[w->nchain++].value = vt;
	r = sv_value(w, target, vt, depth + 1, refs + 1);
	w->nchain--;
	return r;
}

static int
type_is(const struct json *v, size_t vt, const char *name)
{
	enum json_type	 t = v->toks[vt].type;
	const char	*raw;
	size_t		 len;

	if (strcmp(name, "string") == 0)
		return t == JSON_STRING;
	if (strcmp(name, "number") == 0)
		return t == JSON_NUMBER;
	if (strcmp(name, "integer") == 0) {
		if (t != JSON_NUMBER)
			return 0;
		raw = json_raw(v, vt, &len);
		return integral(raw, len);
	}
	if (strcmp(name, "boolean") == 0)
		return t == JSON_TRUE || t == JSON_FALSE;
	if (strcmp(name, "object") == 0)
		return t == JSON_OBJECT;
	if (strcmp(name, "array") == 0)
		return t == JSON_ARRAY;
	if (strcmp(name, "null") == 0)
		return t == JSON_NULL;
	return -1;
}

/* A number with no digit other than 0 after its point, once scaled. */
static int
integral(const char *s, size_t n)
{
	size_t	 i = 0, istart, ilen, fstart, flen = 0, d;
	long	 e = 0, point;
	int	 neg = 0;

	if (i < n && s[i] == '-')
		i++;
	for (istart = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	ilen = i - istart;
	fstart = i + 1;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			flen++;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '-' || s[i] == '+'))
			neg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9' && e < 100000; i++)
			e = e * 10 + (s[i] - '0');
	}
	point = (long)ilen + (neg ? -e : e);
	for (d = 0; d < ilen + flen; d++) {
		if ((long)d < point)
			continue;
		if ((d < ilen ? s[istart + d] : s[fstart + d - ilen]) != '0')
			return 0;
	}
	return 1;
}

static const char *
value_kind(const struct json *v, size_t vt)
{
	switch (v->toks[vt].type) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_NUMBER:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* The schema's type names as "a string or null" in wants. */
static int
kw_type(struct walk *w, size_t st, size_t k, size_t vt, unsigned int depth,
    unsigned int refs)
{
	const struct json	*s = w->s;
	char			 name[16], wants[160] = "";
	size_t			 n, i, t, len, count;
	int			 is;

	count = s->toks[k].type == JSON_ARRAY ? s->toks[k].size : 1;
	if (s->toks[k].type != JSON_ARRAY && s->toks[k].type != JSON_STRING)
		return unusable(w, "type is neither a name nor a list of names");
	t = s->toks[k].type == JSON_ARRAY ? k + 1 : k;
	for (n = 0; n < count; n++, t = json_next(s, t)) {
		if (json_string_copy(s, t, name, sizeof(name), &len) == -1 ||
		    (is = type_is(w->v, vt, name)) == -1)
			return unusable(w, "type names no JSON Schema type");
		if (is)
			return SCHEMA_OK;
		for (i = 0; strcmp(typenames[i].name, name) != 0; i++)
			;
		if (n > 0)
			(void)strlcat(wants, " or ", sizeof(wants));
		(void)strlcat(wants, typenames[i].article, sizeof(wants));
	}
	if (count == 0)
		return unusable(w, "type is an empty list");
	return mismatch(w, "is %s, the schema wants %s", value_kind(w->v, vt),
	    wants);
}

static int
kw_enum(struct walk *w, size_t st, size_t k, size_t vt, unsigned int depth,
    unsigned int refs)
{
	const struct json	*s = w->s;
	size_t			 n, e;

	if (s->toks[k].type != JSON_ARRAY)
		return unusable(w, "enum is not a list");
	for (n = 0, e = k + 1; n < s->toks[k].size; n++, e = json_next(s, e))
		if (equal(w, s, e, w->v, vt))
			return SCHEMA_OK;
	return mismatch(w, "is none of the schema's enum values");
}

static int
kw_const(struct walk *w, size_t st, size_t k, size_t vt, unsigned int depth,
    unsigned int refs)
{
	return equal(w, w->s, k, w->v, vt) ? SCHEMA_OK :
	    mismatch(w, "is not the schema's const value");
}

static int
kw_allof(struct walk *w, size_t st, size_t k, size_t vt, unsigned int depth,
    unsigned int refs)
{
	return sv_combine(w, k, vt, 1, depth);
}

static int
kw_anyof(struct walk *w, size_t st, size_t k, size_t vt, unsigned int depth,
    unsigned int refs)
{
	return sv_combine(w, k, vt, 0, depth);
}

static int
sv_combine(struct walk *w, size_t k, size_t vt, int all, unsigned int depth)
{
	const struct json	*s = w->s;
	char			*saved = w->why, first[SCHEMA_WHY_MAX] = "",
				 scratch[SCHEMA_WHY_MAX];
	size_t			 n, e, savedsz = w->whysz;
	int			 r;

	if (s->toks[k].type != JSON_ARRAY || s->toks[k].size == 0)
		return unusable(w, "%s is not a list of schemas",
		    all ? "allOf" : "anyOf");
	for (n = 0, e = k + 1; n < s->toks[k].size; n++, e = json_next(s, e)) {
		if (!all) {
			w->why = scratch;
			w->whysz = sizeof(scratch);
		}
		r = sv_value(w, e, vt, depth + 1, 0);
		w->why = saved;
		w->whysz = savedsz;
		if (all && r != SCHEMA_OK)
			return r;
		if (!all && r == SCHEMA_UNUSABLE) {
			(void)strlcpy(w->why, scratch, w->whysz);
			return r;
		}
		if (!all && r == SCHEMA_OK)
			return SCHEMA_OK;
		if (!all && n == 0)
			(void)strlcpy(first, scratch, sizeof(first));
	}
	if (all)
		return SCHEMA_OK;
	return mismatch(w, "matches none of the %u schemas of anyOf (the "
	    "first says %s)", s->toks[k].size, first);
}

static int
kw_required(struct walk *w, size_t st, size_t req, size_t vt,
    unsigned int depth, unsigned int refs)
{
	const struct json	*s = w->s;
	char			 name[KEY_MAX];
	size_t			 n, e, len;

	if (w->v->toks[vt].type != JSON_OBJECT)
		return SCHEMA_OK;
	if (s->toks[req].type != JSON_ARRAY)
		return unusable(w, "required is not a list of names");
	for (n = 0, e = req + 1; n < s->toks[req].size;
	    n++, e = json_next(s, e)) {
		if (json_string_copy(s, e, name, sizeof(name), &len) == -1)
			return unusable(w, "required holds what is not a "
			    "name, or one over %d bytes", KEY_MAX - 1);
		if (member_find(w->v, vt, name, len) == -1)
			return mismatch(w, "lacks the required property "
			    "\"%.64s\"", name);
	}
	return SCHEMA_OK;
}

static int
kw_properties(struct walk *w, size_t st, size_t props, size_t vt,
    unsigned int depth, unsigned int refs)
{
	const struct json	*v = w->v;
	char			 name[KEY_MAX];
	size_t			 n, k, len;
	long			 sub;
	int			 r;

	if (v->toks[vt].type != JSON_OBJECT)
		return SCHEMA_OK;
	if (w->s->toks[props].type != JSON_OBJECT)
		return unusable(w, "properties is not an object");
	for (n = 0, k = vt + 1; n < v->toks[vt].size;
	    n++, k = v->toks[k + 1].next) {
		if (++w->steps > SCHEMA_MAXSTEPS)
			return too_long(w);
		if (json_string_copy(v, k, name, sizeof(name), &len) == -1 ||
		    (sub = member_find(w->s, props, name, len)) == -1)
			continue;
		if ((r = sv_member(w, sub, k, k + 1, depth, 0)) != SCHEMA_OK)
			return r;
	}
	return SCHEMA_OK;
}

static int
kw_additional(struct walk *w, size_t st, size_t extra, size_t vt,
    unsigned int depth, unsigned int refs)
{
	const struct json	*v = w->v;
	char			 name[KEY_MAX];
	size_t			 n, k, len;
	long			 props;
	int			 r;

	if (v->toks[vt].type != JSON_OBJECT)
		return SCHEMA_OK;
	props = json_find(w->s, st, "properties");
	for (n = 0, k = vt + 1; n < v->toks[vt].size;
	    n++, k = v->toks[k + 1].next) {
		if (++w->steps > SCHEMA_MAXSTEPS)
			return too_long(w);
		if (props != -1 && json_string_copy(v, k, name, sizeof(name),
		    &len) == 0 && member_find(w->s, props, name, len) != -1)
			continue;
		if ((r = sv_member(w, extra, k, k + 1, depth, 1)) != SCHEMA_OK)
			return r;
	}
	return SCHEMA_OK;
}

static int
sv_member(struct walk *w, size_t sub, size_t key, size_t val,
    unsigned int depth, int extra)
{
	size_t	 old;
	int	 r;

	old = path_key(w, w->v, key);
	if (extra && w->s->toks[sub].type == JSON_FALSE)
		r = mismatch(w, "is not allowed: additionalProperties is "
		    "false");
	else
		r = sv_value(w, sub, val, depth + 1, 0);
	path_pop(w, old);
	return r;
}

/* The member of obj whose key is name's len bytes, a NUL among them. */
static long
member_find(const struct json *j, size_t obj, const char *name, size_t len)
{
	char	 key[KEY_MAX];
	size_t	 m, k, klen;

	if (j->toks[obj].type != JSON_OBJECT)
		return -1;
	for (m = 0, k = obj + 1; m < j->toks[obj].size;
	    m++, k = j->toks[k + 1].next)
		if (json_string_copy(j, k, key, sizeof(key), &klen) == 0 &&
		    klen == len && memcmp(key, name, len) == 0)
			return (long)k + 1;
	return -1;
}

static int
kw_items(struct walk *w, size_t st, size_t items, size_t vt,
    unsigned int depth, unsigned int refs)
{
	size_t	 n, e, old;
	int	 r;

	if (w->v->toks[vt].type != JSON_ARRAY)
		return SCHEMA_OK;
	if (w->s->toks[items].type == JSON_ARRAY)
		return unusable(w, "items as a list is not in the subset");
	for (n = 0, e = vt + 1; n < w->v->toks[vt].size;
	    n++, e = json_next(w->v, e)) {
		old = path_index(w, n);
		r = sv_value(w, items, e, depth + 1, 0);
		path_pop(w, old);
		if (r != SCHEMA_OK)
			return r;
	}
	return SCHEMA_OK;
}

/* The API takes 0 and 1 alone; any whole number is checked here. */
static int
kw_minitems(struct walk *w, size_t st, size_t k, size_t vt,
    unsigned int depth, unsigned int refs)
{
	const char	*raw;
	char		 num[32];
	size_t		 len;
	double		 least;

	if (w->v->toks[vt].type != JSON_ARRAY)
		return SCHEMA_OK;
	raw = json_raw(w->s, k, &len);
	if (w->s->toks[k].type != JSON_NUMBER || !integral(raw, len) ||
	    len >= sizeof(num) || raw[0] == '-')
		return unusable(w, "minItems is not a whole number");
	memcpy(num, raw, len);
	num[len] = '\0';
	least = strtod(num, NULL);
	if ((double)w->v->toks[vt].size >= least)
		return SCHEMA_OK;
	return mismatch(w, "has %u items, the schema wants at least %.0f",
	    w->v->toks[vt].size, least);
}

static char *
string_of(const struct json *j, size_t t, size_t *len)
{
	size_t	 raw = j->toks[t].end - j->toks[t].start;
	char	*s;

	if ((s = malloc(raw + 1)) != NULL)
		(void)json_string_copy(j, t, s, raw + 1, len);
	return s;
}

static int
equal_strings(const struct json *a, size_t ta, const struct json *b,
    size_t tb)
{
	char	*sa, *sb;
	size_t	 la = 0, lb = 0;
	int	 r;

	sa = string_of(a, ta, &la);
	sb = string_of(b, tb, &lb);
	r = sa != NULL && sb != NULL && la == lb && memcmp(sa, sb, la) == 0;
	free(sa);
	free(sb);
	return r;
}

static int
equal_numbers(const struct json *a, size_t ta, const struct json *b,
    size_t tb)
{
	const char	*ra, *rb;
	char		 na[128], nb[128];
	size_t		 la, lb;

	ra = json_raw(a, ta, &la);
	rb = json_raw(b, tb, &lb);
	if (la == lb && memcmp(ra, rb, la) == 0)
		return 1;
	if (la >= sizeof(na) || lb >= sizeof(nb))
		return 0;
	memcpy(na, ra, la);
	na[la] = '\0';
	memcpy(nb, rb, lb);
	nb[lb] = '\0';
	return strtod(na, NULL) == strtod(nb, NULL);
}

/* JSON equality: members in any order, numbers by value. */
static int
equal(struct walk *w, const struct json *a, size_t ta, const struct json *b,
    size_t tb)
{
	char		 key[KEY_MAX];
	size_t		 n, ka, kb, len;
	long		 found;

	if (++w->steps > SCHEMA_MAXSTEPS || a->toks[ta].type != b->toks[tb].type)
		return 0;
	switch (a->toks[ta].type) {
	case JSON_STRING:
		return equal_strings(a, ta, b, tb);
	case JSON_NUMBER:
		return equal_numbers(a, ta, b, tb);
	case JSON_ARRAY:
		if (a->toks[ta].size != b->toks[tb].size)
			return 0;
		for (n = 0, ka = ta + 1, kb = tb + 1; n < a->toks[ta].size;
		    n++, ka = json_next(a, ka), kb = json_next(b, kb))
			if (!equal(w, a, ka, b, kb))
				return 0;
		return 1;
	case JSON_OBJECT:
		if (a->toks[ta].size != b->toks[tb].size)
			return 0;
		for (n = 0, ka = ta + 1; n < a->toks[ta].size;
		    n++, ka = a->toks[ka + 1].next) {
			if (json_string_copy(a, ka, key, sizeof(key), &len) ==
			    -1 || memchr(key, '\0', len) != NULL ||
			    (found = json_find(b, tb, key)) == -1 ||
			    !equal(w, a, ka + 1, b, found))
				return 0;
		}
		return 1;
	default:
		return 1;
	}
}
