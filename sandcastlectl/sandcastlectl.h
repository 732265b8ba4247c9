/*
 * sandcastlectl: the command table, and one function per action.  Each
 * action returns the exit status (0 or 1) and says what went wrong on
 * stderr itself.
 */
#ifndef SANDCASTLECTL_H
#define SANDCASTLECTL_H

#include <limits.h>
#include <stddef.h>

enum action {
	NONE,
	CHECK,
	INSTALL,
	INSTALL_IMAGES,
	SECRET_LIST,
	SECRET_RM,
	SECRET_SET,
	SHOW_JOB,
	SHOW_JOBS,
	SHOW_SOURCES,
	SHOW_STATUS,
	UNINSTALL,
	VERSION
};

struct parse_result {
	enum action	 action;
	const char	*name;		/* the NAME of secret set and rm, show's SOURCE */
	const char	*id;		/* the ID of show job */
	int		 json;		/* show jobs -j, show sources -j */
};

/* Where the operator's folders are, from -c and -s or their defaults. */
struct ctl_env {
	char		 confdir[PATH_MAX];
	char		 secdir[PATH_MAX];
};

/* The secrets a configuration names, or the files a folder holds: sorted, unique. */
struct namelist {
	char		**names;
	size_t		  n;
};

struct config;

const struct parse_result *parse(int argc, char *argv[]);

int	ctl_check(const struct ctl_env *);
int	ctl_install(const struct ctl_env *);		/* install_all.c */
int	ctl_install_images(const struct ctl_env *);
int	ctl_secret_list(const struct ctl_env *);
int	ctl_secret_rm(const struct ctl_env *, const char *);
int	ctl_secret_set(const struct ctl_env *, const char *);
int	ctl_show_job(const struct ctl_env *, const char *, const char *);
int	ctl_show_jobs(const struct ctl_env *, const char *, int);
int	ctl_show_sources(int);
int	ctl_show_status(void);
int	ctl_uninstall(const struct ctl_env *);
int	ctl_version(void);

struct config *ctl_config_load(const char *dir);	/* problems on stderr, NULL */
int	names_configured(const struct config *, struct namelist *);
int	names_in_folder(int dirfd, struct namelist *);	/* readdir only, no dot files */
int	names_has(const struct namelist *, const char *);
void	names_free(struct namelist *);

#endif
