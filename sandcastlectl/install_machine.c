/*
 * install's first step: whether this machine serves, asked before
 * anything changes, a line for each lack.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sandcastled/podman.h"
#include "install.h"
#include "spawn.h"

#define PODMAN_LEAST	"4.3.1"		/* Debian 12's: what the suite runs */
#define SYSTEMD_LEAST	252
#define SUBIDS_LEAST	65536UL

struct machine {
	int	nlack;
	char	found[512];		/* for the line of what serves */
};

static void	lack(struct machine *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	version_cmp(const char *, const char *);
static void	machine_podman(struct machine *);
static void	machine_pasta(struct machine *);
static void	machine_subids(struct machine *, const char *,
		    const struct passwd *);
static void	machine_userns(struct machine *);
static void	machine_systemd(struct machine *);
static void	machine_cgroup(struct machine *);
static void	machine_resolver(struct machine *);
static void	machine_route(struct machine *);
static void	machine_tun(struct machine *);
static int	read_long(const char *, long *);

static void
lack(struct machine *m, const char *fmt, ...)
{
	va_list	ap;

	if (m->nlack++ == 0)
		fprintf(stderr, "this machine does not serve, nothing was "
		    "changed:\n");
	fputs("  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Dotted versions, number by number: "4.10" is above "4.3.1". */
static int
version_cmp(const char *a, const char *b)
{
	unsigned long	x, y;
	char		*ea, *eb;
	int		i;

	for (i = 0; i < 3; i++) {
		x = strtoul(a, &ea, 10);
		y = strtoul(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
	}
	return 0;
}

static void
machine_podman(struct machine *m)
{
	char	*ver[] = { "podman", "version", "--format",
		    "{{.Client.Version}}", NULL };
	char	*rt[] = { "podman", "info", "--format",
		    "{{.Host.OCIRuntime.Name}}", NULL };
	char	*un[] = { "podman", "unshare", "true", NULL };
	char	 v[128], out[256];
	int	 st;

	if ((st = spawn_capture(ver, 0, v, sizeof(v))) == -1) {
		lack(m, "podman: not found on PATH; podman %s or later is "
		    "needed, rootless", PODMAN_LEAST);
		return;
	}
	if (st != 0 || !(v[0] >= '0' && v[0] <= '9')) {
		lack(m, "podman: podman version gives no version (%s); podman "
		    "%s or later is needed", v[0] ? v : "no answer",
		    PODMAN_LEAST);
		return;
	}
	if (version_cmp(v, PODMAN_LEAST) < 0)
		lack(m, "podman: version %s found; %s or later is needed", v,
		    PODMAN_LEAST);
	if (spawn_capture(un, 1, out, sizeof(out)) != 0) {
		lack(m, "podman: rootless podman cannot make its user "
		    "namespace (podman unshare true: %s); it needs the "
		    "subordinate ranges below and newuidmap (package uidmap)",
		    out[0] ? out : "failed");
		return;
	}
	if (spawn_capture(rt, 0, out, sizeof(out)) != 0 || (strcmp(out,
	    "runc") != 0 && strcmp(out, "crun") != 0))
		lack(m, "podman: OCI runtime %s found; runc or crun is needed",
		    out[0] ? out : "none");
	else
		(void)snprintf(m->found, sizeof(m->found), "podman %s with %s",
		    v, out);
}

static void
machine_pasta(struct machine *m)
{
	char	*argv[] = { "pasta", "--version", NULL };
	char	 out[128];

	if (spawn_capture(argv, 1, out, sizeof(out)) == -1)
		lack(m, "pasta: not found on PATH; the gate needs it (package "
		    "passt)");
}

/* Every range of the account in file, by name or by uid, added up. */
static void
machine_subids(struct machine *m, const char *file, const struct passwd *pw)
{
	char		 line[512], uid[32], *name, *count, *s;
	unsigned long	 total = 0;
	FILE		*f;

	if ((f = fopen(file, "re")) == NULL) {
		lack(m, "%s: cannot be read (%s); a range of at least %lu ids "
		    "for %s is needed", file, strerror(errno), SUBIDS_LEAST,
		    pw->pw_name);
		return;
	}
	(void)snprintf(uid, sizeof(uid), "%u", (unsigned)pw->pw_uid);
	while (fgets(line, sizeof(line), f) != NULL) {
		s = line;
		name = strsep(&s, ":");
		if (s == NULL || strsep(&s, ":") == NULL || s == NULL)
			continue;
		count = strsep(&s, ":\n");
		if (strcmp(name, pw->pw_name) == 0 || strcmp(name, uid) == 0)
			total += strtoul(count, NULL, 10);
	}
	fclose(f);
	if (total == 0)
		lack(m, "%s: no range for %s (uid %s); at least %lu ids are "
		    "needed: as root, usermod --add-sub%cids 100000-165535 %s, "
		    "then podman system migrate", file, pw->pw_name, uid,
		    SUBIDS_LEAST, strstr(file, "gid") ? 'g' : 'u', pw->pw_name);
	else if (total < SUBIDS_LEAST)
		lack(m, "%s: %lu ids for %s; at least %lu are needed", file,
		    total, pw->pw_name, SUBIDS_LEAST);
}

static int
read_long(const char *path, long *v)
{
	char	 buf[64], *end;
	FILE	*f;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*v = strtol(buf, &end, 10);
	return end == buf ? -1 : 0;
}

static void
machine_userns(struct machine *m)
{
	static const char max[] = "/proc/sys/user/max_user_namespaces";
	static const char clone[] = "/proc/sys/kernel/unprivileged_userns_clone";
	long	v;

	if (read_long(max, &v) == -1)
		lack(m, "%s: cannot be read; unprivileged user namespaces are "
		    "needed", max);
	else if (v <= 0)
		lack(m, "%s: %ld; more than 0 is needed for unprivileged user "
		    "namespaces (sysctl user.max_user_namespaces=15000)", max,
		    v);
	if (access(clone, F_OK) == 0 && (read_long(clone, &v) == -1 || v != 1))
		lack(m, "%s: not 1; 1 is needed (sysctl "
		    "kernel.unprivileged_userns_clone=1)", clone);
}

static void
machine_systemd(struct machine *m)
{
	char	*show[] = { "systemctl", "--user", "show", "--property=Version",
		    "--value", NULL };
	char	*linger[] = { "loginctl", "--version", NULL };
	char	 out[256];
	long	 v;
	int	 st;
	size_t	 len;

	if ((st = spawn_capture(show, 1, out, sizeof(out))) == -1)
		lack(m, "systemctl: not found on PATH; systemd %d or later "
		    "with a user manager for this account is needed",
		    SYSTEMD_LEAST);
	else if (st != 0 || !(out[0] >= '0' && out[0] <= '9'))
		lack(m, "systemd: no user manager answers (systemctl --user "
		    "show: %s); a user manager of systemd %d or later is needed: "
		    "log in, or as root loginctl enable-linger %s", out[0] ? out :
		    "no answer", SYSTEMD_LEAST, getpwuid(getuid()) ?
		    getpwuid(getuid())->pw_name : "<you>");
	else if ((v = strtol(out, NULL, 10)) < SYSTEMD_LEAST)
		lack(m, "systemd: user manager version %ld found; %d or later "
		    "is needed", v, SYSTEMD_LEAST);
	else if ((len = strlen(m->found)) < sizeof(m->found))
		(void)snprintf(m->found + len, sizeof(m->found) - len,
		    ", systemd %ld", v);
	if (spawn_capture(linger, 1, out, sizeof(out)) == -1)
		lack(m, "loginctl: not found on PATH; install turns lingering "
		    "on with it (systemd's loginctl)");
}

/* pasta forwards to the first IPv4 resolver off loopback (gated(8)). */
static void
machine_resolver(struct machine *m)
{
	static const char conf[] = "/etc/resolv.conf";
	struct in_addr	 in;
	char		 line[512], ns[256], seen[256] = "";
	FILE		*f;

	if ((f = fopen(conf, "re")) == NULL) {
		lack(m, "%s: cannot be read (%s); the gate needs an IPv4 "
		    "resolver off loopback named there", conf, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, " nameserver %255s", ns) != 1)
			continue;
		if (inet_pton(AF_INET, ns, &in) == 1 &&
		    (ntohl(in.s_addr) >> 24) != 127 && in.s_addr != 0) {
			fclose(f);
			return;
		}
		if (seen[0] == '\0')
			(void)strlcpy(seen, ns, sizeof(seen));
	}
	fclose(f);
	if (seen[0] == '\0')
		lack(m, "%s: names no resolver; the gate needs an IPv4 resolver "
		    "off loopback (your router's, say) named there", conf);
	else
		lack(m, "%s: names only resolvers on loopback or IPv6 (%s); the "
		    "gate needs an IPv4 resolver off loopback: with "
		    "systemd-resolved, link /etc/resolv.conf to "
		    "/run/systemd/resolve/resolv.conf, which names the real "
		    "ones", conf, seen);
}

/* The gate goes out by the machine's IPv4 default route, through pasta. */
static void
machine_route(struct machine *m)
{
	static const char routes[] = "/proc/net/route";
	char		 line[512], ifname[64];
	unsigned long	 dst, gw, flags, mask;
	FILE		*f;

	if ((f = fopen(routes, "re")) == NULL) {
		lack(m, "%s: cannot be read (%s); an IPv4 default route is "
		    "needed", routes, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%63s %lx %lx %lx %*s %*s %*s %lx", ifname,
		    &dst, &gw, &flags, &mask) == 5 && dst == 0 && mask == 0 &&
		    (flags & 0x1) != 0) {
			fclose(f);
			return;
		}
	}
	fclose(f);
	lack(m, "IPv4: no default route (ip -4 route show default shows "
	    "none); the gate reaches its destinations by the machine's IPv4 "
	    "default route");
}

static void
machine_tun(struct machine *m)
{
	static const char tun[] = "/dev/net/tun";
	struct stat	 st;
	int		 fd;

	if ((fd = open(tun, O_RDWR | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			lack(m, "%s: missing; pasta needs it for the gate's "
			    "link: as root, modprobe tun", tun);
		else
			lack(m, "%s: cannot be opened by this account (%s); "
			    "pasta needs it for the gate's link: as root, "
			    "chmod 0666 %s, as Debian has it", tun,
			    strerror(errno), tun);
		return;
	}
	if (fstat(fd, &st) == -1 || !S_ISCHR(st.st_mode))
		lack(m, "%s: not a character device; pasta needs the tun "
		    "device there: as root, modprobe tun", tun);
	close(fd);
}

/* Undelegated, rootless podman ignores --cpus, --memory, --pids-limit. */
static void
machine_cgroup(struct machine *m)
{
	static const char *const want[] = { "cpu", "memory", "pids" };
	char	 path[PATH_MAX], ctl[512], miss[32] = "";
	FILE	*f;
	size_t	 i, len;
	uid_t	 uid = getuid();

	(void)snprintf(path, sizeof(path), "/sys/fs/cgroup/user.slice/"
	    "user-%u.slice/user@%u.service/cgroup.controllers", (unsigned)uid,
	    (unsigned)uid);
	if ((f = fopen(path, "re")) == NULL)
		(void)strlcpy(ctl, errno == ENOENT ? "no such file" :
		    strerror(errno), sizeof(ctl));
	else {
		if (fgets(ctl, sizeof(ctl), f) == NULL)
			ctl[0] = '\0';
		ctl[strcspn(ctl, "\n")] = '\0';
		fclose(f);
	}
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (f == NULL || !cgroup_word(ctl, want[i]))
			(void)snprintf(miss + strlen(miss), sizeof(miss) -
			    strlen(miss), "%s%s", miss[0] ? ", " : "", want[i]);
	if (miss[0] == '\0') {
		if ((len = strlen(m->found)) < sizeof(m->found))
			(void)snprintf(m->found + len, sizeof(m->found) - len,
			    ", cgroup v2 with cpu, memory and pids delegated");
		return;
	}
	lack(m, "cgroup: not delegated to your user manager: %s (%s: %s); "
	    "rootless podman ignores --memory, --cpus and --pids-limit "
	    "without cpu, memory and pids: as root, put Delegate=cpu cpuset "
	    "io memory pids under [Service] in /etc/systemd/system/"
	    "user@.service.d/delegate.conf, run systemctl daemon-reload, then "
	    "restart user@%u.service (sandcastle(7), Delegate the cgroup "
	    "controllers)", miss, path, ctl[0] ? ctl : "empty", (unsigned)uid);
}

int
install_machine(void)
{
	struct machine	 m;
	struct passwd	*pw;

	memset(&m, 0, sizeof(m));
	if (getuid() == 0 || geteuid() == 0)
		lack(&m, "root: this is uid 0; install runs as the operator's "
		    "own account, never as root");
	else
		machine_podman(&m);
	machine_pasta(&m);
	machine_tun(&m);
	machine_route(&m);
	machine_resolver(&m);
	if ((pw = getpwuid(getuid())) == NULL)
		lack(&m, "uid %u: no password entry; an account of its own is "
		    "needed", (unsigned)getuid());
	else {
		machine_subids(&m, "/etc/subuid", pw);
		machine_subids(&m, "/etc/subgid", pw);
	}
	machine_userns(&m);
	if (getuid() != 0) {
		machine_systemd(&m);
		machine_cgroup(&m);
	}
	if (m.nlack > 0)
		return -1;
	printf("install: the machine serves: %s, pasta, /dev/net/tun, an "
	    "IPv4 default route and resolver, subordinate ids, user "
	    "namespaces\n", m.found);
	return 0;
}
