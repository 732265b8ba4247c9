/*
 * Tesseract through its C API (tess.c), handed only the grey bitmap the
 * box drew: no file name, no encoded image, so neither Tesseract nor
 * Leptonica ever parses a job's bytes.  It is loaded once, with the
 * image's languages, before the job is read; a job's languages are then
 * checked against what was loaded and against the *.traineddata of the
 * data folder, since Tesseract starts with what it found and says
 * nothing of what it did not.
 */
#ifndef SANDCASTLE_BOX_TESS_H
#define SANDCASTLE_BOX_TESS_H

#include <stddef.h>

#include "image.h"
#include "json.h"

#define TESS_LANG_MAX	32	/* bytes of a language's name */
#define TESS_LANGS_MAX	16
#define TESS_HAVE_MAX	64	/* languages of the data folder listed */

struct tess_langs {
	size_t		 n;
	char		 name[TESS_LANGS_MAX][TESS_LANG_MAX + 1];
};

/*
 * Tesseract with its languages loaded, before the box's filter goes on
 * (box/sandbox.c): after it, nothing can open a file.
 */
struct tess {
	void		*api;		/* a TessBaseAPI */
	int		 ok;		/* Tesseract started with every language */
	struct tess_langs loaded;	/* the image's languages, in their order */
	size_t		 nhave;
	char		 have[TESS_HAVE_MAX][TESS_LANG_MAX + 1];	/* the data folder's */
	char		 why[512];	/* when not ok */
};

/* 1 when s may name a language: letters, digits and _. */
int		 tess_lang_valid(const char *);

/*
 * Starts Tesseract with the languages of datapath, in that order, and
 * lists the *.traineddata of datapath: 0, or -1 with t->why (t is then
 * still to be freed, and a read says why).
 */
int		 tess_load(struct tess *, const char *datapath,
		    const struct tess_langs *);
void		 tess_free(struct tess *);

/*
 * The text of the bitmap, trimmed at its end, in *text (free(3) it):
 * 0, or -1 and why, with *release set when the fault is the image's (a
 * configured language it lacks, a Tesseract that cannot start), not the
 * job's.  want must be the languages loaded, in their order.
 */
int		 tess_read(struct tess *, const struct tess_langs *want,
		    const struct image *, char **text, int *release, char *why,
		    size_t whysz);

/*
 * The languages the data folder holds, as a JSON array into w: 0, or
 * -1 and why naming both lists when want is not what was loaded.
 */
int		 tess_check(const struct tess *, const struct tess_langs *want,
		    struct json_writer *w, char *why, size_t whysz);

#endif
