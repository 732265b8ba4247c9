/* unveil(2), the Linux way, by ABI; no libbsd nor log: the box links it. */
#ifndef SANDCASTLE_LANDLOCK_H
#define SANDCASTLE_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/landlock.h>

/* What Debian 12's 6.1 headers lack: the uapi of ABI 3 to 6. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif

/* The newest ABI this code knows (a test build uses less: landlock.c). */
#define LANDLOCK_ABI_KNOWN	7

#define LANDLOCK_READ	(LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR)
#define LANDLOCK_WRITE	(LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR)
#define LANDLOCK_REMOVE	LANDLOCK_ACCESS_FS_REMOVE_FILE

/* What a view wants beside files, each from the ABI that has it. */
#define LANDLOCK_WANT_NO_TCP	0x01	/* no TCP bind, no connect (4) */
#define LANDLOCK_WANT_UNIX	0x02	/* no others' abstract socket (6) */
#define LANDLOCK_WANT_SIGNAL	0x04	/* no signal to others (6) */

enum landlock_proc {
	LANDLOCK_PARENT,
	LANDLOCK_CORE,
	LANDLOCK_KEEPFE,
	LANDLOCK_READER,
	LANDLOCK_KEEPD,
	LANDLOCK_FETCH,
	LANDLOCK_GATED,
	LANDLOCK_TUNNEL,
	LANDLOCK_BOX,
	LANDLOCK_NPROCS
};

struct landlock_view {
	const char	*proc;		/* as the manual names it */
	const char	*sees;		/* its files, in the manual's words */
	unsigned int	 wants;
};
extern const struct landlock_view landlock_views[LANDLOCK_NPROCS];

/* A right the design wants that an older ABI lacks, and what holds then. */
struct landlock_lack {
	int		 abi;		/* the first ABI that has it */
	unsigned int	 wants;		/* the views that want it; 0: all */
	const char	*what;
	const char	*holds;		/* what keeps the promise without it */
};
extern const struct landlock_lack landlock_lacks[];
extern const size_t landlock_nlacks;

/* One folder (or file) a view may reach beneath, with these rights. */
struct landlock_path {
	int		 fd;		/* open, or -1: path is opened O_PATH */
	const char	*path;
	uint64_t	 access;
};

/* 0 and why when the kernel has none; ours is at most LANDLOCK_ABI_KNOWN. */
int	landlock_kernel_abi(const char **why);
int	landlock_abi(const char **why);

/* For good, for this thread and all it starts: the ABI, 0 none, -1 refused. */
int	landlock_apply(enum landlock_proc p, const struct landlock_path *paths,
	    size_t npaths, char *why, size_t whysz);

/* The view as an ABI holds it, in words: "data_dir, read and write; ...". */
void	landlock_describe(enum landlock_proc p, int abi, char *buf,
	    size_t bufsz);
void	landlock_lacking(int abi, unsigned int wants, char *buf, size_t bufsz);

#endif
