/*
 * The envelope's rules (keepd(8), THE ENVELOPE): the path checked as
 * written and once decoded, an encoded % or / refused; reasons printable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cap.h"
#include "config.h"
#include "envelope.h"
#include "json.h"
#include "values.h"

#define QUOTE_MAX	64	/* bytes of a name a reason quotes */

enum path_rule {
	PATH_OK,
	PATH_CONTROL,
	PATH_SPACE,
	PATH_NONASCII,
	PATH_BACKSLASH,
	PATH_QUERY,
	PATH_FRAGMENT,
	PATH_COLON,
	PATH_SLASHES,
	PATH_DOTDOT,
	PATH_DOT,
	PATH_PERCENT,
	PATH_ENCPERCENT,
	PATH_ENCSLASH
};

/* Each rule's reason as written, then once decoded. */
static const char *const path_reasons[][2] = {
	[PATH_CONTROL] = { "the path holds a control character",
	    "the path holds an encoded control character" },
	[PATH_SPACE] = { "the path holds a space",
	    "the path holds an encoded space" },
	[PATH_NONASCII] = { "the path holds a byte outside printable ASCII",
	    "the path holds an encoded byte outside printable ASCII" },
	[PATH_BACKSLASH] = { "the path holds \\",
	    "the path holds an encoded \\" },
	[PATH_QUERY] = { "the path holds a query",
	    "the path holds an encoded query" },
	[PATH_FRAGMENT] = { "the path holds a fragment",
	    "the path holds an encoded fragment" },
	[PATH_COLON] = { "the path holds : (a scheme; refused anywhere)",
	    "the path holds an encoded : (a scheme; refused anywhere)" },
	[PATH_SLASHES] = { "the path holds //",
	    "the path holds an encoded //" },
	[PATH_DOTDOT] = { "the path holds ..",
	    "the path holds an encoded .." },
	[PATH_DOT] = { "the path holds . as a segment",
	    "the path holds an encoded . as a segment" },
	[PATH_PERCENT] = { "the path holds a % not followed by two hex digits",
	    NULL },
	[PATH_ENCPERCENT] = { "the path holds an encoded %", NULL },
	[PATH_ENCSLASH] = { "the path holds an encoded /", NULL },
};

/* The keep adds the secret: a header that carries one is refused. */
static const char *const auth_names[] = {
	"authorization", "proxy-authorization", "api-key",
	"cookie", "x-auth-token",
};

struct env_ctx {
	struct envelope		*env;
	const struct json	*j;
	envelope_known_fn	 known;
	void			*arg;
	const char *const	*hdrs;
	char			*why;
	size_t			 whysz;
};

struct env_field {
	const char	*name;
	int		(*parse)(struct env_ctx *, size_t);
};

