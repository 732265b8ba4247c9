/* A line of sandcastlectl check, and what more than one section needs. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "build.h"
#include "check.h"
#include "sandcastlectl.h"

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
