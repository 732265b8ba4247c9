/*
 * After fork(2) the heap is shared copy-on-write, and the first write to
 * each page costs its fault and its copy: some 70 pages, half a
 * millisecond, in a request's TLS handshake and answer.  A spare makes
 * them its own while it waits (MADV_POPULATE_WRITE), so that the request
 * it is given later does not.  Only the pages the parent has touched
 * (mincore(2)) are copied: the cost is the parent's heap once more, at
 * rest.  The parent does the same after the fork, for the pages it
 * writes at the next request's start (keepd: some fifteen faults of its
 * own, each costing a trip through the kernel's fault path); a page the
 * spare has already made its own is the parent's alone, and is only made
 * writable again.  Speed alone: a kernel without it (before Linux 5.14)
 * leaves the faults to the request.
 */
#include <sys/types.h>
#include <sys/mman.h>

#include <stdint.h>
#include <unistd.h>

#include "heapown.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#define HEAPOWN_CHUNK		512	/* pages asked of mincore(2) at once */

static uintptr_t	heap_start;

void
heap_mark(void)
{
	heap_start = (uintptr_t)sbrk(0);
}

/* The resident run from page i of vec, as one call. */
static int
heap_populate(uintptr_t base, const unsigned char *vec, size_t n, size_t pg)
{
	size_t	 i = 0, run;

	while (i < n) {
		if (!(vec[i] & 1)) {
			i++;
			continue;
		}
		for (run = 1; i + run < n && (vec[i + run] & 1); run++)
			;
		if (madvise((void *)(base + i * pg), run * pg,
		    MADV_POPULATE_WRITE) == -1)
			return -1;
		i += run;
	}
	return 0;
}

void
heap_own(void)
{
	unsigned char	 vec[HEAPOWN_CHUNK];
	size_t		 pg = (size_t)sysconf(_SC_PAGESIZE), n;
	uintptr_t	 a, end;

	if (heap_start == 0)
		return;
	a = heap_start & ~(uintptr_t)(pg - 1);
	end = ((uintptr_t)sbrk(0) + pg - 1) & ~(uintptr_t)(pg - 1);
	for (; a < end; a += n * pg) {
		n = (end - a) / pg;
		if (n > HEAPOWN_CHUNK)
			n = HEAPOWN_CHUNK;
		if (mincore((void *)a, n * pg, vec) == -1 ||
		    heap_populate(a, vec, n, pg) == -1)
			return;
	}
}
