/* The Landlock frame, after the kernel's sandboxer.c and Cosmopolitan's. */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "landlock.h"

/* The ABI a build uses at most: a test build forces an older one. */
#ifndef LANDLOCK_ABI_MAX
#define LANDLOCK_ABI_MAX	LANDLOCK_ABI_KNOWN
#endif

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* landlock_ruleset_attr as ABI 6 has it; older kernels take a prefix. */
struct ruleset_attr {
	uint64_t	 fs;
	uint64_t	 net;
	uint64_t	 scoped;
};

/* What each ABI added, in order.  ABI 7 added the audit log alone. */
static const struct {
	int		 abi;
	uint64_t	 fs;
	uint64_t	 net;
	uint64_t	 scoped;
	size_t		 attrsz;
} abi_rights[] = {
	{ 1, (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1, 0, 0, 8 },	/* bits 0-12 */
	{ 2, LANDLOCK_ACCESS_FS_REFER, 0, 0, 8 },
	{ 3, LANDLOCK_ACCESS_FS_TRUNCATE, 0, 0, 8 },
	{ 4, 0, LANDLOCK_ACCESS_NET_BIND_TCP |
	    LANDLOCK_ACCESS_NET_CONNECT_TCP, 0, 16 },
	{ 5, LANDLOCK_ACCESS_FS_IOCTL_DEV, 0, 0, 16 },
	{ 6, 0, 0, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
	    LANDLOCK_SCOPE_SIGNAL, 24 },
	{ 7, 0, 0, 0, 24 },
};

#define FILE_RIGHTS	(LANDLOCK_ACCESS_FS_EXECUTE | \
	LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

#define SCOPES		(LANDLOCK_WANT_UNIX | LANDLOCK_WANT_SIGNAL)

/* sandcastle(7)'s words; gated (pasta's helper), the parent scope no signal. */
const struct landlock_view landlock_views[LANDLOCK_NPROCS] = {
	[LANDLOCK_PARENT] = { "sandcastled's parent", "no file but "
	    "control.sock to remove", LANDLOCK_WANT_UNIX },
	[LANDLOCK_CORE] = { "core", "data_dir, read and write", SCOPES },
	[LANDLOCK_KEEPFE] = { "keep frontend", "no file", SCOPES },
	[LANDLOCK_READER] = { "box reader", "no file", SCOPES },
	[LANDLOCK_KEEPD] = { "keepd", "the secrets folder, read only, and "
	    "keep.sock to remove", LANDLOCK_WANT_NO_TCP | SCOPES },
	[LANDLOCK_FETCH] = { "keepd's request child", "no file",
	    LANDLOCK_WANT_NO_TCP | SCOPES },
	[LANDLOCK_GATED] = { "gated", "no file but gate.sock to remove",
	    LANDLOCK_WANT_UNIX },
	[LANDLOCK_TUNNEL] = { "gated's tunnel child", "no file", SCOPES },
	[LANDLOCK_BOX] = { "sandcastle-box", "no file",
	    LANDLOCK_WANT_NO_TCP | SCOPES },
};

const struct landlock_lack landlock_lacks[] = {
	{ 3, 0, "no truncate(2) rule (ABI 3)", "every seccomp filter but "
	    "the box's refuses truncate(2), and a box sees no file of the "
	    "machine's" },
	{ 4, LANDLOCK_WANT_NO_TCP, "no TCP rule (ABI 4)", "keepd and its "
	    "requests make Unix sockets only, in a network namespace of "
	    "their own, and a box has no network" },
	{ 6, LANDLOCK_WANT_UNIX, "no abstract socket scoping (ABI 6)",
	    "only the keep frontend is in the machine's network namespace "
	    "with Unix sockets, and could reach an abstract socket there" },
	{ 6, LANDLOCK_WANT_SIGNAL, "no signal scoping (ABI 6)", "keepd's "
	    "filter lets it kill(2), for its requests, and it could signal "
	    "the account's other processes" },
};
const size_t landlock_nlacks = NELEM(landlock_lacks);

int
landlock_kernel_abi(const char **why)
{
	int	 abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi >= 1)
		return abi;
	if (errno == ENOSYS)
		*why = "this kernel has no Landlock (it was built without "
		    "CONFIG_SECURITY_LANDLOCK)";
	else if (errno == EOPNOTSUPP)
		*why = "Landlock is off on this kernel (add landlock to its "
		    "lsm= boot parameter)";
	else
		*why = "landlock_create_ruleset is refused here (by a "
		    "seccomp filter?)";
	return 0;
}

int
landlock_abi(const char **why)
{
	int	 abi;

	if (LANDLOCK_ABI_MAX < 1) {
		*why = "this build uses no Landlock";
		return 0;
	}
	if ((abi = landlock_kernel_abi(why)) > LANDLOCK_ABI_MAX)
		abi = LANDLOCK_ABI_MAX;
	return abi;
}

