/*
 * A spare's heap_own(): the heap pages its parent touched become the
 * spare's own before a request comes, so that writing them then costs
 * no fault; the pages the parent never touched stay unmade.  Proved by
 * the kernel's count of the child's minor faults (getrusage(2)) and by
 * mincore(2).  The control is the same child without heap_own(), which
 * pays a fault a page.  keepd does the same once a spare is forked: the
 * pages, its own again once the spare copied them, are still
 * write-protected from the fork (parent_pages).
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <stdint.h>
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
	return atf_no_error();
}
