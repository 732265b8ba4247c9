/*
 * The box probe under the box's own Landlock ruleset: probe.c whole,
 * run as "sandcastle-box landlock", which puts box_landlock(NULL) on
 * before the first request, as sandcastle-box does before the job's
 * first byte; "sandcastle-box probe" is the control, the same probe
 * without it.  Built static with common/landlock.c and box/landlock.c,
 * the box's own code (regress/launcher/t_landlock.c).
 */
#define main	probe_main
#include "probe.c"
#undef main

#include "box.h"

int
main(int argc, char *argv[])
{
	static char	 probe[] = "probe";

	if (argc == 2 && strcmp(argv[1], "landlock") == 0) {
		/* A box without the ruleset must not pass for one with it. */
		if (box_landlock(NULL) < 1)
			return 3;
		argv[1] = probe;
	}
	return probe_main(argc, argv);
}
