/*
 * The box probe: a test-only stand-in for sandcastle-box, run in the
 * image sandcastle-probe:test with the launcher's own podman flags.  It
 * reads one request a line on stdin, tries it, and answers one line
 * "<request> ok <detail>" or "<request> err <errno name>" on stdout, so
 * that the test sees which lock held and why.  Built static: the image
 * holds it alone.
 */
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/kids.h"

extern char **environ;

/* Static glibc 2.36 has no strlcat: the probe is built without libbsd. */
static void
cat(char *dst, const char *src, size_t sz)
{
	size_t	 len = strlen(dst);

	if (len + 1 < sz)
		snprintf(dst + len, sz - len, "%s", src);
}

static void
answer(const char *req, int ok, const char *detail)
{
	printf("%s %s %s\n", req, ok ? "ok" : "err", detail);
	fflush(stdout);
}

static const char *
errname(int e)
{
	static char buf[32];

	switch (e) {
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EAGAIN: return "EAGAIN";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EFBIG: return "EFBIG";
	case ENETUNREACH: return "ENETUNREACH";
	case ENOENT: return "ENOENT";
	case ENOMEM: return "ENOMEM";
	case ENOSPC: return "ENOSPC";
	case EPERM: return "EPERM";
	case EROFS: return "EROFS";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	}
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

static void
inet(const char *req, int type, const char *ip, const char *port)
{
	struct sockaddr_in	 sin;
	struct timeval		 tv = { 2, 0 };
	char			 buf[64];
	int			 s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		return answer(req, 0, "EINVAL");
	if ((s = socket(AF_INET, type, 0)) == -1)
		return answer(req, 0, errname(errno));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    write(s, "probe\n", 6) != 6 || read(s, buf, sizeof(buf)) <= 0)
		answer(req, 0, errname(errno));
	else
		answer(req, 1, "answered");
	close(s);
}

static int
unix_connect(const char *path)
{
	struct sockaddr_un	 sun;
	int			 s, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return errno;
	e = connect(s, (struct sockaddr *)&sun, sizeof(sun)) == -1 ? errno : 0;
	close(s);
	return e;
}

/* The control of "unix": a socket the probe makes itself is reached. */
static void
unix_self(const char *req)
{
	struct sockaddr_un	 sun;
	int			 s, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/tmp/probe.sock");
	unlink(sun.sun_path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(s, 1) == -1)
		return answer(req, 0, errname(errno));
	e = unix_connect(sun.sun_path);
	answer(req, e == 0, e == 0 ? "connected" : errname(e));
	close(s);
	unlink(sun.sun_path);
}

static void
write_file(const char *req, const char *path)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return answer(req, 0, errname(errno));
	if (write(fd, "x", 1) != 1)
		answer(req, 0, errname(errno));
	else
		answer(req, 1, "written");
	close(fd);
	unlink(path);
}

/* Reads a file of the machine's, were it there: how many bytes, or why not. */
static void
read_file(const char *req, const char *path)
{
	char	 buf[4096], msg[32];
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return answer(req, 0, errname(errno));
	if ((n = read(fd, buf, sizeof(buf))) == -1)
		answer(req, 0, errname(errno));
	else {
		snprintf(msg, sizeof(msg), "%zd", n);
		answer(req, 1, msg);
	}
	close(fd);
}

/* Writes up to want bytes; says how far it got and why it stopped. */
static void
fill(const char *req, const char *path, const char *want)
{
	static char		 buf[65536];
	unsigned long long	 done = 0, max = strtoull(want, NULL, 10);
	char			 detail[64];
	ssize_t			 n;
	int			 fd, e = 0;

	signal(SIGXFSZ, SIG_IGN);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return answer(req, 0, errname(errno));
	while (done < max) {
		if ((n = write(fd, buf, sizeof(buf))) <= 0) {
			e = n == -1 ? errno : ENOSPC;
			break;
		}
		done += n;
	}
	close(fd);
	unlink(path);
	snprintf(detail, sizeof(detail), "%llu %s", done, e ? errname(e) : "-");
	answer(req, e == 0, detail);
}

static void
status(const char *req)
{
	char	 line[256], out[256] = "";
	FILE	*f;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return answer(req, 0, errname(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "CapEff:", 7) == 0 ||
		    strncmp(line, "NoNewPrivs:", 11) == 0 ||
		    strncmp(line, "Uid:", 4) == 0) {
			line[strcspn(line, "\n")] = '\0';
			cat(out, line, sizeof(out));
			cat(out, ";", sizeof(out));
		}
	}
	fclose(f);
	answer(req, 1, out);
}

