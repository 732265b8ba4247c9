/*
 * sandcastle-box: the box's side, run inside the podman container as
 * "sandcastle-box claude" or "sandcastle-box ocr", speaking JSON lines
 * on stdin and stdout with the box launcher.  Before the job's first
 * byte it puts its Landlock ruleset on (box_landlock()).  See
 * sandcastle-box(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box.h"
#include "ocr.h"
#include "tess.h"

static struct tess	 ocr_tess;

/* ocr: Tesseract and the image's languages, which the filter then keeps out. */
static void
load_ocr(struct box_env *env)
{
	(void)ocr_load(&ocr_tess, PROTO_TESSDATA, PROTO_LANGUAGES);
	env->loaded = &ocr_tess;
}

/* Tesseract ended before the box: it would say its caches leaked. */
static void
unload_ocr(struct box_env *env)
{
	tess_free(env->loaded);
}

/*
 * Each capability: what it loads, then its filter, in this order and
 * before the first byte of the job is read.  Whatever else a capability
 * puts on (a Landlock ruleset) goes beside its filter.
 */
static const struct {
	void	(*load)(struct box_env *);
	void	(*sandbox)(void);
	void	(*unload)(struct box_env *);
} box_caps[CAP_COUNT] = {
	[CAP_CLAUDE] = { NULL, sandbox_claude, NULL },
	[CAP_OCR] = { load_ocr, sandbox_ocr, unload_ocr },
};

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: sandcastle-box claude | ocr\n");
	exit(1);
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

/*
 * libgomp reads OMP_THREAD_LIMIT once, when it is loaded, so ocr sets
 * it and starts itself again; the environment is otherwise empty.
 */
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
	struct box_env	 env;
	char		 id[BUILD_ID_LEN + 1], why[PROTO_WHY_MAX];
	int		 cap, r;

	if (argc != 2 || (cap = cap_from_name(argv[1])) == -1)
		usage();
	if (cap == CAP_OCR)
		one_thread(argv);
	(void)signal(SIGPIPE, SIG_IGN);
	memset(&env, 0, sizeof(env));
	env.cap = cap;
	env.build = read_build(id, why, sizeof(why));
	env.build_why = why;
	if (box_caps[cap].load != NULL)
		box_caps[cap].load(&env);
	/* Unveil, then pledge: the ruleset's calls are not the filter's. */
	if (box_landlock(NULL) == -1)
		return 1;
	box_caps[cap].sandbox();
	r = box_run(&env, STDIN_FILENO, STDOUT_FILENO);
	if (box_caps[cap].unload != NULL)
		box_caps[cap].unload(&env);
	return r;
}
