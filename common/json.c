/* JSON over jsmn, which takes "[1 2]": every byte is checked again here. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
/* Parent links make closing a value cost its depth, not the document's size. */
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "json.h"

struct json_key {
	const char	*p;
	size_t		 len;
	size_t		 off;
};

struct walk {
	struct json	*j;
	jsmntok_t	*jt;
	size_t		 njt;
	size_t		 pos;
	size_t		 next;
	const char	*why;
	struct json_key	*keys;
	size_t		 keyscap;
	int		 lone;
};

struct json_iter {
	const char	*s;
	size_t		 n;
	size_t		 i;
	unsigned char	 b[4];
	size_t		 blen;
	size_t		 bpos;
};

static int	walk_fail(struct walk *, const char *);
static void	walk_ws(struct walk *);
static int	walk_byte(const struct walk *);
static int	walk_value(struct walk *, unsigned int);
static int	walk_container(struct walk *, size_t, unsigned int);
static int	walk_members(struct walk *, int, int, unsigned int, uint32_t *);
static int	walk_key(struct walk *, unsigned int);
static int	walk_dupkeys(struct walk *, size_t);
static int	walk_primitive(struct walk *, size_t, size_t, size_t);
static int	walk_string(struct walk *, size_t);
static int	json_prescan(struct walk *, const char *, size_t);
static int	json_tokenize(struct walk *, const char *, size_t);
static int	json_lone(struct walk *, const char *, size_t);
static int	json_walk(struct walk *, const char *, size_t);
static int	json_number_ok(const char *, size_t, const char **);
static int	json_escape_ok(const char *, size_t, size_t *, int,
		    const char **);
static int	json_hex4(const char *, size_t, uint32_t *);
static size_t	json_utf8_len(const unsigned char *, size_t);
static size_t	json_utf8_put(uint32_t, unsigned char *);
static size_t	json_unescape_one(const char *, size_t, size_t *,
		    unsigned char *);
static void	json_iter_init(struct json_iter *, const struct json *, size_t);
static int	json_iter_next(struct json_iter *);
static int	json_key_cmp(const void *, const void *);
static void	jw_put(struct json_writer *, const char *, size_t);
static void	jw_value(struct json_writer *);
static void	jw_open(struct json_writer *, char, char);
static void	jw_escaped(struct json_writer *, const char *, size_t);
static void	jw_control(struct json_writer *, unsigned char);

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
walk_fail(struct walk *w, const char *why)
{
	if (w->why == NULL) {
		w->why = why;
		w->j->erroff = w->pos;
	}
	return -1;
}

static void
walk_ws(struct walk *w)
{
	while (w->pos < w->j->len && is_ws(w->j->buf[w->pos]))
		w->pos++;
}

static int
walk_byte(const struct walk *w)
{
	if (w->pos >= w->j->len)
		return -1;
	return (unsigned char)w->j->buf[w->pos];
}

/* Before jsmn: deep nesting makes its closing walk long, and a NUL ends it. */
static int
json_prescan(struct walk *w, const char *buf, size_t len)
{
	size_t		 depth = 0;
	int		 instr = 0;

	for (w->pos = 0; w->pos < len; w->pos++) {
		if (buf[w->pos] == '\0')
			return walk_fail(w, "a NUL byte");
		if (instr) {
			if (buf[w->pos] == '\\' && w->pos + 1 < len)
				w->pos++;
			else if (buf[w->pos] == '"')
				instr = 0;
		} else if (buf[w->pos] == '"')
			instr = 1;
		else if (buf[w->pos] == '[' || buf[w->pos] == '{') {
			if (++depth > JSON_MAXDEPTH)
				return walk_fail(w, "nested deeper than 32");
		} else if ((buf[w->pos] == ']' || buf[w->pos] == '}') &&
		    depth > 0)
			depth--;
	}
	w->pos = 0;
	return 0;
}

static int
json_tokenize(struct walk *w, const char *buf, size_t len)
{
	jsmn_parser	 p;
	jsmntok_t	*t;
	size_t		 n = 64;
	int		 r;

	jsmn_init(&p);
	for (;;) {
		if ((t = reallocarray(w->jt, n, sizeof(*t))) == NULL)
			return walk_fail(w, "out of memory");
		w->jt = t;
		r = jsmn_parse(&p, buf, len, t, n);
		if (r != JSMN_ERROR_NOMEM)
			break;
		if (n >= JSON_MAXTOKENS)
			return walk_fail(w, "more than 1048576 values");
		n *= 2;
	}
	w->pos = p.pos;
	/* jsmn goes back to a string's quote only on a bad escape. */
	if (r == JSMN_ERROR_INVAL && p.pos < len && buf[p.pos] == '"')
		return walk_fail(w, "a bad escape in a string");
	if (r == JSMN_ERROR_INVAL)
		return walk_fail(w, "an unexpected character");
	if (r < 0) {
		w->pos = len;
		return walk_fail(w, "the text ends inside a value");
	}
	w->njt = p.toknext;
	w->pos = 0;
	return 0;
}

