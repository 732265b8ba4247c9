/*
 * sandcastlectl's commands: parse()'s result, a command's row and its
 * function, which returns the exit status, any error on stderr.
 */
#ifndef SANDCASTLECTL_CTLCMD_H
#define SANDCASTLECTL_CTLCMD_H

#include <limits.h>

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
	VERSION,
	ACTION_COUNT
};

struct parse_result {
	enum action	 action;
	const char	*name;		/* the NAME of secret set and rm, show's SOURCE */
	const char	*id;		/* the ID of show job */
	int		 json;		/* -j: output_json.c, else output.c */
};

struct ctl_env {
	char		 confdir[PATH_MAX];
	char		 secdir[PATH_MAX];
};

#define CMD_FOLDERS	0x01	/* reads the operator's folders (-c, -s) */
#define CMD_ROOT	0x02	/* may run as root */
#define CMD_JSON	0x04	/* takes -j */

struct command {
	int		(*run)(const struct parse_result *,
			    const struct ctl_env *);
	int		  flags;
};

int	ctl_check(const struct parse_result *, const struct ctl_env *);
int	ctl_install(const struct parse_result *,
	    const struct ctl_env *);
int	ctl_install_images(const struct parse_result *, const struct ctl_env *);
int	ctl_secret_list(const struct parse_result *, const struct ctl_env *);
int	ctl_secret_rm(const struct parse_result *, const struct ctl_env *);
int	ctl_secret_set(const struct parse_result *, const struct ctl_env *);
int	ctl_show_job(const struct parse_result *, const struct ctl_env *);
int	ctl_show_jobs(const struct parse_result *, const struct ctl_env *);
int	ctl_show_sources(const struct parse_result *, const struct ctl_env *);
int	ctl_show_status(const struct parse_result *, const struct ctl_env *);
int	ctl_uninstall(const struct parse_result *, const struct ctl_env *);
int	ctl_version(const struct parse_result *, const struct ctl_env *);

#endif
