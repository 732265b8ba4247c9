/*
 * sandcastle-box: the box's side, run inside the podman container as
 * "sandcastle-box claude" or "sandcastle-box ocr".  This build knows
 * the capabilities' names only; their box sides come with their
 * issues.  See sandcastle-box(8).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: sandcastle-box claude | ocr\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	if (argc != 2 || cap_from_name(argv[1]) == -1)
		usage();
	errx(1, "%s: the box side is not in this build", argv[1]);
}
