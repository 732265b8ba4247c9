/* The refusals' record: a line the reader cannot parse whole is skipped. */
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "refusal.h"

static const char *const codes[REFUSAL_COUNT] = {
	[REFUSAL_NONE] = "none",
	[REFUSAL_UNLISTED] = "unlisted",
	[REFUSAL_LITERAL] = "literal",
	[REFUSAL_UNRESOLVED] = "unresolved",
	[REFUSAL_INTERNAL] = "internal",
	[REFUSAL_PARTLY] = "partly",
	[REFUSAL_SELF] = "self",
	[REFUSAL_UNSPECIFIED] = "unspecified",
	[REFUSAL_LOOPBACK] = "loopback",
	[REFUSAL_LINK_LOCAL] = "link-local",
	[REFUSAL_PROTOCOL] = "protocol",
	[REFUSAL_DOCUMENTATION] = "documentation",
	[REFUSAL_6TO4] = "6to4",
	[REFUSAL_BENCHMARK] = "benchmark",
	[REFUSAL_MULTICAST] = "multicast",
	[REFUSAL_RESERVED] = "reserved",
	[REFUSAL_BROADCAST] = "broadcast",
};

#define SEALED_ADVICE	"a sealed address is never reached, not even " \
	"with an internal exception: its DNS points where no source can be"

static const char *const advice[REFUSAL_COUNT] = {
	[REFUSAL_NONE] = "",
	[REFUSAL_UNLISTED] = "the configuration changed after the gate "
	    "started: restart sandcastle.target",
	[REFUSAL_LITERAL] = "the gate reaches destinations by name: write "
	    "a DNS name in the address, or give it an internal exception",
	[REFUSAL_UNRESOLVED] = "check the name in the destination's address "
	    "and that the gate's DNS answers",
	[REFUSAL_INTERNAL] = "give it an internal exception if the source "
	    "lives inside; if not, its DNS changed",
	[REFUSAL_PARTLY] = "some of its addresses are inside, a sign of DNS "
	    "rebinding: ask whoever runs its DNS",
	[REFUSAL_SELF] = "give it an internal exception if the source runs "
	    "on this machine; if not, its DNS changed",
	[REFUSAL_UNSPECIFIED] = SEALED_ADVICE,
	[REFUSAL_LOOPBACK] = SEALED_ADVICE,
	[REFUSAL_LINK_LOCAL] = SEALED_ADVICE,
	[REFUSAL_PROTOCOL] = SEALED_ADVICE,
	[REFUSAL_DOCUMENTATION] = SEALED_ADVICE,
	[REFUSAL_6TO4] = SEALED_ADVICE,
	[REFUSAL_BENCHMARK] = SEALED_ADVICE,
	[REFUSAL_MULTICAST] = SEALED_ADVICE,
	[REFUSAL_RESERVED] = SEALED_ADVICE,
	[REFUSAL_BROADCAST] = SEALED_ADVICE,
};

const char *
refusal_code(enum refusal r)
{
	if ((unsigned int)r >= REFUSAL_COUNT)
		return "unknown";
	return codes[r];
}

const char *
refusal_advice(enum refusal r)
{
	if ((unsigned int)r >= REFUSAL_COUNT)
		return "";
	return advice[r];
}

static int
code_parse(const char *s, enum refusal *r)
{
	unsigned int	i;

	for (i = REFUSAL_NONE + 1; i < REFUSAL_COUNT; i++) {
		if (strcmp(s, codes[i]) == 0) {
			*r = i;
			return 0;
		}
	}
	return -1;
}

static int
word_valid(const char *s, size_t max, const char *set)
{
	size_t	len = strlen(s);

	if (strcmp(s, "-") == 0)
		return 1;
	return len >= 1 && len <= max && strspn(s, set) == len;
}

