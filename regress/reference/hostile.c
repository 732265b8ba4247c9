/*
 * The reference suite's hostile box: a static stand-in for a tampered
 * sandcastle-box (sandcastle(7), B5) that says its image's hello, then
 * tries the attack named in the job's input (balloon, fork, cpu, hold)
 * and answers one failure line with what its cgroup says.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/kids.h"

#define CG	"/sys/fs/cgroup/"
#define MAXKIDS	4096
#define BALLOON_KIDS	4

static char	 said[480];

static void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Adds to the failure's text: printable ASCII without quotes only. */
static void
say(const char *fmt, ...)
{
	va_list	 ap;
	size_t	 len = strlen(said);
	char	*p;

	va_start(ap, fmt);
	(void)vsnprintf(said + len, sizeof(said) - len, fmt, ap);
	va_end(ap);
	for (p = said + len; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			*p = ' ';
}

static void
line(const char *text)
{
	printf("%s\n", text);
	fflush(stdout);
}

/* A cgroup file's first line, or "-" when the box cannot read it. */
static const char *
cg_read(const char *name, char *buf, size_t sz)
{
	char	 path[128];
	FILE	*f;

	(void)snprintf(path, sizeof(path), CG "%s", name);
	if ((f = fopen(path, "r")) == NULL || fgets(buf, sz, f) == NULL) {
		(void)snprintf(buf, sz, "-");
		if (f != NULL)
			fclose(f);
		return buf;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The value of key in a flat-keyed cgroup file (cpu.stat, pids.events). */
static long long
cg_key(const char *name, const char *key)
{
	char	 path[128], k[64];
	long long v, found = -1;
	FILE	*f;

	(void)snprintf(path, sizeof(path), CG "%s", name);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (strcmp(k, key) == 0)
			found = v;
	fclose(f);
	return found;
}

/* One child's share of the balloon: touches it, says so on fd, waits. */
static void
balloon_kid(size_t len, int fd)
{
	size_t	 off;
	char	*p;

	if ((p = malloc(len)) == NULL)
		_exit(1);
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	(void)write(fd, "x", 1);
	pause();
	_exit(0);
}

/*
 * The balloon: the children touch their shares, each below the data
 * rlimit; this process, which holds nothing, makes itself the cgroup's
 * first choice for the kernel's OOM killer (oom_score_adj 1000, which
 * an unprivileged process may raise), so that the box ends with 137
 * when memory.max holds, as a box whose memory ran out does.
 */
static void
balloon(long mib)
{
	size_t	 share = ((size_t)mib << 20) / BALLOON_KIDS;
	pid_t	 kids[BALLOON_KIDS];
	char	 c;
	int	 fds[2], i, n = 0, done = 0;
	FILE	*f;

	say("balloon: ");
	if (pipe(fds) == -1) {
		say("pipe: errno %d", errno);
		return;
	}
	for (i = 0; i < BALLOON_KIDS; i++) {
		if ((kids[i] = fork()) == -1) {
			say("fork: errno %d; ", errno);
			break;
		}
		if (kids[i] == 0) {
			close(fds[0]);
			balloon_kid(share, fds[1]);
		}
		n++;
	}
	close(fds[1]);
	if ((f = fopen("/proc/self/oom_score_adj", "w")) == NULL ||
	    fputs("1000\n", f) == EOF || fclose(f) == EOF)
		say("oom_score_adj 1000: errno %d; ", errno);
	while (done < n && read(fds[0], &c, 1) == 1)
		done++;
	say("%ld MiB touched and held in %d processes of %zu MiB each: "
	    "nothing stopped it", (long)(share >> 20) * done, done,
	    share >> 20);
	kids_end(kids, n);
}

static void
forks(long want)
{
	static pid_t	 kids[MAXKIDS];
	char		 buf[64];
	int		 n, e;

	if (want > MAXKIDS)
		want = MAXKIDS;
	n = kids_fork(kids, want, &e);
	say("fork: %d of %ld children, %s; pids.max %s, pids.events max %lld",
	    n, want, e == EAGAIN ? "then EAGAIN" : e != 0 ? "then an error" :
	    "all made", cg_read("pids.max", buf, sizeof(buf)),
	    cg_key("pids.events", "max"));
	kids_end(kids, n);
}

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Two spinning children: over one cpu when nothing holds them. */
static void
cpu(long seconds)
{
	char		 buf[64];
	long long	 u0, t0, u1, t1;
	double		 start = now(), end = start + seconds;
	volatile unsigned long spin = 0;
	pid_t		 kids[2];
	int		 i;

	u0 = cg_key("cpu.stat", "usage_usec");
	t0 = cg_key("cpu.stat", "nr_throttled");
	for (i = 0; i < 2; i++)
		if ((kids[i] = fork()) == 0) {
			while (now() < end)
				spin++;
			_exit(0);
		}
	for (i = 0; i < 2; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
	u1 = cg_key("cpu.stat", "usage_usec");
	t1 = cg_key("cpu.stat", "nr_throttled");
	say("cpu: cpu.max %s; two children spun %.1f s of wall clock and "
	    "used %.1f s of cpu; nr_throttled went up by %lld",
	    cg_read("cpu.max", buf, sizeof(buf)), now() - start,
	    (u1 - u0) / 1e6, t0 >= 0 && t1 >= 0 ? t1 - t0 : -1);
}

/* The attack's text: the "image" field of the job's input, base64. */
static int
attack(const char *job, char *out, size_t outsz)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char	*p, *c;
	unsigned long	 acc = 0;
	size_t		 n = 0;
	int		 bits = 0;

	if ((p = strstr(job, "\"image\"")) == NULL)
		return -1;
	for (p += 7; *p == ' ' || *p == ':'; p++)
		;
	if (*p++ != '"')
		return -1;
	for (; *p != '"' && *p != '\0' && *p != '='; p++) {
		if ((c = strchr(b64, *p)) == NULL)
			return -1;
		acc = (acc << 6) | (unsigned long)(c - b64);
		if ((bits += 6) >= 8) {
			bits -= 8;
			if (n + 1 < outsz)
				out[n++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[n] = '\0';
	return 0;
}

int
main(int argc, char *argv[])
{
	char	 build[64] = "", word[32], *job = NULL, text[256], out[600];
	size_t	 sz = 0;
	long	 arg;
	FILE	*f;

	if (argc != 2)
		return 2;
	if ((f = fopen("/sandcastle/build", "r")) != NULL) {
		if (fgets(build, sizeof(build), f) == NULL)
			build[0] = '\0';
		fclose(f);
	}
	build[strcspn(build, "\n")] = '\0';
	(void)snprintf(out, sizeof(out), "{\"type\":\"hello\",\"build\":\"%s\","
	    "\"capability\":\"%s\"}", build, argv[1]);
	line(out);
	if (getline(&job, &sz, stdin) == -1)
		return 1;
	if (attack(job, text, sizeof(text)) == -1 ||
	    sscanf(text, "SCTEST-ATTACK %31s %ld", word, &arg) != 2) {
		line("{\"type\":\"failure\",\"release\":false,\"word\":\"box\","
		    "\"error\":\"hostile: no attack in the job\"}");
		return 0;
	}
	if (strcmp(word, "hold") != 0) {
		say("limits: memory.max %s, ", cg_read("memory.max", text,
		    sizeof(text)));
		say("pids.max %s, ", cg_read("pids.max", text, sizeof(text)));
		say("cpu.max %s; ", cg_read("cpu.max", text, sizeof(text)));
	}
	if (strcmp(word, "balloon") == 0)
		balloon(arg);
	else if (strcmp(word, "fork") == 0)
		forks(arg);
	else if (strcmp(word, "cpu") == 0)
		cpu(arg);
	else if (strcmp(word, "hold") == 0) {
		sleep((unsigned int)arg);
		(void)snprintf(out, sizeof(out), "{\"type\":\"result\","
		    "\"output\":{\"text\":\"held %ld s\"}}", arg);
		line(out);
		return 0;
	} else
		say("hostile: unknown attack %s", word);
	(void)snprintf(out, sizeof(out), "{\"type\":\"failure\","
	    "\"release\":false,\"word\":\"box\",\"error\":\"%s\"}", said);
	line(out);
	return 0;
}
