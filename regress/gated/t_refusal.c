/*
 * Every refusal of the gate is recorded where check reads the last
 * hour of them, per destination, with its likeliest cause.
 */
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <atf-c.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../gated/refusal.h"

#define PATH	"gate-refusals"
#define NOW	((time_t)1700000000)

struct seen {
	struct refusal_sum	sums[16];
	size_t			n;
};

static void
collect(const struct refusal_sum *sum, void *arg)
{
	struct seen	*s = arg;

	ATF_REQUIRE(s->n < 16);
	s->sums[s->n++] = *sum;
}

static struct refusal_rec
rec_of(time_t when, const char *dest, const char *host, const char *addr,
    enum refusal code)
{
	struct refusal_rec	r;

	memset(&r, 0, sizeof(r));
	r.when = when;
	strlcpy(r.dest, dest, sizeof(r.dest));
	strlcpy(r.host, host, sizeof(r.host));
	r.port = 443;
	if (addr != NULL) {
		ATF_REQUIRE(inet_pton(AF_INET, addr, &r.addr) == 1);
		r.has_addr = 1;
	}
	r.code = code;
	return r;
}

static void
append(time_t when, const char *dest, const char *host, const char *addr,
    enum refusal code)
{
	struct refusal_rec	r = rec_of(when, dest, host, addr, code);

	ATF_REQUIRE_EQ_MSG(refusal_append(PATH, &r), 0, "append: %s",
	    strerror(errno));
}

static void
write_file(const char *text, size_t len)
{
	FILE	*fp;

	ATF_REQUIRE((fp = fopen(PATH, "w")) != NULL);
	ATF_REQUIRE_EQ(fwrite(text, 1, len, fp), len);
	ATF_REQUIRE_EQ(fclose(fp), 0);
}

