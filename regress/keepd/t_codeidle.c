/*
 * code_idle() and code_busy() by the kernel's Rss (/proc/self/smaps):
 * the TLS libraries' code is unmapped once given back and mapped again
 * when TLS runs; the relocated pages are kept; libc's code, the
 * control, stays mapped.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>
#include <tls.h>

#include "../../keepd/codeidle.h"

struct kib {
	long	code;		/* Rss of its r-x mappings */
	long	size;		/* their Size */
	long	anon;		/* Anonymous of all its mappings */
};

/* Rss and Anonymous of the mappings of the library named lib, in KiB. */
static struct kib
mapped(const char *lib)
{
	struct kib	 k = { 0, 0, 0 };
	FILE		*f;
	char		 line[512], perms[8];
	long		 v;
	int		 in = 0, code = 0;

	ATF_REQUIRE((f = fopen("/proc/self/smaps", "r")) != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*x-%*x %7s", perms) == 1 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = strstr(line, lib) != NULL;
			code = perms[2] == 'x';
			continue;
		}
		if (!in)
			continue;
		if (code && sscanf(line, "Rss: %ld kB", &v) == 1)
			k.code += v;
		if (code && sscanf(line, "Size: %ld kB", &v) == 1)
			k.size += v;
		if (sscanf(line, "Anonymous: %ld kB", &v) == 1)
			k.anon += v;
	}
	fclose(f);
	return k;
}

/* A TLS client context, configured: libssl's and libcrypto's code run. */
static void
tls_run(void)
{
	struct tls_config	*cfg;
	struct tls		*ctx;

	ATF_REQUIRE(tls_init() == 0);
	ATF_REQUIRE((cfg = tls_config_new()) != NULL);
	ATF_REQUIRE((ctx = tls_client()) != NULL);
	ATF_REQUIRE_MSG(tls_configure(ctx, cfg) == 0, "%s", tls_error(ctx));
	tls_free(ctx);
	tls_config_free(cfg);
}

static const char *const tls_libs[] = { "libcrypto.so", "libssl.so", NULL };

ATF_TC_WITHOUT_HEAD(given_back);
ATF_TC_BODY(given_back, tc)
{
	struct kib	 before, after, again;
	size_t		 pages;

	tls_run();
	before = mapped("libcrypto.so");
	ATF_REQUIRE_MSG(before.code > 0, "libcrypto's code is not mapped");
	pages = code_idle(tls_libs);
	after = mapped("libcrypto.so");
	ATF_CHECK_MSG(pages > 0, "no page given back");
	ATF_CHECK_EQ_MSG(after.code, 0, "%ld KiB of libcrypto's code still "
	    "mapped, of %ld", after.code, before.code);
	ATF_CHECK_EQ_MSG(mapped("libssl.so").code, 0, "libssl's code still "
	    "mapped");
	ATF_CHECK_EQ_MSG(after.anon, before.anon, "relocated pages %ld KiB, "
	    "were %ld", after.anon, before.anon);
	tls_run();
	again = mapped("libcrypto.so");
	ATF_CHECK_MSG(again.code > 0, "libcrypto's code did not come back");
}

/*
 * code_busy(): a request child maps TLS's code at once when it is taken.
 * Running the code maps what it runs (the control, below all of it);
 * code_busy() maps every page of it.
 */
ATF_TC_WITHOUT_HEAD(mapped_again);
ATF_TC_BODY(mapped_again, tc)
{
	struct kib	 ran, busy;

	tls_run();
	(void)code_idle(tls_libs);
	tls_run();
	ran = mapped("libcrypto.so");
	ATF_REQUIRE_MSG(ran.code > 0 && ran.code < ran.size, "running TLS "
	    "mapped %ld KiB of libcrypto's %ld of code", ran.code, ran.size);
	ATF_CHECK_MSG(code_busy(tls_libs) > 0, "no page mapped");
	busy = mapped("libcrypto.so");
	ATF_CHECK_EQ_MSG(busy.code, busy.size, "%ld KiB of libcrypto's %ld "
	    "of code mapped", busy.code, busy.size);
	ATF_CHECK_EQ_MSG(mapped("libssl.so").code, mapped("libssl.so").size,
	    "libssl's code not all mapped");
	tls_run();
}

ATF_TC_WITHOUT_HEAD(control);
ATF_TC_BODY(control, tc)
{
	long	 libc;

	tls_run();
	libc = mapped("libc.so").code;
	ATF_REQUIRE(libc > 0);
	(void)code_idle(tls_libs);
	ATF_CHECK_MSG(mapped("libc.so").code > 0, "libc's code, not named, "
	    "was given back");
	/* Nothing named: nothing given back. */
	ATF_CHECK_EQ(code_idle((const char *const[]){ "libnone.so", NULL }),
	    0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, given_back);
	ATF_TP_ADD_TC(tp, mapped_again);
	ATF_TP_ADD_TC(tp, control);
	return atf_no_error();
}
