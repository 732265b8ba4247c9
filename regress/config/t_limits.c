/*
 * The bounds of the configuration: nesting, string and file sizes, the
 * number of sources, and folders that cannot be stored in git (an empty
 * sources/).  Each refusal has its control just inside the bound.
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static const char source_fmt[] =
    "name: %s\n"
    "destination: {address: https://%s.example.com, secret: %s}\n"
    "poll_interval: 30s\ncapabilities: [ocr]\n"
    "max_jobs_per_hour: 30\njob_timeout: 6m\n";

static void
write_file(const char *path, const char *text)
{
	FILE	*fp;

	ATF_REQUIRE((fp = fopen(path, "w")) != NULL);
	ATF_REQUIRE(fputs(text, fp) >= 0);
	ATF_REQUIRE(fclose(fp) == 0);
}

static void
write_source(const char *dir, const char *name)
{
	char	 path[256], text[512];

	snprintf(path, sizeof(path), "%s/sources/%s.yaml", dir, name);
	snprintf(text, sizeof(text), source_fmt, name, name, name);
	write_file(path, text);
}

static void
make_folder(const char *dir, size_t nsources)
{
	char	 path[256], name[32];
	size_t	 i;

	ATF_REQUIRE(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof(path), "%s/config.yaml", dir);
	write_file(path, "capabilities:\n  ocr: {}\n");
	snprintf(path, sizeof(path), "%s/sources", dir);
	ATF_REQUIRE(mkdir(path, 0700) == 0);
	for (i = 0; i < nsources; i++) {
		snprintf(name, sizeof(name), "s%02zu", i);
		write_source(dir, name);
	}
}

/* config_load's problems, one a line, or "" when it loaded. */
static char *
load(const char *dir, struct config **cfgp)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct config	*cfg;
	char		*out = NULL;
	size_t		 len;
	FILE		*fp;

	ATF_REQUIRE((fp = open_memstream(&out, &len)) != NULL);
	cfg = config_load(dir, &errs);
	conferrs_print(fp, &errs);
	fclose(fp);
	conferrs_free(&errs);
	ATF_REQUIRE((cfg == NULL) == (out[0] != '\0'));
	if (cfgp != NULL)
		*cfgp = cfg;
	else
		config_free(cfg);
	return out;
}

/* The problems of one config.yaml given as text, for the buffer parser. */
static char *
parse_main(const char *buf, size_t len)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct config	*cfg;
	char		*out = NULL;
	size_t		 outlen;
	FILE		*fp;

	ATF_REQUIRE((cfg = config_new("/c")) != NULL);
	ATF_REQUIRE((fp = open_memstream(&out, &outlen)) != NULL);
	config_parse_main(cfg, "/c/config.yaml", buf, len, &errs);
	conferrs_print(fp, &errs);
	fclose(fp);
	conferrs_free(&errs);
	config_free(cfg);
	return out;
}

static void
expect(char *got, const char *want)
{
	if (want[0] == '\0')
		ATF_CHECK_MSG(got[0] == '\0', "unexpected: %s", got);
	else
		ATF_CHECK_MSG(strstr(got, want) != NULL, "wanted \"%s\", got "
		    "\"%s\"", want, got);
	free(got);
}

ATF_TC_WITHOUT_HEAD(sources_64);
ATF_TC_BODY(sources_64, tc)
{
	struct config	*cfg;

	make_folder("ok", 64);
	expect(load("ok", &cfg), "");
	ATF_REQUIRE(cfg != NULL);
	ATF_CHECK_EQ(cfg->nsources, 64);
	ATF_CHECK_STREQ(TAILQ_FIRST(&cfg->sources)->name, "s00");
	config_free(cfg);
	make_folder("over", 65);
	expect(load("over", NULL), "over/sources:1: sources: holds more "
	    "than 64 sources: remove some");
}

ATF_TC_WITHOUT_HEAD(sources_empty);
ATF_TC_BODY(sources_empty, tc)
{
	make_folder("empty", 0);
	expect(load("empty", NULL), "empty/sources:1: sources: no source: "
	    "add sources/<name>.yaml\n");
	write_source("empty", "notes");
	expect(load("empty", NULL), "");
}

ATF_TC_WITHOUT_HEAD(folder_missing);
ATF_TC_BODY(folder_missing, tc)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);

	errno = 0;
	ATF_CHECK(config_load("nowhere", &errs) == NULL);
	ATF_CHECK_EQ(errno, ENOENT);
	ATF_CHECK(!TAILQ_EMPTY(&errs));
	conferrs_free(&errs);
	make_folder("here", 1);
	ATF_CHECK(config_load("here/sources/s00.yaml", &errs) == NULL);
	ATF_CHECK_EQ(errno, ENOTDIR);
	conferrs_free(&errs);
}

ATF_TC_WITHOUT_HEAD(config_not_regular);
ATF_TC_BODY(config_not_regular, tc)
{
	make_folder("fifo", 1);
	ATF_REQUIRE(unlink("fifo/config.yaml") == 0);
	expect(load("fifo", NULL), "fifo/config.yaml:1: config.yaml: is "
	    "missing");
	ATF_REQUIRE(mkfifo("fifo/config.yaml", 0600) == 0);
	expect(load("fifo", NULL), "fifo/config.yaml:1: config.yaml: is not "
	    "a regular file");
}

