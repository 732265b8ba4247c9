/*
 * sandcastlectl install --images: this build's box images, made offline
 * FROM scratch; other builds' go once the target stops or restarts.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "config.h"
#include "../sandcastled/podman.h"
#include "ctlcmd.h"
#include "install.h"
#include "names.h"
#include "spawn.h"
#include "units.h"

extern char **environ;

static void	units_not_restarted(void);

/* The libraries' layer is the same for every build: podman caches it. */
static const char containerfile[] =
    "FROM scratch\n"
    "COPY lib/ /\n"
    "COPY root/ /\n"
    "USER 65534:65534\n"
    "CMD [\"/sandcastle-box\"]\n";

/* Runs argv (from PATH) with the operator's environment; 0 when it exits 0. */
static int
install_run(char *const argv[])
{
	pid_t	 pid;
	int	 status, e;

	if ((e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ)) != 0) {
		warnc(e, "%s", argv[0]);
		return -1;
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* mkdir -p of the folders of path (not path itself), mode 0755. */
static int
install_mkdirs(const char *path)
{
	char	 dir[PATH_MAX], *p;

	if (strlcpy(dir, path, sizeof(dir)) >= sizeof(dir))
		return -1;
	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
			warn("mkdir %s", dir);
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* In this process: a cp and a mkdir per library took a minute an image. */
static int
install_copy_as(const char *root, const char *path, const char *inside)
{
	char		 dst[PATH_MAX], buf[65536];
	struct stat	 st;
	ssize_t		 n;
	int		 in, out = -1, rc = -1;

	if (snprintf(dst, sizeof(dst), "%s%s", root, inside) >=
	    (int)sizeof(dst) || install_mkdirs(dst) == -1)
		goto fail;
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		goto fail;
	if (fstat(in, &st) == -1 || (out = open(dst, O_WRONLY | O_CREAT |
	    O_TRUNC | O_CLOEXEC, st.st_mode & 07777)) == -1)
		goto done;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto done;
	if (n == 0 && fchmod(out, st.st_mode & 07777) == 0)
		rc = 0;
done:
	if (out != -1 && close(out) == -1)
		rc = -1;
	(void)close(in);
fail:
	if (rc == -1)
		warn("%s: cannot copy it into the image", path);
	return rc;
}

static int
install_copy(const char *root, const char *path)
{
	return install_copy_as(root, path, path);
}

/* Every library ldd names for bin, and the loader; none for a static one. */
static int
install_closure(const char *root, const char *bin)
{
	char	 cmd[PATH_MAX + 32], line[PATH_MAX + 64], *p, *end;
	FILE	*f;
	int	 rc = 0;

	(void)snprintf(cmd, sizeof(cmd), "ldd '%s' 2>/dev/null", bin);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		if ((p = strstr(line, "=> /")) != NULL)
			p += 3;
		else if ((p = strchr(line, '/')) == NULL)
			continue;
		if ((end = strpbrk(p, " \t\n")) != NULL)
			*end = '\0';
		rc = install_copy(root, p);
	}
	(void)pclose(f);
	return rc;
}

static int
install_write(const char *root, const char *name, const char *text)
{
	char	 path[PATH_MAX];
	FILE	*f;

	if (snprintf(path, sizeof(path), "%s/%s", root, name) >=
	    (int)sizeof(path))
		return -1;
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF) {
		warn("%s", path);
		return -1;
	}
	return 0;
}

static int
install_image_copy(void *root, const char *path, const char *inside)
{
	return install_copy_as(root, path, inside);
}

/* inside is absolute in the image. */
static int
install_image_write(void *root, const char *inside, const char *text)
{
	return install_write(root, inside + 1, text);
}

