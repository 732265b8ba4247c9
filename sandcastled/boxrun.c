/* One box: podman run with its three pipes, the lines moved within its
 * bounds and time; one that overran is removed and confirmed gone. */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boxrun.h"
#include "deadline.h"
#include "log.h"
#include "podman.h"
#include "profile.h"

#define BOX_CHUNK	65536
#define BOX_REAP_MS	10

static char	 box_build[BUILD_ID_LEN + 1];
static int	 box_cgroup;
static int	 box_profile_fd = -1;
static const volatile sig_atomic_t *box_stop_flag;
static int	 box_stop_fd = -1;

static int	 box_pump(struct box *, int);
static void	 box_read_err(struct box *);
static int	 box_read_out(struct box *);
static void	 box_reap(struct box *, int);
static void	 box_remove(struct box *, struct box_end *);
static void	 box_decode(const struct box *, struct box_end *);

int
box_init(const char *build, char *why, size_t whysz)
{
	if (podman_init(why, whysz) == -1)
		return -1;
	if (box_profile_fd == -1 &&
	    (box_profile_fd = box_profile(why, whysz)) == -1)
		return -1;
	(void)strlcpy(box_build, build, sizeof(box_build));
	box_cgroup = box_cgroup_layer();
	return 0;
}

/*
 * Before the filter: under no_new_privs the setuid newuidmap cannot write
 * a uid_map; once podman's pause process holds the namespace, none is needed.
 */
int
box_prepare(char *why, size_t whysz)
{
	const char	*args[] = { "unshare", "true", NULL };
	char		 out[512];
	int		 status;

	if (podman_cmd(args, out, sizeof(out), &status) == -1) {
		(void)snprintf(why, whysz, "%s: %s", podman_path(),
		    strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	out[strcspn(out, "\n")] = '\0';
	(void)snprintf(why, whysz, "podman unshare true failed (%s): rootless "
	    "podman cannot make its user namespace; check /etc/subuid and "
	    "/etc/subgid for this account, then run podman system migrate",
	    out);
	return -1;
}

int
box_params_init(struct box_params *p, const char *image, const char *word,
    enum box_role role, const struct box_limits *limits, uint32_t timeout,
    uint64_t max_output)
{
	memset(p, 0, sizeof(*p));
	if (strlcpy(p->image, image, sizeof(p->image)) >= sizeof(p->image))
		return -1;
	p->word = word;
	p->role = role;
	p->limits = *limits;
	p->timeout = timeout > 0 ? timeout : 1;
	p->max_line = max_output;
	p->max_total = max_output > UINT64_MAX / 4 ? UINT64_MAX :
	    max_output * 4;
	p->cgroup = box_cgroup;
	return 0;
}

struct box *
box_start(enum cap_id cap, enum box_role role,
    const struct box_limits *limits, uint32_t timeout, uint64_t max_output)
{
	struct box_params	 p;
	struct box		*b;
	char			 image[PODMAN_IMAGE_LEN + 1];
	char			 name[BOX_NAME_LEN + 1];
	char			**argv;

	podman_image_name(cap, box_build, image, sizeof(image));
	if (box_params_init(&p, image, cap_name(cap), role, limits, timeout,
	    max_output) == -1)
		return NULL;
	podman_box_name(name, role);
	argv = podman_run_argv(&p, name);
	b = box_spawn(&p, argv, name);
	podman_argv_free(argv);
	return b;
}

static int
box_pipes(int fds[6])
{
	int	 i;

	for (i = 0; i < 3; i++)
		if (pipe2(fds + 2 * i, O_CLOEXEC) == -1)
			return -1;
	return 0;
}

/* Parent-death SIGTERM, passed on to the box: none outlives a killed launcher. */
static __attribute__((noreturn)) void
box_exec(char *const argv[], const int fds[6], pid_t parent)
{
	sigset_t	 none;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)signal(SIGPIPE, SIG_DFL);
	(void)signal(SIGHUP, SIG_DFL);
	(void)signal(SIGINT, SIG_DFL);
	if (dup2(fds[0], 0) == -1 || dup2(fds[3], 1) == -1 ||
	    dup2(fds[5], 2) == -1 ||
	    dup2(box_profile_fd, BOX_PROFILE_FD) == -1)
		_exit(127);
	closefrom(BOX_PROFILE_FD + 1);
	execve(argv[0], argv, podman_env());
	_exit(127);
}

struct box *
box_spawn(const struct box_params *p, char *const argv[], const char *name)
{
	struct box	*b;
	pid_t		 self = getpid();
	int		 fds[6] = { -1, -1, -1, -1, -1, -1 }, e, i;

	if ((b = calloc(1, sizeof(*b))) == NULL || box_pipes(fds) == -1)
		goto fail;
	if ((b->pid = fork()) == -1)
		goto fail;
	if (b->pid == 0)
		box_exec(argv, fds, self);
	close(fds[0]);
	close(fds[3]);
	close(fds[5]);
	b->in = fds[1];
	b->out = fds[2];
	b->err = fds[4];
	(void)fcntl(b->in, F_SETFL, O_NONBLOCK);
	(void)fcntl(b->out, F_SETFL, O_NONBLOCK);
	(void)fcntl(b->err, F_SETFL, O_NONBLOCK);
	(void)strlcpy(b->name, name, sizeof(b->name));
	b->max_line = p->max_line;
	b->max_total = p->max_total;
	deadline_set(&b->deadline, p->timeout);
	b->timeout = p->timeout;
	return b;
fail:
	e = errno;
	for (i = 0; i < 6; i++)
		if (fds[i] != -1)
			close(fds[i]);
	free(b);
	errno = e;
	return NULL;
}


static void
box_read_err(struct box *b)
{
	char	 sink[BOX_CHUNK];
	ssize_t	 n;

	for (;;) {
		if (b->errlen < sizeof(b->errhead))
			n = read(b->err, b->errhead + b->errlen,
			    sizeof(b->errhead) - b->errlen);
		else
			n = read(b->err, sink, sizeof(sink));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(b->err);
			b->err = -1;
			return;
		}
		if (b->errlen < sizeof(b->errhead))
			b->errlen += n;
	}
}

