/*
 * The locks of a box, proved with real rootless podman: the probe image
 * (regress/box/probe) runs with the launcher's own argv
 * (podman_run_argv()) and box.c, as the test account, under
 * no_new_privs as the launcher's filter sets it.  Each refusal has its
 * control: the same probe with that one lock left out, or a request
 * the lock lets through.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <grp.h>
#include <ifaddrs.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "probebox.h"

static const struct probe probe = { "sandcastle-probe",
    "regress/box/probe/probe.c regress/lib/kids.h",
    "regress/box/probe/probe.c", "" };

static void
setup(void)
{
	setup_probe(&probe);
}

static struct box *
start(const struct box_limits *l, uint32_t timeout, uint64_t max_output,
    const char *from, const char *to)
{
	const char	*swaps[] = { from, to, NULL };

	return start_word("probe", l, timeout, max_output, swaps);
}

/* Nothing of ours left in podman: no box with our label. */
static void
none_left(void)
{
	CHECK(sh("test -z \"$(podman ps -a -q --filter "
	    "label=sandcastle.box=sandcastle)\"") == 0, "a box is left: %s",
	    "podman ps -a --filter label=sandcastle.box=sandcastle");
}

static void
expect(const char *from, const char *to, const char *const *reqs,
    const char *const *want)
{
	const char	*swaps[] = { from, to, NULL };

	expect_word("probe", swaps, reqs, want);
}

/* A TCP and a UDP answerer on the machine, port chosen by the kernel. */
static pid_t
answerer(int *port)
{
	struct sockaddr_in	 sin;
	socklen_t		 sl = sizeof(sin);
	char			 buf[64];
	pid_t			 pid;
	int			 t, u, c;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	REQUIRE((t = socket(AF_INET, SOCK_STREAM, 0)) != -1, "%s", "(t = socket(AF_INET, SOCK_STREAM, 0)) != -1");
	REQUIRE(bind(t, (struct sockaddr *)&sin, sizeof(sin)) == 0, "%s", "bind(t, (struct sockaddr *)&sin, sizeof(sin)) == 0");
	REQUIRE(listen(t, 8) == 0, "%s", "listen(t, 8) == 0");
	REQUIRE(getsockname(t, (struct sockaddr *)&sin, &sl) == 0, "%s", "getsockname(t, (struct sockaddr *)&sin, &sl) == 0");
	REQUIRE((u = socket(AF_INET, SOCK_DGRAM, 0)) != -1, "%s", "(u = socket(AF_INET, SOCK_DGRAM, 0)) != -1");
	REQUIRE(bind(u, (struct sockaddr *)&sin, sizeof(sin)) == 0, "%s", "bind(u, (struct sockaddr *)&sin, sizeof(sin)) == 0");
	*port = ntohs(sin.sin_port);
	if ((pid = fork()) != 0) {
		(void)setpgid(pid, pid);
		return pid;
	}
	/*
	 * Its group is made here too, before the UDP half is forked: were
	 * the parent's setpgid() to come after that fork, the UDP half
	 * would stay in the test's group, outlive kill_answerer() and hold
	 * the pipe as_account() reads to its end.  Each half also dies with
	 * its parent: a body that failed halfway does not hang either.
	 */
	(void)setpgid(0, 0);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (fork() == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			struct sockaddr_in	 from;
			socklen_t		 fl = sizeof(from);
			ssize_t			 n;

			n = recvfrom(u, buf, sizeof(buf), 0,
			    (struct sockaddr *)&from, &fl);
			if (n > 0)
				sendto(u, buf, n, 0, (struct sockaddr *)&from, fl);
		}
	}
	for (;;)
		if ((c = accept(t, NULL, NULL)) != -1) {
			if (write(c, "hello\n", 6) != 6)
				_exit(1);
			close(c);
		}
}