static void
fds(const char *req)
{
	struct dirent	*d;
	char		 out[512] = "";
	DIR		*dir;
	int		 self;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return answer(req, 0, errname(errno));
	self = dirfd(dir);
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.' || atoi(d->d_name) == self)
			continue;
		cat(out, d->d_name, sizeof(out));
		cat(out, ",", sizeof(out));
	}
	closedir(dir);
	answer(req, 1, out);
}

static void
env(const char *req)
{
	char	 out[4096] = "", **e;

	for (e = environ; *e != NULL; e++) {
		cat(out, *e, sizeof(out));
		cat(out, "|", sizeof(out));
	}
	answer(req, 1, out[0] ? out : "-");
}

/* Forks up to n children that wait; says how many it made and why it stopped. */
static void
forks(const char *req, const char *want)
{
	pid_t	 kids[4096];
	char	 detail[64];
	int	 n, max = atoi(want), e;

	if (max > 4096)
		max = 4096;
	n = kids_fork(kids, max, &e);
	kids_end(kids, n);
	snprintf(detail, sizeof(detail), "%d %s", n, e ? errname(e) : "-");
	answer(req, e == 0, detail);
}

/* Touches up to want MiB of heap, one MiB at a time. */
static void
balloon(const char *req, const char *want)
{
	char	 detail[64], *p;
	int	 n = 0, max = atoi(want);

	while (n < max) {
		if ((p = malloc(1 << 20)) == NULL)
			break;
		memset(p, 1, 1 << 20);
		n++;
	}
	snprintf(detail, sizeof(detail), "%d %s", n, n < max ? "ENOMEM" : "-");
	answer(req, n == max, detail);
}

/* A line of n bytes, or (nonl) a last line with no newline. */
static void
flood(const char *want, int newline)
{
	unsigned long long	 n = strtoull(want, NULL, 10);

	while (n-- > 0)
		putchar('x');
	if (newline)
		putchar('\n');
	fflush(stdout);
	if (!newline)
		_exit(0);
}

static void
hold(const char *req)
{
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	answer(req, 1, "holding");
	for (;;)
		pause();
}

/* A mount point of mountinfo, its octal escapes undone, in place. */
static void
unescape(char *s)
{
	char	*o = s;

	for (; *s != '\0'; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else
			*o = *s;
	}
	*o = '\0';
}

/*
 * One mount: a new file in a folder, the file itself opened for writing,
 * or, for a device, its number (writing to /dev/null keeps nothing).
 */
static void
mount_try(const char *path, char *out, size_t outsz)
{
	struct stat	 st;
	char		 f[4096 + 32];
	int		 fd;

	if (lstat(path, &st) == -1) {
		snprintf(out, outsz, "%s", errname(errno));
		return;
	}
	if (S_ISCHR(st.st_mode)) {
		snprintf(out, outsz, "chr%u:%u", major(st.st_rdev),
		    minor(st.st_rdev));
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(f, sizeof(f), "%s/.probe-write", path);
		fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
	} else
		fd = open(path, O_WRONLY | O_APPEND);
	if (fd == -1) {
		snprintf(out, outsz, "%s", errname(errno));
		return;
	}
	close(fd);
	if (S_ISDIR(st.st_mode))
		unlink(f);
	snprintf(out, outsz, "written");
}

/* The fields after " - " start with the file system's type. */
static const char *
mount_type(char **f, int n)
{
	int	 i;

	for (i = 6; i + 1 < n; i++)
		if (strcmp(f[i], "-") == 0)
			return f[i + 1];
	return NULL;
}

/* Every mount of mountinfo: "<point>:<fstype>=<what a write met>" each. */
static void
mounts(const char *req)
{
	char		 line[4096], out[8192] = "", item[4200], what[64];
	char		*f[16], *p;
	const char	*type;
	FILE		*m;
	int		 n;

	if ((m = fopen("/proc/self/mountinfo", "r")) == NULL)
		return answer(req, 0, errname(errno));
	while (fgets(line, sizeof(line), m) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		for (n = 0, p = line; n < 16 && (f[n] = strsep(&p, " ")) != NULL;
		    n++)
			;
		if ((type = mount_type(f, n)) == NULL)
			continue;
		snprintf(item, sizeof(item), "%s:%s=", f[4], type);
		unescape(f[4]);
		mount_try(f[4], what, sizeof(what));
		cat(item, what, sizeof(item));
		cat(item, " ", sizeof(item));
		cat(out, item, sizeof(out));
	}
	fclose(m);
	answer(req, 1, out);
}

