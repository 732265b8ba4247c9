/*
 * A strict reader of systemd's unit file syntax (systemd.syntax(7)); a
 * comment inside a continued line is skipped, as systemd skips it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"

static int	dropin_fail(char *, size_t, int, const char *, ...)
		    __attribute__((format(printf, 4, 5)));
static int	dropin_line(struct dropin *, char *, char *, int, char *,
		    size_t);
static int	dropin_name_ok(const char *, int);
static char	*trim(char *);

static int
dropin_fail(char *why, size_t whysz, int line, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	n = snprintf(why, whysz, "line %d: ", line);
	if (n < 0 || (size_t)n >= whysz)
		return -1;
	va_start(ap, fmt);
	(void)vsnprintf(why + n, whysz - n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *
trim(char *s)
{
	char	*end;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* A key: letters, digits, - and _; a section: any printable but [ ]. */
static int
dropin_name_ok(const char *s, int section)
{
	size_t	len = strlen(s);

	if (len == 0 || len >= DROPIN_MAX_NAME)
		return 0;
	for (; *s != '\0'; s++) {
		if (section ? (!isprint((unsigned char)*s) || *s == '[' ||
		    *s == ']') : (!isalnum((unsigned char)*s) && *s != '-' &&
		    *s != '_'))
			return 0;
	}
	return 1;
}

/* One logical line, continuations joined; section is the current one. */
static int
dropin_line(struct dropin *d, char *section, char *l, int lineno, char *why,
    size_t whysz)
{
	struct dropin_entry	*e;
	char			*eq, *key, *end;

	l = trim(l);
	if (*l == '\0' || *l == '#' || *l == ';')
		return 0;
	if (*l == '[') {
		end = l + strlen(l) - 1;
		if (*end != ']')
			return dropin_fail(why, whysz, lineno,
			    "a section starts with [ and ends with ]");
		*end = '\0';
		if (!dropin_name_ok(l + 1, 1))
			return dropin_fail(why, whysz, lineno,
			    "[%.64s]: not a section name", l + 1);
		(void)strlcpy(section, l + 1, DROPIN_MAX_NAME);
		return 0;
	}
	if ((eq = strchr(l, '=')) == NULL)
		return dropin_fail(why, whysz, lineno, "%.64s: neither "
		    "Key=Value, a [Section] nor a comment", l);
	*eq = '\0';
	key = trim(l);
	if (!dropin_name_ok(key, 0))
		return dropin_fail(why, whysz, lineno, "%.64s: not a key name",
		    key);
	if (*section == '\0')
		return dropin_fail(why, whysz, lineno, "%s= comes before any "
		    "[Section]", key);
	if (d->n == DROPIN_MAX_ENTRIES)
		return dropin_fail(why, whysz, lineno, "more than %d keys",
		    DROPIN_MAX_ENTRIES);
	e = &d->entries[d->n];
	if ((e->value = strdup(trim(eq + 1))) == NULL)
		return dropin_fail(why, whysz, lineno, "out of memory");
	(void)strlcpy(e->section, section, sizeof(e->section));
	(void)strlcpy(e->key, key, sizeof(e->key));
	e->line = lineno;
	d->n++;
	return 0;
}

/* The end of the line at start, or -1 at a control character in it. */
static int
line_end(const char *buf, size_t len, size_t start, int lineno, size_t *end,
    char *why, size_t whysz)
{
	size_t	 i;

	for (i = start; i < len && buf[i] != '\n'; i++)
		if (buf[i] == '\0' || (iscntrl((unsigned char)buf[i]) &&
		    buf[i] != '\t' && buf[i] != '\r'))
			return dropin_fail(why, whysz, lineno,
			    "a control character (0x%02x)",
			    (unsigned char)buf[i]);
	*end = i;
	return 0;
}

static int
dropin_alloc(struct dropin *d, size_t len, char **logical, char **raw)
{
	d->entries = calloc(DROPIN_MAX_ENTRIES, sizeof(*d->entries));
	*logical = malloc(len + 1);
	*raw = malloc(len + 1);
	if (d->entries != NULL && *logical != NULL && *raw != NULL)
		return 0;
	free(d->entries);
	d->entries = NULL;
	free(*logical);
	free(*raw);
	return -1;
}

int
dropin_parse(const char *buf, size_t len, struct dropin *d, char *why,
    size_t whysz)
{
	char	 section[DROPIN_MAX_NAME] = "", *logical, *raw, *t;
	size_t	 i = 0, start, llen = 0, rlen;
	int	 lineno = 0, first = 0, rc = 0, cont = 0;

	memset(d, 0, sizeof(*d));
	if (len > DROPIN_MAX_SIZE)
		return dropin_fail(why, whysz, 0, "more than %d bytes",
		    DROPIN_MAX_SIZE);
	if (dropin_alloc(d, len, &logical, &raw) == -1) {
		(void)snprintf(why, whysz, "out of memory");
		return -1;
	}
	for (start = 0; rc == 0 && start < len; start = i + 1) {
		if ((rc = line_end(buf, len, start, ++lineno, &i, why,
		    whysz)) != 0)
			break;
		rlen = i - start;
		memcpy(raw, buf + start, rlen);
		raw[rlen] = '\0';
		t = trim(raw);
		if (cont && (*t == '#' || *t == ';'))
			continue;
		if (!cont) {
			first = lineno;
			llen = 0;
		}
		rlen = strlen(t);
		cont = rlen > 0 && t[rlen - 1] == '\\';
		if (cont)
			t[--rlen] = ' ';
		memcpy(logical + llen, t, rlen);
		llen += rlen;
		logical[llen] = '\0';
		if (!cont)
			rc = dropin_line(d, section, logical, first, why,
			    whysz);
	}
	if (rc == 0 && cont)
		rc = dropin_fail(why, whysz, first, "a continued line ends "
		    "the file");
	free(logical);
	free(raw);
	if (rc != 0)
		dropin_free(d);
	return rc;
}

void
dropin_free(struct dropin *d)
{
	size_t	i;

	if (d->entries != NULL)
		for (i = 0; i < d->n; i++)
			free(d->entries[i].value);
	free(d->entries);
	d->entries = NULL;
	d->n = 0;
}

const char *
dropin_get(const struct dropin *d, const char *section, const char *key)
{
	const char	*v = NULL;
	size_t		 i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->entries[i].section, section) == 0 &&
		    strcmp(d->entries[i].key, key) == 0)
			v = d->entries[i].value;
	return v;
}