static int
walk_value(struct walk *w, unsigned int depth)
{
	struct json_tok	*t;
	jsmntok_t	*jt;
	size_t		 i, outer;
	int		 r;

	walk_ws(w);
	if (w->next >= w->njt)
		return walk_fail(w, "a value is missing");
	i = w->next++;
	jt = &w->jt[i];
	outer = jt->type == JSMN_STRING ? (size_t)jt->start - 1 :
	    (size_t)jt->start;
	if (jt->start < 0 || jt->end < jt->start || outer != w->pos)
		return walk_fail(w, "an unexpected character");
	t = &w->j->toks[i];
	t->start = jt->start;
	t->end = jt->end;
	if (jt->type == JSMN_STRING)
		r = walk_string(w, i);
	else if (jt->type == JSMN_PRIMITIVE)
		r = walk_primitive(w, i, jt->start, jt->end);
	else
		r = walk_container(w, i, depth + 1);
	t->next = w->next;
	return r;
}

static int
walk_container(struct walk *w, size_t i, unsigned int depth)
{
	int		 obj = w->jt[i].type == JSMN_OBJECT;
	int		 close = obj ? '}' : ']';
	uint32_t	 n = 0;

	if (depth > JSON_MAXDEPTH)
		return walk_fail(w, "nested deeper than 32");
	w->j->toks[i].type = obj ? JSON_OBJECT : JSON_ARRAY;
	w->pos++;
	walk_ws(w);
	if (walk_byte(w) == close)
		w->pos++;
	else if (walk_members(w, obj, close, depth, &n) == -1)
		return -1;
	if (w->pos != (size_t)w->jt[i].end)
		return walk_fail(w, "an unexpected character");
	w->j->toks[i].size = n;
	return obj ? walk_dupkeys(w, i) : 0;
}

static int
walk_members(struct walk *w, int obj, int close, unsigned int depth,
    uint32_t *n)
{
	int	 c;

	for (;;) {
		if (obj && walk_key(w, depth) == -1)
			return -1;
		if (walk_value(w, depth) == -1)
			return -1;
		(*n)++;
		walk_ws(w);
		c = walk_byte(w);
		if (c == ',')
			w->pos++;
		else if (c == close) {
			w->pos++;
			return 0;
		} else
			return walk_fail(w, obj ? "expected , or } after a member" :
			    "expected , or ] after a value");
	}
}

static int
walk_key(struct walk *w, unsigned int depth)
{
	size_t	 k = w->next;

	if (walk_value(w, depth) == -1)
		return -1;
	if (w->j->toks[k].type != JSON_STRING)
		return walk_fail(w, "an object key that is not a string");
	walk_ws(w);
	if (walk_byte(w) != ':')
		return walk_fail(w, "expected : after a key");
	w->pos++;
	return 0;
}

/* Keys are compared unescaped: "a" and "\u0061" are the same key. */
static int
walk_dupkeys(struct walk *w, size_t obj)
{
	struct json	*j = w->j;
	struct json_key	*keys;
	size_t		 n = j->toks[obj].size, k, m;

	if (n < 2)
		return 0;
	if (n > w->keyscap) {
		if ((keys = reallocarray(w->keys, n, sizeof(*keys))) == NULL)
			return walk_fail(w, "out of memory");
		w->keys = keys;
		w->keyscap = n;
	}
	for (m = 0, k = obj + 1; m < n; m++, k = j->toks[k + 1].next) {
		w->keys[m].p = j->buf + j->toks[k].start;
		w->keys[m].len = j->toks[k].end - j->toks[k].start;
		w->keys[m].off = j->toks[k].start - 1;
	}
	qsort(w->keys, n, sizeof(*w->keys), json_key_cmp);
	for (m = 1; m < n; m++) {
		if (json_key_cmp(&w->keys[m - 1], &w->keys[m]) != 0)
			continue;
		w->pos = w->keys[m].off > w->keys[m - 1].off ?
		    w->keys[m].off : w->keys[m - 1].off;
		return walk_fail(w, "a key given twice in one object");
	}
	return 0;
}

