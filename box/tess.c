/*
 * libtesseract's C API (tess.h).  One TessBaseAPI per call: a box reads
 * one image and ends.
 */
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

static TessBaseAPI *
tess_start(const char *datapath, const struct tess_langs *want, int *ok)
{
	char		 langs[TESS_LANGS_MAX * (TESS_LANG_MAX + 1)];
	TessBaseAPI	*api;

	/* OpenMP reads it when it loads: main() made sure of it; this is for the record. */
	(void)setenv("OMP_THREAD_LIMIT", "1", 1);
	if ((api = TessBaseAPICreate()) == NULL)
		return NULL;
	join(want, langs, sizeof(langs));
	*ok = TessBaseAPIInit3(api, datapath, langs) == 0;
	return api;
}

static void
tess_end(TessBaseAPI *api)
{
	TessBaseAPIEnd(api);
	TessBaseAPIDelete(api);
}

/* 0 when each of want is in have; -1 and why with both lists. */
static int
tess_missing(char **have, const struct tess_langs *want, char *why,
    size_t whysz)
{
	char	 wl[TESS_LANGS_MAX * (TESS_LANG_MAX + 2)], hl[512] = "";
	size_t	 i, k;
	int	 missing = 0;

	for (i = 0; i < want->n; i++) {
		for (k = 0; have != NULL && have[k] != NULL; k++)
			if (strcmp(have[k], want->name[i]) == 0)
				break;
		if (have == NULL || have[k] == NULL)
			missing = 1;
	}
	if (!missing)
		return 0;
	join(want, wl, sizeof(wl));
	for (k = 0; have != NULL && have[k] != NULL; k++) {
		if (k > 0)
			(void)strlcat(hl, ", ", sizeof(hl));
		(void)strlcat(hl, have[k], sizeof(hl));
	}
	(void)snprintf(why, whysz, "the languages configured are %s, the "
	    "image has %s: run sandcastlectl install to build it again", wl,
	    hl[0] != '\0' ? hl : "none");
	return -1;
}

int
tess_check(const char *datapath, const struct tess_langs *want,
    struct json_writer *w, char *why, size_t whysz)
{
	TessBaseAPI	*api;
	char		**have;
	size_t		 k;
	int		 ok, r;

	if ((api = tess_start(datapath, want, &ok)) == NULL) {
		(void)snprintf(why, whysz, "Tesseract cannot start");
		return -1;
	}
	have = TessBaseAPIGetAvailableLanguagesAsVector(api);
	if ((r = tess_missing(have, want, why, whysz)) == 0) {
		json_write_array(w);
		for (k = 0; have != NULL && have[k] != NULL; k++)
			json_write_string(w, have[k]);
		json_write_close(w);
	}
	if (have != NULL)
		TessDeleteTextArray(have);
	tess_end(api);
	return r;
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
tess_read(const char *datapath, const struct tess_langs *want,
    const struct image *im, char **text, int *release, char *why,
    size_t whysz)
{
	TessBaseAPI	*api;
	char		**have, *t;
	int		 ok;

	*text = NULL;
	*release = 1;
	if ((api = tess_start(datapath, want, &ok)) == NULL) {
		(void)snprintf(why, whysz, "Tesseract cannot start");
		return -1;
	}
	have = TessBaseAPIGetAvailableLanguagesAsVector(api);
	if (tess_missing(have, want, why, whysz) == 0 && !ok)
		(void)snprintf(why, whysz, "Tesseract cannot load its languages "
		    "from %s", datapath);
	else if (ok && tess_missing(have, want, why, whysz) == 0) {
		TessBaseAPISetImage(api, im->pix, im->width, im->height, 1,
		    im->width);
		TessBaseAPISetSourceResolution(api, 300);
		if ((t = TessBaseAPIGetUTF8Text(api)) != NULL) {
			*text = trimmed(t);
			TessDeleteText(t);
		}
		if (*text == NULL)
			(void)snprintf(why, whysz, "Tesseract read nothing");
	}
	if (have != NULL)
		TessDeleteTextArray(have);
	tess_end(api);
	return *text == NULL ? -1 : 0;
}
