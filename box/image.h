/*
 * The job's image, its size checked against max_pixels before a pixel is
 * decoded; any error or warning (a truncated JPEG's) fails it whole.
 */
#ifndef SANDCASTLE_BOX_IMAGE_H
#define SANDCASTLE_BOX_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define IMAGE_WHY_MAX		160
#define IMAGE_MAXSCANS		100	/* of a progressive JPEG */

enum image_format {
	IMAGE_UNKNOWN,
	IMAGE_JPEG,
	IMAGE_PNG,
	IMAGE_WEBP
};

struct image {
	uint32_t	 width;
	uint32_t	 height;
	unsigned char	*pix;		/* width * height bytes, rows top first */
};

enum image_format image_format(const unsigned char *, size_t);
const char	*image_format_name(enum image_format);

/* 0, or -1 and why ("the PNG is truncated", ...). */
int		 image_decode(const unsigned char *, size_t, uint64_t max_pixels,
		    struct image *out, char *why, size_t whysz);

/* An area average down to max_edge, or a copy.  0, or -1 out of memory. */
int		 image_scale(const struct image *in, uint32_t max_edge,
		    struct image *out);
void		 image_free(struct image *);

#endif