/* lib/: the libraries sandcastle-box loads and the loader; root/: the rest. */
static int
install_context(const char *ctx, enum cap_id cap, const char *bindir,
    const char *id, const struct config *conf)
{
	static const char *const dirs[] = { "etc", "tmp", "sandcastle" };
	struct cap_image img = { install_image_copy, install_image_write,
			    NULL };
	char	 root[PATH_MAX], lib[PATH_MAX], bin[PATH_MAX], dst[PATH_MAX];
	char	 libexec[PATH_MAX], build[BUILD_ID_LEN + 2];
	size_t	 i;

	if (build_libexecdir(bindir, libexec, sizeof(libexec)) == -1 ||
	    snprintf(root, sizeof(root), "%s/root", ctx) >= (int)sizeof(root) ||
	    snprintf(lib, sizeof(lib), "%s/lib", ctx) >= (int)sizeof(lib) ||
	    snprintf(bin, sizeof(bin), "%s/%s", libexec, cap_table[cap]->box) >=
	    (int)sizeof(bin))
		return -1;
	if (mkdir(lib, 0755) == -1) {
		warn("mkdir %s", lib);
		return -1;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (snprintf(dst, sizeof(dst), "%s/%s/", root, dirs[i]) >=
		    (int)sizeof(dst) || install_mkdirs(dst) == -1)
			return -1;
	}
	(void)snprintf(build, sizeof(build), "%s\n", id);
	if (install_copy_as(root, bin, "/sandcastle-box") == -1 ||
	    install_closure(lib, bin) == -1 ||
	    install_write(root, "sandcastle/build", build) == -1 ||
	    install_write(root, "etc/passwd",
	    "nobody:x:65534:65534:nobody:/nonexistent:/sandcastle-box\n") == -1 ||
	    install_write(root, "etc/group", "nogroup:x:65534:\n") == -1 ||
	    install_write(ctx, "Containerfile", containerfile) == -1)
		return -1;
	img.arg = root;
	if (cap_table[cap]->image != NULL && cap_table[cap]->image(conf,
	    &img) == -1)
		return -1;
	return 0;
}

static int
install_build(enum cap_id cap, const char *bindir, const char *id,
    const struct config *conf)
{
	char	 ctx[] = "/tmp/sandcastle-image.XXXXXX", file[64];
	char	 tag[PODMAN_IMAGE_LEN + 1];
	char	*build[] = { "podman", "build", "--pull=never", "--network=none",
		    "-q", "-t", tag, "-f", file, ctx, NULL };
	char	*rm[] = { "rm", "-rf", ctx, NULL };
	int	 rc;

	podman_image_name(cap, id, tag, sizeof(tag));
	if (mkdtemp(ctx) == NULL) {
		warn("mkdtemp %s", ctx);
		return -1;
	}
	(void)snprintf(file, sizeof(file), "%s/Containerfile", ctx);
	printf("install: building %s\n", tag);
	fflush(stdout);
	rc = install_context(ctx, cap, bindir, id, conf);
	if (rc == 0 && (rc = install_run(build)) == -1)
		warnx("podman build of %s failed", tag);
	(void)install_run(rm);
	if (rc == 0)
		printf("install: built %s\n", tag);
	fflush(stdout);
	return rc;
}

/* 1 when a box of sandcastle's was made from image, 0 when none, -1. */
static int
image_has_box(const char *image)
{
	char	 filter[300], out[128];
	char	*ps[] = { "podman", "ps", "-a", "-q", "--filter", filter,
		    "--filter", "label=sandcastle.box=sandcastle", NULL };

	(void)snprintf(filter, sizeof(filter), "ancestor=%s", image);
	if (spawn_capture(ps, 0, out, sizeof(out)) != 0)
		return -1;
	return out[0] != '\0';
}