/* The machine's first IPv4 address that is not loopback, or "". */
static void
host_address(char *buf, size_t bufsz)
{
	struct ifaddrs	*ifa, *i;

	buf[0] = '\0';
	REQUIRE(getifaddrs(&ifa) == 0, "%s", "getifaddrs(&ifa) == 0");
	for (i = ifa; i != NULL; i = i->ifa_next) {
		struct sockaddr_in *sin = (struct sockaddr_in *)i->ifa_addr;

		if (sin == NULL || sin->sin_family != AF_INET ||
		    ntohl(sin->sin_addr.s_addr) >> 24 == 127)
			continue;
		inet_ntop(AF_INET, &sin->sin_addr, buf, bufsz);
		break;
	}
	freeifaddrs(ifa);
}

static void
kill_answerer(pid_t pid)
{
	/* Its UDP half is its child, in its process group of one. */
	(void)kill(-pid, SIGKILL);
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
}

/* B2 B4: no network, and no socket or file of the machine's. */
static void
body_network(void)
{
	char	 lo_tcp[64], lo_udp[64], ip_tcp[80], ip_udp[80], ip[32];
	char	 gate[] = "/tmp/sc-gate.XXXXXX", sock[64], req_unix[80];
	int	 port, s;
	pid_t	 pid;
	struct sockaddr_un sun;

	setup();
	pid = answerer(&port);
	host_address(ip, sizeof(ip));
	(void)snprintf(lo_tcp, sizeof(lo_tcp), "tcp 127.0.0.1 %d", port);
	(void)snprintf(lo_udp, sizeof(lo_udp), "udp 127.0.0.1 %d", port);
	(void)snprintf(ip_tcp, sizeof(ip_tcp), "tcp %s %d", ip, port);
	(void)snprintf(ip_udp, sizeof(ip_udp), "udp %s %d", ip, port);
	/* A gate.sock of the account's, as the gate makes it. */
	REQUIRE(mkdtemp(gate) != NULL, "%s", "mkdtemp(gate) != NULL");
	(void)snprintf(sock, sizeof(sock), "%s/gate.sock", gate);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	(void)strlcpy(sun.sun_path, sock, sizeof(sun.sun_path));
	REQUIRE((s = socket(AF_UNIX, SOCK_STREAM, 0)) != -1, "%s", "(s = socket(AF_UNIX, SOCK_STREAM, 0)) != -1");
	REQUIRE(bind(s, (struct sockaddr *)&sun, sizeof(sun)) == 0, "%s", "bind(s, (struct sockaddr *)&sun, sizeof(sun)) == 0");
	REQUIRE(listen(s, 1) == 0, "%s", "listen(s, 1) == 0");
	(void)snprintf(req_unix, sizeof(req_unix), "unix %s", sock);
	{
		const char *reqs[] = { lo_tcp, lo_udp, ip_tcp, ip_udp,
		    req_unix, "unixself", NULL };
		const char *boxed[] = { "tcp err ECONNREFUSED",
		    "udp err", "tcp err ENETUNREACH", "udp err ENETUNREACH",
		    "unix err ENOENT", "unixself ok", NULL };
		const char *host[] = { "tcp ok", "udp ok", "tcp ok",
		    "udp ok", "unix err", "unixself ok", NULL };

		if (ip[0] == '\0')
			reqs[2] = NULL;
		expect(NULL, NULL, reqs, boxed);
		/* The control: the same probe on the machine's network. */
		expect("--network=none", "--network=host", reqs, host);
	}
	close(s);
	unlink(sock);
	rmdir(gate);
	kill_answerer(pid);
	none_left();
}

/* B3 S4: nothing written outside a bounded /tmp, which goes with the box. */
static void
body_files(void)
{
	const char *reqs[] = { "write /x", "write /sandcastle/x", "write /tmp/x",
	    "fill /tmp/f 524288", "fill /tmp/f 4194304", NULL };
	const char *want[] = { "write err EROFS", "write err EROFS",
	    "write ok", "fill ok 524288", "fill err 1048576 E", NULL };

	setup();
	expect(NULL, NULL, reqs, want);
	none_left();
}

