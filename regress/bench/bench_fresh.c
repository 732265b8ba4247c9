/*
 * make bench: what a fresh process pays on this machine for the pages
 * it touches (a spare made as keepd makes one, against its warm parent):
 * libcrypto's code read twice, a TLS ClientHello, and with a test host
 * (bench_keep.sh) whole requests and the body.  Medians; not a test.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tls.h>

#include "atomicio.h"
#include "../../keepd/codeidle.h"
#include "heapown.h"
#include "keepbody.h"

#define ROUNDS	11
#define REST_US	100000
#define BODY_MAX	(33 * 1024 * 1024)

static const char *const libs[] = { "libcrypto.so", "libssl.so",
    "libtls.so", NULL };

/* What each child measured, written to its parent whole. */
struct fresh {
	double	 first_page, again_page;	/* µs a page of libcrypto's code */
	long	 faults;			/* in both readings */
	double	 hello, hello_again;		/* µs a ClientHello */
};

static struct tls_config *cfg;
static char		*text;
static size_t		 textlen;
static size_t		 pagesz;

/* The test host, and the warm parent's buffer for a body. */
static struct {
	const char	*addr, *name, *path, *big;
} host;
static unsigned char	*body;

static double
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static long
faults(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* libcrypto's largest executable segment. */
static int
find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Phdr)	*ph;
	uintptr_t		 lo, hi;
	int			 i;

	if (strstr(info->dlpi_name, "libcrypto.so") == NULL)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0 ||
		    ph->p_memsz <= textlen)
			continue;
		lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(pagesz - 1);
		hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) &
		    ~(uintptr_t)(pagesz - 1);
		text = (char *)lo;
		textlen = hi - lo;
	}
	return 1;
}

/* µs to read a byte of each page of the code. */
static double
read_text(void)
{
	volatile const char	*p;
	volatile char		 c;
	double			 t0 = now_us();

	for (p = text; p < text + textlen; p += pagesz)
		c = *p;
	(void)c;
	return now_us() - t0;
}

static ssize_t
hello_rcb(struct tls *tls, void *buf, size_t len, void *arg)
{
	return TLS_WANT_POLLIN;
}

static ssize_t
hello_wcb(struct tls *tls, const void *buf, size_t len, void *arg)
{
	return (ssize_t)len;
}

/* A libtls context up to the handshake, as keepd makes it. */
static struct tls *
hello_ready(void)
{
	struct tls	*t;

	if ((t = tls_client()) == NULL || tls_configure(t, cfg) == -1 ||
	    tls_connect_cbs(t, hello_rcb, hello_wcb, NULL,
	    "notes.example.com") == -1) {
		fprintf(stderr, "bench_fresh: libtls: %s\n",
		    t != NULL ? tls_error(t) : "no context");
		exit(1);
	}
	return t;
}

/* µs of the ClientHello: the handshake up to its wait for the server. */
static double
hello(struct tls *t)
{
	double	 t0 = now_us();

	if (tls_handshake(t) != TLS_WANT_POLLIN) {
		fprintf(stderr, "bench_fresh: no ClientHello: %s\n",
		    tls_error(t));
		exit(1);
	}
	t0 = now_us() - t0;
	tls_free(t);
	return t0;
}

static void
child(int fd, struct tls *ready, int pages)
{
	struct fresh	 f;
	long		 before;

	memset(&f, 0, sizeof(f));
	heap_own();
	usleep(REST_US);
	(void)code_busy(libs);
	if (pages) {
		before = faults();
		f.first_page = read_text() / (textlen / pagesz);
		f.again_page = read_text() / (textlen / pagesz);
		f.faults = faults() - before;
	} else {
		f.hello = hello(ready);
		f.hello_again = hello(hello_ready());
	}
	_exit(write(fd, &f, sizeof(f)) == sizeof(f) ? 0 : 1);
}

static int
cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp);
	return v[ROUNDS / 2];
}

static void
fail(const char *what, struct tls *t)
{
	fprintf(stderr, "bench_fresh: %s%s%s\n", what, t != NULL ? ": " : "",
	    t != NULL && tls_error(t) != NULL ? tls_error(t) : "");
	exit(1);
}