static int
walk_primitive(struct walk *w, size_t i, size_t start, size_t end)
{
	struct json_tok	*t = &w->j->toks[i];
	const char	*s = w->j->buf + start, *why;
	size_t		 n = end - start;

	if (n == 4 && memcmp(s, "true", 4) == 0)
		t->type = JSON_TRUE;
	else if (n == 5 && memcmp(s, "false", 5) == 0)
		t->type = JSON_FALSE;
	else if (n == 4 && memcmp(s, "null", 4) == 0)
		t->type = JSON_NULL;
	else if (json_number_ok(s, n, &why) == 0)
		t->type = JSON_NUMBER;
	else
		return walk_fail(w, why);
	w->pos = end;
	return 0;
}

static int
json_number_ok(const char *s, size_t n, const char **why)
{
	size_t		 i = 0;
	unsigned int	 e = 0;

	*why = "not a number, true, false or null";
	if (i < n && s[i] == '-')
		i++;
	if (i == n || !is_digit(s[i]))
		return -1;
	if (s[i++] == '0' && i < n && is_digit(s[i])) {
		*why = "a number with a leading zero";
		return -1;
	}
	while (i < n && is_digit(s[i]))
		i++;
	if (i < n && s[i] == '.') {
		if (++i == n || !is_digit(s[i]))
			return -1;
		while (i < n && is_digit(s[i]))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || !is_digit(s[i]))
			return -1;
		for (; i < n && is_digit(s[i]); i++)
			if ((e = e * 10 + (s[i] - '0')) > JSON_MAXEXP) {
				*why = "a number with an exponent over 1000";
				return -1;
			}
	}
	return i == n ? 0 : -1;
}

static int
walk_string(struct walk *w, size_t i)
{
	const struct json_tok	*t = &w->j->toks[i];
	const unsigned char	*s = (const unsigned char *)w->j->buf;
	size_t			 p = t->start, len;
	const char		*why;

	w->j->toks[i].type = JSON_STRING;
	while (p < t->end) {
		w->pos = p;
		if (s[p] == '\\') {
			if (json_escape_ok(w->j->buf, t->end, &p, w->lone,
			    &why) == -1)
				return walk_fail(w, why);
		} else if (s[p] < 0x20)
			return walk_fail(w, "a control character in a string");
		else if ((len = json_utf8_len(s + p, t->end - p)) == 0)
			return walk_fail(w, "a string that is not UTF-8");
		else
			p += len;
	}
	w->pos = t->end + 1;
	return 0;
}

/* The escape at s[*p], a surrogate pair as one; *p moves past it. */
static int
json_escape_ok(const char *s, size_t end, size_t *p, int lone,
    const char **why)
{
	uint32_t	 hi, lo;

	*why = "a bad escape in a string";
	if (*p + 1 >= end)
		return -1;
	if (strchr("\"\\/bfnrt", s[*p + 1]) != NULL && s[*p + 1] != '\0') {
		*p += 2;
		return 0;
	}
	if (s[*p + 1] != 'u' || json_hex4(s + *p + 2, end - *p - 2, &hi) == -1)
		return -1;
	*p += 6;
	*why = "a lone surrogate escape in a string";
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return lone ? 0 : -1;
	if (hi < 0xd800 || hi > 0xdbff)
		return 0;
	if (*p + 1 >= end || s[*p] != '\\' || s[*p + 1] != 'u' ||
	    json_hex4(s + *p + 2, end - *p - 2, &lo) == -1 ||
	    lo < 0xdc00 || lo > 0xdfff)
		return lone ? 0 : -1;
	*p += 6;
	return 0;
}