static int
box_read_out(struct box *b)
{
	ssize_t	 n;

	if (b->taken > 0) {
		memmove(b->buf, b->buf + b->taken, b->buflen - b->taken);
		b->buflen -= b->taken;
		b->taken = 0;
	}
	if (b->bufsz - b->buflen < BOX_CHUNK) {
		if ((b->buf = realloc(b->buf, b->buflen + BOX_CHUNK + 1)) == NULL)
			fatal("box: stdout");
		b->bufsz = b->buflen + BOX_CHUNK;
	}
	while ((n = read(b->out, b->buf + b->buflen, b->bufsz - b->buflen)) ==
	    -1 && errno == EINTR)
		;
	if (n == -1 && errno == EAGAIN)
		return 0;
	if (n <= 0) {
		close(b->out);
		b->out = -1;
		return 0;
	}
	b->buflen += n;
	b->total += n;
	return 0;
}

void
box_stop_when(const volatile sig_atomic_t *flag, int fd)
{
	box_stop_flag = flag;
	box_stop_fd = fd;
}

static int
box_stopped(struct box *b, short hup)
{
	int	 gone = (hup & (POLLHUP | POLLERR)) != 0;

	if (!gone && (box_stop_flag == NULL || !*box_stop_flag))
		return 0;
	b->stopped = 1;
	(void)snprintf(b->why, sizeof(b->why), "%s", gone ? "sandcastled's "
	    "parent is gone" : "sandcastled is stopping");
	return 1;
}

static int
box_poll(struct pollfd *pfd, nfds_t n, int ms)
{
	struct timespec	 ts = { ms / 1000, (ms % 1000) * 1000000L };
	sigset_t	 none;

	if (box_stop_flag == NULL)
		return poll(pfd, n, ms);
	sigemptyset(&none);
	return ppoll(pfd, n, &ts, &none);
}

