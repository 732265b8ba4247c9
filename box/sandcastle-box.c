/*
 * sandcastle-box <capability>: the box's side, inside its image, speaking
 * JSON lines with the launcher; see sandcastle-box(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box.h"
#include "note.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

PROGRAM_NOTE("sandcastle-box");

/* BOX_ROWS, from the Makefile: BOX_ROW(name) for each capability linked. */
#define BOX_ROW(c)	extern const struct box_cap box_##c;
BOX_ROWS
#undef BOX_ROW
#define BOX_ROW(c)	&box_##c,
static const struct box_cap *const box_caps[] = { BOX_ROWS };
#undef BOX_ROW

static __attribute__((noreturn)) void
usage(void)
{
	size_t	 i;

	fprintf(stderr, "usage: sandcastle-box");
	for (i = 0; i < NELEM(box_caps); i++)
		fprintf(stderr, "%s%s", i ? " | " : " ",
		    cap_name(box_caps[i]->cap));
	fprintf(stderr, "\n");
	exit(1);
}

static const struct box_cap *
box_cap_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < NELEM(box_caps); i++)
		if (strcmp(cap_name(box_caps[i]->cap), name) == 0)
			return box_caps[i];
	return NULL;
}

/* The image's build, from the file sandcastlectl install wrote in it. */
static const char *
read_build(char *id, char *why, size_t whysz)
{
	char	 buf[BUILD_ID_LEN + 2];
	ssize_t	 n;
	int	 fd;

	if ((fd = open(PROTO_BUILD_FILE, O_RDONLY | O_CLOEXEC)) == -1) {
		(void)snprintf(why, whysz, "%s: %s: the image is not one "
		    "sandcastlectl install built", PROTO_BUILD_FILE,
		    strerror(errno));
		return NULL;
	}
	n = read(fd, buf, sizeof(buf));
	(void)close(fd);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < 0 || !proto_build_valid(buf, n)) {
		(void)snprintf(why, whysz, "%s: not a build id of 12 hex "
		    "digits: run sandcastlectl install", PROTO_BUILD_FILE);
		return NULL;
	}
	memcpy(id, buf, BUILD_ID_LEN);
	id[BUILD_ID_LEN] = '\0';
	return id;
}

/* libgomp reads OMP_THREAD_LIMIT once, at load: a row that asks re-execs. */
static void
one_thread(char *argv[])
{
	const char	*v = getenv("OMP_THREAD_LIMIT");

	if (v != NULL && strcmp(v, "1") == 0)
		return;
	if (setenv("OMP_THREAD_LIMIT", "1", 1) == -1)
		return;
	(void)execv("/proc/self/exe", argv);
}

int
main(int argc, char *argv[])
{
	const struct box_cap	*bc;
	struct box_env		 env;
	char			 id[BUILD_ID_LEN + 1], why[PROTO_WHY_MAX];
	int			 r;

	if (argc != 2 || (bc = box_cap_find(argv[1])) == NULL)
		usage();
	if (bc->one_thread)
		one_thread(argv);
	(void)signal(SIGPIPE, SIG_IGN);
	memset(&env, 0, sizeof(env));
	env.cap = bc->cap;
	env.run = bc->run;
	env.build = read_build(id, why, sizeof(why));
	env.build_why = why;
	if (bc->load != NULL)
		bc->load(&env, cap_table[bc->cap]->loads);
	/* Unveil, then pledge: the ruleset's calls are not the filter's. */
	if (box_landlock(NULL) == -1)
		return 1;
	sandbox_box(cap_name(bc->cap));
	r = box_run(&env, STDIN_FILENO, STDOUT_FILENO);
	if (bc->unload != NULL)
		bc->unload(&env);
	return r;
}