/* CLONE_NEWUSER with the namespace named: no privilege is then needed. */
static int
ns_flags(const char *name)
{
	static const struct { const char *name; int flag; } ns[] = {
		{ "user", 0 }, { "mnt", CLONE_NEWNS }, { "net", CLONE_NEWNET },
		{ "pid", CLONE_NEWPID }, { "ipc", CLONE_NEWIPC },
		{ "uts", CLONE_NEWUTS }, { "cgroup", CLONE_NEWCGROUP },
		{ "time", CLONE_NEWTIME }
	};
	size_t	 i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (strcmp(name, ns[i].name) == 0)
			return CLONE_NEWUSER | ns[i].flag;
	return -1;
}

/* What a child's call met, from its exit status: 0 or an errno. */
static void
child_said(const char *req, pid_t pid)
{
	int	 status;

	if (pid == -1)
		return answer(req, 0, errname(errno));
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status))
		return answer(req, 0, "killed");
	if (WEXITSTATUS(status) == 0)
		answer(req, 1, "made");
	else
		answer(req, 0, errname(WEXITSTATUS(status)));
}

/* unshare(2) in a child, which the probe's own namespaces never see. */
static void
ns_unshare(const char *req, const char *name)
{
	int	 fl = ns_flags(name);
	pid_t	 pid;

	if (fl == -1)
		return answer(req, 0, "EINVAL");
	if ((pid = fork()) == 0)
		_exit(unshare(fl) == 0 ? 0 : errno);
	child_said(req, pid);
}

