/*
 * waitfor SECONDS PATH [PATTERN [COUNT]]: until PATH exists or, with a
 * PATTERN, until COUNT lines of it (1 by default) match that basic
 * regular expression, as grep -e reads it.  Exits 0 then, 1 when SECONDS
 * pass first, 2 on a usage error.  One process polls every 20 ms where
 * a shell loop spawned a grep and a sleep ten times a second.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS		20

static void
usage(void)
{
	fprintf(stderr, "usage: waitfor seconds path [pattern [count]]\n");
	exit(2);
}

static double
now(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The whole file in *buf (grown as needed), its length, or -1. */
static ssize_t
slurp(int fd, char **buf, size_t *bufsz)
{
	size_t	 len = 0;
	ssize_t	 n;
	char	*p;

	for (;;) {
		if (len + 1 >= *bufsz) {
			if ((p = realloc(*buf, *bufsz * 2)) == NULL)
				return -1;
			*buf = p;
			*bufsz *= 2;
		}
		n = read(fd, *buf + len, *bufsz - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/* How many lines of buf match re (a last line without newline too). */
static long
matching(const regex_t *re, char *buf, size_t len)
{
	char	*line = buf, *nl;
	long	 n = 0;

	while (line < buf + len) {
		if ((nl = memchr(line, '\n', (size_t)(buf + len - line))) != NULL)
			*nl = '\0';
		if (regexec(re, line, 0, NULL, 0) == 0)
			n++;
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	return n;
}

int
main(int argc, char *argv[])
{
	struct timespec	 nap = { 0, POLL_MS * 1000000L };
	struct stat	 sb;
	regex_t		 re;
	double		 end;
	char		*buf, *ep;
	size_t		 bufsz = 65536;
	off_t		 seen_size = -1;
	struct timespec	 seen_mtime = { 0, 0 };
	long		 count = 1;
	ssize_t		 len;
	int		 fd;

	if (argc < 3 || argc > 5)
		usage();
	end = strtod(argv[1], &ep);
	if (*argv[1] == '\0' || *ep != '\0' || end < 0)
		usage();
	end += now();
	if (argc == 5) {
		count = strtol(argv[4], &ep, 10);
		if (*argv[4] == '\0' || *ep != '\0' || count < 0)
			usage();
	}
	if (argc >= 4 && regcomp(&re, argv[3], REG_NOSUB) != 0) {
		fprintf(stderr, "waitfor: bad pattern: %s\n", argv[3]);
		return 2;
	}
	if ((buf = malloc(bufsz)) == NULL)
		return 2;
	for (;;) {
		/* Any file, a socket too, as test -e sees it. */
		if (argc == 3 && stat(argv[2], &sb) == 0)
			return 0;
		if (argc > 3 &&
		    (fd = open(argv[2], O_RDONLY | O_CLOEXEC)) != -1) {
			/* Read again only once the file changed. */
			if (fstat(fd, &sb) == 0 && (sb.st_size != seen_size ||
			    sb.st_mtim.tv_sec != seen_mtime.tv_sec ||
			    sb.st_mtim.tv_nsec != seen_mtime.tv_nsec)) {
				seen_size = sb.st_size;
				seen_mtime = sb.st_mtim;
				len = slurp(fd, &buf, &bufsz);
				if (len >= 0 &&
				    matching(&re, buf, (size_t)len) >= count) {
					close(fd);
					return 0;
				}
			}
			close(fd);
		}
		if (now() >= end)
			return 1;
		(void)nanosleep(&nap, NULL);
	}
}
