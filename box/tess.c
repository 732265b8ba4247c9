/* One TessBaseAPI per box, started before the job: a box reads one image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tesseract/capi.h>

#include "boxproto.h"
#include "tess.h"

int
tess_lang_valid(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", s[i]) == NULL)
			return 0;
	return i > 0 && i <= TESS_LANG_MAX;
}

static void
join(const struct tess_langs *l, char *out, size_t outsz)
{
	size_t	 i;

	out[0] = '\0';
	for (i = 0; i < l->n; i++) {
		if (i > 0)
			(void)strlcat(out, "+", outsz);
		(void)strlcat(out, l->name[i], outsz);
	}
}

/* The *.traineddata Tesseract found in its data folder. */
static void
tess_list(struct tess *t)
{
	char	**have;
	size_t	 k;

	t->nhave = 0;
	if ((have = TessBaseAPIGetAvailableLanguagesAsVector(t->api)) == NULL)
		return;
	for (k = 0; have[k] != NULL && t->nhave < TESS_HAVE_MAX; k++)
		(void)strlcpy(t->have[t->nhave++], have[k],
		    sizeof(t->have[0]));
	TessDeleteTextArray(have);
}

int
tess_load(struct tess *t, const char *datapath, const struct tess_langs *l)
{
	char	 langs[TESS_LANGS_MAX * (TESS_LANG_MAX + 1)];

	memset(t, 0, sizeof(*t));
	t->loaded = *l;
	/* OpenMP reads it when it loads: main() made sure of it; this is for the record. */
	(void)setenv("OMP_THREAD_LIMIT", "1", 1);
	if ((t->api = TessBaseAPICreate()) == NULL) {
		(void)snprintf(t->why, sizeof(t->why), "Tesseract cannot start");
		return -1;
	}
	join(l, langs, sizeof(langs));
	t->ok = l->n > 0 && TessBaseAPIInit3(t->api, datapath, langs) == 0;
	tess_list(t);
	if (!t->ok) {
		(void)snprintf(t->why, sizeof(t->why), "Tesseract cannot load "
		    "its languages %.300s from %.100s", langs, datapath);
		return -1;
	}
	return 0;
}

void
tess_free(struct tess *t)
{
	if (t->api != NULL) {
		TessBaseAPIEnd(t->api);
		TessBaseAPIDelete(t->api);
	}
	t->api = NULL;
	t->ok = 0;
}

static int
tess_has(const struct tess *t, const char *name)
{
	size_t	 k;

	for (k = 0; k < t->nhave; k++)
		if (strcmp(t->have[k], name) == 0)
			return 1;
	return 0;
}

/* 0 when want is what was loaded, each in the data folder; else -1, why. */
static int
tess_match(const struct tess *t, const struct tess_langs *want, char *why,
    size_t whysz)
{
	char	 wl[TESS_LANGS_MAX * (TESS_LANG_MAX + 2)], hl[512] = "";
	size_t	 i, k;
	int	 same = want->n == t->loaded.n;

	for (i = 0; i < want->n; i++)
		if (!tess_has(t, want->name[i]) || (same &&
		    strcmp(want->name[i], t->loaded.name[i]) != 0))
			same = 0;
	if (same)
		return 0;
	join(want, wl, sizeof(wl));
	for (k = 0; k < t->nhave; k++) {
		if (k > 0)
			(void)strlcat(hl, ", ", sizeof(hl));
		(void)strlcat(hl, t->have[k], sizeof(hl));
	}
	(void)snprintf(why, whysz, "the languages configured are %s, the "
	    "image has %s: run sandcastlectl install to build it again", wl,
	    hl[0] != '\0' ? hl : "none");
	return -1;
}

static void
tess_have(const struct tess *t, struct json_writer *w)
{
	size_t	 k;

	json_write_array(w);
	for (k = 0; k < t->nhave; k++)
		json_write_string(w, t->have[k]);
	json_write_close(w);
}

int
tess_check(const struct tess *t, const struct tess_langs *want,
    struct json_writer *w, enum job_word *word, char *why, size_t whysz)
{
	*word = JW_LANGUAGES;
	if (tess_match(t, want, why, whysz) == -1) {
		tess_have(t, w);
		return -1;
	}
	*word = JW_BOX;
	if (!t->ok) {
		(void)snprintf(why, whysz, "%s", t->why);
		return -1;
	}
	tess_have(t, w);
	return 0;
}

static char *
trimmed(const char *s)
{
	size_t	 n = strlen(s);

	while (n > 0 && strchr(" \t\r\n\f\v", s[n - 1]) != NULL)
		n--;
	return strndup(s, n);
}

int
tess_read(struct tess *t, const struct tess_langs *want,
    const struct image *im, char **text, enum job_word *word, char *why,
    size_t whysz)
{
	char	*s;

	*text = NULL;
	*word = JW_LANGUAGES;
	if (tess_match(t, want, why, whysz) == -1)
		return -1;
	*word = JW_RELEASED;
	if (!t->ok) {
		(void)snprintf(why, whysz, "%s", t->why);
		return -1;
	}
	TessBaseAPISetImage(t->api, im->pix, im->width, im->height, 1,
	    im->width);
	TessBaseAPISetSourceResolution(t->api, 300);
	if ((s = TessBaseAPIGetUTF8Text(t->api)) != NULL) {
		*text = trimmed(s);
		TessDeleteText(s);
	}
	if (*text == NULL) {
		(void)snprintf(why, whysz, "Tesseract read nothing");
		return -1;
	}
	return 0;
}