/*
 * B4 B1: a job's record and a secret, as the account keeps them, are not
 * in the box: nothing of the machine is mounted.  Control: the same
 * probe with the folder mounted reads a record readable by all, and
 * still not one of mode 0600 in a folder of 0700, which the box's uid
 * (a subordinate one) cannot open.
 */
static void
body_records(void)
{
	char	 dir[] = "/tmp/sc-records.XXXXXX", path[128], cmd[512];
	char	 mount[160], open_req[160], kept_req[160];

	setup();
	REQUIRE(mkdtemp(dir) != NULL, "%s", "mkdtemp");
	(void)snprintf(cmd, sizeof(cmd), "chmod 0755 %s && mkdir -m 0755 "
	    "%s/notes %s/notes/7 && echo '{\"tag\": \"canary\"}' > "
	    "%s/notes/7/output.json && chmod 0644 %s/notes/7/output.json && "
	    "mkdir -m 0700 %s/secrets && echo SCTEST-CANARY > %s/secrets/notes "
	    "&& chmod 0600 %s/secrets/notes", dir, dir, dir, dir, dir, dir,
	    dir, dir);
	REQUIRE(sh(cmd) == 0, "%s", cmd);
	(void)snprintf(path, sizeof(path), "%s/notes/7/output.json", dir);
	(void)snprintf(open_req, sizeof(open_req), "read %s", path);
	(void)snprintf(kept_req, sizeof(kept_req), "read %s/secrets/notes", dir);
	(void)snprintf(mount, sizeof(mount), "--volume=%s:%s:ro", dir, dir);
	{
		const char *reqs[] = { open_req, kept_req, NULL };
		const char *boxed[] = { "read err ENOENT", "read err ENOENT",
		    NULL };
		const char *mounted[] = { "read ok 18", "read err EACCES",
		    NULL };

		expect(NULL, NULL, reqs, boxed);
		/* The control: one flag that does not matter here swapped for the mount. */
		expect("--pull=never", mount, reqs, mounted);
	}
	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)sh(cmd);
	none_left();
}

/* The host's view of a box's process: its Uid line in /proc. */
static void
host_uid(struct box *b, char *uid, size_t uidsz)
{
	char	 cmd[256], line[256];
	FILE	*f;

	(void)snprintf(cmd, sizeof(cmd), "grep '^Uid:' /proc/$(podman inspect "
	    "--format '{{.State.Pid}}' %s)/status", b->name);
	REQUIRE((f = popen(cmd, "r")) != NULL, "%s", "(f = popen(cmd, \"r\")) != NULL");
	REQUIRE(fgets(line, sizeof(line), f) != NULL, "%s", "fgets(line, sizeof(line), f) != NULL");
	pclose(f);
	line[strcspn(line, "\n")] = '\0';
	(void)strlcpy(uid, line, uidsz);
}

/* B1 B4: a subordinate uid, never the operator's. */
static void
body_identity(void)
{
	struct box	*b;
	struct box_end o;
	char		 ans[512], uid[256], ctl[256], want[64];
	unsigned long	 first = 0;
	FILE		*f;

	setup();
	(void)snprintf(ans, sizeof(ans), "awk -F: '$1 == \"%s\" "
	    "{ print $2 }' /etc/subuid", account);
	REQUIRE((f = popen(ans, "r")) != NULL, "%s", ans);
	REQUIRE(fscanf(f, "%lu", &first) == 1, "%s", "fscanf(f, \"%lu\", &first) == 1");
	pclose(f);
	b = start(&limits, 5, 65536, NULL, NULL);
	ask(b, "status", ans, sizeof(ans));
	CHECK(strstr(ans, "Uid:\t65534\t65534\t65534\t65534") != NULL,
	    "%s", ans);
	CHECK(strstr(ans, "CapEff:\t0000000000000000") != NULL, "%s",
	    ans);
	CHECK(strstr(ans, "NoNewPrivs:\t1") != NULL, "%s", ans);
	ask(b, "hold", ans, sizeof(ans));
	host_uid(b, uid, sizeof(uid));
	/* 65534 in podman's namespace is subuid start + 65533 on the machine. */
	(void)snprintf(want, sizeof(want), "Uid:\t%lu\t", first + 65533);
	CHECK(strncmp(uid, want, strlen(want)) == 0, "%s", uid);
	/* The control: the same look at a process of the operator's. */
	(void)snprintf(ctl, sizeof(ctl), "Uid:\t%u\t", (unsigned)getuid());
	CHECK(strstr(uid, ctl) == NULL, "the box runs as the "
	    "operator: %s", uid);
	REQUIRE(sh("grep -q \"^Uid:[[:space:]]*$(id -u)[[:space:]]\" "
	    "/proc/self/status") == 0, "%s", "the check on this line failed");
	box_finish(b, &o);
	none_left();
}

