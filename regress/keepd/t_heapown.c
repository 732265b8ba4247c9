/*
 * A spare's heap_own(): the heap pages its parent touched become the
 * spare's own before a request comes, so that writing them then costs
 * no fault; the pages the parent never touched stay unmade.  Proved by
 * the kernel's count of the child's minor faults (getrusage(2)) and by
 * mincore(2).  The control is the same child without heap_own(), which
 * pays a fault a page.  keepd does the same once a spare is forked: the
 * pages, its own again once the spare copied them, are still
 * write-protected from the fork (parent_pages).  Then heap_own() reads
 * the resident pages of the process's writable memory, so that a machine
 * that charges a new process for its first touch of each page (a PVM
 * guest) charges it at rest; it reads them and makes none: the kernel's
 * referenced count of a .bss region after clear_refs, and mincore(2)
 * (read_resident).
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "heapown.h"

#define PAGES	64

/* The heap grown by PAGES from a page's start, the first half touched. */
static char *
heap_grown(size_t pg)
{
	char	*heap;

	heap_mark();
	ATF_REQUIRE((heap = sbrk(0)) != (void *)-1);
	heap = (char *)(((uintptr_t)heap + pg - 1) & ~(uintptr_t)(pg - 1));
	ATF_REQUIRE(brk(heap + PAGES * pg) == 0);
	memset(heap, 1, PAGES / 2 * pg);
	return heap;
}

/*
 * The heap grown by PAGES, the first half touched; then a child writes
 * every touched page and exits with the faults it took, or 255 when a
 * page it never touched was made.
 */
static int
child_faults(int own)
{
	unsigned char	 vec[PAGES / 2];
	struct rusage	 ru;
	long		 before;
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE), i;
	char		*heap;
	pid_t		 pid;
	int		 st;

	heap = heap_grown(pg);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (own)
			heap_own();
		if (mincore(heap + PAGES / 2 * pg, PAGES / 2 * pg, vec) == -1)
			_exit(254);
		for (i = 0; i < PAGES / 2; i++)
			if (vec[i] & 1)
				_exit(255);
		getrusage(RUSAGE_SELF, &ru);
		before = ru.ru_minflt;
		for (i = 0; i < PAGES / 2; i++)
			heap[i * pg] = 2;
		getrusage(RUSAGE_SELF, &ru);
		_exit(ru.ru_minflt - before > 200 ? 200 :
		    (int)(ru.ru_minflt - before));
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_REQUIRE(brk(heap) == 0);
	ATF_REQUIRE(WIFEXITED(st));
	ATF_REQUIRE_MSG(WEXITSTATUS(st) != 255, "a page the parent never "
	    "touched was made");
	ATF_REQUIRE(WEXITSTATUS(st) != 254);
	return WEXITSTATUS(st);
}

/*
 * keepd after a spare's fork: the spare makes the pages its own, then
 * keepd writes the touched pages and counts its own faults.  Shared no
 * more, they are still write-protected from the fork, a fault each,
 * unless keepd has made them its own too.
 */
