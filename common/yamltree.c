/* Strict YAML; a refused node is kept, marked bad, so nothing is said twice. */
#include <sys/queue.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "config.h"
#include "log.h"
#include "yamltree.h"

#define QUOTE_MAX	48		/* characters of a value in a message */

struct yerr {
	int		 line;
	size_t		 seq;
	char		*key;
	char		*text;
};

struct yparser {
	struct yfile	*yf;
	yaml_parser_t	 parser;
	int		 failed;	/* a syntax error: the tree is thrown away */
	int		 in_merge;	/* the value of <<: said once already */
};

static struct ynode *yparse_node(struct yparser *, yaml_event_t *,
		    const char *, int);

static void *
ycalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n, size)) == NULL)
		fatal("configuration");
	return p;
}

static char *
ystrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatal("configuration");
	return p;
}

static void
conferr_vadd(struct conferrs *errs, const char *file, int line,
    const char *key, const char *fmt, va_list ap)
{
	struct conferr	*e;
	char		*msg;

	if (vasprintf(&msg, fmt, ap) == -1)
		fatal("configuration");
	e = ycalloc(1, sizeof(*e));
	if (asprintf(&e->line, "%s:%d: %s: %s", file, line, key, msg) == -1)
		fatal("configuration");
	free(msg);
	TAILQ_INSERT_TAIL(errs, e, entry);
}

void
conferr_add(struct conferrs *errs, const char *file, int line,
    const char *key, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	conferr_vadd(errs, file, line, key, fmt, ap);
	va_end(ap);
}

void
yfile_init(struct yfile *yf, const char *file, struct conferrs *errs)
{
	const char	*slash;

	memset(yf, 0, sizeof(*yf));
	yf->file = file;
	slash = strrchr(file, '/');
	yf->base = slash == NULL ? file : slash + 1;
	yf->errs = errs;
}

static void
yerr_vline(struct yfile *yf, int line, const char *key, const char *fmt,
    va_list ap)
{
	struct yerr	*e;
	char		*msg;

	if (vasprintf(&msg, fmt, ap) == -1)
		fatal("configuration");
	yf->pending = reallocarray(yf->pending, yf->npending + 1,
	    sizeof(*yf->pending));
	if (yf->pending == NULL)
		fatal("configuration");
	e = &yf->pending[yf->npending];
	e->line = line;
	e->seq = yf->npending++;
	e->key = ystrdup(key[0] == '\0' ? yf->base : key);
	e->text = msg;
	yf->nerrs++;
}

void
yerr_line(struct yfile *yf, int line, const char *key, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	yerr_vline(yf, line, key, fmt, ap);
	va_end(ap);
}

void
yerr(struct yfile *yf, const struct ynode *n, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	yerr_vline(yf, n->line, n->path, fmt, ap);
	va_end(ap);
}