/* B1 S1: no variable and no descriptor of the launcher's. */
static void
body_environment(void)
{
	struct box	*b;
	char		 ans[4096];

	setup();
	REQUIRE(getenv("http_proxy") != NULL, "%s", "the launcher has a proxy");
	b = start(&limits, 30, 65536, NULL, NULL);
	ask(b, "fds", ans, sizeof(ans));
	CHECK_STR(ans, "fds ok 0,1,2,");
	ask(b, "env", ans, sizeof(ans));
	CHECK(strcasestr(ans, "proxy") == NULL, "%s", ans);
	CHECK(strstr(ans, "PATH=") == NULL, "%s", ans);
	CHECK(strstr(ans, "XDG_RUNTIME_DIR") == NULL, "%s", ans);
	finish_ok(b);
	/*
	 * The control: with podman's environment let in, it shows; and
	 * the launcher's proxy is not in it: podman itself never had it.
	 */
	b = start(&limits, 30, 65536, "--env-host=false", "--env-host=true");
	ask(b, "env", ans, sizeof(ans));
	CHECK(strstr(ans, "XDG_RUNTIME_DIR=") != NULL, "%s", ans);
	CHECK(strcasestr(ans, "proxy") == NULL, "%s", ans);
	finish_ok(b);
	none_left();
}

/*
 * B5: a box under the limits l: within answered in full (done), past
 * stopped by err after fewer than max (its answer begins with stopped).
 */
static void
limited(const struct box_limits *l, const char *within, const char *done,
    const char *past, const char *stopped, const char *err, int max)
{
	struct box	*b;
	char		 ans[256];

	setup();
	b = start(l, 30, 65536, NULL, NULL);
	ask(b, within, ans, sizeof(ans));
	CHECK_STR(ans, done);
	ask(b, past, ans, sizeof(ans));
	CHECK(strncmp(ans, stopped, strlen(stopped)) == 0 &&
	    atoi(ans + strlen(stopped)) < max && strstr(ans, err) != NULL,
	    "%s", ans);
	finish_ok(b);
	none_left();
}

/* B5: processes. */
static void
body_processes(void)
{
	struct box_limits	 l = limits;

	l.pids = 16;
	limited(&l, "fork 4", "fork ok 4 -", "fork 1000", "fork err ",
	    " EAGAIN", 16);
}

/* B5: memory; runc's own start needs about 100 MiB of data under it. */
static void
body_memory(void)
{
	struct box_limits	 l = limits;

	l.memory = 128 * MiB;
	limited(&l, "malloc 16", "malloc ok 16 -", "malloc 1024",
	    "malloc err ", " ENOMEM", 128);
}