static enum path_rule path_byte(const char *, size_t, size_t, int);
static enum path_rule path_rules(const char *, size_t, int);
static size_t	path_decode(const char *, size_t, char *);
static int	env_fail(struct env_ctx *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static void	env_quote(const char *, size_t, char *, size_t);
static int	env_destination(struct env_ctx *, size_t);
static int	env_method(struct env_ctx *, size_t);
static int	env_path(struct env_ctx *, size_t);
static int	env_headers(struct env_ctx *, size_t);
static int	env_header(struct env_ctx *, size_t, size_t);
static int	env_header_kind(struct env_ctx *, char *, size_t);
static int	env_value(struct env_ctx *, const char *, const char *,
		    size_t);
static int	env_body(struct env_ctx *, size_t);
static int	env_fields(struct env_ctx *);

static const struct env_field env_fields_known[] = {
	{ "destination", env_destination },
	{ "method", env_method },
	{ "path", env_path },
	{ "headers", env_headers },
	{ "body", env_body },
};
#define ENV_NFIELDS	(sizeof(env_fields_known) / sizeof(env_fields_known[0]))
#define ENV_REQUIRED	0x7	/* destination, method and path */

static enum path_rule
path_byte(const char *p, size_t len, size_t i, int decoded)
{
	unsigned char	 c = p[i];

	if (c < 0x20 || c == 0x7f)
		return PATH_CONTROL;
	if (c == ' ')
		return PATH_SPACE;
	if (c > 0x7e)
		return PATH_NONASCII;
	if (c == '\\')
		return PATH_BACKSLASH;
	if (c == '?')
		return PATH_QUERY;
	if (c == '#')
		return PATH_FRAGMENT;
	if (c == ':')
		return PATH_COLON;
	if (c == '/' && i + 1 < len && p[i + 1] == '/')
		return PATH_SLASHES;
	if (c == '.' && i + 1 < len && p[i + 1] == '.')
		return PATH_DOTDOT;
	if (c == '.' && i > 0 && p[i - 1] == '/' &&
	    (i + 1 == len || p[i + 1] == '/'))
		return PATH_DOT;
	if (c == '%' && !decoded) {
		if (i + 2 >= len || hex_digit(p[i + 1]) == -1 ||
		    hex_digit(p[i + 2]) == -1)
			return PATH_PERCENT;
		if (p[i + 1] == '2' && p[i + 2] == '5')
			return PATH_ENCPERCENT;
	}
	return PATH_OK;
}

static enum path_rule
path_rules(const char *p, size_t len, int decoded)
{
	enum path_rule	 r;
	size_t		 i;

	for (i = 0; i < len; i++)
		if ((r = path_byte(p, len, i, decoded)) != PATH_OK)
			return r;
	return PATH_OK;
}

/* Once, and only on a path path_rules() passed: every % has two hex digits. */
static size_t
path_decode(const char *p, size_t len, char *out)
{
	size_t	 i, n = 0;

	for (i = 0; i < len; i++) {
		if (p[i] == '%') {
			out[n++] = hex_digit(p[i + 1]) << 4 | hex_digit(p[i + 2]);
			i += 2;
		} else
			out[n++] = p[i];
	}
	return n;
}

int
envelope_path_check(const char *path, size_t len, const char **why)
{
	char		 dec[ENVELOPE_PATH_MAX];
	enum path_rule	 r;
	size_t		 n;

	if (len == 0 || path[0] != '/') {
		*why = "the path does not start with /";
		return -1;
	}
	if (len > ENVELOPE_PATH_MAX) {
		*why = "the path is longer than 2048 bytes";
		return -1;
	}
	if ((r = path_rules(path, len, 0)) != PATH_OK) {
		*why = path_reasons[r][0];
		return -1;
	}
	n = path_decode(path, len, dec);
	if ((r = path_rules(dec, n, 1)) != PATH_OK) {
		*why = path_reasons[r][1];
		return -1;
	}
	/* No contract path needs one, and servers split on it or not. */
	for (n = 0; n + 2 < len; n++) {
		if (path[n] == '%' && path[n + 1] == '2' &&
		    (path[n + 2] == 'f' || path[n + 2] == 'F')) {
			*why = path_reasons[PATH_ENCSLASH][0];
			return -1;
		}
	}
	return 0;
}

const char *
envelope_method_name(enum envelope_method m)
{
	return m == ENVELOPE_GET ? "GET" : m == ENVELOPE_POST ? "POST" : "?";
}

const char *
envelope_header(const struct envelope *env, const char *name)
{
	size_t	 i;

	for (i = 0; i < env->nhdrs; i++)
		if (strcmp(env->name[i], name) == 0)
			return env->value[i];
	return NULL;
}

static int
env_fail(struct env_ctx *c, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(c->why, c->whysz, fmt, ap);
	va_end(ap);
	return -1;
}

static void
env_quote(const char *s, size_t len, char *out, size_t outsz)
{
	size_t	 i;

	for (i = 0; i < len && i < QUOTE_MAX && i + 4 < outsz; i++)
		out[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (i < len && i + 4 < outsz) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
}

static int
env_destination(struct env_ctx *c, size_t v)
{
	char		*d = c->env->destination, q[QUOTE_MAX + 4];
	const char	*why;
	size_t		 len;

	if (c->j->toks[v].type != JSON_STRING)
		return env_fail(c, "field destination: not a string");
	if (json_string_copy(c->j, v, d, sizeof(c->env->destination),
	    &len) == -1)
		return env_fail(c, "field destination: is longer than 64 "
		    "characters: a name has 1 to 64");
	if (strlen(d) != len || name_valid(d, &why) == -1) {
		if (strlen(d) != len)
			why = "is not a name: it holds a NUL";
		env_quote(d, len, q, sizeof(q));
		return env_fail(c, "field destination: %s %s", q, why);
	}
	if (c->known == NULL || (c->hdrs = c->known(d, c->arg)) == NULL)
		return env_fail(c, "destination %s: not a configured "
		    "destination", d);
	return 0;
}

static int
env_method(struct env_ctx *c, size_t v)
{
	char	 m[QUOTE_MAX + 1], q[QUOTE_MAX + 4];
	size_t	 len;

	if (c->j->toks[v].type != JSON_STRING)
		return env_fail(c, "field method: not a string");
	if (json_streq(c->j, v, "GET"))
		c->env->method = ENVELOPE_GET;
	else if (json_streq(c->j, v, "POST"))
		c->env->method = ENVELOPE_POST;
	else {
		(void)json_string_copy(c->j, v, m, sizeof(m), &len);
		env_quote(m, len, q, sizeof(q));
		return env_fail(c, "method %s: only GET and POST", q);
	}
	return 0;
}

static int
env_path(struct env_ctx *c, size_t v)
{
	const char	*why;
	size_t		 len;

	if (c->j->toks[v].type != JSON_STRING)
		return env_fail(c, "field path: not a string");
	if (json_string_copy(c->j, v, c->env->path, sizeof(c->env->path),
	    &len) == -1)
		return env_fail(c, "field path: the path is longer than "
		    "2048 bytes");
	if (envelope_path_check(c->env->path, len, &why) == -1)
		return env_fail(c, "field path: %s", why);
	return 0;
}

static int
env_headers(struct env_ctx *c, size_t v)
{
	size_t	 k, m;
	long	 d;

	if (c->j->toks[v].type != JSON_OBJECT)
		return env_fail(c, "field headers: not an object");
	/* The destination says which headers it takes: it is read first. */
	if (c->hdrs == NULL) {
		if ((d = json_find(c->j, 0, "destination")) == -1)
			return env_fail(c, "field destination: missing");
		if (env_destination(c, d) == -1)
			return -1;
	}
	for (m = 0, k = v + 1; m < c->j->toks[v].size;
	    m++, k = json_next(c->j, k + 1))
		if (env_header(c, k, k + 1) == -1)
			return -1;
	return 0;
}

static int
env_listed(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

static void
env_took(char *buf, size_t bufsz, const char *const *list)
{
	for (; *list != NULL; list++) {
		if (buf[0] != '\0')
			(void)strlcat(buf, ", ", bufsz);
		(void)strlcat(buf, *list, bufsz);
	}
}

static int
env_header_kind(struct env_ctx *c, char *name, size_t len)
{
	char		 q[QUOTE_MAX + 4], took[128] = "";
	size_t		 i;

	for (i = 0; i < len; i++)
		if (name[i] >= 'A' && name[i] <= 'Z')
			name[i] += 'a' - 'A';
	env_quote(name, len, q, sizeof(q));
	if (strlen(name) == len) {
		if (env_listed(cap_headers, name) || env_listed(c->hdrs, name))
			return 0;
		for (i = 0; i < sizeof(auth_names) / sizeof(auth_names[0]); i++)
			if (strcmp(name, auth_names[i]) == 0)
				return env_fail(c, "header %s: refused: the "
				    "keep adds the secret itself", q);
		for (i = 0; i < CAP_COUNT; i++)
			if (cap_table[i]->credential.header != NULL &&
			    strcasecmp(name,
			    cap_table[i]->credential.header) == 0)
				return env_fail(c, "header %s: refused: the "
				    "keep adds the secret itself", q);
	}
	env_took(took, sizeof(took), cap_headers);
	env_took(took, sizeof(took), c->hdrs);
	return env_fail(c, "header %s: not one the keep takes for %s (%s)",
	    q, c->env->destination, took);
}

static int
env_header(struct env_ctx *c, size_t k, size_t v)
{
	struct envelope	*env = c->env;
	char		 name[QUOTE_MAX + 1];
	size_t		 len, h;

	(void)json_string_copy(c->j, k, name, sizeof(name), &len);
	if (env_header_kind(c, name, len) == -1)
		return -1;
	if (envelope_header(env, name) != NULL)
		return env_fail(c, "header %s: given twice", name);
	if (env->nhdrs == ENVELOPE_NHDRS || len > ENVELOPE_NAME_MAX)
		return env_fail(c, "header %s: more headers than the keep "
		    "takes", name);
	h = env->nhdrs;
	if (c->j->toks[v].type != JSON_STRING)
		return env_fail(c, "header %s: the value is not a string",
		    name);
	if (json_string_copy(c->j, v, env->value[h], sizeof(env->value[h]),
	    &len) == -1)
		return env_fail(c, "header %s: the value is longer than "
		    "256 bytes", name);
	(void)strlcpy(env->name[h], name, sizeof(env->name[h]));
	env->nhdrs++;
	return env_value(c, env->value[h], name, len);
}

static int
env_value(struct env_ctx *c, const char *s, const char *name, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\r' || s[i] == '\n')
			return env_fail(c, "header %s: the value holds a "
			    "line break", name);
		if (s[i] < 0x20 || s[i] > 0x7e)
			return env_fail(c, "header %s: the value holds a byte "
			    "outside printable ASCII", name);
	}
	return 0;
}

static int
env_body(struct env_ctx *c, size_t v)
{
	c->env->body = json_raw(c->j, v, &c->env->bodylen);
	return 0;
}

static int
env_fields(struct env_ctx *c)
{
	char		 name[QUOTE_MAX + 1], q[QUOTE_MAX + 4];
	size_t		 k, m, f, len;
	unsigned int	 seen = 0;

	for (m = 0, k = 1; m < c->j->toks[0].size;
	    m++, k = json_next(c->j, k + 1)) {
		(void)json_string_copy(c->j, k, name, sizeof(name), &len);
		for (f = 0; f < ENV_NFIELDS; f++)
			if (strlen(name) == len &&
			    strcmp(name, env_fields_known[f].name) == 0)
				break;
		if (f == ENV_NFIELDS) {
			env_quote(name, len, q, sizeof(q));
			return env_fail(c, "field %s: the envelope has no "
			    "such field", q);
		}
		if (env_fields_known[f].parse(c, k + 1) == -1)
			return -1;
		seen |= 1U << f;
	}
	for (f = 0; f < ENV_NFIELDS; f++)
		if ((ENV_REQUIRED & (1U << f)) && !(seen & (1U << f)))
			return env_fail(c, "field %s: missing",
			    env_fields_known[f].name);
	if (c->env->method == ENVELOPE_GET && c->env->body != NULL)
		return env_fail(c, "field body: a GET has no body");
	return 0;
}

int
envelope_parse(struct envelope *env, const char *buf, size_t len,
    envelope_known_fn known, void *arg, char *why, size_t whysz)
{
	struct json	 j;
	struct env_ctx	 c;
	const char	*jwhy;
	int		 r;

	memset(env, 0, sizeof(*env));
	memset(&c, 0, sizeof(c));
	c.env = env;
	c.j = &j;
	c.known = known;
	c.arg = arg;
	c.why = why;
	c.whysz = whysz;
	if (len > ENVELOPE_MAX)
		return env_fail(&c, "the envelope is larger than 33 MiB");
	if (json_parse(&j, buf, len, &jwhy) == -1)
		return env_fail(&c, "the envelope is not valid JSON: %s "
		    "(byte %zu)", jwhy, j.erroff);
	if (j.toks[0].type != JSON_OBJECT)
		r = env_fail(&c, "the envelope is not a JSON object");
	else
		r = env_fields(&c);
	json_free(&j);
	if (r == -1)
		memset(env, 0, sizeof(*env));
	return r;
}
