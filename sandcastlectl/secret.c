/*
 * secret set, list and rm.  A value is never an argument, which history
 * and ps(1) would keep: it comes from the terminal, no echo, or stdin.
 */
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <readpassphrase.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ctlcmd.h"
#include "names.h"
#include "secrets.h"

/* A value, one final line break, and one byte to tell "too long" by. */
#define VALUE_BUFSZ	(SECRET_MAX + 2)

static ssize_t	value_from_tty(const char *, char *, size_t);
static void	list_print(const struct namelist *, const struct namelist *);

static ssize_t
value_from_tty(const char *name, char *buf, size_t bufsz)
{
	char	prompt[NAME_LEN + 16];

	(void)snprintf(prompt, sizeof(prompt), "secret %s: ", name);
	if (readpassphrase(prompt, buf, bufsz, RPP_REQUIRE_TTY) == NULL)
		err(1, "secret %s: the terminal cannot be read", name);
	return strlen(buf);
}

int
ctl_secret_set(const struct parse_result *res, const struct ctl_env *env)
{
	const char	*name = res->name;
	char		 why[256], *buf;
	ssize_t		 n;
	int		 dirfd, r;

	if (secret_name_check(name, why, sizeof(why)) == -1)
		errx(1, "secret %s: %s", name, why);
	if ((dirfd = secrets_dir_open(env->secdir, 1, why, sizeof(why))) == -1)
		errx(1, "secrets: %s", why);
	if ((buf = calloc(1, VALUE_BUFSZ)) == NULL)
		err(1, NULL);
	if (isatty(STDIN_FILENO))
		n = value_from_tty(name, buf, VALUE_BUFSZ);
	else if ((n = secret_slurp(STDIN_FILENO, buf, VALUE_BUFSZ)) == -1)
		err(1, "secret %s: stdin", name);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > SECRET_MAX)
		(void)strlcpy(why, "longer than 16 KiB", sizeof(why));
	r = n > SECRET_MAX ? -1 :
	    secret_write(dirfd, name, buf, n, why, sizeof(why));
	explicit_bzero(buf, VALUE_BUFSZ);
	free(buf);
	(void)close(dirfd);
	if (r == -1)
		errx(1, "secret %s: %s", name, why);
	printf("secret %s set\n", name);
	return 0;
}

/* The state padded to 9 columns: "missing  ", "used     ", "unused   ". */
static void
list_print(const struct namelist *named, const struct namelist *files)
{
	size_t	i = 0, j = 0;
	int	c;

	while (i < named->n || j < files->n) {
		if (i == named->n)
			c = 1;
		else if (j == files->n)
			c = -1;
		else
			c = strcmp(named->names[i], files->names[j]);
		if (c < 0)
			printf("%-9s%s\n", "missing", named->names[i++]);
		else if (c > 0)
			printf("%-9s%s\n", "unused", files->names[j++]);
		else {
			printf("%-9s%s\n", "used", named->names[i++]);
			j++;
		}
	}
}

int
ctl_secret_list(const struct parse_result *res, const struct ctl_env *env)
{
	struct namelist	 named, files;
	struct config	*conf;
	char		 why[512];
	int		 dirfd;

	if ((conf = ctl_config_load(env->confdir)) == NULL)
		return 1;
	if (names_configured(conf, &named) == -1)
		err(1, NULL);
	config_free(conf);
	memset(&files, 0, sizeof(files));
	dirfd = secrets_dir_open(env->secdir, 0, why, sizeof(why));
	/* No folder yet: every secret named is missing. */
	if (dirfd == -1 && errno != ENOENT)
		errx(1, "secrets: %s", why);
	if (dirfd != -1 && names_in_folder(dirfd, &files) == -1)
		err(1, "secrets: %s", env->secdir);
	list_print(&named, &files);
	names_free(&named);
	names_free(&files);
	if (dirfd != -1)
		(void)close(dirfd);
	return 0;
}

int
ctl_secret_rm(const struct parse_result *res, const struct ctl_env *env)
{
	const char	*name = res->name;
	char		 why[512];
	int		 dirfd;

	if ((dirfd = secrets_dir_open(env->secdir, 0, why, sizeof(why))) == -1) {
		if (errno == ENOENT)
			errx(1, "secret %s: not set", name);
		errx(1, "secrets: %s", why);
	}
	if (secret_remove(dirfd, name, why, sizeof(why)) == -1)
		errx(1, "secret %s: %s", name, why);
	(void)close(dirfd);
	printf("secret %s removed\n", name);
	return 0;
}
