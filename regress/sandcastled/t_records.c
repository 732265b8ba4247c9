/*
 * The job records (sandcastled/records.c) in the test's own folder:
 * what each file holds and its mode, a record noted before the job runs
 * and found after a crash, a result the source no longer held, files
 * replaced whole and never written in place, names that would leave
 * data_dir refused, and retention that deletes old job folders whose
 * result went out and nothing else, never through a symbolic link.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "records.h"

#define NOW	1780000000	/* 2026-05-28T20:26:40Z */
#define DAYS(n)	((time_t)(n) * 86400)

static int
data_dir(void)
{
	int	 fd;

	ATF_REQUIRE(mkdir("data", 0700) == 0);
	ATF_REQUIRE((fd = open("data", O_RDONLY | O_DIRECTORY)) != -1);
	return fd;
}

static char *
slurp(const char *path)
{
	static char	 buf[65536];
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ATF_REQUIRE(n >= 0);
	buf[n] = '\0';
	return buf;
}

static void
check_mode(const char *path, mode_t type, mode_t mode)
{
	struct stat	 st;

	ATF_REQUIRE_MSG(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
	ATF_CHECK_MSG((st.st_mode & S_IFMT) == type, "%s: type", path);
	ATF_CHECK_MSG((st.st_mode & 07777) == mode, "%s: mode %o", path,
	    st.st_mode & 07777);
}

/* Only the three files, none of them a leftover temporary. */
static void
only_files(const char *dir, int n)
{
	struct dirent	*de;
	DIR		*d;
	int		 seen = 0;

	ATF_REQUIRE((d = opendir(dir)) != NULL);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    strcmp(de->d_name, "..") == 0))
			continue;
		ATF_CHECK_MSG(strcmp(de->d_name, "input.json") == 0 ||
		    strcmp(de->d_name, "output.json") == 0 ||
		    strcmp(de->d_name, "meta.json") == 0, "%s/%s left", dir,
		    de->d_name);
		seen++;
	}
	closedir(d);
	ATF_CHECK_EQ_MSG(seen, n, "%s holds %d entries", dir, seen);
}

static struct records_job
claude_job(const char *id, const char *input)
{
	struct records_job	 j = { "notes", id, 0, CAP_CLAUDE, input,
	    strlen(input), NOW - 60 };

	j.numeric = id[0] != '\0' && strspn(id, "0123456789") == strlen(id);
	return j;
}

static void
outcome(struct job_outcome *o, enum job_status st, const char *output)
{
	memset(o, 0, sizeof(*o));
	o->status = st;
	o->output = (char *)output;
	o->box_started = 1;
}

