/*
 * sandcastlectl check: one line per item, "<mark>  <item>: <text>", in
 * the order of the sections below; exit 1 when any line is FAIL.  A
 * section that stops check is followed by one line naming the sections
 * not checked.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "build.h"
#include "config.h"
#include "check.h"
#include "sandcastlectl.h"

/* In the order the operator reads them: each may need the ones before. */
static const struct check_section {
	const char	*name;
	int		(*run)(struct check *);
} sections[] = {
	{ "keep",		check_keep },
	{ "landlock",		check_landlock },
	{ "configuration",	check_configuration },
	{ "units",		check_units },
	{ "secrets",		check_secrets },
	{ "internal exceptions", check_internal },
	{ "toolbox and images",	check_toolbox },
	{ "sources",		check_sources },
	{ "capabilities",	check_capabilities },
	{ "gate",		check_gate },
};

static const char *const marks[] = {
	[MARK_OK] = "ok",
	[MARK_WARN] = "warn",
	[MARK_FAIL] = "FAIL",
};

void
check_line(struct check *c, enum check_mark mark, const char *fmt, ...)
{
	va_list	ap;

	if (mark == MARK_FAIL)
		c->nfail++;
	printf("%-6s", marks[mark]);
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

/* After sections[i] stopped check: one line naming what was not checked. */
static void
check_skipped(size_t i)
{
	size_t	n = sizeof(sections) / sizeof(sections[0]), k;

	if (i + 1 >= n)
		return;
	printf("%-6s", marks[MARK_WARN]);
	printf("check: not checked until the %s line above passes: ",
	    sections[i].name);
	for (k = i + 1; k < n; k++)
		printf("%s%s", sections[k].name, k + 1 == n ? "\n" :
		    k + 2 == n ? " and " : ", ");
}

int
ctl_check(const struct parse_result *res, const struct ctl_env *env)
{
	struct check	c = { env, NULL, 0, 0, "" };
	size_t		i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (sections[i].run(&c) == -1) {
			check_skipped(i);
			break;
		}
	}
	if (c.conf != NULL)
		config_free(c.conf);
	(void)fflush(stdout);
	return c.nfail > 0 ? 1 : 0;
}
