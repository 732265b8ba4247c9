/*
 * check: the keep; without it, check stops before what needs the keep.
 */
#include <limits.h>
#include <stdint.h>

#include "keepcli.h"
#include "paths.h"
#include "check.h"

static int
keep_hello(const char *path, uint32_t *ndest, const char **why)
{
	struct keepcli	*k;

	if ((k = keepcli_open(path, why)) == NULL)
		return 0;
	*ndest = keepcli_ndestinations(k);
	keepcli_close(k);
	return 1;
}

int
check_keep(struct check *c)
{
	char		 path[PATH_MAX], cmd[3 * PATH_MAX];
	const char	*why = NULL;
	uint32_t	 n = 0;

	if (path_runtime_file(KEEP_SOCK, path, sizeof(path)) == -1) {
		check_line(c, MARK_FAIL, "keep: %s", path_why());
		return 0;
	}
	if (keep_hello(path, &n, &why)) {
		c->keep = 1;
		check_line(c, MARK_OK, "keep: ready at %s, with %u "
		    "destination(s)", path, (unsigned)n);
	} else if (check_unit_installed("sandcastle-keep.service"))
		check_line(c, MARK_FAIL, "keep: the keep does not answer at "
		    "%s (%s); start it: systemctl --user start sandcastle-keep; "
		    "its log: journalctl --user -u sandcastle-keep", path, why);
	else
		check_line(c, MARK_FAIL, "keep: the keep does not answer at "
		    "%s (%s); start it in a terminal of its own: %s", path, why,
		    check_by_hand(c, "keepd", 1, cmd, sizeof(cmd)));
	return 0;
}