static int
parent_faults(int own)
{
	struct rusage	 ru;
	long		 before;
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE), i;
	char		*heap, c;
	pid_t		 pid;
	int		 up[2], down[2], st;

	heap = heap_grown(pg);
	ATF_REQUIRE(pipe(up) == 0 && pipe(down) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		heap_own();
		if (write(up[1], "r", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ATF_REQUIRE(read(up[0], &c, 1) == 1);
	if (own)
		heap_own();
	getrusage(RUSAGE_SELF, &ru);
	before = ru.ru_minflt;
	for (i = 0; i < PAGES / 2; i++)
		heap[i * pg] = 3;
	getrusage(RUSAGE_SELF, &ru);
	ATF_REQUIRE(write(down[1], "x", 1) == 1);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	ATF_REQUIRE(brk(heap) == 0);
	return (int)(ru.ru_minflt - before);
}

/* A region of .bss, a writable segment of this program, its own mapping. */
#define BSS_PAGES	128
static _Alignas(4096) char	bss[BSS_PAGES * 4096];

/* The kernel's referenced kB of the mapping that holds p, or -1. */
static long
referenced_kb(const void *p)
{
	char		 line[256];
	unsigned long	 lo, hi;
	long		 kb = -1;
	int		 in = 0;
	FILE		*f;

	if ((f = fopen("/proc/self/smaps", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* A mapping's first line; its fields' names are not hex-hex. */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "Referenced: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/*
 * The first half of bss touched here, then a child clears its pages'
 * referenced bits (clear_refs), runs heap_own() or not, and exits with
 * the pages of bss's mapping referenced since, or 255 when a page never
 * touched was made.
 */
static int
child_referenced(int own)
{
	unsigned char	 vec[BSS_PAGES / 2];
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE), i;
	long		 kb;
	pid_t		 pid;
	int		 fd, st;

	ATF_REQUIRE(pg == 4096);
	heap_mark();
	memset(bss, 1, sizeof(bss) / 2);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("/proc/self/clear_refs", O_WRONLY)) == -1 ||
		    write(fd, "1", 1) != 1)
			_exit(254);
		close(fd);
		if (own)
			heap_own();
		if (mincore(bss + sizeof(bss) / 2, sizeof(bss) / 2, vec) == -1)
			_exit(254);
		for (i = 0; i < BSS_PAGES / 2; i++)
			if (vec[i] & 1)
				_exit(255);
		if ((kb = referenced_kb(bss + sizeof(bss) / 2)) < 0)
			_exit(254);
		_exit(kb / 4 > 200 ? 200 : (int)(kb / 4));
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_REQUIRE(WIFEXITED(st));
	ATF_REQUIRE_MSG(WEXITSTATUS(st) != 255, "a page never touched was "
	    "made");
	ATF_REQUIRE_MSG(WEXITSTATUS(st) != 254, "no clear_refs, mincore(2) "
	    "or smaps");
	return WEXITSTATUS(st);
}

ATF_TC_WITHOUT_HEAD(read_resident);
ATF_TC_BODY(read_resident, tc)
{
	int	 n;

	n = child_referenced(1);
	ATF_CHECK_MSG(n >= BSS_PAGES / 2, "%d of the %d resident pages of "
	    ".bss read", n, BSS_PAGES / 2);
	/* Control: without it, the child has read next to none of them. */
	n = child_referenced(0);
	ATF_CHECK_MSG(n < BSS_PAGES / 8, "%d pages of .bss read without "
	    "heap_own()", n);
}

ATF_TC_WITHOUT_HEAD(parent_pages);
ATF_TC_BODY(parent_pages, tc)
{
	int	 n;

	n = parent_faults(1);
	ATF_CHECK_MSG(n <= 2, "%d faults on %d pages made its own", n,
	    PAGES / 2);
	/* Control: without it, a fault a page. */
	n = parent_faults(0);
	ATF_CHECK_MSG(n >= PAGES / 2, "%d faults on %d write-protected pages",
	    n, PAGES / 2);
}

ATF_TC_WITHOUT_HEAD(own_pages);
ATF_TC_BODY(own_pages, tc)
{
	int	 n;

	n = child_faults(1);
	ATF_CHECK_MSG(n <= 2, "%d faults on %d pages made its own", n,
	    PAGES / 2);
}

ATF_TC_WITHOUT_HEAD(control);
ATF_TC_BODY(control, tc)
{
	int	 n;

	n = child_faults(0);
	ATF_CHECK_MSG(n >= PAGES / 2, "%d faults on %d shared pages", n,
	    PAGES / 2);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, own_pages);
	ATF_TP_ADD_TC(tp, control);
	ATF_TP_ADD_TC(tp, parent_pages);
	ATF_TP_ADD_TC(tp, read_resident);
	return atf_no_error();
}