static char *
read_file(void)
{
	static char	 buf[64 * 1024];
	FILE		*fp;
	size_t		 n;

	ATF_REQUIRE((fp = fopen(PATH, "r")) != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void
summarise(struct seen *s, time_t now)
{
	memset(s, 0, sizeof(*s));
	ATF_REQUIRE_EQ_MSG(refusal_summary(PATH, now, collect, s), 0,
	    "summary: %s", strerror(errno));
}

ATF_TC_WITHOUT_HEAD(append_lines);
ATF_TC_BODY(append_lines, tc)
{
	struct stat	st;

	umask(022);
	append(NOW - 5, "notes", "notes.example.org", "192.168.1.30",
	    REFUSAL_INTERNAL);
	append(NOW, "-", "other.example", NULL, REFUSAL_UNLISTED);
	ATF_CHECK_STREQ(read_file(),
	    "1699999995 notes notes.example.org 443 192.168.1.30 internal\n"
	    "1700000000 - other.example 443 - unlisted\n");
	ATF_REQUIRE_EQ(stat(PATH, &st), 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0600);
}

/* What cannot be written as one line of plain fields is not written. */
ATF_TC_WITHOUT_HEAD(append_refuses_bad_fields);
ATF_TC_BODY(append_refuses_bad_fields, tc)
{
	struct refusal_rec	r;
	struct stat		st;

	r = rec_of(NOW, "no tes", "notes.example.org", NULL, REFUSAL_INTERNAL);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	ATF_CHECK_EQ(errno, EINVAL);
	r = rec_of(NOW, "notes", "notes.example.org\n1 x y 1 - internal", NULL,
	    REFUSAL_INTERNAL);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	r = rec_of(NOW, "notes", "notes.example.org", NULL, REFUSAL_NONE);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	r = rec_of(NOW, "notes", "notes.example.org", NULL, REFUSAL_COUNT);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	r = rec_of(NOW, "notes", "notes.example.org", NULL, REFUSAL_INTERNAL);
	r.port = 0;
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	ATF_CHECK_EQ(stat(PATH, &st), -1);
	/* Control: the same record, well formed, is written. */
	r.port = 443;
	ATF_CHECK_EQ(refusal_append(PATH, &r), 0);
	ATF_CHECK_STREQ(read_file(),
	    "1700000000 notes notes.example.org 443 - internal\n");
}

ATF_TC_WITHOUT_HEAD(summary_per_destination);
ATF_TC_BODY(summary_per_destination, tc)
{
	struct seen	s;

	append(NOW - 900, "notes", "notes.example.org", "192.168.1.30",
	    REFUSAL_INTERNAL);
	append(NOW - 600, "claude", "api.anthropic.com", NULL,
	    REFUSAL_UNRESOLVED);
	append(NOW - 300, "notes", "notes.example.org", "10.0.0.7",
	    REFUSAL_PARTLY);
	append(NOW - 200, "-", "old.example", NULL, REFUSAL_UNLISTED);
	append(NOW - 100, "notes", "notes.example.org", "127.0.0.1",
	    REFUSAL_LOOPBACK);
	append(NOW - 50, "-", "old.example", NULL, REFUSAL_UNLISTED);
	summarise(&s, NOW);
	ATF_REQUIRE_EQ(s.n, 3);
	ATF_CHECK_STREQ(s.sums[0].last.dest, "-");
	ATF_CHECK_EQ(s.sums[0].count, 2);
	ATF_CHECK_EQ(s.sums[0].last.when, NOW - 50);
	ATF_CHECK_STREQ(s.sums[1].last.dest, "claude");
	ATF_CHECK_EQ(s.sums[1].count, 1);
	ATF_CHECK_EQ(s.sums[1].last.code, REFUSAL_UNRESOLVED);
	ATF_CHECK_EQ(s.sums[1].last.has_addr, 0);
	ATF_CHECK_STREQ(s.sums[2].last.dest, "notes");
	ATF_CHECK_EQ(s.sums[2].count, 3);
	ATF_CHECK_EQ(s.sums[2].last.when, NOW - 100);
	ATF_CHECK_STREQ(s.sums[2].last.host, "notes.example.org");
	ATF_CHECK_EQ(s.sums[2].last.addr.s_addr, htonl(0x7f000001));
	ATF_CHECK_EQ(s.sums[2].last.code, REFUSAL_LOOPBACK);
}

ATF_TC_WITHOUT_HEAD(summary_last_hour);
ATF_TC_BODY(summary_last_hour, tc)
{
	struct seen	s;

	append(NOW - 7200, "notes", "notes.example.org", NULL,
	    REFUSAL_UNRESOLVED);
	append(NOW - 3600, "notes", "notes.example.org", NULL,
	    REFUSAL_UNRESOLVED);
	append(NOW - 3599, "notes", "notes.example.org", "10.0.0.1",
	    REFUSAL_INTERNAL);
	append(NOW + 60, "notes", "notes.example.org", NULL,
	    REFUSAL_UNRESOLVED);
	summarise(&s, NOW);
	ATF_REQUIRE_EQ(s.n, 1);
	ATF_CHECK_EQ(s.sums[0].count, 1);
	ATF_CHECK_EQ(s.sums[0].last.when, NOW - 3599);
	ATF_CHECK_EQ(s.sums[0].last.code, REFUSAL_INTERNAL);
	/* An hour later, nothing is left of it. */
	summarise(&s, NOW + 3600);
	ATF_CHECK_EQ(s.n, 1);
	ATF_CHECK_EQ(s.sums[0].last.when, NOW + 60);
	summarise(&s, NOW + 7200);
	ATF_CHECK_EQ(s.n, 0);
}

ATF_TC_WITHOUT_HEAD(summary_missing_file);
ATF_TC_BODY(summary_missing_file, tc)
{
	struct seen	s;

	summarise(&s, NOW);
	ATF_CHECK_EQ(s.n, 0);
	ATF_CHECK_EQ(refusal_prune(PATH, NOW), 0);
}

static int
leftovers(void)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	ATF_REQUIRE((d = opendir(".")) != NULL);
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, PATH ".", strlen(PATH) + 1) == 0;
	closedir(d);
	return n;
}

ATF_TC_WITHOUT_HEAD(prune_drops_old);
ATF_TC_BODY(prune_drops_old, tc)
{
	static const char text[] =
	    "1699992800 notes notes.example.org 443 10.0.0.1 internal\n"
	    "1699996400 notes notes.example.org 443 10.0.0.2 internal\n"
	    "garbage\n"
	    "1699996401 notes notes.example.org 443 10.0.0.3 internal\n"
	    "1699999999 claude api.anthropic.com 443 - unresolved\n"
	    "1700000000 notes";
	struct stat	st;

	write_file(text, sizeof(text) - 1);
	ATF_REQUIRE_EQ(chmod(PATH, 0600), 0);
	ATF_REQUIRE_EQ(refusal_prune(PATH, NOW), 0);
	ATF_CHECK_STREQ(read_file(),
	    "1699996401 notes notes.example.org 443 10.0.0.3 internal\n"
	    "1699999999 claude api.anthropic.com 443 - unresolved\n");
	ATF_REQUIRE_EQ(stat(PATH, &st), 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0600);
	ATF_CHECK_EQ(leftovers(), 0);
	/* Appends carry on after a prune. */
	append(NOW, "notes", "notes.example.org", NULL, REFUSAL_UNRESOLVED);
	ATF_CHECK(strstr(read_file(), "1700000000 notes") != NULL);
	ATF_REQUIRE_EQ(refusal_prune(PATH, NOW + 3600), 0);
	ATF_CHECK_STREQ(read_file(), "");
}