/* A new connection to the host's port 443, as a request child's tunnel. */
static int
dial(void)
{
	struct sockaddr_in	 sin;
	int			 s, one = 1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(443);
	if (inet_pton(AF_INET, host.addr, &sin.sin_addr) != 1)
		fail("the host is not an IPv4 address", NULL);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		fail(strerror(errno), NULL);
	(void)setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

/* tls_read(3) on a blocking socket, past a post-handshake message. */
static ssize_t
get_read(struct tls *t, void *buf, size_t len)
{
	ssize_t	 n;

	while ((n = tls_read(t, buf, len)) == TLS_WANT_POLLIN ||
	    n == TLS_WANT_POLLOUT)
		;
	return n;
}

/* A body's bytes: to fd as a request child lands them; with fd -1, to body. */
static void
land(int fd, size_t at, const unsigned char *p, size_t n)
{
	if (at + n > BODY_MAX)
		fail("a body over its buffer", NULL);
	if (fd == -1)
		memcpy(body + at, p, n);
	else if (write_all(fd, p, n) == -1)
		fail("the body's memfd", NULL);
}

/*
 * A GET of path on a new connection, its body landed by land(): the
 * body's length, which the test host gives as its Content-Length.
 */
static size_t
get(const char *path, int fd)
{
	static unsigned char	 buf[64 * 1024];
	struct tls		*t;
	char			 req[512], *end, *cl;
	size_t			 have = 0, len, got;
	ssize_t			 n;
	int			 s = dial();

	if ((t = tls_client()) == NULL || tls_configure(t, cfg) == -1 ||
	    tls_connect_socket(t, s, host.name) == -1)
		fail("libtls", t);
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "Connection: close\r\n\r\n", path, host.name);
	if (n < 0 || (size_t)n >= sizeof(req) || tls_write(t, req, n) != n)
		fail("the request", t);
	do {
		if (have == sizeof(buf) - 1 ||
		    (n = get_read(t, buf + have, sizeof(buf) - 1 - have)) <= 0)
			fail("the answer's head", t);
		have += n;
		buf[have] = '\0';
	} while ((end = strstr((char *)buf, "\r\n\r\n")) == NULL);
	*end = '\0';
	if (strncmp((char *)buf, "HTTP/1.1 200 ", 13) != 0 ||
	    (cl = strcasestr((char *)buf, "\r\nContent-Length:")) == NULL)
		fail("the answer is not a 200 with a length", NULL);
	len = strtoull(cl + 17, NULL, 10);
	end += 4;
	if ((got = have - (end - (char *)buf)) > len)
		fail("the answer is longer than its length", NULL);
	land(fd, 0, (unsigned char *)end, got);
	while (got < len) {
		if ((n = get_read(t, buf, len - got < sizeof(buf) ?
		    len - got : sizeof(buf))) <= 0)
			fail("the answer's body", t);
		land(fd, got, buf, n);
		got += n;
	}
	tls_free(t);
	close(s);
	return len;
}

/*
 * A spare made as keepd makes one: at rest until told to go by a byte
 * on *go, then a GET of path, its body landed to fd, and its length to
 * done unless done is -1.  keepd gives its code back before the fork;
 * here the spare does, so that the parent stays as warm as a direct
 * client (a fork copies no page table of a file's code).
 */
static pid_t
spare(const char *path, int fd, int done, int *go)
{
	size_t	 len;
	pid_t	 pid;
	int	 p[2];
	char	 c;

	if (pipe(p) == -1 || (pid = fork()) == -1)
		fail(strerror(errno), NULL);
	if (pid == 0) {
		close(p[1]);
		(void)code_idle(libs);
		heap_own();
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		(void)code_busy(libs);
		len = get(path, fd);
		_exit(done == -1 ||
		    write(done, &len, sizeof(len)) == sizeof(len) ? 0 : 1);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void
spare_wait(pid_t pid)
{
	int	 st = 0;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench_fresh: a spare failed: %s %d\n",
		    WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ?
		    WTERMSIG(st) : WEXITSTATUS(st));
		exit(1);
	}
}