static int
box_pump(struct box *b, int writing)
{
	struct pollfd	 pfd[4];
	int		 n, i;

	if (b->timed_out || b->failed || b->stopped)
		return -1;
	pfd[0].fd = writing ? b->in : -1;
	pfd[0].events = POLLOUT;
	pfd[1].fd = writing && b->buflen - b->taken > b->max_line ? -1 : b->out;
	pfd[1].events = POLLIN;
	pfd[2].fd = b->err;
	pfd[2].events = POLLIN;
	pfd[3].fd = box_stop_fd;
	pfd[3].events = 0;
	if ((n = box_poll(pfd, 4, deadline_ms(&b->deadline))) == -1) {
		if (errno != EINTR)
			fatal("box: poll");
		for (i = 0; i < 4; i++)
			pfd[i].revents = 0;
	}
	if (box_stopped(b, pfd[3].revents))
		return -1;
	if (n == 0) {
		b->timed_out = 1;
		(void)snprintf(b->why, sizeof(b->why), "the box ran past its "
		    "time");
		return -1;
	}
	if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
		box_read_err(b);
	if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
		return box_read_out(b);
	return 0;
}

int
box_write_line(struct box *b, const char *line, size_t len)
{
	struct iovec	 iov[2] = {
		{ (void *)line, len }, { "\n", 1 }
	};
	ssize_t		 n;

	if (b->in == -1 || memchr(line, '\n', len) != NULL) {
		errno = EINVAL;
		return -1;
	}
	while (iov[1].iov_len > 0) {
		if (box_pump(b, 1) == -1)
			return -1;
		if ((n = writev(b->in, iov[0].iov_len ? iov : iov + 1,
		    iov[0].iov_len ? 2 : 1)) == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			(void)snprintf(b->why, sizeof(b->why), "the box's stdin: "
			    "%s", strerror(errno));
			return -1;
		}
		if ((size_t)n >= iov[0].iov_len) {
			n -= iov[0].iov_len;
			iov[0].iov_len = 0;
			iov[1].iov_len -= n;
		} else {
			iov[0].iov_base = (char *)iov[0].iov_base + n;
			iov[0].iov_len -= n;
		}
	}
	return 0;
}

int
box_close_input(struct box *b)
{
	if (b->in != -1 && close(b->in) == -1)
		return -1;
	b->in = -1;
	return 0;
}

/* The line without its newline, good until the next call: 1, 0 at EOF, -1. */
static int
box_take_line(struct box *b, const char **line, size_t *len)
{
	char	*start = b->buf != NULL ? b->buf + b->taken : NULL, *nl;
	size_t	 have = b->buflen - b->taken;

	if (have > 0 && (nl = memchr(start, '\n', have)) != NULL) {
		if ((size_t)(nl - start) > b->max_line)
			goto toolong;
		*nl = '\0';
		*line = start;
		*len = nl - start;
		b->taken += *len + 1;
		return 1;
	}
	if (have > b->max_line)
		goto toolong;
	/* Lines within max_output each, but more of them than a box says. */
	if (b->total > b->max_total) {
		(void)snprintf(b->why, sizeof(b->why), "the box wrote more than "
		    "%llu bytes", (unsigned long long)b->max_total);
		b->failed = 1;
		return -1;
	}
	if (b->out == -1 && have > 0) {
		(void)snprintf(b->why, sizeof(b->why), "the box's last line has "
		    "no newline");
		b->failed = 1;
		return -1;
	}
	return b->out == -1 ? 0 : 2;
toolong:
	(void)snprintf(b->why, sizeof(b->why), "a line from the box is longer "
	    "than max_output (%llu bytes)", (unsigned long long)b->max_line);
	b->failed = 1;
	return -1;
}

int
box_read_line(struct box *b, const char **line, size_t *len)
{
	int	 r;

	for (;;) {
		if (b->failed || b->timed_out || b->stopped)
			return -1;
		if ((r = box_take_line(b, line, len)) != 2)
			return r;
		if (box_pump(b, 0) == -1)
			return -1;
	}
}

/* podman ends a few ms after the box's last line: the first naps are short. */
static void
box_reap(struct box *b, int wait_ms)
{
	struct timespec	 nap = { 0, 0 };
	pid_t		 r;
	int		 ms = 1;

	for (;;) {
		r = waitpid(b->pid, &b->status, WNOHANG);
		if (r == b->pid || (r == -1 && errno != EINTR)) {
			b->pid = -1;
			return;
		}
		if (wait_ms <= 0)
			return;
		nap.tv_nsec = ms * 1000000L;
		nanosleep(&nap, NULL);
		wait_ms -= ms;
		ms = ms * 2 < BOX_REAP_MS ? ms * 2 : BOX_REAP_MS;
	}
}

