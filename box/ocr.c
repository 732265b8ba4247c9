/*
 * ocr's box side, in the promise's order: format by the first bytes,
 * size against max_pixels, pixels, then our own bitmap for Tesseract.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sha2.h>

#include "base64.h"
#include "ocr.h"

static void	record(struct box_outcome *, const unsigned char *, size_t,
		    const struct image *);
static void	ocr_check(const struct box_job *, const struct ocr_settings *,
		    struct box_outcome *);

static int
settings_langs(const struct json *j, long k, struct tess_langs *l)
{
	size_t	 n, t, len;

	if (k == -1 || j->toks[k].type != JSON_ARRAY || j->toks[k].size == 0 ||
	    j->toks[k].size > TESS_LANGS_MAX)
		return -1;
	for (n = 0, t = k + 1; n < j->toks[k].size; n++, t = json_next(j, t))
		if (json_string_copy(j, t, l->name[n], sizeof(l->name[n]),
		    &len) == -1 || !tess_lang_valid(l->name[n]))
			return -1;
	l->n = n;
	return 0;
}

int
ocr_settings(const struct json *j, size_t tok, struct ocr_settings *os,
    char *why, size_t whysz)
{
	int64_t	 v;

	memset(os, 0, sizeof(*os));
	if (j->toks[tok].size != 3 || json_find(j, tok, "languages") == -1 ||
	    json_find(j, tok, "max_pixels") == -1 ||
	    json_find(j, tok, "max_edge") == -1) {
		(void)snprintf(why, whysz, "settings: languages, max_pixels "
		    "and max_edge, and nothing else");
		return -1;
	}
	if (settings_langs(j, json_find(j, tok, "languages"), &os->langs) == -1) {
		(void)snprintf(why, whysz, "settings: languages: not a list of "
		    "1 to %d names of letters, digits and _", TESS_LANGS_MAX);
		return -1;
	}
	if (json_int(j, json_find(j, tok, "max_pixels"), 1, INT64_MAX,
	    &v) == -1) {
		(void)snprintf(why, whysz, "settings: max_pixels: not a whole "
		    "number above 0");
		return -1;
	}
	os->max_pixels = v;
	if (json_int(j, json_find(j, tok, "max_edge"), 1, UINT32_MAX,
	    &v) == -1) {
		(void)snprintf(why, whysz, "settings: max_edge: not a whole "
		    "number above 0");
		return -1;
	}
	os->max_edge = v;
	return 0;
}

static void
record(struct box_outcome *o, const unsigned char *p, size_t len,
    const struct image *im)
{
	struct json_writer	 w;
	char			 hex[SHA256_DIGEST_STRING_LENGTH];
	size_t			 n;

	(void)SHA256Data(p, len, hex);
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "image");
	json_write_object(&w);
	json_write_key(&w, "bytes");
	json_write_uint(&w, len);
	json_write_key(&w, "sha256");
	json_write_string(&w, hex);
	if (im != NULL && im->pix != NULL) {
		json_write_key(&w, "width");
		json_write_uint(&w, im->width);
		json_write_key(&w, "height");
		json_write_uint(&w, im->height);
	}
	json_write_close(&w);
	json_write_close(&w);
	free(o->record);
	o->record = json_writer_finish(&w, &n);
}

static void
output_text(struct box_outcome *o, const char *text)
{
	struct json_writer	 w;
	size_t			 n;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "text");
	json_write_string(&w, text);
	json_write_close(&w);
	o->output = json_writer_finish(&w, &n);
}

void
ocr_read(const struct ocr_settings *os, struct tess *tess,
    const unsigned char *p, size_t len, struct box_outcome *o,
    struct image *handed)
{
	struct image	 im, scaled;
	char		 why[PROTO_ERROR_MAX], *text;
	enum job_word	 word;

	if (image_decode(p, len, os->max_pixels, &im, why, sizeof(why)) == -1) {
		record(o, p, len, NULL);
		box_fail(o, JW_BOX, 0, "%s", why);
		return;
	}
	record(o, p, len, &im);
	if (image_scale(&im, os->max_edge, &scaled) == -1) {
		image_free(&im);
		box_fail(o, JW_BOX, 0, "out of memory to scale the image");
		return;
	}
	image_free(&im);
	if (handed != NULL) {
		handed->width = scaled.width;
		handed->height = scaled.height;
	}
	if (tess_read(tess, &os->langs, &scaled, &text, &word, why,
	    sizeof(why)) == -1)
		box_fail(o, word, 1, "%s", why);
	else
		output_text(o, text);
	free(text);
	image_free(&scaled);
}

static void
ocr_check(const struct box_job *job, const struct ocr_settings *os,
    struct box_outcome *o)
{
	struct json_writer	 w;
	enum job_word		 word;
	char			 why[PROTO_ERROR_MAX], *s;
	size_t			 n;
	int			 r;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "languages");
	r = tess_check(job->loaded, &os->langs, &w, &word, why, sizeof(why));
	if (r == -1 && word != JW_LANGUAGES) {
		json_writer_free(&w);
		box_fail(o, word, 0, "%s", why);
		return;
	}
	json_write_close(&w);
	s = json_writer_finish(&w, &n);
	/* On a mismatch, the image's languages are the reply check reads. */
	if (r == -1) {
		box_fail(o, word, 0, "%s", why);
		o->reply = s;
	} else
		o->output = s;
}

