/*
 * check: the secrets, read with the keep's own rules (secret_read); a line
 * names the secret and the rule, never a byte of the value.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "ctlcmd.h"
#include "names.h"
#include "secrets.h"
#include "check.h"

static void	check_one_secret(struct check *, int, const char *);

static void
check_one_secret(struct check *c, int dirfd, const char *name)
{
	struct secret	s;
	char		why[256];

	if (secret_read(dirfd, name, &s, why, sizeof(why)) == 0) {
		secret_free(&s);
		check_line(c, MARK_OK, "secret %s: usable", name);
	} else if (errno == ENOENT)
		check_line(c, MARK_FAIL, "secret %s: missing; set it with "
		    "sandcastlectl secret set %s", name, name);
	else
		check_line(c, MARK_FAIL, "secret %s: %s; set it again with "
		    "sandcastlectl secret set %s", name, why, name);
}

int
check_secrets(struct check *c)
{
	struct namelist	named, files;
	char		why[512];
	size_t		i;
	int		dirfd;

	dirfd = secrets_dir_open(c->env->secdir, 0, why, sizeof(why));
	if (dirfd == -1) {
		check_line(c, MARK_FAIL, "secrets: %s", why);
		return -1;
	}
	if (names_configured(c->conf, &named) == -1 ||
	    names_in_folder(dirfd, &files) == -1)
		err(1, "secrets: %s", c->env->secdir);
	for (i = 0; i < named.n; i++)
		check_one_secret(c, dirfd, named.names[i]);
	for (i = 0; i < files.n; i++) {
		if (!names_has(&named, files.names[i]))
			check_line(c, MARK_WARN, "secret %s: unused: no "
			    "destination names it; remove it with "
			    "sandcastlectl secret rm %s", files.names[i],
			    files.names[i]);
	}
	names_free(&named);
	names_free(&files);
	(void)close(dirfd);
	return 0;
}
