/* ocr: Tesseract in a box that reaches nothing; input.json keeps a SHA-256. */
#include <ctype.h>
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cap_ocr.h"
#include "config.h"
#include "confparse.h"
#include "json.h"
#include "log.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define LANGUAGES_MAX	16
#define TESSDATA	"/usr/share/tesseract-ocr/5/tessdata"
#define OCR_TESSDATA	"/sandcastle/tessdata"	/* in its image */
#define OCR_LANGUAGES	"/sandcastle/languages"	/* one a line */

struct ocr_conf {
	char		**languages;
	size_t		  nlanguages;
	uint64_t	  max_pixels;
	uint32_t	  max_edge;
};

static const char *const ocr_keys[] = {
	"languages", "max_pixels", "max_edge", "max_input", "max_output",
	"timeout", "cooldown", "jobs", "box", "destination", NULL
};

static struct ocr_conf *
ocr_conf(const struct config *cfg)
{
	return cfg->capconf[CAP_OCR];
}

static void
ocr_init(struct config *cfg)
{
	struct ocr_conf	*ocr;

	if ((ocr = calloc(1, sizeof(*ocr))) == NULL ||
	    (ocr->languages = calloc(1, sizeof(char *))) == NULL)
		fatal("configuration");
	ocr->languages[0] = conf_strdup("eng");
	ocr->nlanguages = 1;
	ocr->max_pixels = 40000000;
	ocr->max_edge = 4000;
	cfg->capconf[CAP_OCR] = ocr;
}

static int
ocr_language_valid(const char *s)
{
	size_t	 len = strlen(s);

	return len >= 2 && len <= 32 && islower((unsigned char)s[0]) &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

static void
ocr_language(struct yfile *yf, struct ynode *n, struct ocr_conf *ocr)
{
	const char	*s;
	size_t		 i;

	if (ystring(yf, n, "a Tesseract language, as eng", &s) == -1)
		return;
	if (!ocr_language_valid(s)) {
		yerr_value(yf, n, "is not a Tesseract language: write 2 to 32 "
		    "of a-z, 0-9 and _, starting with a letter, as eng");
		return;
	}
	for (i = 0; i < ocr->nlanguages; i++) {
		if (strcmp(ocr->languages[i], s) == 0) {
			yerr_value(yf, n, "is listed twice: keep one");
			return;
		}
	}
	ocr->languages[ocr->nlanguages++] = conf_strdup(s);
}

static void
ocr_languages_free(struct ocr_conf *ocr)
{
	size_t	 i;

	for (i = 0; i < ocr->nlanguages; i++)
		free(ocr->languages[i]);
	free(ocr->languages);
	ocr->languages = NULL;
	ocr->nlanguages = 0;
}

static void
ocr_languages(struct yfile *yf, struct ynode *n, struct ocr_conf *ocr)
{
	struct ynode	*item;

	if (n == NULL || yseq(yf, n, "[eng]") == -1)
		return;
	if (n->nkids == 0 || n->nkids > LANGUAGES_MAX) {
		yerr(yf, n, "lists %zu languages: list 1 to 16, as [eng]",
		    n->nkids);
		return;
	}
	ocr_languages_free(ocr);
	if ((ocr->languages = calloc(n->nkids, sizeof(char *))) == NULL)
		fatal("configuration");
	TAILQ_FOREACH(item, &n->kids, entry)
		ocr_language(yf, item, ocr);
}

static void
ocr_parse(struct yfile *yf, struct ynode *n, struct config *cfg)
{
	struct ocr_conf	*ocr = ocr_conf(cfg);
	struct ynode	*d;
	uint64_t	 v;

	if (ymap(yf, n, "{ languages: [eng] }") == -1)
		return;
	ymap_known(yf, n, ocr_keys);
	if ((d = yget(n, "destination")) != NULL)
		yerr(yf, d, "is refused: ocr reaches nothing outside its box: "
		    "remove it");
	ocr_languages(yf, yget(n, "languages"), ocr);
	if ((d = yget(n, "max_pixels")) != NULL &&
	    yuint(yf, d, 1, 1000000000, &v) == 0)
		ocr->max_pixels = v;
	conf_u32(yf, yget(n, "max_edge"), 16, 20000, &ocr->max_edge);
	conf_cap(yf, n, &cfg->caps[CAP_OCR]);
}

static void
ocr_print(FILE *fp, const struct config *cfg)
{
	const struct ocr_conf *ocr = ocr_conf(cfg);
	size_t		 i;

	fprintf(fp, "    languages: [");
	for (i = 0; i < ocr->nlanguages; i++)
		fprintf(fp, "%s%s", i ? ", " : "", ocr->languages[i]);
	fprintf(fp, "]\n    max_pixels: %llu\n    max_edge: %u\n",
	    (unsigned long long)ocr->max_pixels, ocr->max_edge);
}

static void
ocr_free(struct config *cfg)
{
	struct ocr_conf	*ocr = ocr_conf(cfg);

	if (ocr == NULL)
		return;
	ocr_languages_free(ocr);
	free(ocr);
	cfg->capconf[CAP_OCR] = NULL;
}

static void
ocr_settings(struct json_writer *w, const struct config *conf)
{
	const struct ocr_conf *ocr = ocr_conf(conf);
	size_t		 i;

	json_write_key(w, "languages");
	json_write_array(w);
	for (i = 0; i < ocr->nlanguages; i++)
		json_write_string(w, ocr->languages[i]);
	json_write_close(w);
	json_write_key(w, "max_pixels");
	json_write_uint(w, ocr->max_pixels);
	json_write_key(w, "max_edge");
	json_write_uint(w, ocr->max_edge);
}

/* Each language's traineddata, and their names in the order the box loads. */
static int
ocr_image(const struct config *conf, const struct cap_image *img)
{
	const struct ocr_conf *ocr = ocr_conf(conf);
	char		 path[PATH_MAX], inside[PATH_MAX], names[1024] = "";
	size_t		 i;

	for (i = 0; i < ocr->nlanguages; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s.traineddata",
		    TESSDATA, ocr->languages[i]);
		(void)snprintf(inside, sizeof(inside), "%s/%s.traineddata",
		    OCR_TESSDATA, ocr->languages[i]);
		if (access(path, R_OK) == -1) {
			warnx("ocr language %s: %s is missing; install its "
			    "tesseract-ocr-%s package or remove it from "
			    "capabilities.ocr.languages",
			    ocr->languages[i], path,
			    ocr->languages[i]);
			return -1;
		}
		if (img->copy(img->arg, path, inside) == -1)
			return -1;
		(void)strlcat(names, ocr->languages[i], sizeof(names));
		(void)strlcat(names, "\n", sizeof(names));
	}
	return img->write(img->arg, OCR_LANGUAGES, names);
}