static int
dest_valid(const char *s)
{
	return word_valid(s, NAME_LEN, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
}

static int
host_valid(const char *s)
{
	return word_valid(s, HOST_LEN, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789.-");
}

/* Decimal, no sign, no leading zero: what snprintf writes, nothing else. */
static int
number_parse(const char *s, uintmax_t max, uintmax_t *v)
{
	size_t	i, len = strlen(s);

	if (len < 1 || len > 19 || (s[0] == '0' && len > 1) ||
	    strspn(s, "0123456789") != len)
		return -1;
	*v = 0;
	for (i = 0; i < len; i++)
		*v = *v * 10 + (s[i] - '0');
	return *v > max ? -1 : 0;
}

static int
addr_parse(const char *s, struct refusal_rec *rec)
{
	rec->has_addr = strcmp(s, "-") != 0;
	if (!rec->has_addr) {
		rec->addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	return inet_pton(AF_INET, s, &rec->addr) == 1 ? 0 : -1;
}

static int
line_parse(char *line, struct refusal_rec *rec)
{
	char		*f[6], *p = line;
	uintmax_t	 v;
	size_t		 n;

	for (n = 0; n < 6 && p != NULL; n++)
		f[n] = strsep(&p, " ");
	if (n != 6 || p != NULL)
		return -1;
	memset(rec, 0, sizeof(*rec));
	if (number_parse(f[0], INT64_MAX, &v) == -1)
		return -1;
	rec->when = (time_t)v;
	if (!dest_valid(f[1]) || !host_valid(f[2]))
		return -1;
	strlcpy(rec->dest, f[1], sizeof(rec->dest));
	strlcpy(rec->host, f[2], sizeof(rec->host));
	if (number_parse(f[3], UINT16_MAX, &v) == -1 || v == 0)
		return -1;
	rec->port = v;
	if (addr_parse(f[4], rec) == -1 || code_parse(f[5], &rec->code) == -1)
		return -1;
	return 0;
}

/* 1, 0 for a line to skip (too long, a NUL, or torn), -1 at the end. */
static int
line_read(FILE *fp, char *buf, size_t bufsz)
{
	size_t	len = 0;
	int	c, bad = 0;

	while ((c = getc(fp)) != EOF && c != '\n') {
		if (c == '\0' || len + 1 >= bufsz)
			bad = 1;
		else
			buf[len++] = c;
	}
	buf[len] = '\0';
	if (c == EOF)
		return len == 0 && !bad ? -1 : 0;
	return bad ? 0 : 1;
}

static int
in_window(time_t when, time_t now)
{
	return when <= now && now - when < REFUSAL_WINDOW;
}

static int
refusal_read(FILE *fp, time_t now,
    int (*fn)(const struct refusal_rec *, void *), void *arg)
{
	char			buf[REFUSAL_LINE_MAX];
	struct refusal_rec	rec;
	int			r;

	while ((r = line_read(fp, buf, sizeof(buf))) != -1) {
		if (r == 0 || line_parse(buf, &rec) == -1)
			continue;
		if (in_window(rec.when, now) && fn(&rec, arg) == -1)
			return -1;
	}
	return ferror(fp) ? -1 : 0;
}

static int
line_format(const struct refusal_rec *rec, char *buf, size_t bufsz)
{
	char	addr[INET_ADDRSTRLEN] = "-";
	int	n;

	if (!dest_valid(rec->dest) || !host_valid(rec->host) ||
	    rec->port == 0 || rec->when < 0 ||
	    rec->code == REFUSAL_NONE || (unsigned int)rec->code >= REFUSAL_COUNT)
		return -1;
	if (rec->has_addr)
		inet_ntop(AF_INET, &rec->addr, addr, sizeof(addr));
	n = snprintf(buf, bufsz, "%jd %s %s %u %s %s\n", (intmax_t)rec->when,
	    rec->dest, rec->host, rec->port, addr, codes[rec->code]);
	return n < 0 || (size_t)n >= bufsz ? -1 : n;
}

/* Only a regular file: closes fd and sets errno when it is not. */
static int
file_check(int fd, struct stat *st)
{
	int	saved;

	if (fstat(fd, st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int
open_append(const char *path, off_t *size)
{
	struct stat	st;
	int		fd;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1)
		return -1;
	if (file_check(fd, &st) == -1)
		return -1;
	*size = st.st_size;
	return fd;
}

int
refusal_append(const char *path, const struct refusal_rec *rec)
{
	char	line[REFUSAL_LINE_MAX + 1];
	off_t	size;
	ssize_t	n;
	int	fd, len, saved;

	if ((len = line_format(rec, line, sizeof(line))) == -1) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open_append(path, &size)) == -1)
		return -1;
	if (size + len > REFUSAL_FILE_MAX) {
		close(fd);
		if (refusal_prune(path, rec->when) == -1 ||
		    (fd = open_append(path, &size)) == -1)
			return -1;
		if (size + len > REFUSAL_FILE_MAX) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
	}
	n = write(fd, line, len);
	saved = n == -1 ? errno : EIO;
	close(fd);
	if (n == len)
		return 0;
	errno = saved;
	return -1;
}

int
refusal_open(const char *path)
{
	off_t	size;

	return open_append(path, &size);
}

int
refusal_append_fd(int fd, const struct refusal_rec *rec)
{
	char		line[REFUSAL_LINE_MAX + 1];
	struct stat	st;
	ssize_t		n;
	int		len;

	if ((len = line_format(rec, line, sizeof(line))) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (fstat(fd, &st) == -1)
		return -1;
	if (st.st_size + len > REFUSAL_FILE_MAX) {
		errno = EFBIG;
		return -1;
	}
	if ((n = write(fd, line, len)) == len)
		return 0;
	if (n != -1)
		errno = EIO;
	return -1;
}

static FILE *
open_read(const char *path)
{
	struct stat	 st;
	FILE		*fp;
	int		 fd, saved;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	if (file_check(fd, &st) == -1)
		return NULL;
	if ((fp = fdopen(fd, "r")) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return fp;
}

static int
prune_keep(const struct refusal_rec *rec, void *arg)
{
	char	line[REFUSAL_LINE_MAX + 1];

	if (line_format(rec, line, sizeof(line)) == -1)
		return 0;
	return fputs(line, arg) == EOF ? -1 : 0;
}

static int
prune_into(FILE *in, const char *path, time_t now)
{
	char	 tmp[PATH_MAX];
	FILE	*out;
	int	 fd, r, saved;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		return -1;
	if ((out = fdopen(fd, "w")) == NULL) {
		close(fd);
		r = -1;
	} else {
		r = refusal_read(in, now, prune_keep, out);
		if (fflush(out) == EOF || fsync(fileno(out)) == -1)
			r = -1;
		if (fclose(out) == EOF)
			r = -1;
	}
	if (r == 0 && rename(tmp, path) == 0)
		return 0;
	saved = errno;
	unlink(tmp);
	errno = saved;
	return -1;
}

int
refusal_prune(const char *path, time_t now)
{
	FILE	*in;
	int	 r, saved;

	if ((in = open_read(path)) == NULL)
		return errno == ENOENT ? 0 : -1;
	r = prune_into(in, path, now);
	saved = errno;
	fclose(in);
	errno = saved;
	return r;
}

struct groups {
	struct refusal_sum	*v;
	size_t			 n, cap;
};

/* A destination is a group; refusals on none grouped by what was asked. */
static int
group_cmp(const struct refusal_rec *a, const struct refusal_rec *b)
{
	int	c;

	if ((c = strcmp(a->dest, b->dest)) != 0 || strcmp(a->dest, "-") != 0)
		return c;
	if ((c = strcmp(a->host, b->host)) != 0)
		return c;
	return a->port < b->port ? -1 : a->port > b->port;
}

static int
sum_cmp(const void *a, const void *b)
{
	const struct refusal_sum *sa = a, *sb = b;

	return group_cmp(&sa->last, &sb->last);
}

static int
group_add(const struct refusal_rec *rec, void *arg)
{
	struct groups		*g = arg;
	struct refusal_sum	*v;
	size_t			 i;

	for (i = 0; i < g->n && group_cmp(&g->v[i].last, rec) != 0; i++)
		continue;
	if (i == g->n) {
		if (g->n == REFUSAL_GROUPS_MAX)
			return 0;
		if (g->n == g->cap) {
			v = reallocarray(g->v, g->cap + 16, sizeof(*v));
			if (v == NULL)
				return -1;
			g->v = v;
			g->cap += 16;
		}
		memset(&g->v[g->n++], 0, sizeof(*v));
	}
	g->v[i].count++;
	g->v[i].last = *rec;
	return 0;
}

int
refusal_summary(const char *path, time_t now,
    void (*cb)(const struct refusal_sum *, void *), void *arg)
{
	struct groups	 g = { NULL, 0, 0 };
	FILE		*fp;
	size_t		 i;
	int		 r, saved;

	if ((fp = open_read(path)) == NULL)
		return errno == ENOENT ? 0 : -1;
	r = refusal_read(fp, now, group_add, &g);
	saved = errno;
	fclose(fp);
	if (r == 0 && g.n > 0) {
		qsort(g.v, g.n, sizeof(*g.v), sum_cmp);
		for (i = 0; i < g.n; i++)
			cb(&g.v[i], arg);
	}
	free(g.v);
	errno = saved;
	return r;
}

static void
format_who(const struct refusal_rec *rec, char *buf, size_t bufsz)
{
	if (strcmp(rec->dest, "-") != 0)
		strlcpy(buf, rec->dest, bufsz);
	else if (strcmp(rec->host, "-") != 0)
		snprintf(buf, bufsz, "%s:%u", rec->host, rec->port);
	else
		snprintf(buf, bufsz, "a request for port %u", rec->port);
}

static void
format_what(const struct refusal_rec *rec, char *buf, size_t bufsz)
{
	char	addr[INET_ADDRSTRLEN] = "";
	int	host = strcmp(rec->host, "-") != 0;

	if (rec->has_addr)
		inet_ntop(AF_INET, &rec->addr, addr, sizeof(addr));
	if (!host && !rec->has_addr)
		buf[0] = '\0';
	else
		snprintf(buf, bufsz, " (%s%s%s)", host ? rec->host : "",
		    host && rec->has_addr ? " " : "", addr);
}

int
refusal_format(const struct refusal_sum *sum, char *buf, size_t bufsz)
{
	char		who[HOST_LEN + 32], what[HOST_LEN + INET_ADDRSTRLEN + 8];
	char		at[16];
	struct tm	tm;
	int		n;

	if (localtime_r(&sum->last.when, &tm) == NULL ||
	    strftime(at, sizeof(at), "%H:%M:%S", &tm) == 0)
		return -1;
	format_who(&sum->last, who, sizeof(who));
	format_what(&sum->last, what, sizeof(what));
	n = snprintf(buf, bufsz, "gate: refused %s %u time(s) in the last "
	    "hour, last at %s%s: %s; %s", who, sum->count, at, what,
	    policy_reason(sum->last.code), refusal_advice(sum->last.code));
	return n < 0 || (size_t)n >= bufsz ? -1 : n;
}