static void
yquote(const char *s, size_t len, char *buf, size_t bufsz)
{
	size_t	 i, o = 0;

	buf[o++] = '"';
	for (i = 0; i < len && i < QUOTE_MAX && o + 8 < bufsz; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, bufsz - o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(buf + o, bufsz - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (i < len)
		o += (size_t)snprintf(buf + o, bufsz - o, "...");
	snprintf(buf + o, bufsz - o, "\"");
}

void
yerr_value(struct yfile *yf, const struct ynode *n, const char *fmt, ...)
{
	va_list	 ap;
	char	 q[QUOTE_MAX * 4 + 16], *msg;

	yquote(n->value, n->len, q, sizeof(q));
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		fatal("configuration");
	va_end(ap);
	yerr(yf, n, "%s %s", q, msg);
	free(msg);
}

static int
yerr_cmp(const void *a, const void *b)
{
	const struct yerr *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t
yfile_done(struct yfile *yf)
{
	size_t	 i;

	if (yf->npending > 1)
		qsort(yf->pending, yf->npending, sizeof(*yf->pending),
		    yerr_cmp);
	for (i = 0; i < yf->npending; i++) {
		conferr_add(yf->errs, yf->file, yf->pending[i].line,
		    yf->pending[i].key, "%s", yf->pending[i].text);
		free(yf->pending[i].key);
		free(yf->pending[i].text);
	}
	free(yf->pending);
	yf->pending = NULL;
	yf->npending = 0;
	return yf->nerrs;
}

static int
ynext(struct yparser *yp, yaml_event_t *ev, const char *path)
{
	const yaml_parser_t *p = &yp->parser;

	if (yaml_parser_parse(&yp->parser, ev))
		return 0;
	yerr_line(yp->yf, (int)p->problem_mark.line + 1, path,
	    "is not valid YAML: %s%s%s", p->problem ? p->problem : "unreadable",
	    p->context ? " " : "", p->context ? p->context : "");
	yp->failed = 1;
	return -1;
}

static int
event_line(const yaml_event_t *ev)
{
	return (int)ev->start_mark.line + 1;
}

/* Anchors and tags make a value mean something else than it reads. */
static int
yprops(struct yparser *yp, const yaml_event_t *ev, const char *path)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;
	char		 q[QUOTE_MAX * 4 + 16];
	int		 bad = 0;

	if (ev->type == YAML_SCALAR_EVENT) {
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	} else if (ev->type == YAML_MAPPING_START_EVENT) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	}
	if (anchor != NULL) {
		yquote((const char *)anchor, strlen((const char *)anchor), q,
		    sizeof(q));
		yerr_line(yp->yf, event_line(ev), path, "has the anchor %s: "
		    "anchors are refused: write each value out in full", q);
		bad = 1;
	}
	if (tag != NULL) {
		yquote((const char *)tag, strlen((const char *)tag), q,
		    sizeof(q));
		yerr_line(yp->yf, event_line(ev), path, "has the tag %s: "
		    "tags are refused: write the value plain or quoted", q);
		bad = 1;
	}
	return bad;
}

static struct ynode *
ynode_new(enum ynode_type type, const yaml_event_t *ev, const char *path)
{
	struct ynode	*n;

	n = ycalloc(1, sizeof(*n));
	n->type = type;
	n->line = event_line(ev);
	n->path = ystrdup(path);
	TAILQ_INIT(&n->kids);
	return n;
}

void
yfree(struct ynode *n)
{
	struct ynode	*k, *tmp;

	if (n == NULL)
		return;
	TAILQ_FOREACH_SAFE(k, &n->kids, entry, tmp)
		yfree(k);
	free(n->key);
	free(n->path);
	free(n->value);
	free(n);
}

static struct ynode *
yparse_scalar(struct yparser *yp, yaml_event_t *ev, const char *path)
{
	struct ynode	*n;
	size_t		 len = ev->data.scalar.length;

	n = ynode_new(YNODE_SCALAR, ev, path);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	n->bad = yprops(yp, ev, path);
	if (len > YAML_STRING_MAX) {
		yerr(yp->yf, n, "is longer than 64 KiB: write a shorter value");
		n->bad = 1;
		len = 0;
	}
	n->value = ycalloc(1, len + 1);
	memcpy(n->value, ev->data.scalar.value, len);
	n->len = len;
	return n;
}

static int
yskip(struct yparser *yp, const char *path)
{
	yaml_event_t	 ev;
	int		 depth = 1;

	while (depth > 0) {
		if (ynext(yp, &ev, path) == -1)
			return -1;
		if (ev.type == YAML_MAPPING_START_EVENT ||
		    ev.type == YAML_SEQUENCE_START_EVENT)
			depth++;
		else if (ev.type == YAML_MAPPING_END_EVENT ||
		    ev.type == YAML_SEQUENCE_END_EVENT)
			depth--;
		yaml_event_delete(&ev);
	}
	return 0;
}

/* A key's text for a path: as written when tame, escaped otherwise. */
static char *
ypath_join(const char *path, const char *key, size_t index, int is_key)
{
	char	 q[QUOTE_MAX * 4 + 16], *p;
	size_t	 i;
	int	 tame = 1, r;

	if (!is_key) {
		r = asprintf(&p, "%s[%zu]", path, index);
	} else {
		for (i = 0; key[i] != '\0'; i++)
			if (!isalnum((unsigned char)key[i]) &&
			    strchr("_-", key[i]) == NULL)
				tame = 0;
		if (!tame || i == 0 || i > QUOTE_MAX)
			yquote(key, strlen(key), q, sizeof(q));
		r = asprintf(&p, "%s%s%s", path, path[0] ? "." : "",
		    tame && i > 0 && i <= QUOTE_MAX ? key : q);
	}
	if (r == -1)
		fatal("configuration");
	return p;
}

/* A key must be a plain scalar with nothing on it; NULL when refused. */
static char *
ykey(struct yparser *yp, struct ynode *k, const char *path)
{
	char	*key;

	if (k->type != YNODE_SCALAR) {
		yerr_line(yp->yf, k->line, path, "has a key that is a %s: "
		    "a key is a plain word", k->type == YNODE_MAP ?
		    "mapping" : "list");
		return NULL;
	}
	if (k->bad)
		return NULL;
	if (!k->plain) {
		key = ypath_join(path, k->value, 0, 1);
		yerr_line(yp->yf, k->line, key,
		    "is a quoted key: write keys plain, without quotes");
		free(key);
		return NULL;
	}
	key = k->value;
	k->value = NULL;
	return key;
}

static int
ymap_add(struct yparser *yp, struct ynode *map, char *key, struct ynode *v)
{
	struct ynode	*old;

	if (strcmp(key, "<<") == 0) {
		yerr(yp->yf, v, "is a merge key (<<): merge keys are refused: "
		    "write each key out in full");
		return -1;
	}
	if ((old = yget(map, key)) != NULL) {
		yerr(yp->yf, v, "is written twice: once at line %d, "
		    "again here: keep one", old->line);
		return -1;
	}
	v->key = key;
	TAILQ_INSERT_TAIL(&map->kids, v, entry);
	map->nkids++;
	return 0;
}

static int
ymap_pair(struct yparser *yp, struct ynode *map, yaml_event_t *kev,
    int depth)
{
	yaml_event_t	 vev;
	struct ynode	*k, *v;
	char		*key, *path;

	if ((k = yparse_node(yp, kev, map->path, depth + 1)) == NULL)
		return -1;
	key = ykey(yp, k, map->path);
	yfree(k);
	path = ypath_join(map->path, key ? key : "", 0, 1);
	yp->in_merge = key != NULL && strcmp(key, "<<") == 0;
	v = NULL;
	if (ynext(yp, &vev, path) == 0)
		v = yparse_node(yp, &vev, path, depth + 1);
	yp->in_merge = 0;
	free(path);
	if (v == NULL) {
		free(key);
		return -1;
	}
	if (key == NULL || ymap_add(yp, map, key, v) == -1) {
		free(key);
		yfree(v);
	}
	return 0;
}

static struct ynode *
yparse_map(struct yparser *yp, yaml_event_t *ev, const char *path, int depth)
{
	yaml_event_t	 kev;
	struct ynode	*n;

	n = ynode_new(YNODE_MAP, ev, path);
	n->bad = yprops(yp, ev, path);
	for (;;) {
		if (ynext(yp, &kev, path) == -1)
			break;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return n;
		}
		if (ymap_pair(yp, n, &kev, depth) == -1)
			break;
	}
	yfree(n);
	return NULL;
}

