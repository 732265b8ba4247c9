/*
 * sandcastlectl uninstall: the target stopped, install's units removed,
 * the images gone but one in use; all else stays for install.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctlcmd.h"
#include "install.h"
#include "paths.h"
#include "spawn.h"
#include "units.h"

/* A box of the stopped core's, still being removed, is waited for. */
#define OLD_BOX_WAIT	60

static int	uninstall_units(void);

static int
uninstall_units(void)
{
	char	 dir[PATH_MAX], path[PATH_MAX + 64], build[BUILD_ID_LEN + 1];
	char	*text;
	size_t	 i;
	int	 rc = 0;

	if (units_dir(dir, sizeof(dir)) == -1) {
		warnx("the folder of the units: %s", path_why());
		return -1;
	}
	for (i = 0; i < UNIT_COUNT; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", dir,
		    unit_texts[i].name);
		if ((text = file_read(path, 65536, NULL)) == NULL) {
			if (errno == ENOENT)
				continue;
			warn("%s", path);
			rc = -1;
			continue;
		}
		if (!unit_marker(text, build))
			printf("uninstall: %s was not written by install: it "
			    "stays\n", path);
		else if (unlink(path) == -1) {
			warn("%s", path);
			rc = -1;
		} else
			printf("uninstall: removed %s\n", path);
		free(text);
	}
	return rc;
}

int
ctl_uninstall(const struct parse_result *res, const struct ctl_env *env)
{
	char	*stop[] = { "systemctl", "--user", "disable", "--now",
		    UNIT_TARGET, NULL };
	char	*reload[] = { "systemctl", "--user", "daemon-reload", NULL };
	int	 rc = 0, st;

	if ((st = spawn_wait(stop)) != 0) {
		warnx("systemctl --user disable --now %s exited %d: it may "
		    "still run", UNIT_TARGET, st);
		rc = 1;
	} else
		printf("uninstall: %s is stopped and disabled\n", UNIT_TARGET);
	if (uninstall_units() == -1)
		rc = 1;
	if ((st = spawn_wait(reload)) != 0) {
		warnx("systemctl --user daemon-reload exited %d", st);
		rc = 1;
	} else
		printf("uninstall: systemd reloaded the units\n");
	if (images_remove_all(OLD_BOX_WAIT) == -1)
		rc = 1;
	else
		printf("uninstall: the images are removed\n");
	printf("uninstall: %s; the configuration, the secrets, the records, "
	    "the binaries and the drop-ins stay\n", rc == 0 ? "done" :
	    "not all done");
	return rc;
}
