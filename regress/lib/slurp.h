/*
 * A whole file read into memory for a test, a NUL after it; the test
 * fails when it cannot be read.  t_schema and t_json read the public
 * conformance suites' files with it.
 */
#ifndef REGRESS_SLURP_H
#define REGRESS_SLURP_H

#include <stdio.h>
#include <stdlib.h>

#include <atf-c.h>

static char *
slurp(const char *path, size_t *len)
{
	FILE	*fp;
	char	*buf;
	long	 n;

	ATF_REQUIRE_MSG((fp = fopen(path, "rb")) != NULL, "cannot read %s",
	    path);
	ATF_REQUIRE(fseek(fp, 0, SEEK_END) == 0);
	ATF_REQUIRE((n = ftell(fp)) >= 0);
	rewind(fp);
	ATF_REQUIRE((buf = malloc((size_t)n + 1)) != NULL);
	ATF_REQUIRE(fread(buf, 1, (size_t)n, fp) == (size_t)n);
	fclose(fp);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

#endif