/* B3 B5 S4: time, and a box past it removed. */
static void
body_overrun(void)
{
	struct box_end	 o;
	struct box		*b;
	const char		*line;
	char			 name[BOX_NAME_LEN + 1], ans[256];
	size_t			 len;
	time_t			 t0;

	setup();
	/* The control: answered, then stdin closed, it ends in time. */
	b = start(&limits, 10, 65536, NULL, NULL);
	ask(b, "status", ans, sizeof(ans));
	box_finish(b, &o);
	CHECK(!o.timed_out && !o.removed && o.exited && o.code == 0, "%s", "!o.timed_out && !o.removed && o.exited && o.code == 0");

	t0 = time(NULL);
	b = start(&limits, 3, 65536, NULL, NULL);
	(void)strlcpy(name, b->name, sizeof(name));
	ask(b, "hold", ans, sizeof(ans));
	CHECK_STR(ans, "hold ok holding");
	CHECK(box_read_line(b, &line, &len) == -1, "%s", "read past the time");
	CHECK(b->timed_out, "%s", "b->timed_out");
	box_finish(b, &o);
	CHECK(o.timed_out && o.removed, "%s", o.why);
	CHECK((podman_gone(name)) == (1), "%s", "podman_gone(name) != 1");
	CHECK(time(NULL) - t0 < 20, "took %lld s",
	    (long long)(time(NULL) - t0));
	none_left();
}

static void
output_case(const char *req, uint64_t max, int ok, const char *why)
{
	struct box_end	 o;
	struct box		*b;
	const char		*line;
	size_t			 len;
	int			 r;

	b = start(&limits, 30, max, NULL, NULL);
	REQUIRE(box_write_line(b, req, strlen(req)) == 0, "%s", "box_write_line(b, req, strlen(req)) == 0");
	r = box_read_line(b, &line, &len);
	if (ok)
		CHECK(r == 1, "%s: %s", req, b->why);
	else
		CHECK(r == -1 && strstr(b->why, why) != NULL,
		    "%s: %d %s", req, r, b->why);
	box_finish(b, &o);
	CHECK((o.output_failed) == (!ok), "%s", "o.output_failed != !ok");
}

/* B5: output. */
static void
body_output(void)
{
	setup();
	output_case("flood 1000", 1024, 1, NULL);
	output_case("flood 5000", 1024, 0, "longer than max_output");
	output_case("flood 50000000", 1024, 0, "longer than max_output");
	output_case("nonl 10", 1024, 0, "no newline");
	none_left();
}

/*
 * One item of the mount walk, "<point>:<type>=<what a write met>": closed
 * when the kernel refused the write with EROFS or EACCES; procfs, which
 * has no file to make, with ENOENT; a device of memory (null, zero,
 * full, random, urandom) or the terminal keeps nothing written to it.
 */
static int
mount_closed(const char *point, const char *type, const char *what)
{
	static const char *const devices[] = { "chr1:3", "chr1:5", "chr1:7",
	    "chr1:8", "chr1:9", "chr5:0", NULL };
	const char *const *d;

	if (strcmp(what, "EROFS") == 0 || strcmp(what, "EACCES") == 0)
		return 1;
	if (strcmp(type, "proc") == 0 && strcmp(what, "ENOENT") == 0)
		return 1;
	for (d = devices; *d != NULL; d++)
		if (strcmp(what, *d) == 0)
			return 1;
	(void)point;
	return 0;
}

/* The walk of "mounts": how many, /tmp written, every other one closed. */
static void
mounts_check(const char *ans, int *n, int *tmp)
{
	char	*copy, *p, *item, *eq, *colon;

	*n = *tmp = 0;
	REQUIRE(strncmp(ans, "mounts ok ", 10) == 0, "%s", ans);
	REQUIRE((copy = strdup(ans + 10)) != NULL, "%s", "strdup");
	for (p = copy; (item = strsep(&p, " ")) != NULL; ) {
		if (*item == '\0')
			continue;
		REQUIRE((eq = strrchr(item, '=')) != NULL, "%s", item);
		*eq = '\0';
		REQUIRE((colon = strrchr(item, ':')) != NULL, "%s", item);
		*colon = '\0';
		(*n)++;
		if (strcmp(item, "/tmp") == 0) {
			*tmp = 1;
			CHECK(strcmp(eq + 1, "written") == 0, "/tmp: %s",
			    eq + 1);
		} else
			CHECK(mount_closed(item, colon + 1, eq + 1),
			    "%s (%s) took a write: %s", item, colon + 1,
			    eq + 1);
	}
	free(copy);
}

