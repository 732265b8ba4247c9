/*
 * sandcastlectl install: nothing changes before the images; after them a
 * failed step is named, not undone.  The older images go last.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "config.h"
#include "ctlcmd.h"
#include "install.h"
#include "keepcli.h"
#include "names.h"
#include "noteread.h"
#include "paths.h"
#include "spawn.h"
#include "units.h"

#define KEEP_WAIT_MS	10000
/* A box of the stopped core's, still being removed, is waited for. */
#define OLD_BOX_WAIT	60

struct install {
	const struct ctl_env	*env;
	char			 bindir[PATH_MAX];
	char			 dst[2][PATH_MAX];	/* ~/.local/bin, libexec */
	int			 here;			/* bindir is dst[0] */
	int			 packaged;		/* the Debian package's */
	char			 id[BUILD_ID_LEN + 1];
	char			*units[UNIT_COUNT];
};

static int	stopped(const char *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	dir_make(const char *, char *, size_t);
static int	install_prepare(struct install *);
static int	install_dirs(struct install *, char *, size_t);
static int	install_owned(const char *, char *, size_t);
static int	install_foreign(const struct install *, char *, size_t);
static int	install_binaries(const struct install *);
static void	install_old(const struct install *);
static int	install_units(const struct install *);
static int	install_systemd(void);
static int	install_linger(void);
static int	install_keep(void);

static int
stopped(const char *step, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "install: stopped at %s: ", step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; nothing was undone: fix it and run sandcastlectl "
	    "install again\n");
	return -1;
}

/* mkdir -p, mode 0700 for what it makes. */
static int
dir_make(const char *path, char *why, size_t whysz)
{
	char	 buf[PATH_MAX], *p, c;

	if (strlcpy(buf, path, sizeof(buf)) >= sizeof(buf)) {
		(void)snprintf(why, whysz, "%s: path too long", path);
		return -1;
	}
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) == -1 && errno != EEXIST) {
			(void)snprintf(why, whysz, "%s: %s", buf,
			    strerror(errno));
			return -1;
		}
		if ((*p = c) == '\0')
			return 0;
	}
}

/* The configuration and the units' text: refused here, nothing changed. */
static int
install_prepare(struct install *in)
{
	struct config	*conf;
	char		 why[PATH_MAX + 256];
	size_t		 i;

	if ((conf = ctl_config_load(in->env->confdir)) == NULL) {
		fprintf(stderr, "install: the configuration is not valid, "
		    "nothing was changed\n");
		return -1;
	}
	config_free(conf);
	if (self_bindir(in->bindir, sizeof(in->bindir)) == -1) {
		fprintf(stderr, "install: the folder of this binary: %s, "
		    "nothing was changed\n", strerror(errno));
		return -1;
	}
	if (build_id(in->bindir, in->id, why, sizeof(why)) == -1) {
		fprintf(stderr, "install: the build id: %s, nothing was "
		    "changed\n", why);
		return -1;
	}
	if (install_dirs(in, why, sizeof(why)) == -1 ||
	    install_foreign(in, why, sizeof(why)) == -1) {
		fprintf(stderr, "install: %s; nothing was changed\n", why);
		return -1;
	}
	for (i = 0; i < UNIT_COUNT; i++)
		if ((in->units[i] = unit_render(&unit_texts[i], in->id,
		    in->env, why, sizeof(why))) == NULL) {
			fprintf(stderr, "install: the units: %s, nothing was "
			    "changed\n", why);
			return -1;
		}
	printf("install: the configuration is valid\n");
	return 0;
}

static int
install_dirs(struct install *in, char *why, size_t whysz)
{
	char	a[PATH_MAX], b[PATH_MAX];

	in->packaged = units_packaged();
	if (units_bindir(in->dst[0], sizeof(in->dst[0])) == -1) {
		(void)snprintf(why, whysz, "~/.local/bin: %s", path_why());
		return -1;
	}
	if (build_libexecdir(in->dst[0], in->dst[1], sizeof(in->dst[1])) ==
	    -1) {
		(void)snprintf(why, whysz, "%s's %s: %s", in->dst[0],
		    BUILD_LIBEXEC, strerror(errno));
		return -1;
	}
	in->here = realpath(in->bindir, a) != NULL &&
	    realpath(in->dst[0], b) != NULL && strcmp(a, b) == 0;
	return 0;
}

