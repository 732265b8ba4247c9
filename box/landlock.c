/*
 * The box's Landlock ruleset: after load, no file and no TCP.  Built into
 * its static probe too: no log, no libbsd.
 */
#include <stdio.h>

#include "landlock.h"
#include "box.h"

int
box_landlock(const char *readable)
{
	struct landlock_path	 lang = { -1, readable, LANDLOCK_READ };
	char			 why[512];
	int			 abi;

#ifdef BOX_NO_LANDLOCK
	/* A test build without it: t_job's control, and make bench. */
	(void)lang;
	(void)why;
	return 0;
#endif
	abi = landlock_apply(LANDLOCK_BOX, &lang, readable != NULL ? 1 : 0,
	    why, sizeof(why));
	if (abi == -1) {
		fprintf(stderr, "sandcastle-box: cannot put its Landlock "
		    "ruleset on: %s\n", why);
		return -1;
	}
	/* Said where the launcher keeps it: the head of the box's stderr. */
	if (abi == 0)
		fprintf(stderr, "sandcastle-box: no Landlock: %s: the box sees "
		    "what podman lets it see\n", why);
	return abi;
}
