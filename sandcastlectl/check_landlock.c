/*
 * check: what Landlock holds here, from the processes' table (landlock.h).
 */
#include <stdio.h>
#include <string.h>

#include "landlock.h"
#include "check.h"

static void
wanting(const struct landlock_lack *l, char *buf, size_t bufsz)
{
	const char	*who[LANDLOCK_NPROCS];
	size_t		 i, n = 0;

	for (i = 0; i < LANDLOCK_NPROCS; i++)
		if (l->wants == 0 || (landlock_views[i].wants & l->wants))
			who[n++] = landlock_views[i].proc;
	if (n == LANDLOCK_NPROCS) {
		(void)strlcpy(buf, "every process", bufsz);
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			(void)strlcat(buf, i + 1 == n ? " and " : ", ", bufsz);
		(void)strlcat(buf, who[i], bufsz);
	}
}

static void
check_lacks(struct check *c, int abi)
{
	const struct landlock_lack	*l;
	char				 who[256];
	size_t				 i;

	for (i = 0; i < landlock_nlacks; i++) {
		l = &landlock_lacks[i];
		if (abi >= l->abi)
			continue;
		wanting(l, who, sizeof(who));
		check_line(c, MARK_WARN, "landlock: ABI %d has %s for %s: %s",
		    abi, l->what, who, l->holds);
	}
}

int
check_landlock(struct check *c)
{
	const char	*why;
	char		 sees[512];
	int		 abi, kabi, p;

	kabi = landlock_kernel_abi(&why);
	if ((abi = landlock_abi(&why)) == 0) {
		check_line(c, MARK_WARN, "landlock: none here: %s: no process "
		    "is held to its own files; the seccomp filters and the "
		    "namespaces still hold", why);
		return 0;
	}
	if (kabi > abi)
		check_line(c, MARK_OK, "landlock: ABI %d (the kernel has %d; "
		    "sandcastle uses no later one)", abi, kabi);
	else
		check_line(c, MARK_OK, "landlock: ABI %d", abi);
	for (p = 0; p < LANDLOCK_NPROCS; p++) {
		landlock_describe(p, abi, sees, sizeof(sees));
		check_line(c, MARK_OK, "landlock: %s sees %s",
		    landlock_views[p].proc, sees);
	}
	check_line(c, MARK_OK, "landlock: the box launcher has no ruleset: "
	    "rootless podman cannot run under one (sandcastled(8))");
	check_lacks(c, abi);
	return 0;
}