ATF_TC_WITHOUT_HEAD(file_size);
ATF_TC_BODY(file_size, tc)
{
	static const char head[] = "capabilities:\n  ocr: {}\n";
	size_t	 max = 1024 * 1024;
	char	*buf;

	ATF_REQUIRE((buf = malloc(max + 1)) != NULL);
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, '#', max + 1 - (sizeof(head) - 1));
	buf[sizeof(head) - 1] = '\n';
	expect(parse_main(buf, max), "");
	expect(parse_main(buf, max + 1), "/c/config.yaml:1: config.yaml: is "
	    "larger than 1 MiB");
	make_folder("big", 1);
	buf[max] = '\0';
	write_file("big/config.yaml", buf);
	expect(load("big", NULL), "");
	buf[max] = '#';
	ATF_REQUIRE((buf = realloc(buf, max + 2)) != NULL);
	buf[max + 1] = '\0';
	write_file("big/config.yaml", buf);
	expect(load("big", NULL), "big/config.yaml:1: config.yaml: is larger "
	    "than 1 MiB");
	free(buf);
}

ATF_TC_WITHOUT_HEAD(nesting);
ATF_TC_BODY(nesting, tc)
{
	char	 buf[256];
	int	 i, o;

	/* capabilities.ocr.box is depth 4: lists under it reach the bound. */
	for (i = 16; i <= 17; i++) {
		int	 lists = i - 4;

		o = snprintf(buf, sizeof(buf), "capabilities:\n  ocr:\n"
		    "    box:\n      memory: ");
		for (int j = 0; j < lists; j++)
			buf[o++] = '[';
		for (int j = 0; j < lists; j++)
			buf[o++] = ']';
		snprintf(buf + o, sizeof(buf) - o, "\n");
		if (i == 16)
			expect(parse_main(buf, strlen(buf)), "memory: is a list: "
			    "write a size");
		else
			expect(parse_main(buf, strlen(buf)), "[0]: is nested "
			    "deeper than 16 levels");
	}
}

ATF_TC_WITHOUT_HEAD(string_size);
ATF_TC_BODY(string_size, tc)
{
	size_t	 max = 64 * 1024, hlen, o;
	char	*buf;

	ATF_REQUIRE((buf = malloc(max + 256)) != NULL);
	for (o = 0; o <= 1; o++) {
		hlen = (size_t)snprintf(buf, 256, "capabilities:\n  claude:\n"
		    "    destination: {address: https://a.example, secret: a}\n"
		    "    model: m\n    system_prompt: \"");
		memset(buf + hlen, 'x', max + o);
		snprintf(buf + hlen + max + o, 8, "\"\n");
		expect(parse_main(buf, strlen(buf)), o == 0 ?
		    "system_prompt: is longer than 16 KiB" :
		    "system_prompt: is longer than 64 KiB");
	}
	hlen = (size_t)snprintf(buf, 256, "capabilities:\n  claude:\n"
	    "    destination: {address: https://a.example, secret: a}\n"
	    "    model: m\n    system_prompt: \"");
	memset(buf + hlen, 'x', 16 * 1024);
	snprintf(buf + hlen + 16 * 1024, 8, "\"\n");
	expect(parse_main(buf, strlen(buf)), "");
	free(buf);
}

/* The folder DIR read again differs from LINE in FILE, which is HOW. */
static void
differs(const char *dir, const char *line, const char *file, const char *how)
{
	struct config	*child;
	const char	*was;
	char		 name[128];

	expect(load(dir, &child), "");
	ATF_REQUIRE_EQ(config_digests_differ(child, line, name, sizeof(name),
	    &was), 1);
	ATF_CHECK_STREQ(name, file);
	ATF_CHECK_STREQ(was, how);
	config_free(child);
}

/*
 * What sandcastled hands each child: the 64 sources' digests fit one
 * argument of execve(2) (MAX_ARG_STRLEN, 32 pages), and each file
 * changed, added or removed since is named; the folder as it was, the
 * control, differs in none.
 */
ATF_TC_WITHOUT_HEAD(digests);
ATF_TC_BODY(digests, tc)
{
	struct config	*parent, *child;
	const char	*how;
	char		*line, name[128];

	make_folder("d", 64);
	expect(load("d", &parent), "");
	line = config_digests(parent);
	ATF_CHECK(strlen(line) < 32 * 4096);
	expect(load("d", &child), "");
	ATF_CHECK_EQ(config_digests_differ(child, line, name, sizeof(name),
	    &how), 0);
	config_free(child);
	write_file("d/sources/s07.yaml", "# a comment\n"
	    "name: s07\ndestination: {address: https://s07.example.com, "
	    "secret: s07}\npoll_interval: 30s\ncapabilities: [ocr]\n"
	    "max_jobs_per_hour: 30\njob_timeout: 6m\n");
	differs("d", line, "sources/s07.yaml", "changed");
	ATF_REQUIRE(unlink("d/sources/s07.yaml") == 0);
	differs("d", line, "sources/s07.yaml", "removed");
	write_source("d", "s07");
	write_source("d", "new");
	ATF_REQUIRE(unlink("d/sources/s08.yaml") == 0);
	differs("d", line, "sources/new.yaml", "added");
	write_file("d/config.yaml", "capabilities:\n  ocr: {cooldown: 1s}\n");
	write_source("d", "s08");
	ATF_REQUIRE(unlink("d/sources/new.yaml") == 0);
	differs("d", line, "config.yaml", "changed");
	free(line);
	config_free(parent);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, sources_64);
	ATF_TP_ADD_TC(tp, digests);
	ATF_TP_ADD_TC(tp, sources_empty);
	ATF_TP_ADD_TC(tp, folder_missing);
	ATF_TP_ADD_TC(tp, config_not_regular);
	ATF_TP_ADD_TC(tp, file_size);
	ATF_TP_ADD_TC(tp, nesting);
	ATF_TP_ADD_TC(tp, string_size);
	return atf_no_error();
}