static void
ocr_output_languages(const char *output, char *buf, size_t bufsz)
{
	struct json	 j;
	const char	*why;
	char		 lang[64];
	size_t		 len, k, n;
	long		 a;

	buf[0] = '\0';
	if (output == NULL ||
	    json_parse(&j, output, strlen(output), &why) == -1)
		return;
	if ((a = json_find(&j, 0, "languages")) != -1 &&
	    j.toks[a].type == JSON_ARRAY)
		for (n = 0, k = a + 1; n < j.toks[a].size;
		    n++, k = j.toks[k].next) {
			if (json_string_copy(&j, k, lang, sizeof(lang),
			    &len) == -1)
				continue;
			if (buf[0] != '\0')
				(void)strlcat(buf, " ", bufsz);
			(void)strlcat(buf, lang, bufsz);
		}
	json_free(&j);
}

/* On JW_LANGUAGES the failure's reply holds the image's languages. */
static int
ocr_proved(const struct config *conf, const struct job_outcome *o,
    char *buf, size_t bufsz)
{
	const struct ocr_conf *ocr = ocr_conf(conf);
	char		 have[256], want[256] = "";
	size_t		 i;

	if (o->status == JOB_SUCCEEDED) {
		ocr_output_languages(o->output, have, sizeof(have));
		(void)snprintf(buf, bufsz, "usable (languages %s)", have);
		return 0;
	}
	if (o->word != JW_LANGUAGES) {
		(void)strlcpy(buf, o->error, bufsz);
		return -1;
	}
	ocr_output_languages(o->reply, have, sizeof(have));
	for (i = 0; i < ocr->nlanguages; i++) {
		if (i > 0)
			(void)strlcat(want, " ", sizeof(want));
		(void)strlcat(want, ocr->languages[i], sizeof(want));
	}
	(void)snprintf(buf, bufsz, "the image has %s, the configuration asks "
	    "for %s; run sandcastlectl install", have[0] != '\0' ? have :
	    "none", want);
	return -1;
}

static const char *const ocr_loads[] = { OCR_TESSDATA, OCR_LANGUAGES, NULL };

static const char *const ocr_names[] = {
	[JW_CAP_INDEX(JW_LANGUAGES)] = "languages",
};
_Static_assert(NELEM(ocr_names) <= JW_CAP_WORDS, "room for its words");

static const struct cap_word ocr_words[] = {
	{ JW_LANGUAGES, 0 }, { JW_LANGUAGES, 1 }, { JW_RELEASED, 1 },
	{ JW_NONE, 0 }
};

const struct cap_row cap_ocr = {
	.name = "ocr",
	.box = "sandcastle-box-ocr",
	.defaults = { 0, 16 * MiB, 1 * MiB, 2 * 60, 15 * 60,
	    { 512 * MiB, 1000, 64, 64 * MiB }, 0 },
	.request = 0,
	.cpu_bound = 1,
	.keeps = CAP_KEEPS_DIGEST,
	.init = ocr_init,
	.parse = ocr_parse,
	.print = ocr_print,
	.free = ocr_free,
	.destination = NULL,
	.request_check = NULL,
	.settings = ocr_settings,
	.image = ocr_image,
	.loads = ocr_loads,
	.words = ocr_words,
	.names = ocr_names,
	.nnames = NELEM(ocr_names),
	.proved = ocr_proved,
};
