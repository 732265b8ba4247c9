/*
 * Golden tests of the configuration parser: each regress/config/<case>/
 * is a configuration folder, and <case>.ok holds the exact lines that
 * config_load() must report for it, the folder written as CONF.  An
 * empty .ok means the folder is valid; a <case>.print, when present,
 * holds what config_print() must write for it.
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define LINES_MAX	256

struct lines {
	char	*line[LINES_MAX];
	size_t	 n;
};

static void
lines_add(struct lines *l, const char *s, size_t len)
{
	ATF_REQUIRE_MSG(l->n < LINES_MAX, "more than %d lines", LINES_MAX);
	ATF_REQUIRE((l->line[l->n] = strndup(s, len)) != NULL);
	l->n++;
}

/* Splits text into lines, with the folder's path written as CONF. */
static void
lines_split(struct lines *l, const char *text, const char *dir)
{
	const char	*p, *nl;
	char		*line, *at;
	size_t		 dlen = strlen(dir);

	for (p = text; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		ATF_REQUIRE((line = strndup(p, (size_t)(nl - p))) != NULL);
		while ((at = strstr(line, dir)) != NULL) {
			memmove(at + 4, at + dlen, strlen(at + dlen) + 1);
			memcpy(at, "CONF", 4);
		}
		lines_add(l, line, strlen(line));
		free(line);
		if (*nl == '\0')
			break;
	}
}

static char *
slurp(const char *path)
{
	FILE	*fp;
	char	*buf;
	long	 len;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	ATF_REQUIRE(fseek(fp, 0, SEEK_END) == 0);
	ATF_REQUIRE((len = ftell(fp)) >= 0);
	rewind(fp);
	ATF_REQUIRE((buf = calloc(1, (size_t)len + 1)) != NULL);
	ATF_REQUIRE(fread(buf, 1, (size_t)len, fp) == (size_t)len);
	fclose(fp);
	return buf;
}

/* Prints a diff-like account on stderr; returns the lines that differ. */
static size_t
lines_compare(const char *what, const struct lines *want,
    const struct lines *got)
{
	size_t	 i, bad = 0, n = want->n > got->n ? want->n : got->n;

	for (i = 0; i < n; i++) {
		const char *w = i < want->n ? want->line[i] : NULL;
		const char *g = i < got->n ? got->line[i] : NULL;

		if (w != NULL && g != NULL && strcmp(w, g) == 0)
			continue;
		if (bad++ == 0)
			fprintf(stderr, "--- %s (expected)\n+++ config_load\n",
			    what);
		fprintf(stderr, "@@ line %zu\n", i + 1);
		if (w != NULL)
			fprintf(stderr, "-%s\n", w);
		if (g != NULL)
			fprintf(stderr, "+%s\n", g);
	}
	return bad;
}

static void
lines_free(struct lines *l)
{
	while (l->n > 0)
		free(l->line[--l->n]);
}

static void
golden_print(const char *dir, const struct config *cfg)
{
	struct lines	 want = { .n = 0 }, got = { .n = 0 };
	char		 path[1100], *text, *out = NULL;
	size_t		 outlen;
	FILE		*fp;

	snprintf(path, sizeof(path), "%s.print", dir);
	if ((text = slurp(path)) == NULL)
		return;
	ATF_REQUIRE((fp = open_memstream(&out, &outlen)) != NULL);
	config_print(fp, cfg);
	fclose(fp);
	lines_split(&want, text, dir);
	lines_split(&got, out, dir);
	if (lines_compare(path, &want, &got) != 0)
		atf_tc_fail("config_print differs from %s: see stderr", path);
	lines_free(&want);
	lines_free(&got);
	free(text);
	free(out);
}

/* atf-c's srcdir is the test program's folder: regress/config of the checkout. */
static void
golden_dir(const atf_tc_t *tc, const char *name, char *buf, size_t bufsz)
{
	if ((size_t)snprintf(buf, bufsz, "%s/%s",
	    atf_tc_get_config_var(tc, "srcdir"), name) >= bufsz)
		atf_tc_fail("path too long: %s", name);
}

static void
golden(const atf_tc_t *tc, const char *name)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct conferr	*e;
	struct config	*cfg;
	struct lines	 want = { .n = 0 }, got = { .n = 0 };
	char		 dir[1024], ok[1100], *text;
	size_t		 bad;

	golden_dir(tc, name, dir, sizeof(dir));
	snprintf(ok, sizeof(ok), "%s.ok", dir);
	ATF_REQUIRE_MSG((text = slurp(ok)) != NULL, "cannot read %s", ok);
	lines_split(&want, text, dir);
	cfg = config_load(dir, &errs);
	TAILQ_FOREACH(e, &errs, entry)
		lines_split(&got, e->line, dir);
	bad = lines_compare(ok, &want, &got);
	if (bad != 0)
		atf_tc_fail("%zu of the lines differ from %s: see stderr",
		    bad, ok);
	if (want.n == 0) {
		ATF_REQUIRE_MSG(cfg != NULL, "a valid folder was refused");
		golden_print(dir, cfg);
	} else
		ATF_REQUIRE_MSG(cfg == NULL, "problems, yet a configuration");
	config_free(cfg);
	conferrs_free(&errs);
	lines_free(&want);
	lines_free(&got);
	free(text);
}