/* Everything the ABI can deny that the view wants denied. */
static size_t
ruleset_attr(int abi, unsigned int wants, struct ruleset_attr *a)
{
	size_t	 i, sz = 0;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < NELEM(abi_rights) && abi_rights[i].abi <= abi; i++) {
		a->fs |= abi_rights[i].fs;
		a->net |= abi_rights[i].net;
		a->scoped |= abi_rights[i].scoped;
		sz = abi_rights[i].attrsz;
	}
	if (!(wants & LANDLOCK_WANT_NO_TCP))
		a->net = 0;
	if (!(wants & LANDLOCK_WANT_UNIX))
		a->scoped &= ~LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	if (!(wants & LANDLOCK_WANT_SIGNAL))
		a->scoped &= ~LANDLOCK_SCOPE_SIGNAL;
	return sz;
}

/* A rule with no right or no path is not added: refused, the safe side. */
static int
rule_add(int rfd, const struct landlock_path *p, uint64_t handled, char *why,
    size_t whysz)
{
	struct landlock_path_beneath_attr pb;
	struct stat	 st;
	int		 fd = p->fd, r = -1;

	if (fd == -1 && (fd = open(p->path, O_PATH | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		(void)snprintf(why, whysz, "%s: %s", p->path, strerror(errno));
		return -1;
	}
	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = p->access & handled;
	if (fstat(fd, &st) == -1) {
		(void)snprintf(why, whysz, "%s: %s", p->path, strerror(errno));
		goto done;
	}
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= FILE_RIGHTS;
	if (pb.allowed_access == 0 || syscall(SYS_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0)
		r = 0;
	else
		(void)snprintf(why, whysz, "landlock_add_rule %s: %s", p->path,
		    strerror(errno));
done:
	if (p->fd == -1)
		(void)close(fd);
	return r;
}

static int
ruleset_make(int abi, enum landlock_proc p, const struct landlock_path *paths,
    size_t npaths, char *why, size_t whysz)
{
	struct ruleset_attr	 a;
	size_t			 i, sz;
	int			 rfd;

	sz = ruleset_attr(abi, landlock_views[p].wants, &a);
	if ((rfd = syscall(SYS_landlock_create_ruleset, &a, sz, 0)) == -1) {
		(void)snprintf(why, whysz, "landlock_create_ruleset (ABI %d): "
		    "%s", abi, strerror(errno));
		return -1;
	}
	for (i = 0; i < npaths; i++)
		if (rule_add(rfd, &paths[i], a.fs, why, whysz) == -1) {
			(void)close(rfd);
			return -1;
		}
	return rfd;
}

int
landlock_apply(enum landlock_proc p, const struct landlock_path *paths,
    size_t npaths, char *why, size_t whysz)
{
	const char	*absent;
	int		 abi, rfd, r;

	if ((abi = landlock_abi(&absent)) == 0) {
		(void)snprintf(why, whysz, "%s", absent);
		return 0;
	}
	if ((rfd = ruleset_make(abi, p, paths, npaths, why, whysz)) == -1)
		return -1;
	/* An unprivileged process restricts itself under no_new_privs only. */
	if ((r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) == -1)
		(void)snprintf(why, whysz, "no_new_privs: %s", strerror(errno));
	else if ((r = syscall(SYS_landlock_restrict_self, rfd, 0)) == -1)
		(void)snprintf(why, whysz, "landlock_restrict_self: %s",
		    strerror(errno));
	(void)close(rfd);
	return r == -1 ? -1 : abi;
}

static void
append(char *buf, size_t bufsz, const char *sep, const char *s)
{
	size_t	 len = strlen(buf);

	if (len < bufsz)
		(void)snprintf(buf + len, bufsz - len, "%s%s",
		    len > 0 ? sep : "", s);
}

void
landlock_describe(enum landlock_proc p, int abi, char *buf, size_t bufsz)
{
	const struct landlock_view	*v = &landlock_views[p];

	buf[0] = '\0';
	append(buf, bufsz, "", v->sees);
	if ((v->wants & LANDLOCK_WANT_NO_TCP) && abi >= 4)
		append(buf, bufsz, "; ", "no TCP");
	if ((v->wants & SCOPES) == SCOPES && abi >= 6)
		append(buf, bufsz, "; ", "no signal or abstract socket "
		    "beyond its own");
	else if ((v->wants & LANDLOCK_WANT_UNIX) && abi >= 6)
		append(buf, bufsz, "; ", "no abstract socket beyond its own");
}

void
landlock_lacking(int abi, unsigned int wants, char *buf, size_t bufsz)
{
	const struct landlock_lack	*l;
	size_t				 i;

	buf[0] = '\0';
	for (i = 0; i < landlock_nlacks; i++) {
		l = &landlock_lacks[i];
		if (abi < l->abi && (l->wants == 0 || (l->wants & wants)))
			append(buf, bufsz, ", ", l->what);
	}
}
