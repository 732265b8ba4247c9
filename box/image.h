/*
 * The job's image, decoded by the box itself (image.c): JPEG with
 * libjpeg, PNG with libpng, WebP with libwebp, told apart by their
 * first bytes.  The header's size is checked against max_pixels before
 * a pixel is decoded; what comes out is 8-bit grey on white (an alpha
 * channel is laid on white), which image_scale() shrinks to max_edge.
 * Every library's error, and every warning (a truncated file is one for
 * libjpeg), fails the decoding: no partial image is ever taken.
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

/*
 * The whole image as grey in out: 0, or -1 and why ("the image has N
 * pixels, more than max_pixels M", "the PNG is truncated", ...).
 */
int		 image_decode(const unsigned char *, size_t, uint64_t max_pixels,
		    struct image *out, char *why, size_t whysz);

/*
 * in scaled down (an area average) so its longer side is at most
 * max_edge, or copied when it already is: 0, or -1 out of memory.
 */
int		 image_scale(const struct image *in, uint32_t max_edge,
		    struct image *out);
void		 image_free(struct image *);

#endif