static int
json_hex4(const char *s, size_t n, uint32_t *v)
{
	size_t	 i;
	int	 c;

	if (n < 4)
		return -1;
	for (*v = 0, i = 0; i < 4; i++) {
		c = (unsigned char)s[i];
		if (is_digit(c))
			*v = *v << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v = *v << 4 | (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v = *v << 4 | (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* The length of the UTF-8 sequence at s: 0 when it is not one (RFC 3629). */
static size_t
json_utf8_len(const unsigned char *s, size_t n)
{
	uint32_t	 cp;
	size_t		 len, k;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0xff >> (len + 1));
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static size_t
json_utf8_put(uint32_t cp, unsigned char *out)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | cp >> 12;
		out[1] = 0x80 | (cp >> 6 & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | cp >> 18;
	out[1] = 0x80 | (cp >> 12 & 0x3f);
	out[2] = 0x80 | (cp >> 6 & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* The bytes the character at s[*i] stands for; json_parse() checked it. */
static size_t
json_unescape_one(const char *s, size_t n, size_t *i, unsigned char *out)
{
	static const char	 from[] = "bfnrt", to[] = "\b\f\n\r\t";
	const char		*c;
	uint32_t		 cp, lo;

	if (s[*i] != '\\' || *i + 1 >= n) {
		out[0] = s[(*i)++];
		return 1;
	}
	*i += 2;
	if (s[*i - 1] != 'u') {
		c = strchr(from, s[*i - 1]);
		out[0] = c != NULL && *c != '\0' ? to[c - from] : s[*i - 1];
		return 1;
	}
	if (json_hex4(s + *i, n - *i, &cp) == -1)
		return json_utf8_put(0xfffd, out);
	*i += 4;
	if (cp >= 0xd800 && cp <= 0xdbff && *i + 6 <= n && s[*i] == '\\' &&
	    s[*i + 1] == 'u' && json_hex4(s + *i + 2, n - *i - 2, &lo) == 0 &&
	    lo >= 0xdc00 && lo <= 0xdfff) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		*i += 6;
	}
	return json_utf8_put(cp, out);
}

static void
json_iter_init(struct json_iter *it, const struct json *j, size_t tok)
{
	memset(it, 0, sizeof(*it));
	it->s = j->buf + j->toks[tok].start;
	it->n = j->toks[tok].end - j->toks[tok].start;
}

static int
json_iter_next(struct json_iter *it)
{
	if (it->bpos == it->blen) {
		if (it->i >= it->n)
			return -1;
		it->blen = json_unescape_one(it->s, it->n, &it->i, it->b);
		it->bpos = 0;
	}
	return it->b[it->bpos++];
}

static int
json_key_cmp(const void *a, const void *b)
{
	const struct json_key	*ka = a, *kb = b;
	struct json_iter	 ia, ib;
	int			 ca, cb;

	memset(&ia, 0, sizeof(ia));
	memset(&ib, 0, sizeof(ib));
	ia.s = ka->p;
	ia.n = ka->len;
	ib.s = kb->p;
	ib.n = kb->len;
	do {
		ca = json_iter_next(&ia);
		cb = json_iter_next(&ib);
	} while (ca == cb && ca != -1);
	return ca - cb;
}

/* A lone number, true, false or null: jsmn's strict mode wants a delimiter after one. */
static int
json_lone(struct walk *w, const char *buf, size_t len)
{
	size_t	 end = len;

	while (end > w->pos && is_ws(buf[end - 1]))
		end--;
	if ((w->j->toks = calloc(1, sizeof(*w->j->toks))) == NULL)
		return walk_fail(w, "out of memory");
	w->j->ntoks = 1;
	w->j->toks[0].start = w->pos;
	w->j->toks[0].end = end;
	w->j->toks[0].next = 1;
	return walk_primitive(w, 0, w->pos, end);
}

static int
json_walk(struct walk *w, const char *buf, size_t len)
{
	int	 c;

	if (len > JSON_MAXLEN)
		return walk_fail(w, "larger than 64 MiB");
	if (json_prescan(w, buf, len) == -1)
		return -1;
	walk_ws(w);
	if ((c = walk_byte(w)) == -1)
		return walk_fail(w, "no value");
	if (c != '{' && c != '[' && c != '"')
		return json_lone(w, buf, len);
	if (json_tokenize(w, buf, len) == -1)
		return -1;
	if ((w->j->toks = calloc(w->njt + 1, sizeof(*w->j->toks))) == NULL)
		return walk_fail(w, "out of memory");
	w->j->ntoks = w->njt;
	if (walk_value(w, 0) == -1)
		return -1;
	walk_ws(w);
	if (w->pos != len || w->next != w->njt)
		return walk_fail(w, "more after the value");
	return 0;
}

static int
json_parse_any(struct json *j, const char *buf, size_t len, int lone,
    const char **why)
{
	struct walk	 w;
	int		 r;

	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->len = len;
	memset(&w, 0, sizeof(w));
	w.j = j;
	w.lone = lone;
	r = json_walk(&w, buf, len);
	free(w.jt);
	free(w.keys);
	if (r == -1) {
		*why = w.why;
		free(j->toks);
		j->toks = NULL;
		j->ntoks = 0;
	}
	return r;
}

int
json_parse(struct json *j, const char *buf, size_t len, const char **why)
{
	return json_parse_any(j, buf, len, 0, why);
}

int
json_parse_lone(struct json *j, const char *buf, size_t len, const char **why)
{
	return json_parse_any(j, buf, len, 1, why);
}

void
json_free(struct json *j)
{
	free(j->toks);
	j->toks = NULL;
	j->ntoks = 0;
}

size_t
json_next(const struct json *j, size_t tok)
{
	return tok < j->ntoks ? j->toks[tok].next : j->ntoks;
}

long
json_find(const struct json *j, size_t obj, const char *key)
{
	size_t	 k, m;

	if (obj >= j->ntoks || j->toks[obj].type != JSON_OBJECT)
		return -1;
	for (m = 0, k = obj + 1; m < j->toks[obj].size;
	    m++, k = j->toks[k + 1].next)
		if (json_streq(j, k, key))
			return (long)k + 1;
	return -1;
}

const char *
json_raw(const struct json *j, size_t tok, size_t *len)
{
	const struct json_tok	*t = &j->toks[tok];

	if (t->type == JSON_STRING) {
		*len = t->end - t->start + 2;
		return j->buf + t->start - 1;
	}
	*len = t->end - t->start;
	return j->buf + t->start;
}

int
json_streq(const struct json *j, size_t tok, const char *s)
{
	struct json_iter	 it;
	int			 c;

	if (tok >= j->ntoks || j->toks[tok].type != JSON_STRING)
		return 0;
	json_iter_init(&it, j, tok);
	for (; *s != '\0'; s++)
		if (json_iter_next(&it) != (unsigned char)*s)
			return 0;
	c = json_iter_next(&it);
	return c == -1;
}

int
json_string_copy(const struct json *j, size_t tok, char *out, size_t outsz,
    size_t *outlen)
{
	struct json_iter	 it;
	size_t			 n = 0;
	int			 c = -1;

	if (outsz > 0)
		out[0] = '\0';
	*outlen = 0;
	if (tok >= j->ntoks || j->toks[tok].type != JSON_STRING || outsz == 0)
		return -1;
	json_iter_init(&it, j, tok);
	while (n + 1 < outsz && (c = json_iter_next(&it)) != -1)
		out[n++] = c;
	out[n] = '\0';
	*outlen = n;
	if (c == -1 && n + 1 < outsz)
		return 0;
	return json_iter_next(&it) == -1 ? 0 : -1;
}

char *
json_string_dup(const struct json *j, size_t tok, size_t maxlen)
{
	char	*s;
	size_t	 len, raw;

	if (tok >= j->ntoks || j->toks[tok].type != JSON_STRING) {
		errno = EINVAL;
		return NULL;
	}
	/* Unescaping never makes a string longer. */
	raw = j->toks[tok].end - j->toks[tok].start;
	if ((s = malloc(raw + 1)) == NULL)
		return NULL;
	(void)json_string_copy(j, tok, s, raw + 1, &len);
	if (len > maxlen || memchr(s, '\0', len) != NULL) {
		free(s);
		errno = len > maxlen ? ENAMETOOLONG : EINVAL;
		return NULL;
	}
	return s;
}

int
json_int(const struct json *j, size_t tok, int64_t min, int64_t max,
    int64_t *out)
{
	const char	*s;
	size_t		 i, n;
	int		 neg;
	uint64_t	 v = 0, lim;

	if (tok >= j->ntoks || j->toks[tok].type != JSON_NUMBER)
		return -1;
	s = json_raw(j, tok, &n);
	neg = s[0] == '-';
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (i = neg; i < n; i++) {
		if (!is_digit(s[i]) || v > (lim - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	if (neg && v == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	return *out < min || *out > max ? -1 : 0;
}

void
json_writer_init(struct json_writer *w)
{
	memset(w, 0, sizeof(*w));
}

static void
jw_put(struct json_writer *w, const char *s, size_t n)
{
	char	*p;
	size_t	 size;

	if (w->failed)
		return;
	if (n >= w->size - w->len || w->size == 0) {
		size = w->size == 0 ? 256 : w->size;
		while (size - w->len <= n && size < SIZE_MAX / 2)
			size *= 2;
		if (size - w->len <= n || (p = realloc(w->buf, size)) == NULL) {
			w->failed = ENOMEM;
			return;
		}
		w->buf = p;
		w->size = size;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* Before a value: the comma, unless it follows a key or comes first. */
static void
jw_value(struct json_writer *w)
{
	if (w->afterkey) {
		w->afterkey = 0;
		return;
	}
	if ((w->depth == 0 && w->members[0]) ||
	    (w->depth > 0 && w->close[w->depth] == '}')) {
		w->failed = EINVAL;
		return;
	}
	if (w->members[w->depth])
		jw_put(w, ",", 1);
	w->members[w->depth] = 1;
}

static void
jw_open(struct json_writer *w, char open, char close)
{
	jw_value(w);
	if (w->depth == JSON_MAXDEPTH) {
		w->failed = EINVAL;
		return;
	}
	w->depth++;
	w->close[w->depth] = close;
	w->members[w->depth] = 0;
	jw_put(w, &open, 1);
}

void
json_write_object(struct json_writer *w)
{
	jw_open(w, '{', '}');
}

void
json_write_array(struct json_writer *w)
{
	jw_open(w, '[', ']');
}

void
json_write_close(struct json_writer *w)
{
	if (w->depth == 0 || w->afterkey) {
		w->failed = EINVAL;
		return;
	}
	jw_put(w, &w->close[w->depth], 1);
	w->depth--;
}

void
json_write_key(struct json_writer *w, const char *key)
{
	if (w->depth == 0 || w->close[w->depth] != '}' || w->afterkey) {
		w->failed = EINVAL;
		return;
	}
	if (w->members[w->depth])
		jw_put(w, ",", 1);
	w->members[w->depth] = 1;
	jw_escaped(w, key, strlen(key));
	jw_put(w, ":", 1);
	w->afterkey = 1;
}

static void
jw_control(struct json_writer *w, unsigned char c)
{
	static const char	 from[] = "\b\f\n\r\t", to[] = "bfnrt";
	const char		*p;
	char			 esc[8];

	if (c != '\0' && (p = strchr(from, c)) != NULL) {
		esc[0] = '\\';
		esc[1] = to[p - from];
		jw_put(w, esc, 2);
		return;
	}
	(void)snprintf(esc, sizeof(esc), "\\u%04x", c);
	jw_put(w, esc, 6);
}

static void
jw_escaped(struct json_writer *w, const char *s, size_t n)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i = 0, run, len;

	jw_put(w, "\"", 1);
	while (i < n) {
		for (run = i; run < n && u[run] >= 0x20 && u[run] < 0x7f &&
		    u[run] != '"' && u[run] != '\\'; run++)
			;
		jw_put(w, s + i, run - i);
		if ((i = run) == n)
			break;
		if (u[i] == '"' || u[i] == '\\') {
			jw_put(w, "\\", 1);
			jw_put(w, s + i++, 1);
		} else if (u[i] < 0x80)
			jw_control(w, u[i++]);
		else if ((len = json_utf8_len(u + i, n - i)) == 0) {
			jw_put(w, "\\ufffd", 6);
			i++;
		} else {
			jw_put(w, s + i, len);
			i += len;
		}
	}
	jw_put(w, "\"", 1);
}

void
json_write_string(struct json_writer *w, const char *s)
{
	json_write_string_len(w, s, strlen(s));
}

void
json_write_string_len(struct json_writer *w, const char *s, size_t len)
{
	jw_value(w);
	jw_escaped(w, s, len);
}

void
json_write_int(struct json_writer *w, int64_t v)
{
	char	 num[32];

	jw_value(w);
	jw_put(w, num, (size_t)snprintf(num, sizeof(num), "%" PRId64, v));
}

void
json_write_uint(struct json_writer *w, uint64_t v)
{
	char	 num[32];

	jw_value(w);
	jw_put(w, num, (size_t)snprintf(num, sizeof(num), "%" PRIu64, v));
}

void
json_write_bool(struct json_writer *w, int v)
{
	jw_value(w);
	jw_put(w, v ? "true" : "false", v ? 4 : 5);
}

void
json_write_null(struct json_writer *w)
{
	jw_value(w);
	jw_put(w, "null", 4);
}

void
json_write_raw(struct json_writer *w, const char *json, size_t len)
{
	jw_value(w);
	jw_put(w, json, len);
}

char *
json_writer_finish(struct json_writer *w, size_t *len)
{
	char	*s;

	jw_put(w, "", 1);
	if (w->failed || w->depth != 0 || !w->members[0]) {
		json_writer_free(w);
		return NULL;
	}
	s = w->buf;
	*len = w->len - 1;
	json_writer_init(w);
	return s;
}

void
json_writer_free(struct json_writer *w)
{
	free(w->buf);
	json_writer_init(w);
}
