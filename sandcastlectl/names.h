/* The configuration as the commands load it, and lists of secret names (names.c). */
#ifndef SANDCASTLECTL_NAMES_H
#define SANDCASTLECTL_NAMES_H

#include <stddef.h>

/* The secrets a configuration names, or the files a folder holds: sorted, unique. */
struct namelist {
	char		**names;
	size_t		  n;
};

struct config;

struct config *ctl_config_load(const char *dir);	/* problems on stderr, NULL */
int	names_configured(const struct config *, struct namelist *);
int	names_in_folder(int dirfd, struct namelist *);	/* readdir only, no dot files */
int	names_has(const struct namelist *, const char *);
void	names_free(struct namelist *);

#endif