/* 0: no file; 1: a program of sandcastle, its note; -1: another's, why. */
static int
install_owned(const char *path, char *why, size_t whysz)
{
	struct stat	 st;
	char		 prog[NOTE_DESC_LEN + 1], *data;
	const char	*not = NULL;
	size_t		 len;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		not = "cannot be read to see whose it is";
	} else if (S_ISLNK(st.st_mode))
		not = "is a symbolic link";
	else if (!S_ISREG(st.st_mode))
		not = "is not a regular file";
	else if ((data = file_read(path, 256u << 20, &len)) == NULL)
		not = "cannot be read to see whose it is";
	else {
		if (!note_find((const uint8_t *)data, len, prog))
			not = "carries no note of sandcastle (readelf -n "
			    "shows a program's notes)";
		free(data);
	}
	if (not == NULL)
		return 1;
	(void)snprintf(why, whysz, "%s %s, so it is not a file install put "
	    "there, and install replaces no other: move it away and run "
	    "sandcastlectl install again", path, not);
	return -1;
}

/* Every destination checked before any is replaced. */
static int
install_foreign(const struct install *in, char *why, size_t whysz)
{
	char		 dst[PATH_MAX];
	const char	*bin;
	size_t		 i;

	if (in->here)
		return 0;
	for (i = 0; (bin = build_binary(i)) != NULL; i++) {
		if ((size_t)snprintf(dst, sizeof(dst), "%s/%s",
		    in->dst[build_libexec(i)], bin) >= sizeof(dst)) {
			(void)snprintf(why, whysz, "%s: path too long",
			    in->dst[build_libexec(i)]);
			return -1;
		}
		if (install_owned(dst, why, whysz) == -1)
			return -1;
	}
	return 0;
}

static int
install_binaries(const struct install *in)
{
	char		 src[PATH_MAX], why[PATH_MAX + 256];
	const char	*bin;
	size_t		 i;

	if (in->packaged) {
		printf("install: the binaries are the package's, in %s and %s: "
		    "the units run them there\n", in->dst[0], in->dst[1]);
		return 0;
	}
	if (in->here) {
		printf("install: the binaries already run from %s\n",
		    in->dst[0]);
		return 0;
	}
	for (i = 0; i < 2; i++)
		if (dir_make(in->dst[i], why, sizeof(why)) == -1)
			return stopped("the binaries", "%s", why);
	/* Again: the images took minutes, and a package may have come. */
	if (install_foreign(in, why, sizeof(why)) == -1)
		return stopped("the binaries", "%s", why);
	for (i = 0; (bin = build_binary(i)) != NULL; i++) {
		if (build_path(in->bindir, i, src, sizeof(src)) == -1)
			return stopped("the binaries", "%s: the path of %s: %s",
			    in->bindir, bin, strerror(errno));
		if (file_copy_atomic(src, in->dst[build_libexec(i)], bin,
		    0755, why, sizeof(why)) == -1)
			return stopped("the binaries", "%s", why);
	}
	printf("install: the binaries are in %s and %s, each put there by a "
	    "rename\n", in->dst[0], in->dst[1]);
	return 0;
}

/* Binaries an earlier install put in ~/.local would hide the package's. */
static void
install_old(const struct install *in)
{
	char		 dir[2][PATH_MAX], path[PATH_MAX], why[PATH_MAX + 256];
	const char	*bin;
	size_t		 i, k;

	if (units_localbin(dir[0], sizeof(dir[0])) == -1 ||
	    build_libexecdir(dir[0], dir[1], sizeof(dir[1])) == -1)
		return;
	for (i = 0; (bin = build_binary(i)) != NULL; i++)
		for (k = 0; k < 2; k++) {
			if (!in->packaged && (k == 1 || !build_libexec(i)))
				continue;
			if ((size_t)snprintf(path, sizeof(path), "%s/%s",
			    dir[k], bin) >= sizeof(path) ||
			    install_owned(path, why, sizeof(why)) != 1)
				continue;
			if (unlink(path) == -1)
				printf("install: %s, of an earlier install, "
				    "stays: %s\n", path, strerror(errno));
			else
				printf("install: removed %s, of an earlier "
				    "install\n", path);
		}
	if (in->packaged)
		(void)rmdir(dir[1]);
}

/* The four units, and nothing else: a drop-in (<unit>.d/) stays as it is. */
static int
install_units(const struct install *in)
{
	char	 dir[PATH_MAX], state[PATH_MAX], why[PATH_MAX + 128];
	size_t	 i;

	if (units_dir(dir, sizeof(dir)) == -1)
		return stopped("the units", "the folder of the units: %s",
		    path_why());
	if (dir_make(dir, why, sizeof(why)) == -1)
		return stopped("the units", "%s", why);
	/* The gate's unit leaves it writable: it must be there first. */
	if (path_state_dir(state, sizeof(state)) == -1)
		return stopped("the units", "~/.local/state/sandcastle: %s",
		    path_why());
	if (dir_make(state, why, sizeof(why)) == -1)
		return stopped("the units", "%s", why);
	for (i = 0; i < UNIT_COUNT; i++)
		if (file_write_atomic(dir, unit_texts[i].name, in->units[i],
		    strlen(in->units[i]), 0644, why, sizeof(why)) == -1)
			return stopped("the units", "%s", why);
	printf("install: the units are written in %s\n", dir);
	return 0;
}

