/*
 * The TLS libraries' read-only segments given back once keepd has run them
 * (the page cache keeps them), and mapped again at once for a child.
 */
#include <sys/types.h>
#include <sys/mman.h>

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "codeidle.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif

struct idle {
	const char *const	*names;
	int			 advice;
	size_t			 pages;
};

static int
idle_named(const char *path, const char *const *names)
{
	const char	*base;

	if (path == NULL || *path == '\0')
		return 0;
	if ((base = strrchr(path, '/')) != NULL)
		base++;
	else
		base = path;
	for (; *names != NULL; names++)
		if (strncmp(base, *names, strlen(*names)) == 0)
			return 1;
	return 0;
}

static int
idle_textrel(const struct dl_phdr_info *info)
{
	const ElfW(Dyn)	*d;
	int		 i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		d = (const ElfW(Dyn) *)(info->dlpi_addr +
		    info->dlpi_phdr[i].p_vaddr);
		for (; d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS &&
			    (d->d_un.d_val & DF_TEXTREL)))
				return 1;
	}
	return 0;
}

static int
idle_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct idle		*idle = arg;
	const ElfW(Phdr)	*ph;
	uintptr_t		 pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t		 start, end;
	int			 i;

	(void)size;
	if (!idle_named(info->dlpi_name, idle->names) || idle_textrel(info))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		/* Segments of other rights never share a page. */
		start = (info->dlpi_addr + ph->p_vaddr) & ~(pg - 1);
		end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + pg - 1) &
		    ~(pg - 1);
		if (madvise((void *)start, end - start, idle->advice) == 0)
			idle->pages += (end - start) / pg;
	}
	return 0;
}

size_t
code_idle(const char *const *names)
{
	struct idle	 idle = { names, MADV_DONTNEED, 0 };

	(void)dl_iterate_phdr(idle_object, &idle);
	return idle.pages;
}

/* Speed alone: before Linux 5.14 the faults map them, and 0 is counted. */
size_t
code_busy(const char *const *names)
{
	struct idle	 idle = { names, MADV_POPULATE_READ, 0 };

	(void)dl_iterate_phdr(idle_object, &idle);
	return idle.pages;
}
