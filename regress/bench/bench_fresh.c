/*
 * make bench: what a fresh process pays on this machine for the pages
 * it touches, beside what the same process pays again: the part of a
 * cold request that keepd's promise (a new process for each
 * destination, never reused: keepd(8)) leaves to the machine.
 *
 * Each child is made as keepd makes a spare: its parent gave the code
 * back (code_idle()), the child makes its heap its own and reads its
 * writable memory (heap_own()), rests 100 ms, then maps the code at once
 * (code_busy()), as a taken child does.  Then either
 * - it reads a byte of each page of libcrypto's code, twice.  No page
 *   fault is left to take (getrusage(2) counts them); what the first
 *   reading costs over the second is the machine's (a hypervisor that
 *   checks a process's new page tables pays there; bare hardware pays a
 *   TLB miss); or
 * - it makes a TLS ClientHello into memory (libtls on callbacks, no
 *   network), as a taken child's handshake begins, then a second; and
 *   the parent, which has made one before, makes one after the same
 *   rest.
 *
 * Medians of ROUNDS children of each kind.  Not a test: it prints, and exits 1 only
 * when it could not measure.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tls.h>

#include "codeidle.h"
#include "heapown.h"

#define ROUNDS	11
#define REST_US	100000

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