static struct ynode *
yparse_seq(struct yparser *yp, yaml_event_t *ev, const char *path, int depth)
{
	yaml_event_t	 iev;
	struct ynode	*n, *item;
	char		*ipath;

	n = ynode_new(YNODE_SEQ, ev, path);
	n->bad = yprops(yp, ev, path);
	for (;;) {
		ipath = ypath_join(path, NULL, n->nkids, 0);
		item = NULL;
		if (ynext(yp, &iev, ipath) == 0) {
			if (iev.type == YAML_SEQUENCE_END_EVENT) {
				yaml_event_delete(&iev);
				free(ipath);
				return n;
			}
			item = yparse_node(yp, &iev, ipath, depth + 1);
		}
		free(ipath);
		if (item == NULL)
			break;
		TAILQ_INSERT_TAIL(&n->kids, item, entry);
		n->nkids++;
	}
	yfree(n);
	return NULL;
}

static struct ynode *
yparse_node(struct yparser *yp, yaml_event_t *ev, const char *path, int depth)
{
	struct ynode	*n = NULL;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = yparse_scalar(yp, ev, path);
		break;
	case YAML_ALIAS_EVENT:
		n = ynode_new(YNODE_SCALAR, ev, path);
		n->value = ystrdup("");
		n->bad = 1;
		if (!yp->in_merge)
			yerr(yp->yf, n, "is an alias (*): aliases are "
			    "refused: write the value out in full");
		break;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (depth > YAML_DEPTH_MAX) {
			n = ynode_new(YNODE_SCALAR, ev, path);
			n->value = ystrdup("");
			n->bad = 1;
			yerr(yp->yf, n, "is nested deeper than %d levels",
			    YAML_DEPTH_MAX);
			if (yskip(yp, path) == -1) {
				yfree(n);
				n = NULL;
			}
		} else if (ev->type == YAML_MAPPING_START_EVENT)
			n = yparse_map(yp, ev, path, depth);
		else
			n = yparse_seq(yp, ev, path, depth);
		break;
	default:
		yerr_line(yp->yf, event_line(ev), path,
		    "is not valid YAML here");
		yp->failed = 1;
		break;
	}
	yaml_event_delete(ev);
	return n;
}