static int
install_systemd(void)
{
	char	*reload[] = { "systemctl", "--user", "daemon-reload", NULL };
	char	*enable[] = { "systemctl", "--user", "enable", UNIT_TARGET,
		    NULL };
	int	 st;

	if ((st = spawn_wait(reload)) != 0)
		return stopped("systemd", "systemctl --user daemon-reload "
		    "exited %d; systemd-analyze --user verify %s shows what "
		    "it refused", st, UNIT_TARGET);
	printf("install: systemd reloaded the units\n");
	if ((st = spawn_wait(enable)) != 0)
		return stopped("systemd", "systemctl --user enable %s exited "
		    "%d", UNIT_TARGET, st);
	printf("install: %s is enabled\n", UNIT_TARGET);
	return 0;
}

static int
install_linger(void)
{
	struct passwd	*pw;
	char		 out[64];
	char		*show[] = { "loginctl", "show-user", NULL,
			    "--property=Linger", "--value", NULL };
	char		*on[] = { "loginctl", "enable-linger", NULL, NULL };
	int		 st;

	if ((pw = getpwuid(getuid())) == NULL)
		return stopped("lingering", "uid %u has no password entry",
		    (unsigned)getuid());
	show[2] = on[2] = pw->pw_name;
	if (spawn_capture(show, 0, out, sizeof(out)) == 0 &&
	    strcmp(out, "yes") == 0) {
		printf("install: lingering is already on\n");
		return 0;
	}
	if ((st = spawn_wait(on)) != 0)
		return stopped("lingering", "loginctl enable-linger %s "
		    "exited %d", pw->pw_name, st);
	printf("install: lingering is on\n");
	return 0;
}

static int
install_keep(void)
{
	struct timespec	 ts = { 0, 200 * 1000 * 1000 };
	struct keepcli	*k;
	const char	*why = "no answer";
	char		 path[PATH_MAX];
	char		*restart[] = { "systemctl", "--user", "restart",
			    UNIT_TARGET, NULL };
	int		 st, ms;

	if ((st = spawn_wait(restart)) != 0)
		return stopped("the restart", "systemctl --user restart %s "
		    "exited %d; journalctl --user -u sandcastle-gate -u "
		    "sandcastle-keep -n 50 says why", UNIT_TARGET, st);
	printf("install: %s is restarted\n", UNIT_TARGET);
	if (path_runtime_file(KEEP_SOCK, path, sizeof(path)) == -1)
		return stopped("the keep", "%s", path_why());
	for (ms = 0; ms <= KEEP_WAIT_MS; ms += 200) {
		if ((k = keepcli_open(path, &why)) != NULL) {
			keepcli_close(k);
			printf("install: the keep is ready at %s\n", path);
			return 0;
		}
		(void)nanosleep(&ts, NULL);
	}
	return stopped("the keep", "it does not answer at %s after %d s (%s); "
	    "systemctl --user status sandcastle-keep sandcastle-gate says why",
	    path, KEEP_WAIT_MS / 1000, why);
}

int
ctl_install(const struct parse_result *res, const struct ctl_env *env)
{
	struct install	 in;
	struct config	*conf;
	char		 tag[PATH_MAX];
	size_t		 i;
	int		 rc = -1;

	memset(&in, 0, sizeof(in));
	in.env = env;
	if (install_machine() == -1 || install_prepare(&in) == -1)
		goto done;
	/* Read again: the images are made from what is there now. */
	if ((conf = ctl_config_load(env->confdir)) == NULL)
		goto done;
	rc = install_images(conf, in.bindir, in.id, tag, sizeof(tag));
	config_free(conf);
	if (rc == -1) {
		(void)stopped("the images", "%s could not be built; the "
		    "images built before it stay, and nothing else was "
		    "changed", tag);
		goto done;
	}
	if ((rc = install_binaries(&in)) == -1 ||
	    (rc = install_units(&in)) == -1 ||
	    (rc = install_systemd()) == -1 ||
	    (rc = install_linger()) == -1 ||
	    (rc = install_keep()) == -1)
		goto done;
	install_old(&in);
	if ((rc = images_remove_old(in.id, OLD_BOX_WAIT)) == -1) {
		(void)stopped("the older images", "podman could not remove an "
		    "image of an older build");
		goto done;
	}
	printf("install: the images of older builds are removed\n");
	printf("install: running sandcastlectl check\n");
	fflush(stdout);
	rc = ctl_check(res, env) == 0 ? 0 : -1;
done:
	for (i = 0; i < UNIT_COUNT; i++)
		free(in.units[i]);
	return rc == 0 ? 0 : 1;
}
