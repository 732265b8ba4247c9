/*
 * check: the gate's refusals of the last hour, one line per
 * destination, with the likeliest cause and what to do, read from the
 * records gated keeps in the state folder.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "paths.h"
#include "refusal.h"
#include "check.h"
#include "sandcastlectl.h"

static void
check_refusal(const struct refusal_sum *sum, void *arg)
{
	struct check	*c = arg;
	char		 line[1024];

	if (refusal_format(sum, line, sizeof(line)) == -1)
		return;
	check_line(c, MARK_WARN, "%s", line);
}

int
check_gate(struct check *c)
{
	char	 path[PATH_MAX];

	if (path_state_dir(path, sizeof(path)) == -1 ||
	    strlcat(path, "/" REFUSAL_FILE, sizeof(path)) >= sizeof(path)) {
		check_line(c, MARK_WARN, "gate: the refusals cannot be read: "
		    "%s", path_why());
		return 0;
	}
	if (refusal_summary(path, time(NULL), check_refusal, c) == -1)
		check_line(c, MARK_WARN, "gate: the refusals cannot be read: "
		    "%s: %s", path, strerror(errno));
	return 0;
}