/* A1: the record's folders are 0700 and its files 0600. */
ATF_TC_WITHOUT_HEAD(begin_and_finish);
ATF_TC_BODY(begin_and_finish, tc)
{
	struct records_job	 j = claude_job("1", "{\"prompt\":\"tag\"}");
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	ATF_REQUIRE_MSG(records_begin(dfd, &j, why, sizeof(why)) == 0, "%s", why);
	check_mode("data/notes", S_IFDIR, 0700);
	check_mode("data/notes/1", S_IFDIR, 0700);
	check_mode("data/notes/1/input.json", S_IFREG, 0600);
	check_mode("data/notes/1/meta.json", S_IFREG, 0600);
	only_files("data/notes/1", 2);
	ATF_CHECK_STREQ(slurp("data/notes/1/input.json"), "{\"prompt\":\"tag\"}");
	ATF_CHECK_STREQ(slurp("data/notes/1/meta.json"), "{\"source\":\"notes\","
	    "\"job\":1,\"capability\":\"claude\",\"status\":\"running\","
	    "\"error\":\"\",\"stderr\":\"\",\"started_at\":"
	    "\"2026-05-28T20:25:40Z\",\"finished_at\":null,"
	    "\"result\":\"pending\"}");
	outcome(&o, JOB_SUCCEEDED, "{\"tag\":\"recipes\"}");
	o.usage.has = 1;
	(void)strlcpy(o.usage.model, "claude-sonnet-4-5", sizeof(o.usage.model));
	o.usage.input_tokens = 120;
	o.usage.output_tokens = 7;
	memcpy(o.stderr_head, "warn\0\x1b[2J", 9);
	o.stderr_len = 9;
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	only_files("data/notes/1", 3);
	check_mode("data/notes/1/output.json", S_IFREG, 0600);
	ATF_CHECK_STREQ(slurp("data/notes/1/output.json"), "{\"tag\":\"recipes\"}");
	ATF_CHECK_STREQ(slurp("data/notes/1/meta.json"), "{\"source\":\"notes\","
	    "\"job\":1,\"capability\":\"claude\",\"status\":\"succeeded\","
	    "\"error\":\"\",\"stderr\":\"warn\\u0000\\u001b[2J\",\"started_at\":"
	    "\"2026-05-28T20:25:40Z\",\"finished_at\":\"2026-05-28T20:26:40Z\","
	    "\"usage\":{\"model\":\"claude-sonnet-4-5\",\"input_tokens\":120,"
	    "\"output_tokens\":7},\"result\":\"pending\"}");
	ATF_REQUIRE(records_read(dfd, "notes", "1", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.status, RECORDS_SUCCEEDED);
	ATF_CHECK_EQ(m.started_at, NOW - 60);
	ATF_CHECK_EQ(m.finished_at, NOW);
	ATF_CHECK_EQ(m.stderr_len, 9);
	ATF_CHECK(memcmp(m.stderr_head, "warn\0\x1b[2J", 9) == 0);
	ATF_CHECK(m.usage.has && m.usage.output_tokens == 7);
	ATF_CHECK(m.numeric && strcmp(m.job, "1") == 0);
	close(dfd);
}

/* A failed job keeps the reply refused as output.json, and its error. */
ATF_TC_WITHOUT_HEAD(failed_reply);
ATF_TC_BODY(failed_reply, tc)
{
	struct records_job	 j = claude_job("a-b", "{}");
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	/* A number id must be digits: the record would not be JSON. */
	j.numeric = 1;
	ATF_CHECK(records_begin(dfd, &j, why, sizeof(why)) == -1);
	j.numeric = 0;
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	outcome(&o, JOB_FAILED, NULL);
	o.reply = "{\"tag\":5}";
	(void)strlcpy(o.error, "the reply does not satisfy the schema",
	    sizeof(o.error));
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	ATF_CHECK_STREQ(slurp("data/notes/a-b/output.json"), "{\"tag\":5}");
	ATF_REQUIRE(records_read(dfd, "notes", "a-b", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.status, RECORDS_FAILED);
	ATF_CHECK_STREQ(m.error, "the reply does not satisfy the schema");
	ATF_CHECK(!m.numeric);
	ATF_CHECK(strstr(slurp("data/notes/a-b/meta.json"), "\"job\":\"a-b\"")
	    != NULL);
	close(dfd);
}

/* ocr: never the image's bytes, only their size and SHA-256. */
ATF_TC_WITHOUT_HEAD(ocr_input);
ATF_TC_BODY(ocr_input, tc)
{
	static const char input[] = "{\"image\":\"SECRETBASE64BYTES\"}";
	struct records_job	 j = claude_job("9", input);
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX], hex[65], want[256];
	int			 dfd = data_dir();

	j.cap = CAP_OCR;
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	(void)SHA256Data((const uint8_t *)input, strlen(input), hex);
	(void)snprintf(want, sizeof(want), "{\"input\":{\"bytes\":%zu,"
	    "\"sha256\":\"%s\"}}", strlen(input), hex);
	ATF_CHECK_STREQ(slurp("data/notes/9/input.json"), want);
	outcome(&o, JOB_SUCCEEDED, "{\"text\":\"hello\"}");
	o.record = "{\"image\":{\"bytes\":17,\"sha256\":\"ab\"}}";
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	ATF_CHECK_STREQ(slurp("data/notes/9/input.json"),
	    "{\"image\":{\"bytes\":17,\"sha256\":\"ab\"}}");
	ATF_CHECK(strstr(slurp("data/notes/9/meta.json"), "SECRET") == NULL);
	/* Control: a claude job's input is kept as it came. */
	j = claude_job("10", input);
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	ATF_CHECK_STREQ(slurp("data/notes/10/input.json"), input);
	close(dfd);
}

/* A capability not offered: no capability recorded, the input digested. */
ATF_TC_WITHOUT_HEAD(not_offered);
ATF_TC_BODY(not_offered, tc)
{
	struct records_job	 j = claude_job("3", "{\"x\":1}");
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	j.cap = -1;
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	outcome(&o, JOB_FAILED, NULL);
	o.box_started = 0;
	(void)strlcpy(o.error, "capability bash was not offered",
	    sizeof(o.error));
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	ATF_CHECK(strstr(slurp("data/notes/3/input.json"), "\"sha256\"") != NULL);
	ATF_CHECK(strstr(slurp("data/notes/3/meta.json"),
	    "\"capability\":null") != NULL);
	ATF_REQUIRE(records_read(dfd, "notes", "3", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.cap, -1);
	ATF_CHECK_EQ(m.status, RECORDS_FAILED);
	only_files("data/notes/3", 2);
	close(dfd);
}

static int
find_ref(const struct records_ref *r, size_t n, const char *id)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(r[i].job, id) == 0)
			return (int)i;
	return -1;
}