/* A podman run killed mid-start leaves an unlabelled box holding its image. */
static void
storage_remove(const char *image, const char *who)
{
	char	 line[512], *rm[] = { "podman", "rm", "-f", line, NULL };
	char	*status, *img;
	FILE	*f;

	if ((f = popen("podman ps -a --external --format "
	    "'{{.Names}} {{.Status}} {{.Image}}' 2>/dev/null", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((status = strchr(line, ' ')) == NULL)
			continue;
		*status++ = '\0';
		if ((img = strchr(status, ' ')) == NULL)
			continue;
		*img++ = '\0';
		if (strcmp(status, "Storage") != 0 || strcmp(img, image) != 0 ||
		    strlen(line) != 31 || (strncmp(line, "sandcastle-box-", 15) &&
		    strncmp(line, "sandcastle-chk-", 15)) ||
		    line[15 + strspn(line + 15, "0123456789abcdef")] != '\0')
			continue;
		printf("%s: removing %s, a box of %s podman left in its "
		    "storage alone\n", who, line, image);
		fflush(stdout);
		(void)install_run(rm);
	}
	(void)pclose(f);
}

/* With wait, a box of it being removed is waited for up to wait seconds. */
static int
image_remove(const char *image, const char *who, int wait)
{
	struct timespec	 second = { 1, 0 };
	char		*rmi[] = { "podman", "rmi", (char *)image, NULL };
	int		 waited = 0;

	printf("%s: removing %s\n", who, image);
	fflush(stdout);
	if (install_run(rmi) == 0)
		return 0;
	storage_remove(image, who);
	if (install_run(rmi) == 0)
		return 0;
	while (waited < wait && image_has_box(image) == 1) {
		if (waited++ == 0) {
			printf("%s: waiting up to %d s for the box of %s to "
			    "end\n", who, wait, image);
			fflush(stdout);
		}
		(void)nanosleep(&second, NULL);
	}
	if (waited > 0 && install_run(rmi) == 0)
		return 0;
	warnx("%s is in use: it stays; stop the box that uses it and run %s "
	    "again", image, who);
	return -1;
}

/* id NULL: every build's, for uninstall. */
static int
install_prune(enum cap_id cap, const char *id, const char *who, int wait)
{
	char	 cmd[256], line[256], image[PODMAN_IMAGE_LEN + 1];
	char	 want[10 + sizeof(image)], repo[10 + sizeof(image)];
	FILE	*f;
	int	 rc = 0;

	(void)snprintf(cmd, sizeof(cmd), "podman images --format "
	    "'{{.Repository}}:{{.Tag}}' --filter reference=sandcastle-%s "
	    "2>/dev/null", cap_name(cap));
	podman_image_name(cap, id != NULL ? id : "", image, sizeof(image));
	(void)snprintf(want, sizeof(want), "localhost/%s", image);
	/* podman's reference filter matches more than the name: check it. */
	podman_image_name(cap, "", image, sizeof(image));
	(void)snprintf(repo, sizeof(repo), "localhost/%s", image);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((id != NULL && strcmp(line, want) == 0) ||
		    strncmp(line, repo, strlen(repo)) != 0)
			continue;
		if (image_remove(line, who, wait) == -1)
			rc = -1;
	}
	(void)pclose(f);
	return rc;
}

int
install_images(const struct config *conf, const char *bindir, const char *id,
    char *tag, size_t tagsz)
{
	char	libexec[PATH_MAX];
	int	c;

	(void)snprintf(tag, tagsz, "the libexec folder of %s", bindir);
	if (build_libexecdir(bindir, libexec, sizeof(libexec)) == -1) {
		warn("%s: its libexec folder", bindir);
		return -1;
	}
	printf("install: build %s, binaries in %s and %s\n", id, bindir,
	    libexec);
	for (c = 0; c < CAP_COUNT; c++)
		if (install_build(c, bindir, id, conf) == -1) {
			podman_image_name(c, id, tag, tagsz);
			return -1;
		}
	printf("install: images ready\n");
	return 0;
}

int
images_remove_old(const char *id, int wait)
{
	int	rc = 0, c;

	for (c = 0; c < CAP_COUNT; c++)
		if (install_prune(c, id, "install", wait) == -1)
			rc = -1;
	return rc;
}

int
images_remove_all(int wait)
{
	int	rc = 0, c;

	for (c = 0; c < CAP_COUNT; c++)
		if (install_prune(c, NULL, "uninstall", wait) == -1)
			rc = -1;
	return rc;
}

int
ctl_install_images(const struct parse_result *res, const struct ctl_env *env)
{
	struct config	*conf;
	char		 bindir[PATH_MAX], id[BUILD_ID_LEN + 1], why[256];
	char		 tag[PATH_MAX];
	int		 rc;

	if ((conf = ctl_config_load(env->confdir)) == NULL)
		return 1;
	if (self_bindir(bindir, sizeof(bindir)) == -1)
		errx(1, "cannot find the folder of this binary");
	if (build_id(bindir, id, why, sizeof(why)) == -1)
		errx(1, "the build id: %s", why);
	rc = install_images(conf, bindir, id, tag, sizeof(tag));
	config_free(conf);
	/* The running pieces, if any, keep theirs: one in use stays. */
	if (rc == 0)
		rc = images_remove_old(id, 0);
	if (rc == 0)
		units_not_restarted();
	return rc == 0 ? 0 : 1;
}

/* A core under the units stays as it is: only install restarts them. */
static void
units_not_restarted(void)
{
	char		 dir[PATH_MAX], path[PATH_MAX + 32];
	struct stat	 st;

	if (units_dir(dir, sizeof(dir)) == -1)
		return;
	(void)snprintf(path, sizeof(path), "%s/%s", dir, UNIT_TARGET);
	if (stat(path, &st) == 0)
		printf("install: the units were not restarted: run "
		    "sandcastlectl install, which builds the images, restarts "
		    "%s and runs check\n", UNIT_TARGET);
}
