/*
 * I1: the reader of systemd drop-ins (sandcastlectl/dropin.c) that check uses
 * to see whether a drop-in takes a lock off a unit: what it reads, and
 * each thing it refuses with the line it is on.
 */
#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "../../sandcastlectl/dropin.h"

static int
parse(const char *text, struct dropin *d, char *why, size_t whysz)
{
	return dropin_parse(text, strlen(text), d, why, whysz);
}

ATF_TC_WITHOUT_HEAD(reads);
ATF_TC_BODY(reads, tc)
{
	struct dropin	d;
	char		why[256];

	ATF_REQUIRE_EQ_MSG(parse("# comment\n; another\n\n[Unit]\n"
	    "Description = the keep \n[Service]\nNoNewPrivileges=yes\n"
	    "ExecStart=\nExecStart=/bin/a \\\n  -d\nUMask=0077", &d, why,
	    sizeof(why)), 0, "%s", why);
	ATF_REQUIRE_EQ(d.n, 5);
	ATF_CHECK_STREQ(d.entries[0].section, "Unit");
	ATF_CHECK_STREQ(d.entries[0].value, "the keep");
	ATF_CHECK_STREQ(d.entries[2].value, "");
	ATF_CHECK_EQ(d.entries[3].line, 9);
	ATF_CHECK_STREQ(dropin_get(&d, "Service", "ExecStart"), "/bin/a -d");
	ATF_CHECK_STREQ(dropin_get(&d, "Service", "UMask"), "0077");
	ATF_CHECK(dropin_get(&d, "Unit", "UMask") == NULL);
	dropin_free(&d);
}

/* A comment inside a continued line is skipped, as systemd skips it. */
ATF_TC_WITHOUT_HEAD(continuation_comment);
ATF_TC_BODY(continuation_comment, tc)
{
	struct dropin	d;
	char		why[256];

	ATF_REQUIRE_EQ_MSG(parse("[Service]\nExecStart=/bin/a \\\n# no\n"
	    "-x\n", &d, why, sizeof(why)), 0, "%s", why);
	ATF_CHECK_STREQ(dropin_get(&d, "Service", "ExecStart"), "/bin/a -x");
	dropin_free(&d);
}

static void
refused(const char *text, const char *want)
{
	struct dropin	d;
	char		why[256];

	ATF_CHECK_EQ_MSG(parse(text, &d, why, sizeof(why)), -1,
	    "accepted: %s", text);
	ATF_CHECK_MSG(strstr(why, want) != NULL, "%s: got \"%s\", want \"%s\"",
	    text, why, want);
}

ATF_TC_WITHOUT_HEAD(refuses);
ATF_TC_BODY(refuses, tc)
{
	struct dropin	d;
	char		why[256];

	refused("NoNewPrivileges=no\n", "line 1: NoNewPrivileges= comes "
	    "before any [Section]");
	refused("[Service]\nNoNewPrivileges\n", "line 2: NoNewPrivileges: "
	    "neither Key=Value");
	refused("[Service\n", "line 1: a section starts with [ and ends "
	    "with ]");
	refused("[]\n", "line 1: []: not a section name");
	refused("[Service]\nNo New=1\n", "line 2: No New: not a key name");
	refused("[Service]\n=1\n", "line 2: : not a key name");
	refused("[Service]\nA=b\\\n", "line 2: a continued line ends the "
	    "file");
	ATF_CHECK_EQ(dropin_parse("[Service]\nA=b\0c\n", 15, &d, why,
	    sizeof(why)), -1);
	ATF_CHECK(strstr(why, "line 2: a control character (0x00)") != NULL);
	refused("[Service]\nA=\033[31m\n", "line 2: a control character "
	    "(0x1b)");
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	static char	big[DROPIN_MAX_SIZE + 2];
	struct dropin	d;
	char		why[256], *p;
	int		i;

	memset(big, '#', sizeof(big) - 1);
	ATF_CHECK_EQ(dropin_parse(big, sizeof(big) - 1, &d, why, sizeof(why)),
	    -1);
	ATF_CHECK(strstr(why, "more than 65536 bytes") != NULL);
	/* Control: the most it takes. */
	ATF_CHECK_EQ(dropin_parse(big, DROPIN_MAX_SIZE, &d, why, sizeof(why)),
	    0);
	dropin_free(&d);
	p = big;
	p += sprintf(p, "[S]\n");
	for (i = 0; i <= DROPIN_MAX_ENTRIES; i++)
		p += sprintf(p, "K=%d\n", i);
	ATF_CHECK_EQ(parse(big, &d, why, sizeof(why)), -1);
	ATF_CHECK(strstr(why, "more than 512 keys") != NULL);
	*strrchr(big, 'K') = '\0';
	ATF_CHECK_EQ_MSG(parse(big, &d, why, sizeof(why)), 0, "%s", why);
	ATF_CHECK_EQ(d.n, DROPIN_MAX_ENTRIES);
	dropin_free(&d);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, reads);
	ATF_TP_ADD_TC(tp, continuation_comment);
	ATF_TP_ADD_TC(tp, refuses);
	ATF_TP_ADD_TC(tp, limits);
	return atf_no_error();
}