/* After the one document: the end of the stream, or a refusal. */
static int
yparse_end(struct yparser *yp)
{
	yaml_event_t	 ev;
	int		 r = 0;

	if (ynext(yp, &ev, "") == -1)
		return -1;
	yaml_event_delete(&ev);
	if (ynext(yp, &ev, "") == -1)
		return -1;
	if (ev.type == YAML_DOCUMENT_START_EVENT) {
		yerr_line(yp->yf, event_line(&ev), "", "has several documents: "
		    "write one, with no second ---");
		r = 0;
	}
	yaml_event_delete(&ev);
	return r;
}

static struct ynode *
yparse_root(struct yparser *yp)
{
	yaml_event_t	 ev;
	struct ynode	*root;

	if (ynext(yp, &ev, "") == -1)
		return NULL;
	yaml_event_delete(&ev);
	if (ynext(yp, &ev, "") == -1)
		return NULL;
	if (ev.type == YAML_STREAM_END_EVENT) {
		root = ynode_new(YNODE_MAP, &ev, "");
		yaml_event_delete(&ev);
		return root;
	}
	yaml_event_delete(&ev);
	if (ynext(yp, &ev, "") == -1)
		return NULL;
	if ((root = yparse_node(yp, &ev, "", 1)) == NULL)
		return NULL;
	if (root->type == YNODE_SCALAR && root->plain && root->len == 0 &&
	    !root->bad) {
		root->type = YNODE_MAP;
		root->line = 1;
	}
	if (yparse_end(yp) == -1) {
		yfree(root);
		return NULL;
	}
	return root;
}

struct ynode *
yparse(struct yfile *yf, const char *buf, size_t len)
{
	struct yparser	 yp;
	struct ynode	*root;

	if (len > YAML_FILE_MAX) {
		yerr_line(yf, 1, "", "is larger than 1 MiB: "
		    "a configuration file is smaller");
		return NULL;
	}
	memset(&yp, 0, sizeof(yp));
	yp.yf = yf;
	if (!yaml_parser_initialize(&yp.parser))
		fatal("configuration");
	yaml_parser_set_input_string(&yp.parser, (const unsigned char *)buf,
	    len);
	root = yparse_root(&yp);
	yaml_parser_delete(&yp.parser);
	if (yp.failed) {
		yfree(root);
		return NULL;
	}
	return root;
}

static const char *
ytype(const struct ynode *n)
{
	if (n->type == YNODE_MAP)
		return "a mapping";
	if (n->type == YNODE_SEQ)
		return "a list";
	if (n->plain && n->len == 0)
		return "empty";
	return "a string";
}

int
ymap(struct yfile *yf, struct ynode *n, const char *example)
{
	if (n == NULL || n->bad)
		return -1;
	if (n->type == YNODE_MAP)
		return 0;
	yerr(yf, n, "is %s: write a mapping of keys, as %s", ytype(n),
	    example);
	return -1;
}

int
yseq(struct yfile *yf, struct ynode *n, const char *example)
{
	if (n == NULL || n->bad)
		return -1;
	if (n->type == YNODE_SEQ)
		return 0;
	yerr(yf, n, "is %s: write a list, as %s", ytype(n), example);
	return -1;
}

struct ynode *
yget(const struct ynode *map, const char *key)
{
	struct ynode	*k;

	TAILQ_FOREACH(k, &map->kids, entry)
		if (strcmp(k->key, key) == 0)
			return k;
	return NULL;
}

struct ynode *
yneed(struct yfile *yf, const struct ynode *map, const char *key,
    const char *hint)
{
	struct ynode	*n;
	char		*path;

	if ((n = yget(map, key)) != NULL)
		return n;
	path = ypath_join(map->path, key, 0, 1);
	yerr_line(yf, map->line, path, "is missing: %s", hint);
	free(path);
	return NULL;
}