/* Each line that is not exactly a record is skipped, none half read. */
ATF_TC_WITHOUT_HEAD(malformed_skipped);
ATF_TC_BODY(malformed_skipped, tc)
{
	static const char *const bad[] = {
		"-1699999000 notes notes.example.org 443 - internal",
		"01699999000 notes notes.example.org 443 - internal",
		"16999990x0 notes notes.example.org 443 - internal",
		"1699999000 notes notes.example.org 443 - nosuchcode",
		"1699999000 notes notes.example.org 443 - none",
		"1699999000 notes notes.example.org 443 10.0.0.256 internal",
		"1699999000 notes notes.example.org 443 10.1 internal",
		"1699999000 notes notes.example.org 443 internal",
		"1699999000 notes notes.example.org 443 - internal x",
		"1699999000  notes notes.example.org 443 - internal",
		"1699999000 notes notes.example.org 0 - internal",
		"1699999000 notes notes.example.org 65536 - internal",
		"1699999000 notes notes.example.org 0443 - internal",
		"1699999000 no/tes notes.example.org 443 - internal",
		"1699999000 notes notes_example.org 443 - internal",
		"1699999000 notes notes.example.org 443 - internal\r",
		"99999999999999999999 notes notes.example.org 443 - internal",
		"",
	};
	static const char good[] =
	    "1699999000 notes notes.example.org 443 - internal\n";
	char		 *text, *p;
	struct seen	  s;
	size_t		  i, len = 0, cap = 64 * 1024;

	ATF_REQUIRE((text = p = malloc(cap)) != NULL);
	p += snprintf(p, cap, "%s", good);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		p += snprintf(p, cap - (p - text), "%s\n", bad[i]);
	/*
	 * Over 512 bytes: a reader that cut it where its buffer ends, with
	 * or without the byte that did not fit, would find a record after.
	 */
	for (i = 511; i <= 512; i++) {
		memset(p, 'x', i);
		p += i;
		p += snprintf(p, cap - (p - text), "%s", good);
	}
	/* A NUL inside, and a torn last line without its LF. */
	memcpy(p, "1699999000 notes\0 notes.example.org 443 - internal\n", 51);
	p += 51;
	p += snprintf(p, cap - (p - text), "%s", good);
	p += snprintf(p, cap - (p - text), "%.*s", (int)strlen(good) - 1,
	    good);
	len = p - text;
	write_file(text, len);
	free(text);
	summarise(&s, NOW);
	ATF_REQUIRE_EQ(s.n, 1);
	ATF_CHECK_EQ_MSG(s.sums[0].count, 2, "counted %u", s.sums[0].count);
}

ATF_TC_WITHOUT_HEAD(every_code_round_trips);
ATF_TC_BODY(every_code_round_trips, tc)
{
	char		dest[16];
	struct seen	s;
	unsigned int	i;

	for (i = REFUSAL_NONE + 1; i < REFUSAL_COUNT; i++) {
		snprintf(dest, sizeof(dest), "d%02u", i);
		append(NOW, dest, "notes.example.org", "10.0.0.1", i);
		ATF_CHECK_MSG(refusal_advice(i)[0] != '\0', "advice %u", i);
	}
	summarise(&s, NOW);
	ATF_REQUIRE_EQ(s.n, REFUSAL_COUNT - 1);
	for (i = 0; i < s.n; i++)
		ATF_CHECK_EQ(s.sums[i].last.code, i + 1);
}