/* B6: no place to write but /tmp, walked mount by mount. */
static void
body_mounts(void)
{
	/*
	 * Podman 5 mounts /dev/shm read-only under --read-only-tmpfs=false
	 * (4.3 left it writable): the control takes podman's default.
	 */
	const char	*open_ipc[] = { "--ipc=none", "--ipc=private",
			    "--tmpfs=/dev/mqueue:ro,nosuid,nodev,noexec,size=4k",
			    "--read-only", "--read-only-tmpfs=false",
			    "--read-only-tmpfs=true", NULL };
	struct box	*b;
	char		 ans[8192];
	int		 n, tmp;

	setup();
	b = start(&limits, 30, 65536, NULL, NULL);
	ask(b, "mounts", ans, sizeof(ans));
	mounts_check(ans, &n, &tmp);
	CHECK(n >= 10 && tmp, "%d mounts walked, /tmp %s: %s", n,
	    tmp ? "seen" : "not seen", ans);
	CHECK(strstr(ans, " /dev/shm:") == NULL, "/dev/shm is there: %s", ans);
	CHECK(strstr(ans, " /dev/mqueue:tmpfs=EROFS ") != NULL, "%s", ans);
	finish_ok(b);
	/* The control: podman's own IPC mounts, each writable. */
	b = start_word("probe", &limits, 30, 65536, open_ipc);
	ask(b, "mounts", ans, sizeof(ans));
	CHECK(strstr(ans, " /dev/shm:tmpfs=written ") != NULL, "%s", ans);
	CHECK(strstr(ans, " /dev/mqueue:mqueue=written ") != NULL, "%s", ans);
	finish_ok(b);
	none_left();
}

/* The profile's flag, and podman's own default profile for the controls. */
static char	 our_profile[64];
static const char *const podman_profile = "--security-opt=seccomp="
		    BOX_PODMAN_PROFILE;

static const char *
profile_flag(void)
{
	(void)snprintf(our_profile, sizeof(our_profile),
	    "--security-opt=seccomp=/proc/self/fd/%d", BOX_PROFILE_FD);
	return our_profile;
}

/* B7: no namespace made or joined, of any kind. */
static void
body_namespaces(void)
{
	static const char *const ns[] = { "user", "mnt", "net", "pid", "ipc",
	    "uts", "cgroup", "time", NULL };
	const char	*reqs[32], *boxed[32], *freed[32];
	char		 buf[32][32];
	size_t		 i, n = 0;

	for (i = 0; ns[i] != NULL; i++) {
		(void)snprintf(buf[n], sizeof(buf[n]), "unshare %s", ns[i]);
		reqs[n] = buf[n];
		boxed[n] = "unshare err EPERM";
		freed[n++] = "unshare ok made";
		(void)snprintf(buf[n], sizeof(buf[n]), "clone3 %s", ns[i]);
		reqs[n] = buf[n];
		boxed[n] = "clone3 err ENOSYS";
		freed[n++] = "clone3 ok made";
		/* clone(2) has no CLONE_NEWTIME: its bit is the exit signal's. */
		if (strcmp(ns[i], "time") == 0)
			continue;
		(void)snprintf(buf[n], sizeof(buf[n]), "clone %s", ns[i]);
		reqs[n] = buf[n];
		boxed[n] = "clone err EPERM";
		freed[n++] = "clone ok made";
	}
	reqs[n] = "setns";
	boxed[n] = "setns err EPERM";
	freed[n++] = "setns ok made";
	/* A fork, which clone(2) without a namespace flag still makes. */
	reqs[n] = "fork 2";
	boxed[n] = "fork ok 2 -";
	freed[n++] = "fork ok 2 -";
	reqs[n] = boxed[n] = freed[n] = NULL;
	setup();
	expect(NULL, NULL, reqs, boxed);
	expect(profile_flag(), podman_profile, reqs, freed);
	none_left();
}

