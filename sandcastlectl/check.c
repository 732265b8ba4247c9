/*
 * sandcastlectl check: one line an item, in the sections' order; exit 1
 * on a FAIL.  A section that stops check is followed by what was not.
 */
#include <stdio.h>

#include "config.h"
#include "check.h"
#include "ctlcmd.h"

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

static void
check_skipped(size_t i)
{
	size_t	n = sizeof(sections) / sizeof(sections[0]), k;

	if (i + 1 >= n)
		return;
	printf("%-6s", check_mark(MARK_WARN));
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
