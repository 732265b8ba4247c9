/*
 * heap_own(): a spare, or keepd after its fork, makes the parent's heap
 * pages its own at rest, before a request pays the copy-on-write faults.
 */
#include <sys/types.h>
#include <sys/mman.h>

#include <link.h>
#include <stdint.h>
#include <unistd.h>

#include "heapown.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#define HEAPOWN_CHUNK		512	/* pages asked of mincore(2) at once */
#define HEAPOWN_STACK		64	/* pages read either side of the stack's */

static uintptr_t	heap_start;

void
heap_mark(void)
{
	heap_start = (uintptr_t)sbrk(0);
}

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

/* A byte of each resident page, red zones included: not under ASan. */
__attribute__((no_sanitize("address")))
static void
heap_read(uintptr_t a, uintptr_t end, size_t pg)
{
	unsigned char	 vec[HEAPOWN_CHUNK];
	size_t		 i, n;

	for (a &= ~(uintptr_t)(pg - 1); a < end; a += n * pg) {
		n = (end - a + pg - 1) / pg;
		if (n > HEAPOWN_CHUNK)
			n = HEAPOWN_CHUNK;
		if (mincore((void *)a, n * pg, vec) == -1) {
			/* Not all of it mapped (the stack's edges): a page. */
			n = 1;
			if (mincore((void *)a, pg, vec) == -1)
				continue;
		}
		for (i = 0; i < n; i++)
			if (vec[i] & 1)
				(void)*(volatile const char *)(a + i * pg);
	}
}

static int
heap_read_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Phdr)	*ph;
	size_t			 pg = *(const size_t *)arg;
	int			 i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
			heap_read(info->dlpi_addr + ph->p_vaddr,
			    info->dlpi_addr + ph->p_vaddr + ph->p_memsz, pg);
	}
	return 0;
}

/*
 * No higher than the stack's start: Linux 6.1 may map the vDSO's vvar pages
 * just above, which mincore(2) calls resident and whose read may be SIGBUS
 * (pvclock under qemu's TCG).  Below, heap_read() skips the unmapped gap.
 */
static void
heap_read_stack(size_t pg)
{
	extern void	*__libc_stack_end;	/* glibc: the stack's start */
	uintptr_t	 start = (uintptr_t)__libc_stack_end;
	uintptr_t	 sp = (uintptr_t)__builtin_frame_address(0) &
			    ~(uintptr_t)(pg - 1);

	heap_read(sp - HEAPOWN_STACK * pg, sp, pg);
	if (start > sp) {	/* the main thread's stack */
		if (start - sp > HEAPOWN_STACK * pg)
			start = sp + HEAPOWN_STACK * pg;
		heap_read(sp, start, pg);
	}
}

static void
heap_touch(uintptr_t heap, uintptr_t end, size_t pg)
{
	heap_read(heap, end, pg);
	(void)dl_iterate_phdr(heap_read_object, &pg);
	heap_read_stack(pg);
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
	heap_touch(heap_start, end, pg);
}