/* After a crash: the job noted running is found, to be sent back released. */
ATF_TC_WITHOUT_HEAD(unfinished);
ATF_TC_BODY(unfinished, tc)
{
	struct records_job	 a = claude_job("1", "{}"), b = claude_job("2", "{}"),
				 c = claude_job("3", "{}");
	struct records_ref	*r;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	size_t			 n, bad;
	int			 i, dfd = data_dir();

	ATF_REQUIRE(records_begin(dfd, &a, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_begin(dfd, &b, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_begin(dfd, &c, why, sizeof(why)) == 0);
	outcome(&o, JOB_SUCCEEDED, "{}");
	ATF_REQUIRE(records_finish(dfd, &b, &o, NOW, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_finish(dfd, &c, &o, NOW, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_result(dfd, "notes", "3", RECORDS_SENT, why,
	    sizeof(why)) == 0);
	/* A record planted under another job's folder is not taken for it. */
	ATF_REQUIRE(mkdir("data/notes/4", 0700) == 0);
	ATF_REQUIRE(symlink("../1/meta.json", "data/notes/4/meta.json") == 0);
	ATF_REQUIRE(records_unfinished(dfd, &r, &n, &bad, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 2);
	ATF_CHECK_EQ(bad, 1);
	ATF_REQUIRE((i = find_ref(r, n, "1")) != -1);
	ATF_CHECK_EQ(r[i].status, RECORDS_RUNNING);
	ATF_CHECK_STREQ(r[i].source, "notes");
	ATF_REQUIRE((i = find_ref(r, n, "2")) != -1);
	ATF_CHECK_EQ(r[i].status, RECORDS_SUCCEEDED);
	ATF_CHECK_EQ(r[i].result, RECORDS_PENDING);
	ATF_CHECK(find_ref(r, n, "3") == -1);
	free(r);
	close(dfd);
}

/* 409: the result stays in the record with a note, and is never pending again. */
ATF_TC_WITHOUT_HEAD(gone);
ATF_TC_BODY(gone, tc)
{
	struct records_job	 j = claude_job("5", "{}");
	struct records_meta	 m;
	struct records_ref	*r;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	size_t			 n, bad;
	int			 dfd = data_dir();

	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	outcome(&o, JOB_SUCCEEDED, "{\"tag\":\"x\"}");
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_unfinished(dfd, &r, &n, &bad, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 1);
	free(r);
	ATF_REQUIRE(records_result(dfd, "notes", "5", RECORDS_GONE, why,
	    sizeof(why)) == 0);
	ATF_REQUIRE(records_read(dfd, "notes", "5", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.result, RECORDS_GONE);
	ATF_CHECK_EQ(m.status, RECORDS_SUCCEEDED);
	ATF_CHECK_STREQ(m.note, "the source no longer held the job");
	ATF_CHECK_STREQ(slurp("data/notes/5/output.json"), "{\"tag\":\"x\"}");
	ATF_REQUIRE(records_unfinished(dfd, &r, &n, &bad, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 0);
	free(r);
	close(dfd);
}

/*
 * Files of at most max bytes from now on (the soft limit alone, so that
 * it can be lifted again): a write past it fails with EFBIG, as a full
 * disk fails one with ENOSPC.
 */
static void
file_limit(rlim_t max)
{
	struct rlimit	 rl;

	ATF_REQUIRE(getrlimit(RLIMIT_FSIZE, &rl) == 0);
	rl.rlim_cur = max;
	ATF_REQUIRE(setrlimit(RLIMIT_FSIZE, &rl) == 0);
	signal(SIGXFSZ, SIG_IGN);
}

/*
 * F1: a claim that cannot be noted whole leaves no record: not its input
 * without a meta.json, nor its input beside the meta.json an earlier
 * claim of the same id left, which would say that claim's outcome.
 */
ATF_TC_WITHOUT_HEAD(note_whole);
ATF_TC_BODY(note_whole, tc)
{
	struct records_job	 j = claude_job("5", "{\"prompt\":\"first\"}");
	struct records_job	 big = claude_job("5", "{\"prompt\":\""
	    "a prompt longer than the files may be now, which is 100 bytes, "
	    "so that input.json cannot be written\"}");
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	/* An earlier claim of id 5, released and its result sent. */
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	outcome(&o, JOB_RELEASED, NULL);
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_result(dfd, "notes", "5", RECORDS_SENT, why,
	    sizeof(why)) == 0);
	file_limit(100);
	/* Its input cannot be written. */
	ATF_CHECK(records_begin(dfd, &big, why, sizeof(why)) == -1);
	ATF_CHECK_MATCH("^input.json: cannot be written: File too large$", why);
	ATF_CHECK_MSG(access("data/notes/5", F_OK) == -1 && errno == ENOENT,
	    "a claim not noted left its folder");
	/* Its input can, its meta.json (some 200 bytes) cannot. */
	ATF_CHECK(records_begin(dfd, &j, why, sizeof(why)) == -1);
	ATF_CHECK_MATCH("^meta.json: cannot be written: File too large$", why);
	ATF_CHECK_MSG(access("data/notes/5", F_OK) == -1 && errno == ENOENT,
	    "a claim not noted left its input");
	only_files("data/notes", 0);
	/* Control: with room, the same claim is noted. */
	file_limit(RLIM_INFINITY);
	ATF_REQUIRE_MSG(records_begin(dfd, &j, why, sizeof(why)) == 0, "%s",
	    why);
	ATF_REQUIRE(records_read(dfd, "notes", "5", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.status, RECORDS_RUNNING);
	only_files("data/notes/5", 2);
	close(dfd);
}

/*
 * F1: a finish whose output.json was written but not its meta.json (the
 * disk filled between the two) leaves the record running; the outcome
 * written later without an output (released, at the next start) takes
 * that output.json away, as no output of it went out.
 */
ATF_TC_WITHOUT_HEAD(finish_whole);
ATF_TC_BODY(finish_whole, tc)
{
	struct records_job	 j = claude_job("6", "{}");
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	file_limit(100);
	outcome(&o, JOB_SUCCEEDED, "{\"tag\":\"x\"}");
	ATF_CHECK(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == -1);
	ATF_CHECK_MATCH("^meta.json: cannot be written: File too large$", why);
	ATF_REQUIRE(records_read(dfd, "notes", "6", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.status, RECORDS_RUNNING);
	/* Control: the output.json it did write is there. */
	ATF_CHECK_STREQ(slurp("data/notes/6/output.json"), "{\"tag\":\"x\"}");
	file_limit(RLIM_INFINITY);
	outcome(&o, JOB_RELEASED, NULL);
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_read(dfd, "notes", "6", &m, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(m.status, RECORDS_RELEASED);
	ATF_CHECK_MSG(access("data/notes/6/output.json", F_OK) == -1,
	    "an output that never went out is still in the record");
	only_files("data/notes/6", 2);
	close(dfd);
}

/* A file is replaced by a rename, never rewritten where it lies. */
ATF_TC_WITHOUT_HEAD(whole_files);
ATF_TC_BODY(whole_files, tc)
{
	struct records_job	 j = claude_job("6", "{}");
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX], before[4096];
	int			 dfd = data_dir();

	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	(void)strlcpy(before, slurp("data/notes/6/meta.json"), sizeof(before));
	ATF_REQUIRE(link("data/notes/6/meta.json", "old-meta") == 0);
	outcome(&o, JOB_SUCCEEDED, "{}");
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW, why, sizeof(why)) == 0);
	/* The old inode still holds the old text in full: nothing wrote into it. */
	ATF_CHECK_STREQ(slurp("old-meta"), before);
	ATF_CHECK(strstr(slurp("data/notes/6/meta.json"), "succeeded") != NULL);
	only_files("data/notes/6", 3);
	/* Claimed again (released, offered anew): the old output is gone. */
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	only_files("data/notes/6", 2);
	ATF_CHECK(strstr(slurp("data/notes/6/meta.json"), "running") != NULL);
	close(dfd);
}

/* S6 S7: an id or a source that would leave its folder is refused. */
ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	static const char *const badids[] = { "", ".", "..", "../x", "a/b",
	    "a b", "a\\b", "x?y" };
	static const char *const badsrcs[] = { "", ".", "..", "../x", "a/b",
	    "Notes", "-x" };
	struct records_job	 j = claude_job("1", "{}");
	char			 why[RECORDS_WHY_MAX];
	size_t			 i;
	int			 dfd = data_dir();

	for (i = 0; i < sizeof(badids) / sizeof(badids[0]); i++) {
		j.id = badids[i];
		ATF_CHECK_MSG(records_begin(dfd, &j, why, sizeof(why)) == -1,
		    "id \"%s\" taken", badids[i]);
	}
	j.id = "1";
	for (i = 0; i < sizeof(badsrcs) / sizeof(badsrcs[0]); i++) {
		j.source = badsrcs[i];
		ATF_CHECK_MSG(records_begin(dfd, &j, why, sizeof(why)) == -1,
		    "source \"%s\" taken", badsrcs[i]);
	}
	/* Nothing was made anywhere: data_dir is empty, and so is its parent's. */
	ATF_CHECK_EQ(rmdir("data"), 0);
	ATF_CHECK(access("x", F_OK) == -1);
	close(dfd);
}

/* A link where a source's folder should be is refused, never followed. */
ATF_TC_WITHOUT_HEAD(link_refused);
ATF_TC_BODY(link_refused, tc)
{
	struct records_job	 j = claude_job("1", "{}");
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	ATF_REQUIRE(mkdir("outside", 0700) == 0);
	ATF_REQUIRE(symlink("../outside", "data/notes") == 0);
	ATF_CHECK(records_begin(dfd, &j, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "data_dir/notes: is not a folder (a link is never "
	    "followed): remove it");
	ATF_CHECK(rmdir("outside") == 0);
	/* Control: with a folder there, the record is written. */
	ATF_REQUIRE(unlink("data/notes") == 0);
	ATF_CHECK(records_begin(dfd, &j, why, sizeof(why)) == 0);
	close(dfd);
}

ATF_TC_WITHOUT_HEAD(unreadable);
ATF_TC_BODY(unreadable, tc)
{
	static const char planted[] = "{\"source\":\"notes\",\"job\":\"../x\"}";
	struct records_meta	 m;
	char			 why[RECORDS_WHY_MAX];
	int			 fd, dfd = data_dir();

	ATF_REQUIRE(mkdir("data/notes", 0700) == 0 &&
	    mkdir("data/notes/7", 0700) == 0);
	ATF_CHECK(records_read(dfd, "notes", "7", &m, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "notes/7/meta.json: No such file or directory");
	ATF_REQUIRE((fd = open("data/notes/7/meta.json", O_WRONLY | O_CREAT,
	    0600)) != -1);
	ATF_REQUIRE(write(fd, "{\"source\":\"notes\"", 17) == 17);
	close(fd);
	ATF_CHECK(records_read(dfd, "notes", "7", &m, why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strncmp(why, "notes/7/meta.json: not JSON", 27) == 0,
	    "%s", why);
	ATF_CHECK(records_meta_parse("{\"source\":\"notes\"}", 18, &m, why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "no job, or an id that is not valid");
	ATF_CHECK(records_meta_parse(planted, strlen(planted), &m, why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "no job, or an id that is not valid");
	close(dfd);
}

/* path holds text, 0600. */
static void
put(const char *path, const char *text)
{
	int	 fd;

	ATF_REQUIRE_MSG((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC,
	    0600)) != -1, "%s: %s", path, strerror(errno));
	ATF_REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	ATF_REQUIRE(close(fd) == 0);
}

/* A job folder made by records, finished days ago, its result as given. */
static void
owed_job(int dfd, const char *source, const char *id, int days,
    enum records_result r)
{
	struct records_job	 j = claude_job(id, "{}");
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];

	j.source = source;
	j.started_at = NOW - DAYS(days) - 5;
	outcome(&o, JOB_SUCCEEDED, "{}");
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	ATF_REQUIRE(records_finish(dfd, &j, &o, NOW - DAYS(days), why,
	    sizeof(why)) == 0);
	if (r != RECORDS_PENDING)
		ATF_REQUIRE(records_result(dfd, source, id, r, why,
		    sizeof(why)) == 0);
}

/* The same, its result taken by the source. */
static void
old_job(int dfd, const char *source, const char *id, int days)
{
	owed_job(dfd, source, id, days, RECORDS_SENT);
}

static void
set_mtime(const char *path, time_t t)
{
	struct timespec	 ts[2] = { { t, 0 }, { t, 0 } };

	ATF_REQUIRE(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) == 0);
}

static int
exists(const char *path)
{
	struct stat	 st;

	return lstat(path, &st) == 0;
}

ATF_TC_WITHOUT_HEAD(prune);
ATF_TC_BODY(prune, tc)
{
	char	 why[RECORDS_WHY_MAX];
	int	 dfd = data_dir();

	old_job(dfd, "notes", "old", 31);
	old_job(dfd, "notes", "new", 29);
	old_job(dfd, "recipes", "old", 40);
	/* No meta.json: its mtime decides (finished_at counts, not the mtime). */
	ATF_REQUIRE(mkdir("data/notes/nometa", 0700) == 0);
	set_mtime("data/notes/nometa", NOW - DAYS(31));
	ATF_REQUIRE(mkdir("data/notes/nometa-new", 0700) == 0);
	set_mtime("data/notes/old", NOW);
	set_mtime("data/notes/new", NOW - DAYS(100));
	/* Not job folders: left alone however old. */
	ATF_REQUIRE(mkdir("data/notes/.hidden", 0700) == 0);
	set_mtime("data/notes/.hidden", NOW - DAYS(100));
	ATF_REQUIRE(mkdir("data/Not-a-source", 0700) == 0 &&
	    mkdir("data/Not-a-source/1", 0700) == 0);
	set_mtime("data/Not-a-source/1", NOW - DAYS(100));
	ATF_REQUIRE(close(open("data/notes/README", O_WRONLY | O_CREAT, 0600)) == 0);
	set_mtime("data/notes/README", NOW - DAYS(100));
	ATF_CHECK_EQ(records_prune(dfd, 30, NOW, why, sizeof(why)), 3);
	ATF_CHECK(!exists("data/notes/old"));
	ATF_CHECK(!exists("data/recipes/old"));
	ATF_CHECK(!exists("data/notes/nometa"));
	ATF_CHECK(exists("data/notes/new/meta.json"));
	ATF_CHECK(exists("data/notes/nometa-new"));
	ATF_CHECK(exists("data/notes/.hidden"));
	ATF_CHECK(exists("data/Not-a-source/1"));
	ATF_CHECK(exists("data/notes/README"));
	ATF_CHECK(exists("data/recipes"));
	/* Nothing is left to prune: the same call again deletes nothing. */
	ATF_CHECK_EQ(records_prune(dfd, 30, NOW, why, sizeof(why)), 0);
	close(dfd);
}

/*
 * A record whose result has not gone out is all that says it is owed:
 * kept past retention_days however old, pending or running (a source
 * away longer, a start after a long downtime).  Control: taken (sent)
 * or refused (gone, 409), the same age goes.
 */
ATF_TC_WITHOUT_HEAD(prune_owed);
ATF_TC_BODY(prune_owed, tc)
{
	struct records_job	 j = claude_job("running", "{}");
	char			 why[RECORDS_WHY_MAX];
	int			 dfd = data_dir();

	owed_job(dfd, "notes", "pending", 40, RECORDS_PENDING);
	owed_job(dfd, "notes", "sent", 40, RECORDS_SENT);
	owed_job(dfd, "notes", "gone", 40, RECORDS_GONE);
	j.started_at = NOW - DAYS(40);
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);
	set_mtime("data/notes/running", NOW - DAYS(40));
	ATF_CHECK_EQ(records_prune(dfd, 30, NOW, why, sizeof(why)), 2);
	ATF_CHECK_MSG(exists("data/notes/pending/meta.json"), "a record whose "
	    "result is pending was pruned");
	ATF_CHECK_MSG(exists("data/notes/pending/output.json"), "the output "
	    "of a pending result was pruned");
	ATF_CHECK_MSG(exists("data/notes/running/meta.json"), "a record whose "
	    "job runs was pruned");
	ATF_CHECK(!exists("data/notes/sent"));
	ATF_CHECK(!exists("data/notes/gone"));
	/* Once its result went out, it goes as any other. */
	ATF_REQUIRE(records_result(dfd, "notes", "pending", RECORDS_SENT, why,
	    sizeof(why)) == 0);
	ATF_CHECK_EQ(records_prune(dfd, 30, NOW, why, sizeof(why)), 1);
	ATF_CHECK(!exists("data/notes/pending"));
	ATF_CHECK(exists("data/notes/running/meta.json"));
	close(dfd);
}

/*
 * A record that is gone (its folder, or its meta.json) cannot say what
 * became of the result: 1, why naming it, so that the core lets the
 * result go.  Control: a meta.json there but unreadable is a failure
 * (-1), tried again; a record there is written (0).
 */
ATF_TC_WITHOUT_HEAD(result_no_record);
ATF_TC_BODY(result_no_record, tc)
{
	char	 why[RECORDS_WHY_MAX];
	int	 dfd = data_dir();

	ATF_CHECK_EQ(records_result(dfd, "notes", "9", RECORDS_SENT, why,
	    sizeof(why)), 1);
	ATF_CHECK_STREQ(why, "data_dir/notes: No such file or directory");
	owed_job(dfd, "notes", "8", 1, RECORDS_PENDING);
	ATF_CHECK_EQ(records_result(dfd, "notes", "9", RECORDS_GONE, why,
	    sizeof(why)), 1);
	ATF_CHECK_STREQ(why, "data_dir/notes/9: No such file or directory");
	ATF_CHECK(!exists("data/notes/9"));
	ATF_REQUIRE(unlink("data/notes/8/meta.json") == 0);
	ATF_CHECK_EQ(records_result(dfd, "notes", "8", RECORDS_SENT, why,
	    sizeof(why)), 1);
	ATF_CHECK_STREQ(why, "notes/8/meta.json: No such file or directory");
	ATF_CHECK(!exists("data/notes/8/meta.json"));
	put("data/notes/8/meta.json", "{\"source\": \"notes\", \"job\": ");
	ATF_CHECK_EQ(records_result(dfd, "notes", "8", RECORDS_SENT, why,
	    sizeof(why)), -1);
	owed_job(dfd, "notes", "7", 1, RECORDS_PENDING);
	ATF_CHECK_EQ(records_result(dfd, "notes", "7", RECORDS_SENT, why,
	    sizeof(why)), 0);
	close(dfd);
}

/* Links out of data_dir: the links may go, what they point to never does. */
ATF_TC_WITHOUT_HEAD(prune_links);
ATF_TC_BODY(prune_links, tc)
{
	char	 why[RECORDS_WHY_MAX];
	int	 dfd = data_dir();

	/* Outside: what would be an old job folder, and a file. */
	ATF_REQUIRE(mkdir("outside", 0700) == 0 &&
	    mkdir("outside/old", 0700) == 0);
	ATF_REQUIRE(close(open("outside/old/meta.json", O_WRONLY | O_CREAT,
	    0600)) == 0);
	ATF_REQUIRE(close(open("outside/precious", O_WRONLY | O_CREAT,
	    0600)) == 0);
	set_mtime("outside/old", NOW - DAYS(100));
	/* A source folder that is a link, and a job folder that is a link. */
	ATF_REQUIRE(symlink("../outside", "data/evil") == 0);
	old_job(dfd, "notes", "old", 31);
	ATF_REQUIRE(symlink("../../outside/old", "data/notes/linked") == 0);
	/* Inside an old job folder, a link to a file outside. */
	ATF_REQUIRE(symlink("../../../outside/precious",
	    "data/notes/old/extra") == 0);
	ATF_CHECK_EQ(records_prune(dfd, 30, NOW, why, sizeof(why)), 1);
	ATF_CHECK(!exists("data/notes/old"));
	ATF_CHECK(exists("outside/precious"));
	ATF_CHECK(exists("outside/old/meta.json"));
	ATF_CHECK(exists("data/notes/linked"));
	ATF_CHECK(exists("data/evil"));
	/* Control: the same folder inside data_dir, not linked, is pruned. */
	ATF_REQUIRE(rename("outside", "data/inside") == 0);
	ATF_REQUIRE(mkdir("data/inside/x", 0700) == 0);
	ATF_REQUIRE(rename("data/inside/old", "data/inside/x/old") == 0);
	ATF_REQUIRE(rename("data/inside/x", "data/other") == 0);
	set_mtime("data/other/old", NOW - DAYS(100));
	ATF_CHECK_EQ(records_prune(dfd, 30, NOW, why, sizeof(why)), 1);
	ATF_CHECK(!exists("data/other/old"));
	close(dfd);
}

ATF_TC_WITHOUT_HEAD(times);
ATF_TC_BODY(times, tc)
{
	char	 buf[32];
	time_t	 t;

	ATF_CHECK(records_time(0, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "1970-01-01T00:00:00Z");
	ATF_CHECK(records_time_parse("2026-05-28T20:26:40Z", &t) == 0);
	ATF_CHECK_EQ(t, NOW);
	ATF_CHECK(records_time_parse("2026-05-28T20:26:40", &t) == -1);
	ATF_CHECK(records_time_parse("2026-05-28T20:26:40+02:00", &t) == -1);
	ATF_CHECK(records_time_parse("2026-05-28T20:26:40Zx", &t) == -1);
	ATF_CHECK(records_time_parse("yesterday", &t) == -1);
}

/*
 * S5: the jobs started in the last hour, read back at a restart, oldest
 * first; older ones, later ones and another source's are not counted.
 * A record that cannot be read (meta.json malformed, or naming another
 * source than its folder's) is skipped and counted apart, the others
 * read all the same.
 */
ATF_TC_WITHOUT_HEAD(starts);
ATF_TC_BODY(starts, tc)
{
	static const time_t	 at[] = { NOW - 2 * 3600, NOW - 600,
	    NOW - 3599, NOW - 10, NOW + 600 };
	static const char *const ids[] = { "old", "b", "a", "c", "future" };
	struct records_job	 j;
	time_t			*v;
	size_t			 i, n, bad;
	char			 why[256], *meta;
	int			 dfd = data_dir();

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		j = claude_job(ids[i], "{}");
		j.started_at = at[i];
		ATF_REQUIRE_MSG(records_begin(dfd, &j, why, sizeof(why)) == 0,
		    "%s", why);
	}
	j = claude_job("x", "{}");
	j.source = "other";
	ATF_REQUIRE(records_begin(dfd, &j, why, sizeof(why)) == 0);

	ATF_REQUIRE_MSG(records_starts(dfd, "notes", NOW - 3600, NOW, &v, &n,
	    &bad, why, sizeof(why)) == 0, "%s", why);
	ATF_REQUIRE_EQ_MSG(n, 3, "%zu starts", n);
	ATF_CHECK_EQ(bad, 0);
	ATF_CHECK_EQ(v[0], NOW - 3599);
	ATF_CHECK_EQ(v[1], NOW - 600);
	ATF_CHECK_EQ(v[2], NOW - 10);
	free(v);

	ATF_REQUIRE(mkdir("data/notes/broken", 0700) == 0);
	put("data/notes/broken/meta.json", "{\"source\": \"notes\", \"job\": ");
	ATF_REQUIRE(mkdir("data/notes/liar", 0700) == 0);
	ATF_REQUIRE((meta = slurp("data/other/x/meta.json")) != NULL);
	put("data/notes/liar/meta.json", meta);
	ATF_REQUIRE(mkdir("data/notes/nometa", 0700) == 0);
	ATF_REQUIRE_MSG(records_starts(dfd, "notes", NOW - 3600, NOW, &v, &n,
	    &bad, why, sizeof(why)) == 0, "%s", why);
	ATF_CHECK_EQ_MSG(bad, 3, "%zu unreadable", bad);
	ATF_REQUIRE_EQ_MSG(n, 3, "%zu starts", n);
	ATF_CHECK_EQ(v[0], NOW - 3599);
	ATF_CHECK_EQ(v[2], NOW - 10);
	free(v);

	/* Control: a source with no folder yet has none, and no error. */
	ATF_REQUIRE(records_starts(dfd, "new", NOW - 3600, NOW, &v, &n, &bad,
	    why, sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 0);
	ATF_CHECK_EQ(bad, 0);
	free(v);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, begin_and_finish);
	ATF_TP_ADD_TC(tp, failed_reply);
	ATF_TP_ADD_TC(tp, ocr_input);
	ATF_TP_ADD_TC(tp, not_offered);
	ATF_TP_ADD_TC(tp, unfinished);
	ATF_TP_ADD_TC(tp, gone);
	ATF_TP_ADD_TC(tp, note_whole);
	ATF_TP_ADD_TC(tp, finish_whole);
	ATF_TP_ADD_TC(tp, whole_files);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, link_refused);
	ATF_TP_ADD_TC(tp, unreadable);
	ATF_TP_ADD_TC(tp, prune);
	ATF_TP_ADD_TC(tp, prune_owed);
	ATF_TP_ADD_TC(tp, result_no_record);
	ATF_TP_ADD_TC(tp, prune_links);
	ATF_TP_ADD_TC(tp, times);
	ATF_TP_ADD_TC(tp, starts);
	return atf_no_error();
}
