/* A line of sandcastlectl check, and what more than one section needs. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "ctlcmd.h"
#include "paths.h"
#include "check.h"

static const char *const marks[] = {
	[MARK_OK] = "ok",
	[MARK_WARN] = "warn",
	[MARK_FAIL] = "FAIL",
};

const char *
check_mark(enum check_mark mark)
{
	return marks[mark];
}

void
check_line(struct check *c, enum check_mark mark, const char *fmt, ...)
{
	va_list	ap;

	if (mark == MARK_FAIL)
		c->nfail++;
	printf("%-6s", check_mark(mark));
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A size as config.yaml writes it: GiB or MiB when exact, else bytes. */
void
check_size(uint64_t v, char *buf, size_t bufsz)
{
	if (v != 0 && v % (1024 * CHECK_MiB) == 0)
		(void)snprintf(buf, bufsz, "%lluGiB",
		    (unsigned long long)(v / (1024 * CHECK_MiB)));
	else if (v != 0 && v % CHECK_MiB == 0)
		(void)snprintf(buf, bufsz, "%lluMiB",
		    (unsigned long long)(v / CHECK_MiB));
	else
		(void)snprintf(buf, bufsz, "%llu", (unsigned long long)v);
}

/* The units and the toolbox both need it: 20 ms of hashing, made once. */
const char *
check_build(struct check *c, char *why, size_t whysz)
{
	char	dir[PATH_MAX];

	if (c->build[0] != '\0')
		return c->build;
	if (self_bindir(dir, sizeof(dir)) == -1) {
		(void)snprintf(why, whysz, "cannot find the folder of this "
		    "binary");
		return NULL;
	}
	/* build_id() writes the id only when it made it. */
	return build_id(dir, c->build, why, whysz) == 0 ? c->build : NULL;
}

/* w appended to buf after a space, quoted for sh(1) when it needs it. */
static void
word_add(char *buf, size_t bufsz, const char *w)
{
	size_t	len = strlen(buf);
	int	quote;

	quote = w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_./:+,@%=~-")] != '\0';
	if (len > 0 && len + 1 < bufsz)
		buf[len++] = ' ';
	if (quote && len + 1 < bufsz)
		buf[len++] = '\'';
	for (; *w != '\0' && len + 6 < bufsz; w++) {
		if (*w == '\'') {
			memcpy(buf + len, "'\\''", 4);
			len += 4;
		} else
			buf[len++] = *w;
	}
	if (quote && len + 1 < bufsz)
		buf[len++] = '\'';
	buf[len] = '\0';
}

/* daemon by hand (-d) from libexec beside bin/, with folders not its own. */
const char *
check_by_hand(const struct check *c, const char *daemon, int secrets,
    char *buf, size_t bufsz)
{
	char	dir[PATH_MAX], libexec[PATH_MAX], path[PATH_MAX + NAME_MAX];
	char	dflt[PATH_MAX];

	buf[0] = '\0';
	if (self_bindir(dir, sizeof(dir)) == -1 ||
	    build_libexecdir(dir, libexec, sizeof(libexec)) == -1)
		(void)strlcpy(libexec, "~/.local/" BUILD_LIBEXEC,
		    sizeof(libexec));
	(void)snprintf(path, sizeof(path), "%s/%s", libexec, daemon);
	word_add(buf, bufsz, path);
	word_add(buf, bufsz, "-d");
	if (path_config_dir(NULL, dflt, sizeof(dflt)) == -1 ||
	    strcmp(dflt, c->env->confdir) != 0) {
		word_add(buf, bufsz, "-c");
		word_add(buf, bufsz, c->env->confdir);
	}
	if (secrets && (path_secrets_dir(NULL, dflt, sizeof(dflt)) == -1 ||
	    strcmp(dflt, c->env->secdir) != 0)) {
		word_add(buf, bufsz, "-s");
		word_add(buf, bufsz, c->env->secdir);
	}
	return buf;
}
