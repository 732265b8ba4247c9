/*
 * Tesseract, handed only the grey bitmap the box drew; a job's languages
 * are checked against the data folder, as Tesseract says nothing of a miss.
 */
#ifndef SANDCASTLE_BOX_TESS_H
#define SANDCASTLE_BOX_TESS_H

#include <stddef.h>

#include "cap_ocr.h"
#include "image.h"
#include "json.h"

#define TESS_LANG_MAX	32	/* bytes of a language's name */
#define TESS_LANGS_MAX	16
#define TESS_HAVE_MAX	64	/* languages of the data folder listed */

struct tess_langs {
	size_t		 n;
	char		 name[TESS_LANGS_MAX][TESS_LANG_MAX + 1];
};

/* Loaded before the filter (box/sandbox.c): after it, no file opens. */
struct tess {
	void		*api;		/* a TessBaseAPI */
	int		 ok;		/* Tesseract started with every language */
	struct tess_langs loaded;	/* the image's languages, in their order */
	size_t		 nhave;
	char		 have[TESS_HAVE_MAX][TESS_LANG_MAX + 1];
	char		 why[512];
};

/* 1 when s may name a language: letters, digits and _. */
int		 tess_lang_valid(const char *);

/* 0, or -1 with t->why (t still to be freed, and a read says why). */
int		 tess_load(struct tess *, const char *datapath,
		    const struct tess_langs *);
void		 tess_free(struct tess *);

/* *text to free(3); else -1, why and the word, which releases the job. */
int		 tess_read(struct tess *, const struct tess_langs *want,
		    const struct image *, char **text, enum job_word *word,
		    char *why, size_t whysz);

/* The folder's languages into w; -1, why and JW_LANGUAGES (w too) or JW_BOX. */
int		 tess_check(const struct tess *, const struct tess_langs *want,
		    struct json_writer *w, enum job_word *word, char *why,
		    size_t whysz);

#endif
