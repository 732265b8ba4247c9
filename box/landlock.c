/*
 * The box's Landlock ruleset, stacked inside the container on podman's
 * seccomp profile and the box's own filter: once its capability has
 * loaded, and before the job's first byte, sandcastle-box sees no file
 * and makes no TCP connection, whatever the job's bytes make of it:
 * ocr has read Tesseract's languages when it loaded.  readable, when
 * not NULL, is a folder left readable, for a test build.
 *
 * Written for the box and its static probe alike: no log, no libbsd.
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
	/*
	 * A test build without its ruleset: with neither of the box's own
	 * locks, the control of t_job's filter case, whose calls must then
	 * be made, and make bench.
	 */
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