/* Optimal string alignment distance, enough to catch a typo. */
static size_t
ydistance(const char *a, const char *b)
{
	size_t	 la = strlen(a), lb = strlen(b), i, j, d[33][33], v;

	if (la > 32 || lb > 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

static void
yunknown(struct yfile *yf, const struct ynode *k, const char *const *keys)
{
	const char	*best = NULL;
	char		 list[512] = "";
	size_t		 i, d, bestd = 3;

	for (i = 0; keys[i] != NULL; i++) {
		if ((d = ydistance(k->key, keys[i])) < bestd) {
			bestd = d;
			best = keys[i];
		}
		strlcat(list, i == 0 ? "" : ", ", sizeof(list));
		strlcat(list, keys[i], sizeof(list));
	}
	if (best != NULL)
		yerr_line(yf, k->line, k->path, "is not a key here: "
		    "did you mean %s?", best);
	else
		yerr_line(yf, k->line, k->path, "is not a key here: "
		    "the keys here are %s", list);
}

void
ymap_known(struct yfile *yf, const struct ynode *map, const char *const *keys)
{
	struct ynode	*k;
	size_t		 i;

	TAILQ_FOREACH(k, &map->kids, entry) {
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(k->key, keys[i]) == 0)
				break;
		if (keys[i] == NULL) {
			yunknown(yf, k, keys);
			k->bad = 1;
		}
	}
}

/* The words YAML 1.1 reads as a boolean or as null when left plain. */
static const char *
yimplicit(const struct ynode *n)
{
	static const char *const bools[] = {
		"y", "n", "yes", "no", "on", "off", "true", "false", NULL
	};
	size_t	 i;

	if (!n->plain)
		return NULL;
	if (strcmp(n->value, "~") == 0 || strcasecmp(n->value, "null") == 0)
		return "null";
	for (i = 0; bools[i] != NULL; i++)
		if (strcasecmp(n->value, bools[i]) == 0)
			return "a boolean";
	return NULL;
}

int
yscalar(struct yfile *yf, struct ynode *n, const char *what, const char **s)
{
	if (n == NULL || n->bad)
		return -1;
	if (n->type != YNODE_SCALAR) {
		yerr(yf, n, "is %s: write %s", ytype(n), what);
		return -1;
	}
	if (n->plain && n->len == 0) {
		yerr(yf, n, "has no value: write %s", what);
		return -1;
	}
	if (memchr(n->value, '\0', n->len) != NULL) {
		yerr(yf, n, "holds a NUL character: write %s", what);
		return -1;
	}
	*s = n->value;
	return 0;
}

int
ystring(struct yfile *yf, struct ynode *n, const char *what, const char **s)
{
	const char	*implicit;

	if (yscalar(yf, n, what, s) == -1)
		return -1;
	if ((implicit = yimplicit(n)) != NULL) {
		yerr_value(yf, n, "is read as %s by YAML: quote it if you "
		    "mean the text", implicit);
		return -1;
	}
	return 0;
}

static int
ydecimal(struct yfile *yf, struct ynode *n, uint64_t *v)
{
	const char	*p = n->value;

	if (!n->plain) {
		yerr_value(yf, n, "is quoted, so it is text: write the number "
		    "plain, without quotes");
		return -1;
	}
	if (n->len == 0) {
		yerr(yf, n, "has no value: write a number");
		return -1;
	}
	if (p[0] == '0' && n->len > 1 && strspn(p, "0123456789") == n->len) {
		yerr_value(yf, n, "has a leading zero, which YAML reads as "
		    "octal: write the number without it");
		return -1;
	}
	if (strspn(p, "0123456789") != n->len || (p[0] == '0' && n->len > 1)) {
		yerr_value(yf, n, "is not a plain decimal number: write digits "
		    "only, with no sign, point, exponent, _ or 0x");
		return -1;
	}
	for (*v = 0; *p != '\0'; p++) {
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return 1;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	return 0;
}

int
yuint(struct yfile *yf, struct ynode *n, uint64_t min, uint64_t max,
    uint64_t *out)
{
	uint64_t	 v = 0;
	int		 r;

	if (n == NULL || n->bad)
		return -1;
	if (n->type != YNODE_SCALAR) {
		yerr(yf, n, "is %s: write a number from %llu to %llu",
		    ytype(n), (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	if ((r = ydecimal(yf, n, &v)) == -1)
		return -1;
	if (r == 1 || v < min || v > max) {
		yerr_value(yf, n, "is out of range: write a number from "
		    "%llu to %llu", (unsigned long long)min,
		    (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}