/* B5: shared memory, which the data rlimit does not count. */
static void
body_shared_memory(void)
{
	const char *reqs[] = { "malloc 300", "shared mmap 300",
	    "shared shmget 300", "shared memfd 1", "shared msgget 1",
	    "shared mq_open 1", NULL };
	const char *boxed[] = { "malloc err", "shared err EPERM",
	    "shared err EPERM", "shared err EPERM", "shared err EPERM",
	    "shared err EPERM", NULL };
	const char *freed[] = { "malloc err", "shared ok touched",
	    "shared ok touched", "shared ok made", "shared ok made",
	    "shared ok made", NULL };

	setup();
	expect(NULL, NULL, reqs, boxed);
	expect(profile_flag(), podman_profile, reqs, freed);
	none_left();
}

/* B3 S4: a box a crash left behind. */

/*
 * A box in podman's storage alone, as a podman run killed between the
 * storage and its database leaves it: made by a podman with a database
 * of its own (static_dir) on the same storage, which this podman lists
 * as "Storage", without labels.
 */
static void
storage_only(const char *name)
{
	char	 cmd[1024];

	(void)snprintf(cmd, sizeof(cmd), "set -e; d=$(mktemp -d); "
	    "sed 's|^\\[engine\\]|[engine]\\nstatic_dir = \"'$d'/static\"\\n"
	    "tmp_dir = \"'$d'/tmp\"|' $HOME/.config/containers/containers.conf "
	    "> $d/containers.conf; CONTAINERS_CONF=$d/containers.conf podman "
	    "create -q --name %s %s /sandcastle-box probe >/dev/null; "
	    "rm -rf $d; podman ps -a --external --format '{{.Names}} "
	    "{{.Status}}' | grep -qx '%s Storage'", name, image, name);
	REQUIRE(sh(cmd) == 0, "cannot make %s in podman's storage alone", name);
}

/* B3 S4: a box a crash left behind. */
static void
body_leftovers(void)
{
	char	 core[BOX_NAME_LEN + 1], check[BOX_NAME_LEN + 1], cmd[512];
	char	 score[BOX_NAME_LEN + 1], scheck[BOX_NAME_LEN + 1], why[256];

	setup();
	podman_box_name(core, BOX_CORE);
	podman_box_name(check, BOX_CHECK);
	podman_box_name(score, BOX_CORE);
	podman_box_name(scheck, BOX_CHECK);
	/* The control: a box in podman's storage alone holds its image. */
	storage_only(score);
	(void)snprintf(cmd, sizeof(cmd), "podman rmi %s 2>&1 | grep -q "
	    "'image is in use by a container'", image);
	REQUIRE(sh(cmd) == 0, "%s", "podman rmi did not find the image in use");
	(void)snprintf(cmd, sizeof(cmd), "podman create -q --label "
	    "sandcastle.box=sandcastle --label sandcastle.role=core --name %s "
	    "%s /sandcastle-box probe >/dev/null && podman create -q "
	    "--label sandcastle.box=sandcastle --label sandcastle.role=check "
	    "--name %s %s /sandcastle-box probe >/dev/null", core, image, check,
	    image);
	REQUIRE(sh(cmd) == 0, "%s", "sh(cmd) == 0");
	storage_only(scheck);
	REQUIRE(podman_gone(core) == 0 && podman_gone(check) == 0, "%s", "podman_gone(core) == 0 && podman_gone(check) == 0");
	REQUIRE(podman_gone(score) == 0 && podman_gone(scheck) == 0, "%s",
	    "the boxes in storage alone are not seen");
	REQUIRE(box_remove_leftovers(why, sizeof(why)) == 0, "%s", why);
	CHECK((podman_gone(core)) == (1), "%s", "podman_gone(core) != 1");
	CHECK((podman_gone(score)) == (1), "%s", "the core's box in storage "
	    "alone is still there");
	CHECK((podman_gone(check)) == (0), "%s", "podman_gone(check) != 0");
	CHECK((podman_gone(scheck)) == (0), "%s", "a check's box in storage "
	    "alone was removed");
	(void)snprintf(cmd, sizeof(cmd), "podman rm -f %s %s >/dev/null",
	    check, scheck);
	REQUIRE(sh(cmd) == 0, "%s", "sh(cmd) == 0");
	none_left();
}