/* clone(2), as the kernel takes it: the child ends at once. */
static void
ns_clone(const char *req, const char *name)
{
	int	 fl = ns_flags(name);
	long	 pid;

	if (fl == -1 || (fl & CLONE_NEWTIME))
		return answer(req, 0, "EINVAL");
	pid = syscall(SYS_clone, (unsigned long)fl | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	if (pid == -1)
		return answer(req, 0, errname(errno));
	child_said(req, (pid_t)pid);
}

struct clone3_args {
	uint64_t	 flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t	 stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

static void
ns_clone3(const char *req, const char *name)
{
	struct clone3_args	 a;
	int			 fl = ns_flags(name);
	long			 pid;

	if (fl == -1)
		return answer(req, 0, "EINVAL");
	memset(&a, 0, sizeof(a));
	a.flags = (unsigned int)fl;
	a.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &a, sizeof(a));
	if (pid == 0)
		_exit(0);
	if (pid == -1)
		return answer(req, 0, errname(errno));
	child_said(req, (pid_t)pid);
}

/*
 * setns(2) into a user namespace a child of the probe made, which its
 * maker's parent may join; where no child could make one, into the
 * probe's own, which the kernel refuses with EINVAL.  From a child too.
 */
static void
ns_setns(const char *req)
{
	char	 path[64], made;
	pid_t	 holder, pid;
	int	 p[2], fd;

	if (pipe(p) == -1)
		return answer(req, 0, errname(errno));
	if ((holder = fork()) == 0) {
		made = unshare(CLONE_NEWUSER) == 0;
		if (write(p[1], &made, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (holder == -1 || read(p[0], &made, 1) != 1)
		return answer(req, 0, "no holder");
	snprintf(path, sizeof(path), "/proc/%d/ns/user",
	    made ? (int)holder : (int)getpid());
	if ((pid = fork()) == 0) {
		if ((fd = open(path, O_RDONLY)) == -1)
			_exit(errno);
		_exit(setns(fd, CLONE_NEWUSER) == 0 ? 0 : errno);
	}
	child_said(req, pid);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	close(p[0]);
	close(p[1]);
}

/* Shared memory, which the data rlimit does not count: n MiB touched. */
static void
shared(const char *req, const char *what, const char *want)
{
	size_t	 len = (size_t)atoi(want) << 20;
	char	*p = MAP_FAILED, name[32];
	int	 fd = -1, id;

	if (strcmp(what, "mmap") == 0)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	else if (strcmp(what, "shmget") == 0) {
		if ((id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600)) != -1) {
			p = shmat(id, NULL, 0);
			shmctl(id, IPC_RMID, NULL);
			if (p == (void *)-1)
				p = MAP_FAILED;
		}
	} else if (strcmp(what, "memfd") == 0) {
		if ((fd = memfd_create("probe", 0)) != -1)
			close(fd);
		return answer(req, fd != -1, fd != -1 ? "made" :
		    errname(errno));
	} else if (strcmp(what, "msgget") == 0) {
		if ((id = msgget(IPC_PRIVATE, IPC_CREAT | 0600)) != -1)
			msgctl(id, IPC_RMID, NULL);
		return answer(req, id != -1, id != -1 ? "made" :
		    errname(errno));
	} else if (strcmp(what, "mq_open") == 0) {
		snprintf(name, sizeof(name), "/probe%d", (int)getpid());
		/* glibc's mq_open is the call itself: no file of /dev/mqueue. */
		if ((fd = (int)syscall(SYS_mq_open, name + 1, O_RDWR | O_CREAT,
		    0600, NULL)) != -1) {
			close(fd);
			syscall(SYS_mq_unlink, name + 1);
		}
		return answer(req, fd != -1, fd != -1 ? "made" :
		    errname(errno));
	} else
		return answer(req, 0, "EINVAL");
	if (p == MAP_FAILED)
		return answer(req, 0, errname(errno));
	memset(p, 1, len);
	answer(req, 1, "touched");
}

static int
seccomp_filters(void)
{
	char	 line[256];
	FILE	*f;
	int	 n = -1;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Seccomp_filters: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void
dispatch(char *line)
{
	char	*w[4] = { NULL, NULL, NULL, NULL }, *p = line;
	int	 n = 0;

	while (n < 4 && (w[n] = strsep(&p, " ")) != NULL)
		n++;
	if (w[0] == NULL)
		return;
	if (strcmp(w[0], "tcp") == 0 && n == 3)
		inet(w[0], SOCK_STREAM, w[1], w[2]);
	else if (strcmp(w[0], "udp") == 0 && n == 3)
		inet(w[0], SOCK_DGRAM, w[1], w[2]);
	else if (strcmp(w[0], "unix") == 0 && n == 2) {
		int e = unix_connect(w[1]);
		answer(w[0], e == 0, e == 0 ? "connected" : errname(e));
	} else if (strcmp(w[0], "unixself") == 0)
		unix_self(w[0]);
	else if (strcmp(w[0], "read") == 0 && n == 2)
		read_file(w[0], w[1]);
	else if (strcmp(w[0], "write") == 0 && n == 2)
		write_file(w[0], w[1]);
	else if (strcmp(w[0], "fill") == 0 && n == 3)
		fill(w[0], w[1], w[2]);
	else if (strcmp(w[0], "status") == 0)
		status(w[0]);
	else if (strcmp(w[0], "fds") == 0)
		fds(w[0]);
	else if (strcmp(w[0], "env") == 0)
		env(w[0]);
	else if (strcmp(w[0], "fork") == 0 && n == 2)
		forks(w[0], w[1]);
	else if (strcmp(w[0], "malloc") == 0 && n == 2)
		balloon(w[0], w[1]);
	else if (strcmp(w[0], "flood") == 0 && n == 2)
		flood(w[1], 1);
	else if (strcmp(w[0], "nonl") == 0 && n == 2)
		flood(w[1], 0);
	else if (strcmp(w[0], "hold") == 0)
		hold(w[0]);
	else if (strcmp(w[0], "mounts") == 0)
		mounts(w[0]);
	else if (strcmp(w[0], "unshare") == 0 && n == 2)
		ns_unshare(w[0], w[1]);
	else if (strcmp(w[0], "clone") == 0 && n == 2)
		ns_clone(w[0], w[1]);
	else if (strcmp(w[0], "clone3") == 0 && n == 2)
		ns_clone3(w[0], w[1]);
	else if (strcmp(w[0], "setns") == 0)
		ns_setns(w[0]);
	else if (strcmp(w[0], "shared") == 0 && n == 3)
		shared(w[0], w[1], w[2]);
	else if (strcmp(w[0], "filters") == 0) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", seccomp_filters());
		answer(w[0], 1, buf);
	}
	else if (strcmp(w[0], "exit") == 0 && n == 2)
		exit(atoi(w[1]));
	else
		answer(w[0], 0, "unknown");
}

int
main(int argc, char *argv[])
{
	char	*line = NULL;
	size_t	 sz = 0;
	ssize_t	 len;

	if (argc != 2 || strcmp(argv[1], "probe") != 0) {
		fprintf(stderr, "usage: sandcastle-box probe\n");
		return 2;
	}
	while ((len = getline(&line, &sz, stdin)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		dispatch(line);
	}
	return 0;
}