/*
 * conmon keeps the box alive after podman run ends; one that will not go is
 * fatal: no other box may start beside it.
 */
static void
box_remove(struct box *b, struct box_end *o)
{
	if (b->pid != -1) {
		(void)kill(b->pid, SIGKILL);
		while (waitpid(b->pid, &b->status, 0) == -1 && errno == EINTR)
			;
		b->pid = -1;
	}
	if (podman_rm(b->name) == -1)
		fatalx("box %s: still there after podman rm -f: remove it "
		    "with podman rm -f %s before sandcastled starts again",
		    b->name, b->name);
	o->removed = 1;
}

static void
box_decode(const struct box *b, struct box_end *o)
{
	if (WIFSIGNALED(b->status)) {
		o->signal = WTERMSIG(b->status);
		return;
	}
	o->exited = 1;
	o->code = WEXITSTATUS(b->status);
	/* 125: podman could not make it; 126, 127: its command could not run. */
	if (o->code >= 125 && o->code <= 127) {
		o->release = 1;
		if (o->why[0] == '\0')
			(void)snprintf(o->why, sizeof(o->why), "podman could "
			    "not run the box (exit %d): release and rest",
			    o->code);
	} else if (o->code > 128) {
		/* 137: the kernel's OOM kill, or any SIGKILL. */
		o->signal = o->code - 128;
		if (o->why[0] == '\0')
			(void)snprintf(o->why, sizeof(o->why), "the box was "
			    "killed by signal %d (memory, processes or its "
			    "cpu time)", o->code - 128);
	} else if (o->code != 0 && o->why[0] == '\0')
		(void)snprintf(o->why, sizeof(o->why), "the box exited with %d",
		    o->code);
}

void
box_drain(struct box *b)
{
	(void)box_close_input(b);
	while (!b->failed && !b->timed_out && !b->stopped &&
	    (b->out != -1 || b->err != -1)) {
		b->taken = b->buflen;
		(void)box_pump(b, 0);
	}
}

/* So the box sees its stdin end when the reader closes it. */
void
box_hand_off(struct box *b)
{
	(void)box_close_input(b);
	if (b->out != -1)
		close(b->out);
	if (b->err != -1)
		close(b->err);
	b->out = b->err = -1;
}

int
box_await(struct box *b, int fd)
{
	struct pollfd	 pfd[2];
	int		 n;

	if (b->timed_out || b->failed || b->stopped)
		return -1;
	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = box_stop_fd;
	pfd[1].events = 0;
	if ((n = box_poll(pfd, 2, deadline_ms(&b->deadline))) == -1) {
		if (errno != EINTR)
			fatal("box: poll");
		pfd[0].revents = pfd[1].revents = 0;
	}
	if (box_stopped(b, pfd[1].revents))
		return -1;
	if (n == 0) {
		b->timed_out = 1;
		(void)snprintf(b->why, sizeof(b->why), "the box ran past its "
		    "time");
		return -1;
	}
	return (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) ? 1 : 0;
}

void
box_finish(struct box *b, struct box_end *o)
{
	memset(o, 0, sizeof(*o));
	box_drain(b);
	if (!b->failed && !b->timed_out && !b->stopped) {
		box_reap(b, deadline_ms(&b->deadline));
		if (b->pid != -1) {
			b->timed_out = 1;
			(void)snprintf(b->why, sizeof(b->why), "the box ran past "
			    "its time");
		}
	}
	if (b->failed || b->timed_out || b->stopped)
		box_remove(b, o);
	(void)strlcpy(o->why, b->why, sizeof(o->why));
	o->timed_out = b->timed_out;
	o->stopped = b->stopped;
	o->output_failed = b->failed;
	box_decode(b, o);
	memcpy(o->errhead, b->errhead, b->errlen);
	o->errlen = b->errlen;
	if (b->out != -1)
		close(b->out);
	if (b->err != -1)
		close(b->err);
	free(b->buf);
	free(b);
}
