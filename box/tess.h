/*
 * Tesseract through its C API (tess.c), handed only the grey bitmap the
 * box drew: no file name, no encoded image, so neither Tesseract nor
 * Leptonica ever parses a job's bytes.  The languages are checked
 * against the *.traineddata of the data folder first, since Tesseract
 * starts with what it found and says nothing of what it did not.
 */
#ifndef SANDCASTLE_BOX_TESS_H
#define SANDCASTLE_BOX_TESS_H

#include <stddef.h>

#include "image.h"
#include "json.h"

#define TESS_LANG_MAX	32	/* bytes of a language's name */
#define TESS_LANGS_MAX	16

struct tess_langs {
	size_t		 n;
	char		 name[TESS_LANGS_MAX][TESS_LANG_MAX + 1];
};

/* 1 when s may name a language: letters, digits and _. */
int		 tess_lang_valid(const char *);

/*
 * The text of the bitmap, trimmed at its end, in *text (free(3) it):
 * 0, or -1 and why, with *release set when the fault is the image's (a
 * missing language, a Tesseract that cannot start), not the job's.
 */
int		 tess_read(const char *datapath, const struct tess_langs *,
		    const struct image *, char **text, int *release, char *why,
		    size_t whysz);

/*
 * The languages the data folder holds, as a JSON array into w: 0, or
 * -1 and why naming both lists when one of want is missing.
 */
int		 tess_check(const char *datapath, const struct tess_langs *want,
		    struct json_writer *w, char *why, size_t whysz);

#endif