static void
body_missing_image(void)
{
	struct box_end	 o;
	struct box		*b;
	const char		*line;
	size_t			 len;

	setup();
	/* The control: the image of this build runs. */
	b = start(&limits, 30, 1024, NULL, NULL);
	finish_ok(b);
	b = start(&limits, 30, 1024, image, "sandcastle-ocr:000000000000");
	CHECK(box_read_line(b, &line, &len) == 0, "%s", "a line from a box podman could not make");
	box_finish(b, &o);
	CHECK(o.exited && o.code == 125 && o.release, "exit %d: %s",
	    o.code, o.why);
	none_left();
}

static const struct account_case cases[] = {
	{ "network",
	    "A box reaches no address of the machine, by TCP, UDP or a "
	    "Unix socket; the same probe with the machine's network does",
	    "120", body_network },
	{ "files",
	    "The root is read-only, /tmp is writable and bounded by "
	    "box.tmp",
	    "120", body_files },
	{ "records",
	    "B4 B1: the records and secrets of the machine are not in a "
	    "box; mounted, as the control, one readable by all is read "
	    "and one of 0600 is refused",
	    "120", body_records },
	{ "identity",
	    "The box is uid 65534, a subordinate uid on the machine, "
	    "with no capability and no new privileges",
	    "120", body_identity },
	{ "environment",
	    "A box has descriptors 0-2 only and no variable of the "
	    "launcher's, its proxy variables among them",
	    "120", body_environment },
	{ "processes",
	    "A fork bomb stops at box.pids (nproc of 65534) with "
	    "EAGAIN; a few forks work",
	    "120", body_processes },
	{ "memory",
	    "A memory balloon stops at box.memory (the data rlimit); a "
	    "smaller one fits",
	    "120", body_memory },
	{ "overrun",
	    "A box that ignores SIGTERM and runs past its time is "
	    "removed by name and confirmed gone; one that ends in time "
	    "is not",
	    "120", body_overrun },
	{ "output",
	    "A line over max_output, a flood past the total and a last "
	    "line with no newline fail; lines within the bounds pass",
	    "120", body_output },
	{ "mounts",
	    "Every mount of a box's mountinfo but /tmp refuses a new "
	    "file with EROFS or EACCES, /dev/shm is not there; without "
	    "--ipc=none, the read-only /dev/mqueue and "
	    "--read-only-tmpfs=false, both take one",
	    "120", body_mounts },
	{ "namespaces",
	    "unshare(2) and clone(2) with each CLONE_NEW* (and "
	    "CLONE_NEWUSER) fail with EPERM, clone3(2) with ENOSYS, "
	    "setns(2) with EPERM; under podman's own profile each makes "
	    "or joins its namespace",
	    "180", body_namespaces },
	{ "shared_memory",
	    "Shared memory (mmap MAP_SHARED, shmget, memfd_create, "
	    "msgget, mq_open) is refused with EPERM; under podman's own "
	    "profile 300 MiB of it are touched past a box.memory of 256 "
	    "MiB",
	    "120", body_shared_memory },
	{ "leftovers",
	    "At start the core's boxes a crash left are removed, never "
	    "a check's, and those podman holds in its storage alone (a "
	    "podman run killed while it made the box) too, since they "
	    "block their image's removal",
	    "120", body_leftovers },
	{ "missing_image",
	    "A box of a missing image is not pulled: podman cannot "
	    "create it and the job is released",
	    "120", body_missing_image },
};

ATF_TP_ADD_TCS(tp)
{
	return account_add(tp, cases, sizeof(cases) / sizeof(cases[0]));
}