/*
 * A GET made by a spare after the rest, its body landed in a memfd as a
 * request child lands one: µs from the word to the parent's reading of
 * the body, and of that reading in *reading.  Its length in *len.
 */
static double
spare_get(const char *path, size_t *len, double *reading)
{
	double	 t0, t1;
	void	*none;
	pid_t	 pid;
	int	 go, done[2], fd;

	if ((fd = keepbody_open(0, &none)) == -1 || pipe(done) == -1)
		fail(strerror(errno), NULL);
	pid = spare(path, fd, done[1], &go);
	close(done[1]);
	heap_own();
	usleep(REST_US);
	t0 = now_us();
	if (write(go, "g", 1) != 1 ||
	    read(done[0], len, sizeof(*len)) != sizeof(*len) || *len == 0)
		fail("the spare gave no length", NULL);
	t1 = now_us();
	if (keepbody_read(fd, body, *len) == -1)
		fail("the spare's memfd", NULL);
	*reading = now_us() - t1;
	t0 = now_us() - t0;
	spare_wait(pid);
	close(go);
	close(done[0]);
	close(fd);
	return t0;
}

/*
 * The same GET of a body made by a spare that writes the body to a pipe
 * as it comes, while the parent reads it as it comes: a handing over
 * that overlaps the transfer, as a streamed answer would.  µs from the
 * word to the body's last byte read.
 */
static double
spare_stream(const char *path, size_t *len)
{
	double	 t0;
	ssize_t	 n;
	pid_t	 pid;
	int	 go, stream[2];

	if (pipe(stream) == -1 ||
	    fcntl(stream[1], F_SETPIPE_SZ, 1024 * 1024) == -1)
		fail(strerror(errno), NULL);
	pid = spare(path, stream[1], -1, &go);
	close(stream[1]);
	heap_own();
	usleep(REST_US);
	t0 = now_us();
	if (write(go, "g", 1) != 1)
		fail("the spare is gone", NULL);
	*len = 0;
	while ((n = read(stream[0], body + *len, BODY_MAX - *len)) > 0)
		*len += n;
	t0 = now_us() - t0;
	if (n == -1 || *len == 0)
		fail("the spare's stream", NULL);
	spare_wait(pid);
	close(go);
	close(stream[0]);
	return t0;
}

/* The same GET in this process, warm, after the same rest. */
static double
warm_get(const char *path, size_t *len)
{
	double	 t0;

	usleep(REST_US);
	t0 = now_us();
	*len = get(path, -1);
	return now_us() - t0;
}