ATF_TC_WITHOUT_HEAD(format_line);
ATF_TC_BODY(format_line, tc)
{
	struct refusal_sum	sum;
	char			buf[1024];

	setenv("TZ", "UTC", 1);
	tzset();
	memset(&sum, 0, sizeof(sum));
	sum.count = 3;
	/* 2023-11-14 10:15:46 UTC */
	sum.last = rec_of(1699956946, "notes", "notes.example.org",
	    "192.168.1.30", REFUSAL_INTERNAL);
	ATF_REQUIRE(refusal_format(&sum, buf, sizeof(buf)) > 0);
	ATF_CHECK_STREQ(buf, "gate: refused notes 3 time(s) in the last hour, "
	    "last at 10:15:46 (notes.example.org 192.168.1.30): the name "
	    "resolves to the internal network; give it an internal exception "
	    "if the source lives inside; if not, its DNS changed");
	sum.count = 1;
	sum.last = rec_of(1699956946, "-", "old.example", NULL,
	    REFUSAL_UNLISTED);
	ATF_REQUIRE(refusal_format(&sum, buf, sizeof(buf)) > 0);
	ATF_CHECK_STREQ(buf, "gate: refused old.example:443 1 time(s) in the "
	    "last hour, last at 10:15:46 (old.example): the name is not on "
	    "the gate's list; the configuration changed after the gate "
	    "started: restart sandcastle.target");
	ATF_CHECK_EQ(refusal_format(&sum, buf, 20), -1);
}

/* Bounded: past the cap the file is pruned first, then a record dropped. */
ATF_TC_WITHOUT_HEAD(file_bounded);
ATF_TC_BODY(file_bounded, tc)
{
	static const char line[] =
	    "1690000000 notes notes.example.org 443 10.0.0.1 internal\n";
	struct refusal_rec	 r;
	struct stat		 st;
	char			*text;
	size_t			 i, n = REFUSAL_FILE_MAX / (sizeof(line) - 1) + 1;

	ATF_REQUIRE((text = malloc(n * (sizeof(line) - 1))) != NULL);
	for (i = 0; i < n; i++)
		memcpy(text + i * (sizeof(line) - 1), line, sizeof(line) - 1);
	write_file(text, n * (sizeof(line) - 1));
	append(NOW, "notes", "notes.example.org", NULL, REFUSAL_UNRESOLVED);
	ATF_CHECK_STREQ(read_file(),
	    "1700000000 notes notes.example.org 443 - unresolved\n");

	/* The same amount from the last hour: it stays, the new one does not. */
	memcpy(text, "1699999999", 10);
	for (i = 0; i < n; i++)
		memcpy(text + i * (sizeof(line) - 1), text, 10);
	write_file(text, n * (sizeof(line) - 1));
	free(text);
	r = rec_of(NOW, "notes", "notes.example.org", NULL, REFUSAL_UNRESOLVED);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	ATF_CHECK_EQ(errno, EFBIG);
	ATF_REQUIRE_EQ(stat(PATH, &st), 0);
	ATF_CHECK(st.st_size <= REFUSAL_FILE_MAX + (off_t)sizeof(line));
}

ATF_TC_WITHOUT_HEAD(not_a_regular_file);
ATF_TC_BODY(not_a_regular_file, tc)
{
	struct refusal_rec	r;
	struct seen		s;

	ATF_REQUIRE_EQ(symlink("elsewhere", PATH), 0);
	r = rec_of(NOW, "notes", "notes.example.org", NULL, REFUSAL_UNRESOLVED);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	ATF_CHECK_EQ(access("elsewhere", F_OK), -1);
	ATF_CHECK_EQ(refusal_summary(PATH, NOW, collect, &s), -1);
	ATF_REQUIRE_EQ(unlink(PATH), 0);
	ATF_REQUIRE_EQ(mkdir(PATH, 0700), 0);
	ATF_CHECK_EQ(refusal_append(PATH, &r), -1);
	ATF_REQUIRE_EQ(rmdir(PATH), 0);
	/* Control: a plain file in its place. */
	ATF_CHECK_EQ(refusal_append(PATH, &r), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, append_lines);
	ATF_TP_ADD_TC(tp, append_refuses_bad_fields);
	ATF_TP_ADD_TC(tp, summary_per_destination);
	ATF_TP_ADD_TC(tp, summary_last_hour);
	ATF_TP_ADD_TC(tp, summary_missing_file);
	ATF_TP_ADD_TC(tp, prune_drops_old);
	ATF_TP_ADD_TC(tp, malformed_skipped);
	ATF_TP_ADD_TC(tp, every_code_round_trips);
	ATF_TP_ADD_TC(tp, format_line);
	ATF_TP_ADD_TC(tp, file_bounded);
	ATF_TP_ADD_TC(tp, not_a_regular_file);
	return atf_no_error();
}