#define GOLDEN(id, name, descr)						\
	ATF_TC(id);							\
	ATF_TC_HEAD(id, tc)						\
	{								\
		atf_tc_set_md_var(tc, "descr", descr);			\
		}								\
	ATF_TC_BODY(id, tc)						\
	{								\
		golden(tc, name);					\
	}

GOLDEN(valid_minimal, "valid-minimal", "the least a configuration needs")
GOLDEN(valid_full, "valid-full", "every key, at the ends of each range")
GOLDEN(unknown_key, "unknown-key", "unknown keys, with the nearest known")
GOLDEN(missing_keys, "missing-keys", "missing keys at their mapping's line")
GOLDEN(wrong_types, "wrong-types", "wrong types name the expected type")
GOLDEN(bad_durations, "bad-durations", "durations refused")
GOLDEN(bad_sizes, "bad-sizes", "sizes refused")
GOLDEN(bad_jobs, "bad-jobs", "jobs out of range or above config.yaml's")
GOLDEN(bad_jobs_global, "bad-jobs-global", "config.yaml's jobs out of range")
GOLDEN(bad_names, "bad-names", "source and secret names refused")
GOLDEN(bad_addresses, "bad-addresses", "destination addresses refused")
GOLDEN(bad_internal, "bad-internal", "internal exceptions refused: sealed, "
    "public, range, IPv6")
GOLDEN(cap_not_enabled, "cap-not-enabled", "a source's capabilities")
GOLDEN(no_sources, "no-sources", "a folder without sources/")
GOLDEN(bad_source_files, "bad-source-files", "what sources/ may not hold")
GOLDEN(config_symlink, "config-symlink", "config.yaml as a symbolic link")
GOLDEN(yaml_anchor_alias, "yaml-anchor-alias", "anchors and aliases")
GOLDEN(yaml_merge_key, "yaml-merge-key", "merge keys")
GOLDEN(yaml_tags, "yaml-tags", "tags")
GOLDEN(yaml_duplicate_key, "yaml-duplicate-key", "duplicate keys")
GOLDEN(yaml_implicit_typing, "yaml-implicit-typing", "YAML 1.1's booleans, "
    "null and octal")
GOLDEN(yaml_several_documents, "yaml-several-documents", "several documents")
GOLDEN(name_mismatch, "name-mismatch", "name: and the file's name differ")
GOLDEN(many_mistakes, "many-mistakes", "every mistake of three files at once")

ATF_TC(examples);
ATF_TC_HEAD(examples, tc)
{
	atf_tc_set_md_var(tc, "descr", "the shipped examples/ load cleanly");
}
ATF_TC_BODY(examples, tc)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct config	*cfg;
	char		 dir[1024];

	golden_dir(tc, "../../examples", dir, sizeof(dir));
	cfg = config_load(dir, &errs);
	conferrs_print(stderr, &errs);
	ATF_REQUIRE_MSG(TAILQ_EMPTY(&errs), "examples/ has problems: see "
	    "stderr");
	ATF_REQUIRE(cfg != NULL);
	ATF_REQUIRE_EQ(cfg->nsources, 2);
	ATF_REQUIRE(cfg->caps[CAP_CLAUDE].enabled && cfg->caps[CAP_OCR].enabled);
	ATF_REQUIRE(config_destination(cfg, "notes") != NULL);
	ATF_REQUIRE(config_destination(cfg, "notes")->has_internal);
	config_free(cfg);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, valid_minimal);
	ATF_TP_ADD_TC(tp, valid_full);
	ATF_TP_ADD_TC(tp, unknown_key);
	ATF_TP_ADD_TC(tp, missing_keys);
	ATF_TP_ADD_TC(tp, wrong_types);
	ATF_TP_ADD_TC(tp, bad_durations);
	ATF_TP_ADD_TC(tp, bad_sizes);
	ATF_TP_ADD_TC(tp, bad_jobs);
	ATF_TP_ADD_TC(tp, bad_jobs_global);
	ATF_TP_ADD_TC(tp, bad_names);
	ATF_TP_ADD_TC(tp, bad_addresses);
	ATF_TP_ADD_TC(tp, bad_internal);
	ATF_TP_ADD_TC(tp, cap_not_enabled);
	ATF_TP_ADD_TC(tp, no_sources);
	ATF_TP_ADD_TC(tp, bad_source_files);
	ATF_TP_ADD_TC(tp, config_symlink);
	ATF_TP_ADD_TC(tp, yaml_anchor_alias);
	ATF_TP_ADD_TC(tp, yaml_merge_key);
	ATF_TP_ADD_TC(tp, yaml_tags);
	ATF_TP_ADD_TC(tp, yaml_duplicate_key);
	ATF_TP_ADD_TC(tp, yaml_implicit_typing);
	ATF_TP_ADD_TC(tp, yaml_several_documents);
	ATF_TP_ADD_TC(tp, name_mismatch);
	ATF_TP_ADD_TC(tp, many_mistakes);
	ATF_TP_ADD_TC(tp, examples);
	return atf_no_error();
}