/* A spare's requests against its warm parent's, interleaved. */
static void
requests(void)
{
	double	 sp[ROUNDS], wp[ROUNDS], sb[ROUNDS], wb[ROUNDS], rb[ROUNDS];
	double	 ss[ROUNDS], r;
	size_t	 len, biglen = 0;
	int	 i;

	/* The parent's alone: a spare lands its body in a memfd. */
	body = mmap(NULL, BODY_MAX, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (body == MAP_FAILED || madvise(body, BODY_MAX, MADV_DONTFORK) == -1)
		fail(strerror(errno), NULL);
	memset(body, 0, BODY_MAX);
	(void)get(host.path, -1);
	(void)get(host.big, -1);
	for (i = 0; i < ROUNDS; i++) {
		sp[i] = spare_get(host.path, &len, &r);
		wp[i] = warm_get(host.path, &len);
		sb[i] = spare_get(host.big, &biglen, &rb[i]);
		wb[i] = warm_get(host.big, &biglen);
		ss[i] = spare_stream(host.big, &biglen);
	}
	printf("bench: a GET on a new connection by address, each after %d ms "
	    "at rest (median of %d): in a spare made as keepd makes one %.2f "
	    "ms, in its warm parent %.2f ms; ratio %.2f: what a new process "
	    "for each request costs here, before any hop (the cold request's "
	    "goal: at most 1.10)\n", REST_US / 1000, ROUNDS,
	    median(sp) / 1e3, median(wp) / 1e3, median(sp) / median(wp));
	printf("bench: a %zu MiB body on a new connection (median of %d): "
	    "landed by a spare in a memfd and read by its parent %.1f MiB/s "
	    "(%.1f ms, of which the parent's reading %.1f ms), read by the "
	    "warm parent alone %.1f MiB/s (%.1f ms); ratio %.2f: what handing "
	    "a body from the process that decrypted it to another costs here "
	    "(the body's goal: at least 0.90)\n", biglen >> 20, ROUNDS,
	    biglen / (median(sb) / 1e6) / (1 << 20), median(sb) / 1e3,
	    median(rb) / 1e3, biglen / (median(wb) / 1e6) / (1 << 20),
	    median(wb) / 1e3, median(wb) / median(sb));
	printf("bench: the same body streamed by a spare through a pipe and "
	    "read by its parent as it comes (median of %d): %.1f MiB/s (%.1f "
	    "ms); ratio to the warm parent %.2f: the same, handed over while "
	    "it is received\n", ROUNDS, biglen / (median(ss) / 1e6) /
	    (1 << 20), median(ss) / 1e3, median(wb) / median(ss));
}

int
main(int argc, char *argv[])
{
	struct fresh	 f;
	double		 first[ROUNDS], again[ROUNDS], h[ROUNDS], ha[ROUNDS],
			 warm[ROUNDS];
	const char	*ca = argc > 1 ? argv[1] : tls_default_ca_cert_file();
	uint8_t		*mem;
	size_t		 len;
	long		 nfaults = 0;
	pid_t		 pid;
	int		 p[2], i, st;

	if (argc != 1 && argc != 2 && argc != 6) {
		fprintf(stderr, "usage: bench_fresh [CA [ADDRESS NAME PATH "
		    "BIG]]\n");
		return 1;
	}
	heap_mark();
	if (tls_init() == -1 || (cfg = tls_config_new()) == NULL ||
	    (mem = tls_load_file(ca, &len, NULL)) == NULL ||
	    tls_config_set_ca_mem(cfg, mem, len) == -1) {
		fprintf(stderr, "bench_fresh: %s: cannot make TLS ready\n", ca);
		return 1;
	}
	(void)hello(hello_ready());
	pagesz = (size_t)sysconf(_SC_PAGESIZE);
	dl_iterate_phdr(find_text, NULL);
	if (textlen == 0) {
		fprintf(stderr, "bench_fresh: libcrypto's code not found\n");
		return 1;
	}
	if (argc == 6) {
		host.addr = argv[2];
		host.name = argv[3];
		host.path = argv[4];
		host.big = argv[5];
		requests();
		return 0;
	}
	for (i = 0; i < 2 * ROUNDS; i++) {
		struct tls	*ready = hello_ready();
		int		 pages = i % 2;

		(void)code_idle(libs);
		if (pipe(p) == -1 || (pid = fork()) == -1) {
			perror("bench_fresh");
			return 1;
		}
		if (pid == 0) {
			close(p[0]);
			child(p[1], ready, pages);
		}
		close(p[1]);
		heap_own();
		if (read(p[0], &f, sizeof(f)) != sizeof(f) ||
		    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			fprintf(stderr, "bench_fresh: a child failed\n");
			return 1;
		}
		close(p[0]);
		tls_free(ready);
		if (pages) {
			first[i / 2] = f.first_page;
			again[i / 2] = f.again_page;
			nfaults += f.faults;
			continue;
		}
		h[i / 2] = f.hello;
		ha[i / 2] = f.hello_again;
		usleep(REST_US);
		(void)code_busy(libs);
		warm[i / 2] = hello(hello_ready());
	}
	printf("bench: a fresh process, libcrypto's code mapped at once "
	    "(%zu pages, %ld faults left in %d children): the first reading "
	    "of a page %.2f us, again %.3f us (median of %d)\n",
	    textlen / pagesz, nfaults, ROUNDS, median(first), median(again),
	    ROUNDS);
	printf("bench: a ClientHello in a fresh process made as keepd makes a "
	    "spare, after %d ms at rest: %.0f us; a second in the same "
	    "process %.0f us; in the parent, after the same rest, %.0f us: "
	    "the fresh process's part %.0f us\n", REST_US / 1000, median(h),
	    median(ha), median(warm), median(h) - median(warm));
	return 0;
}
