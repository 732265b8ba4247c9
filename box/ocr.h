/* ocr's box side: the record keeps the image's size and SHA-256 alone. */
#ifndef SANDCASTLE_BOX_OCR_H
#define SANDCASTLE_BOX_OCR_H

#include <stddef.h>
#include <stdint.h>

#include "box.h"
#include "image.h"
#include "tess.h"

struct ocr_settings {
	struct tess_langs langs;
	uint64_t	 max_pixels;
	uint32_t	 max_edge;
};

int		 ocr_run(struct box_job *, struct box_outcome *);
extern const struct box_cap box_ocr;
/* The job line's settings: 0, or -1 and why naming the key. */
int		 ocr_settings(const struct json *, size_t tok,
		    struct ocr_settings *, char *why, size_t whysz);

/* handed, when not NULL, gets the size of the bitmap given to Tesseract. */
void		 ocr_read(const struct ocr_settings *, struct tess *,
		    const unsigned char *, size_t, struct box_outcome *o,
		    struct image *handed);

/* Before the filter: 0, or -1 with t->why, which every job then fails with. */
int		 ocr_load(struct tess *t, const char *tessdata,
		    const char *langfile);

#endif
