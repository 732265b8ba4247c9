/* The secrets folder: a reason names the rule, never the content. */
#ifndef SANDCASTLE_SECRETS_H
#define SANDCASTLE_SECRETS_H

#include <sys/types.h>

#include <stddef.h>

#define SECRET_MAX	(16 * 1024)

struct secret {
	char	*value;		/* without the one final line break */
	size_t	 len;
};

/* 0 and s filled, or -1 with why ("is a symbolic link", ...); explicit_bzero on free. */
int	secret_read(int dirfd, const char *name, struct secret *s, char *why, size_t whysz);
void	secret_free(struct secret *);
int	secret_write(int dirfd, const char *name, const char *value, size_t len, char *why, size_t whysz);
int	secret_remove(int dirfd, const char *name, char *why, size_t whysz);
/* Opens the folder and checks it: a real folder, the operator's, 0700; create makes it. */
int	secrets_dir_open(const char *path, int create, char *why, size_t whysz);
int	secret_check_value(const char *value, size_t len, const char **why);
ssize_t	secret_slurp(int fd, char *buf, size_t bufsz);
/* The name rules of config.h name_valid(), with its reason in why. */
int	secret_name_check(const char *name, char *why, size_t whysz);

#endif
