/* podman (podman.c), a leaf: no job's byte ever goes into an argv made here. */
#ifndef SANDCASTLED_PODMAN_H
#define SANDCASTLED_PODMAN_H

#include <stddef.h>
#include <stdint.h>

#include "build.h"
#include "cap.h"

#define BOX_NAME_LEN	(15 + 16)	/* "sandcastle-box-" (a check's: -chk-), 16 hex digits */

enum box_role {
	BOX_CORE,
	BOX_CHECK
};

struct box_params {
	char		 image[64];		/* sandcastle-<cap>:<build> */
	const char	*word;
	enum box_role	 role;
	struct box_limits limits;
	uint32_t	 timeout;		/* seconds of wall clock, and of cpu */
	uint64_t	 max_line;		/* bytes of one line from the box */
	uint64_t	 max_total;		/* bytes of stdout in all */
	int		 cgroup;		/* pass --memory, --cpus, --pids-limit */
};

/* What holds one box limit on this machine; none: nothing but the time limit. */
struct box_hold {
	const char	*limit;
	const char	*held;
	int		 warn;			/* said with a warning: it holds less than the key says */
};

int		 podman_init(char *why, size_t whysz);
const char	*podman_path(void);
char *const	*podman_env(void);
/* args[0] is podman's first argument.  0 and the wait status, or -1. */
int		 podman_cmd(const char *const args[], char *out,
		    size_t outsz, int *status);
/* 1 gone, 0 still there (in podman's storage alone too), -1 unknown. */
int		 podman_gone(const char *name);
int		 podman_rm(const char *name);

/* "sandcastle-<cap>:<build>"; with build "", the prefix of every build's. */
#define PODMAN_IMAGE_LEN	(11 + 16 + 1 + BUILD_ID_LEN)
void		 podman_image_name(enum cap_id, const char *build, char *,
		    size_t);
/* 1 when podman has the image, 0 when not, -1 with why when it cannot say. */
int		 podman_image_exists(const char *image, char *why, size_t whysz);

/* 1 when word is a whole word of a cgroup.controllers line. */
int		 cgroup_word(const char *line, const char *word);
int		 cgroup_words_hold(const char *line);
int		 box_cgroup_layer(void);
const struct box_hold *box_holds(int cgroup, size_t *n);
/* What podman's stderr blames when it could not run a box: worst first. */
enum podman_cause {
	PODMAN_CGROUP,
	PODMAN_RUNTIME,		/* the OCI runtime it is set to is not found */
	PODMAN_IMAGE,
	PODMAN_RUNTIME_FAILED,
	PODMAN_OTHER
};
/* The cause of podman's "Error: " lines in its stderr (len bytes). */
enum podman_cause podman_said(const char *err, size_t len);
int		 box_remove_leftovers(char *why, size_t whysz);

char		**podman_run_argv(const struct box_params *,
		    const char *name);
void		 podman_argv_free(char **);
void		 podman_box_name(char name[BOX_NAME_LEN + 1], enum box_role);
const char	*podman_role_label(enum box_role);

#endif
