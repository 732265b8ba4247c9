/*
 * heap_own(), by the kernel's counts: the pages a parent touched cost a
 * spare no fault afterwards (getrusage(2), against a control without
 * it), the untouched stay unmade (mincore(2)), resident pages are read
 * and none made, nothing past the stack's start is read.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
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

/*
 * A trap just above the stack's mapping: two pages of a memfd, in the
 * page cache, mapped PROT_NONE, so that mincore(2) calls them resident
 * (as it calls an older kernel's vvar pages there) and a read of one is
 * SIGSEGV.  The child runs heap_own(), or reads the trap itself (read),
 * and exits 0; 250 and up say the layout does not allow the test.
 */
static int
child_trap(int read)
{
	char		 line[256], c = 0;
	unsigned long	 lo, hi = 0;
	unsigned char	 vec[2];
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE);
	/* The frame, on the stack where AddressSanitizer keeps locals apart. */
	uintptr_t	 sp = (uintptr_t)__builtin_frame_address(0);
	FILE		*f;
	char		*trap;
	pid_t		 pid;
	int		 fd, st;

	heap_mark();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((f = fopen("/proc/self/maps", "r")) == NULL)
			_exit(250);
		while (fgets(line, sizeof(line), f) != NULL)
			if (strstr(line, "[stack]") != NULL &&
			    sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
				break;
		fclose(f);
		/* heap_own() reads as far as 64 pages about its frame. */
		if (hi == 0 || hi < sp || hi - sp > 56 * pg)
			_exit(251);
		if ((fd = memfd_create("trap", 0)) == -1 ||
		    ftruncate(fd, (off_t)(2 * pg)) == -1 ||
		    pwrite(fd, "trap", 4, 0) != 4 ||
		    pwrite(fd, "trap", 4, (off_t)pg) != 4)
			_exit(252);
		trap = mmap((void *)hi, 2 * pg, PROT_NONE,
		    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		if (trap != (void *)hi)
			_exit(253);
		if (mincore(trap, 2 * pg, vec) == -1 || !(vec[0] & vec[1] & 1))
			_exit(254);
		/* The kernel's signal, not AddressSanitizer's report. */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		if (read)
			c = *(volatile char *)trap;
		else
			heap_own();
		_exit(c);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 250)
		atf_tc_skip("no trap above the stack (%d): the stack's top not "
		    "near, or something mapped there", WEXITSTATUS(st));
	return st;
}

ATF_TC_WITHOUT_HEAD(stack_top);
ATF_TC_BODY(stack_top, tc)
{
	int	 st;

	st = child_trap(0);
	ATF_CHECK_MSG(!WIFSIGNALED(st), "heap_own() read the trap above the "
	    "stack's start: signal %d", WTERMSIG(st));
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Control: a read of the trap is SIGSEGV. */
	st = child_trap(1);
	ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "the trap "
	    "read, status %#x", st);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, own_pages);
	ATF_TP_ADD_TC(tp, control);
	ATF_TP_ADD_TC(tp, parent_pages);
	ATF_TP_ADD_TC(tp, read_resident);
	ATF_TP_ADD_TC(tp, stack_top);
	return atf_no_error();
}