int
ocr_run(struct box_job *job, struct box_outcome *o)
{
	struct ocr_settings	 os;
	const char		*bwhy;
	char			 why[PROTO_WHY_MAX], *b64;
	unsigned char		*img;
	size_t			 len;
	long			 k;

	if (ocr_settings(job->j, job->settings, &os, why, sizeof(why)) == -1) {
		box_fail(o, JW_PROTOCOL, 0, "protocol: %s", why);
		if (job->io != NULL)
			job->io->broken = 1;
		return -1;
	}
	if (job->check) {
		ocr_check(job, &os, o);
		return o->failed ? -1 : 0;
	}
	if ((k = json_find(job->j, job->input, "image")) == -1 ||
	    (b64 = json_string_dup(job->j, k, job->max_input)) == NULL) {
		box_fail(o, JW_BOX, 0,
		    "input: image is missing, not a string, or longer than "
		    "max_input");
		return -1;
	}
	img = base64_decode(b64, strlen(b64), job->max_input, &len, &bwhy);
	free(b64);
	if (img == NULL) {
		box_fail(o, JW_BOX, 0, "input: image: %s", bwhy);
		return -1;
	}
	ocr_read(&os, job->loaded, img, len, o, NULL);
	free(img);
	return o->failed ? -1 : 0;
}

/* The image's languages, one a line in the order configured. */
static int
ocr_languages(const char *file, struct tess_langs *l, char *why,
    size_t whysz)
{
	char	 buf[TESS_LANGS_MAX * (TESS_LANG_MAX + 1) + 1], *p, *name;
	ssize_t	 n;
	int	 fd;

	memset(l, 0, sizeof(*l));
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1) {
		(void)snprintf(why, whysz, "%s: %s: run sandcastlectl install",
		    file, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0 || n == (ssize_t)sizeof(buf) - 1)
		goto bad;
	buf[n] = '\0';
	for (p = buf; (name = strsep(&p, "\n")) != NULL; ) {
		if (*name == '\0')
			continue;
		if (l->n == TESS_LANGS_MAX || !tess_lang_valid(name))
			goto bad;
		(void)strlcpy(l->name[l->n++], name, sizeof(l->name[0]));
	}
	if (l->n > 0)
		return 0;
bad:
	(void)snprintf(why, whysz, "%s: not 1 to %d language names, one a "
	    "line: run sandcastlectl install", file, TESS_LANGS_MAX);
	return -1;
}

int
ocr_load(struct tess *t, const char *tessdata, const char *langfile)
{
	struct tess_langs	 l;

	if (ocr_languages(langfile, &l, t->why, sizeof(t->why)) == -1) {
		t->ok = 0;
		return -1;
	}
	return tess_load(t, tessdata, &l);
}

static struct tess	 ocr_tess;

/* Tesseract and the image's languages, which the filter then keeps out. */
static void
ocr_box_load(struct box_env *env, const char *const *loads)
{
	(void)ocr_load(&ocr_tess, loads[0], loads[1]);
	env->loaded = &ocr_tess;
}

/* Tesseract ended before the box: it would say its caches leaked. */
static void
ocr_box_unload(struct box_env *env)
{
	tess_free(env->loaded);
}

const struct box_cap box_ocr = { CAP_OCR, ocr_run, ocr_box_load,
    ocr_box_unload, 1 };
