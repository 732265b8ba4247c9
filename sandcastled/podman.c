/* The one owner of podman: its path and environment, a box's argv with
 * every lock of "How a job is boxed".  No byte of a job goes into an argv. */
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/magic.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "log.h"
#include "podman.h"
#include "profile.h"

#define ARGV_MAX	96
#define CMD_ARGS	16
#define PODMAN_RM_NAP_MS	100	/* podman_rm's first pause */
#define PODMAN_RM_NAP_MAX_MS	800

static char	 podman_where[PATH_MAX];
static char	*podman_envp[4];

struct argv {
	char	*v[ARGV_MAX + 1];
	int	 n;
};

static void	argv_add(struct argv *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static void	argv_locks(struct argv *, const struct box_params *);
static void	argv_limits(struct argv *, const struct box_params *);

static void
argv_add(struct argv *a, const char *fmt, ...)
{
	va_list	 ap;

	if (a->n >= ARGV_MAX)
		fatalx("podman: more than %d words in a box's command", ARGV_MAX);
	va_start(ap, fmt);
	if (vasprintf(&a->v[a->n], fmt, ap) == -1)
		fatal("podman: argv");
	va_end(ap);
	a->v[++a->n] = NULL;
}

const char *
podman_role_label(enum box_role role)
{
	return role == BOX_CORE ? "core" : "check";
}

/*
 * The user namespace is named, so that a containers.conf of keep-id cannot
 * map the box to the operator; --log-driver none: podman keeps nothing.
 */
static void
argv_locks(struct argv *a, const struct box_params *p)
{
	argv_add(a, "run");
	argv_add(a, "--rm");
	argv_add(a, "-i");
	argv_add(a, "--network=none");
	argv_add(a, "--read-only");
	argv_add(a, "--read-only-tmpfs=false");
	argv_add(a, "--tmpfs=/tmp:rw,noexec,nosuid,nodev,size=%llu,mode=1700,U",
	    (unsigned long long)p->limits.tmp);
	argv_add(a, "--ipc=none");
	argv_add(a, "--tmpfs=/dev/mqueue:ro,nosuid,nodev,noexec,size=4k");
	argv_add(a, "--cap-drop=all");
	argv_add(a, "--security-opt=seccomp=/proc/self/fd/%d", BOX_PROFILE_FD);
	argv_add(a, "--security-opt=no-new-privileges");
	argv_add(a, "--user=65534:65534");
	/* Rootless "host" is podman's own namespace, not the machine's. */
	argv_add(a, "--userns=host");
	argv_add(a, "--env-host=false");
	argv_add(a, "--unsetenv-all");
	argv_add(a, "--pull=never");
	argv_add(a, "--log-driver=none");
	argv_add(a, "--label=sandcastle.box=sandcastle");
	argv_add(a, "--label=sandcastle.role=%s", podman_role_label(p->role));
}

/* Only where they hold: rootless podman on cgroup v1 ignores them silently. */
static void
argv_limits(struct argv *a, const struct box_params *p)
{
	unsigned long long	 mem = p->limits.memory, tmp = p->limits.tmp;

	if (p->cgroup) {
		argv_add(a, "--memory=%llu", mem);
		argv_add(a, "--memory-swap=%llu", mem);
		argv_add(a, "--cpus=%u.%03u", p->limits.millicpus / 1000,
		    p->limits.millicpus % 1000);
		argv_add(a, "--pids-limit=%u", p->limits.pids);
	}
	argv_add(a, "--ulimit=data=%llu:%llu", mem, mem);
	argv_add(a, "--ulimit=nproc=%u:%u", p->limits.pids, p->limits.pids);
	argv_add(a, "--ulimit=fsize=%llu:%llu", tmp, tmp);
	argv_add(a, "--ulimit=nofile=64:64");
	argv_add(a, "--ulimit=core=0:0");
	argv_add(a, "--ulimit=cpu=%u:%u", p->timeout, p->timeout);
}

/* What holds each box limit; check prints it (t_docs holds these rows). */
static const struct box_hold box_holds_cgroup[] = {
	{ "box.memory", "cgroup v2 (--memory, no swap) and the data rlimit",
	    0 },
	{ "box.cpus", "cgroup v2 (--cpus)", 0 },
	{ "box.pids", "cgroup v2 (--pids-limit) and the nproc rlimit", 0 },
	{ "box.tmp", "the size of its tmpfs and the fsize rlimit", 0 },
	{ "timeout", "the launcher's time limit and the cpu rlimit", 0 },
};
static const struct box_hold box_holds_rlimits[] = {
	{ "box.memory", "the data rlimit alone, which bounds each process's "
	    "data, so a box may use up to box.pids times it (no cgroup v2 "
	    "memory controller delegated here)", 1 },
	{ "box.cpus", "nothing but the time limit (no cgroup v2 cpu "
	    "controller delegated here)", 1 },
	{ "box.pids", "the nproc rlimit", 0 },
	{ "box.tmp", "the size of its tmpfs and the fsize rlimit", 0 },
	{ "timeout", "the launcher's time limit and the cpu rlimit", 0 },
};

const struct box_hold *
box_holds(int cgroup, size_t *n)
{
	*n = sizeof(box_holds_cgroup) / sizeof(box_holds_cgroup[0]);
	return cgroup ? box_holds_cgroup : box_holds_rlimits;
}

char **
podman_run_argv(const struct box_params *p, const char *name)
{
	struct argv	 a;
	char		**v;

	memset(&a, 0, sizeof(a));
	argv_add(&a, "%s", podman_where);
	argv_locks(&a, p);
	argv_add(&a, "--name=%s", name);
	argv_limits(&a, p);
	argv_add(&a, "%s", p->image);
	argv_add(&a, "/sandcastle-box");
	argv_add(&a, "%s", p->word);
	if ((v = calloc(a.n + 1, sizeof(*v))) == NULL)
		fatal("podman: argv");
	memcpy(v, a.v, a.n * sizeof(*v));
	return v;
}

void
podman_argv_free(char **v)
{
	char	**p;

	if (v == NULL)
		return;
	for (p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

static const char *
podman_name_prefix(enum box_role role)
{
	return role == BOX_CORE ? "sandcastle-box-" : "sandcastle-chk-";
}

void
podman_box_name(char name[BOX_NAME_LEN + 1], enum box_role role)
{
	unsigned char	 r[8];
	int		 i;

	arc4random_buf(r, sizeof(r));
	memcpy(name, podman_name_prefix(role), 15);
	for (i = 0; i < 8; i++)
		(void)snprintf(name + 15 + 2 * i, 3, "%02x", r[i]);
}

static int
podman_find(char *path, size_t pathsz)
{
	const char	*env = getenv("PATH");
	char		*dirs, *p, *d;
	int		 found = 0;

	if ((dirs = strdup(env != NULL ? env : "/usr/bin:/bin")) == NULL)
		return -1;
	for (p = dirs; !found && (d = strsep(&p, ":")) != NULL; ) {
		if (*d != '/')
			continue;
		(void)snprintf(path, pathsz, "%s/podman", d);
		found = access(path, X_OK) == 0;
	}
	free(dirs);
	return found ? 0 : -1;
}

static int
podman_env_add(int i, const char *name, const char *dflt)
{
	const char	*v = getenv(name);

	if (v == NULL || *v == '\0')
		v = dflt;
	if (v == NULL)
		return -1;
	free(podman_envp[i]);
	if (asprintf(&podman_envp[i], "%s=%s", name, v) == -1)
		fatal("podman: environment");
	return 0;
}

/* HOME, XDG_RUNTIME_DIR and PATH; no proxy: a box has no network. */
int
podman_init(char *why, size_t whysz)
{
	if (podman_find(podman_where, sizeof(podman_where)) == -1) {
		(void)snprintf(why, whysz, "podman is not in PATH: install "
		    "podman, or put its folder in the PATH sandcastled runs "
		    "with");
		return -1;
	}
	if (podman_env_add(0, "HOME", NULL) == -1 ||
	    podman_env_add(1, "XDG_RUNTIME_DIR", NULL) == -1) {
		(void)snprintf(why, whysz, "HOME or XDG_RUNTIME_DIR is not "
		    "set: rootless podman needs both");
		return -1;
	}
	(void)podman_env_add(2, "PATH", "/usr/bin:/bin");
	podman_envp[3] = NULL;
	return 0;
}

const char *
podman_path(void)
{
	return podman_where;
}

char *const *
podman_env(void)
{
	return podman_envp;
}

int
podman_cmd(const char *const args[], char *out, size_t outsz, int *status)
{
	char	*argv[CMD_ARGS + 2];
	size_t	 i;

	argv[0] = podman_where;
	for (i = 0; args[i] != NULL; i++) {
		if (i == CMD_ARGS)
			fatalx("podman: a command of more than %d words",
			    CMD_ARGS);
		argv[i + 1] = (char *)args[i];
	}
	argv[i + 1] = NULL;
	return command_capture(argv, podman_envp, 1, out, outsz, status);
}

int
podman_gone(const char *name)
{
	const char	*args[] = { "container", "exists", "--external", name,
			    NULL };
	char		 out[256];
	int		 status;

	if (podman_cmd(args, out, sizeof(out), &status) == -1 ||
	    !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 1 ? 1 :
	    WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * A killed podman run's own --rm may be removing the box as rm -f runs,
 * which then finds no box while storage still holds it: ask again.
 */
int
podman_rm(const char *name)
{
	const char	*args[] = { "rm", "-f", "--time", "0", name, NULL };
	char		 out[256];
	struct timespec	 nap = { 0, 0 };
	long		 ms;
	int		 status;

	for (ms = PODMAN_RM_NAP_MS; ; ms *= 2) {
		if (podman_cmd(args, out, sizeof(out), &status) == -1)
			return -1;
		if (podman_gone(name) == 1)
			return 0;
		if (ms > PODMAN_RM_NAP_MAX_MS)
			return -1;
		nap.tv_nsec = ms * 1000000L;
		while (nanosleep(&nap, &nap) == -1 && errno == EINTR)
			;
	}
}

void
podman_image_name(enum cap_id cap, const char *build, char *buf,
    size_t bufsz)
{
	(void)snprintf(buf, bufsz, "sandcastle-%s:%s", cap_name(cap), build);
}

int
podman_image_exists(const char *image, char *why, size_t whysz)
{
	const char	*args[] = { "image", "exists", image, NULL };
	char		 out[256];
	int		 status;

	if (podman_cmd(args, out, sizeof(out), &status) == -1) {
		(void)snprintf(why, whysz, "podman image exists %s: %s", image,
		    strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		return WEXITSTATUS(status) == 0;
	out[strcspn(out, "\n")] = '\0';
	(void)snprintf(why, whysz, "podman image exists %s did not answer "
	    "(status %d): %s", image, status, out);
	return -1;
}

/* 1 when word is one of the line's words: "cpu" is not in "cpuset". */
int
cgroup_word(const char *line, const char *word)
{
	size_t		 n = strlen(word), len;
	const char	*p = line;

	while (*p != '\0') {
		p += strspn(p, " \t\n");
		len = strcspn(p, " \t\n");
		if (len == n && strncmp(p, word, n) == 0)
			return 1;
		p += len;
	}
	return 0;
}

int
cgroup_words_hold(const char *line)
{
	return cgroup_word(line, "memory") && cgroup_word(line, "pids") &&
	    cgroup_word(line, "cpu");
}

static int
cgroup_controllers_hold(const char *dir)
{
	char	 path[PATH_MAX + 64], ctl[512];
	FILE	*f;
	int	 ok;

	(void)snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cgroup.controllers",
	    dir);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	ok = fgets(ctl, sizeof(ctl), f) != NULL && cgroup_words_hold(ctl);
	fclose(f);
	return ok;
}

/*
 * cgroup v2 with memory, pids and cpu delegated where podman makes the boxes'
 * cgroups: user@UID.service's tree under a systemd user manager, else ours.
 */
int
box_cgroup_layer(void)
{
	struct statfs	 fs;
	char		 line[PATH_MAX + 8], manager[128];
	FILE		*f;
	int		 found = 0;

	if (statfs("/sys/fs/cgroup", &fs) == -1 ||
	    fs.f_type != CGROUP2_SUPER_MAGIC)
		return 0;
	(void)snprintf(manager, sizeof(manager),
	    "/user.slice/user-%u.slice/user@%u.service", (unsigned)getuid(),
	    (unsigned)getuid());
	if (cgroup_controllers_hold(manager))
		return 1;
	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			found = 1;
		}
	fclose(f);
	return found && cgroup_controllers_hold(line + 3);
}

/* The worst line is the cause: a cgroup error is said inside the runtime's. */
static enum podman_cause
podman_line_cause(const char *l, size_t len)
{
	static const struct {
		const char		*words;
		enum podman_cause	 cause;
	} said[] = {
		{ "cgroup",				PODMAN_CGROUP },
		{ "OCI runtime attempted to invoke a command", PODMAN_IMAGE },
		{ "no valid executable found for OCI runtime", PODMAN_RUNTIME },
		{ "default OCI runtime",		PODMAN_RUNTIME },
		{ "image not known",			PODMAN_IMAGE },
		{ "OCI runtime",			PODMAN_RUNTIME_FAILED },
		{ "create failed",			PODMAN_RUNTIME_FAILED },
		{ "conmon",				PODMAN_RUNTIME_FAILED },
	};
	size_t	 i;

	for (i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		if (memmem(l, len, said[i].words, strlen(said[i].words)))
			return said[i].cause;
	return PODMAN_OTHER;
}

enum podman_cause
podman_said(const char *err, size_t len)
{
	enum podman_cause	 worst = PODMAN_OTHER, c;
	const char		*p = err, *end = err + len, *nl;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl - p > 7 && memcmp(p, "Error: ", 7) == 0 &&
		    (c = podman_line_cause(p, nl - p)) != PODMAN_OTHER &&
		    (worst == PODMAN_OTHER || c < worst))
			worst = c;
	}
	return worst;
}

/* A name podman gave back is used only when it is a core's box of ours. */
static int
podman_name_ours(const char *name)
{
	size_t	 i;

	if (strlen(name) != BOX_NAME_LEN ||
	    strncmp(name, podman_name_prefix(BOX_CORE), 15) != 0)
		return 0;
	for (i = 15; i < BOX_NAME_LEN; i++)
		if (strchr("0123456789abcdef", name[i]) == NULL)
			return 0;
	return 1;
}

/*
 * With storage, also those a podman run killed early leaves unlabelled,
 * which block their image's removal.
 */
static int
podman_sweep(const char *const *args, int storage, int *n, char *why,
    size_t whysz)
{
	char	 out[16384], *p, *line, *name;
	int	 status;

	if (podman_cmd(args, out, sizeof(out), &status) == -1 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		(void)snprintf(why, whysz, "podman ps could not list the boxes "
		    "a crash left");
		return -1;
	}
	for (p = out; (line = strsep(&p, "\n")) != NULL; ) {
		name = strsep(&line, " ");
		if (!podman_name_ours(name) ||
		    (storage && (line == NULL || strcmp(line, "Storage") != 0)))
			continue;
		if (podman_rm(name) == -1) {
			(void)snprintf(why, whysz, "%s, left by a crash, will "
			    "not go: remove it with podman rm -f %s", name, name);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

/* The core's boxes only, never a check's (one may be running beside us). */
int
box_remove_leftovers(char *why, size_t whysz)
{
	const char	*labelled[] = { "ps", "-a", "--filter",
			    "label=sandcastle.box=sandcastle", "--filter",
			    "label=sandcastle.role=core", "--format",
			    "{{.Names}}", NULL };
	const char	*stored[] = { "ps", "-a", "--external", "--format",
			    "{{.Names}} {{.Status}}", NULL };
	int		 n = 0;

	if (podman_sweep(labelled, 0, &n, why, whysz) == -1 ||
	    podman_sweep(stored, 1, &n, why, whysz) == -1)
		return -1;
	if (n > 0)
		log_info("removed %d box%s a crash left", n, n == 1 ? "" : "es");
	return 0;
}
