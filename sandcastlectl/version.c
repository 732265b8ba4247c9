/*
 * sandcastlectl version: the version, the installed build id, the commit.
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>

#include "build.h"
#include "ctlcmd.h"

int
ctl_version(const struct parse_result *res, const struct ctl_env *env)
{
	char	bindir[PATH_MAX], id[BUILD_ID_LEN + 1], why[PATH_MAX + 64];

	printf("version %s\n", build_version());
	if (self_bindir(bindir, sizeof(bindir)) == -1)
		err(1, "build: /proc/self/exe");
	if (build_id(bindir, id, why, sizeof(why)) == -1) {
		printf("build   unknown\ncommit  %s\n", build_commit());
		errx(1, "build: %s", why);
	}
	printf("build   %s\ncommit  %s\n", id, build_commit());
	return 0;
}
