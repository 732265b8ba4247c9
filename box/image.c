/*
 * The box's own decoding: a library's errors come back by longjmp, and the
 * pixels are kept only once the whole file decoded.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>

#include "image.h"
#include "log.h"

#define PNG_CHUNK_MAX	(8U * 1024 * 1024)	/* an ancillary chunk's bytes */

struct png_ctx {
	const unsigned char	*p;
	size_t			 len, off;
	char			*why;
	size_t			 whysz;
	unsigned char		*ga;	/* grey and alpha, 2 bytes a pixel */
	png_bytep		*rows;
};

struct jpeg_ctx {
	struct jpeg_error_mgr	 mgr;
	jmp_buf			 jb;
	char			 msg[JMSG_LENGTH_MAX];
};

static int	 png_decode(const unsigned char *, size_t, uint64_t,
		    struct image *, char *, size_t);
static int	 jpeg_decode(const unsigned char *, size_t, uint64_t,
		    struct image *, char *, size_t);
static int	 webp_decode(const unsigned char *, size_t, uint64_t,
		    struct image *, char *, size_t);

enum image_format
image_format(const unsigned char *p, size_t len)
{
	if (len >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
		return IMAGE_JPEG;
	if (len >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
		return IMAGE_PNG;
	if (len >= 12 && memcmp(p, "RIFF", 4) == 0 &&
	    memcmp(p + 8, "WEBP", 4) == 0)
		return IMAGE_WEBP;
	return IMAGE_UNKNOWN;
}

const char *
image_format_name(enum image_format f)
{
	switch (f) {
	case IMAGE_JPEG:
		return "JPEG";
	case IMAGE_PNG:
		return "PNG";
	case IMAGE_WEBP:
		return "WebP";
	default:
		return "unknown";
	}
}

/* The refusal before decoding, the same words for every format. */
static int
too_many(uint64_t w, uint64_t h, uint64_t max, char *why, size_t whysz)
{
	if (w == 0 || h == 0)
		return failwhy(why, whysz, "the image has no pixels "
		    "(%llux%llu)", (unsigned long long)w,
		    (unsigned long long)h);
	if (w * h <= max && w <= UINT32_MAX && h <= UINT32_MAX)
		return 0;
	return failwhy(why, whysz, "the image has %llu pixels (%llux%llu), "
	    "more than max_pixels %llu", (unsigned long long)(w * h),
	    (unsigned long long)w, (unsigned long long)h,
	    (unsigned long long)max);
}

int
image_decode(const unsigned char *p, size_t len, uint64_t max_pixels,
    struct image *out, char *why, size_t whysz)
{
	memset(out, 0, sizeof(*out));
	switch (image_format(p, len)) {
	case IMAGE_PNG:
		return png_decode(p, len, max_pixels, out, why, whysz);
	case IMAGE_JPEG:
		return jpeg_decode(p, len, max_pixels, out, why, whysz);
	case IMAGE_WEBP:
		return webp_decode(p, len, max_pixels, out, why, whysz);
	default:
		return failwhy(why, whysz, "not a JPEG, PNG or WebP image");
	}
}

void
image_free(struct image *im)
{
	free(im->pix);
	memset(im, 0, sizeof(*im));
}

/* A grey value with its alpha laid on white. */
static unsigned char
on_white(unsigned int grey, unsigned int alpha)
{
	return (grey * alpha + 255 * (255 - alpha) + 127) / 255;
}

static void
png_read_mem(png_structp png, png_bytep out, size_t n)
{
	struct png_ctx	*c = png_get_io_ptr(png);

	if (n > c->len - c->off)
		png_error(png, "the PNG is truncated");
	memcpy(out, c->p + c->off, n);
	c->off += n;
}

static void
png_fail(png_structp png, png_const_charp msg)
{
	struct png_ctx	*c = png_get_error_ptr(png);

	if (strncmp(msg, "the PNG", 7) == 0)
		failwhy(c->why, c->whysz, "%s", msg);
	else
		failwhy(c->why, c->whysz, "the PNG cannot be decoded: %s",
		    msg);
	png_longjmp(png, 1);
}

static void
png_quiet(png_structp png, png_const_charp msg)
{
}

static void
png_to_ga(png_structp png, png_infop info)
{
	int	 type = png_get_color_type(png, info);

	png_set_strip_16(png);
	if (type == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	if (type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
		png_set_expand_gray_1_2_4_to_8(png);
	if (png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_tRNS_to_alpha(png);
	if (type & PNG_COLOR_MASK_COLOR)
		png_set_rgb_to_gray_fixed(png, 1, -1, -1);
	if (!(type & PNG_COLOR_MASK_ALPHA) &&
	    !png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
	(void)png_set_interlace_handling(png);
	png_read_update_info(png, info);
}

static int
png_pixels(png_structp png, png_infop info, struct png_ctx *c,
    struct image *out)
{
	size_t	 w = out->width, h = out->height, y;

	if (png_get_rowbytes(png, info) != 2 * w ||
	    png_get_channels(png, info) != 2)
		return failwhy(c->why, c->whysz, "the PNG has a layout this "
		    "box cannot read");
	if ((c->ga = malloc(2 * w * h)) == NULL ||
	    (c->rows = calloc(h, sizeof(*c->rows))) == NULL ||
	    (out->pix = malloc(w * h)) == NULL)
		return failwhy(c->why, c->whysz, "out of memory for the image");
	for (y = 0; y < h; y++)
		c->rows[y] = c->ga + 2 * w * y;
	png_read_image(png, c->rows);
	png_read_end(png, NULL);
	for (y = 0; y < w * h; y++)
		out->pix[y] = on_white(c->ga[2 * y], c->ga[2 * y + 1]);
	return 0;
}

static int
png_decode(const unsigned char *p, size_t len, uint64_t max_pixels,
    struct image *out, char *why, size_t whysz)
{
	struct png_ctx	 c;
	png_structp	 png;
	png_infop	 info = NULL;
	volatile int	 r = -1;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.len = len;
	c.why = why;
	c.whysz = whysz;
	if ((png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_fail,
	    png_quiet)) == NULL || (info = png_create_info_struct(png)) == NULL) {
		png_destroy_read_struct(&png, NULL, NULL);
		return failwhy(why, whysz, "out of memory for the PNG");
	}
	if (setjmp(png_jmpbuf(png)) == 0) {
		png_set_read_fn(png, &c, png_read_mem);
		png_set_chunk_malloc_max(png, PNG_CHUNK_MAX);
		png_read_info(png, info);
		out->width = png_get_image_width(png, info);
		out->height = png_get_image_height(png, info);
		if (too_many(out->width, out->height, max_pixels, why,
		    whysz) == 0) {
			png_to_ga(png, info);
			r = png_pixels(png, info, &c, out);
		}
	}
	png_destroy_read_struct(&png, &info, NULL);
	free(c.ga);
	free(c.rows);
	if (r == -1)
		image_free(out);
	return r;
}

static void
jpeg_fail(j_common_ptr j)
{
	struct jpeg_ctx	*c = (struct jpeg_ctx *)j->err;

	(*j->err->format_message)(j, c->msg);
	longjmp(c->jb, 1);
}

/* A warning (a premature end among them) fails the image too. */
static void
jpeg_message(j_common_ptr j, int level)
{
	if (level < 0)
		jpeg_fail(j);
}

static void
jpeg_progress(j_common_ptr j)
{
	struct jpeg_ctx	*c = (struct jpeg_ctx *)j->err;

	if (((j_decompress_ptr)j)->input_scan_number > IMAGE_MAXSCANS) {
		(void)snprintf(c->msg, sizeof(c->msg), "more than %d scans",
		    IMAGE_MAXSCANS);
		longjmp(c->jb, 1);
	}
}

static int
jpeg_pixels(struct jpeg_decompress_struct *d, struct image *out, char *why,
    size_t whysz)
{
	JSAMPROW	 row;

	d->out_color_space = JCS_GRAYSCALE;
	jpeg_start_decompress(d);
	if (d->output_components != 1 || d->output_width != out->width ||
	    d->output_height != out->height)
		return failwhy(why, whysz, "the JPEG has a layout this box "
		    "cannot read");
	if ((out->pix = malloc((size_t)out->width * out->height)) == NULL)
		return failwhy(why, whysz, "out of memory for the image");
	while (d->output_scanline < d->output_height) {
		row = out->pix + (size_t)d->output_scanline * out->width;
		(void)jpeg_read_scanlines(d, &row, 1);
	}
	(void)jpeg_finish_decompress(d);
	return 0;
}

static int
jpeg_decode(const unsigned char *p, size_t len, uint64_t max_pixels,
    struct image *out, char *why, size_t whysz)
{
	struct jpeg_decompress_struct	 d;
	struct jpeg_progress_mgr	 prog;
	struct jpeg_ctx			 c;
	volatile int			 r = -1;

	memset(&c, 0, sizeof(c));
	d.err = jpeg_std_error(&c.mgr);
	c.mgr.error_exit = jpeg_fail;
	c.mgr.emit_message = jpeg_message;
	if (setjmp(c.jb) == 0) {
		jpeg_create_decompress(&d);
		prog.progress_monitor = jpeg_progress;
		d.progress = &prog;
		jpeg_mem_src(&d, p, len);
		(void)jpeg_read_header(&d, TRUE);
		out->width = d.image_width;
		out->height = d.image_height;
		if (too_many(d.image_width, d.image_height, max_pixels, why,
		    whysz) == 0)
			r = jpeg_pixels(&d, out, why, whysz);
	} else
		failwhy(why, whysz, "the JPEG cannot be decoded: %s", c.msg);
	jpeg_destroy_decompress(&d);
	if (r == -1)
		image_free(out);
	return r;
}

static int
webp_decode(const unsigned char *p, size_t len, uint64_t max_pixels,
    struct image *out, char *why, size_t whysz)
{
	WebPBitstreamFeatures	 f;
	uint8_t			*rgba;
	size_t			 i, n;
	int			 w, h, grey;

	if (WebPGetFeatures(p, len, &f) != VP8_STATUS_OK)
		return failwhy(why, whysz, "the WebP's header cannot be read");
	if (f.has_animation)
		return failwhy(why, whysz, "an animated WebP is not taken");
	if (too_many(f.width, f.height, max_pixels, why, whysz) == -1)
		return -1;
	if ((rgba = WebPDecodeRGBA(p, len, &w, &h)) == NULL)
		return failwhy(why, whysz, "the WebP cannot be decoded: "
		    "truncated or damaged");
	n = (size_t)w * h;
	if (w != f.width || h != f.height ||
	    (out->pix = malloc(n)) == NULL) {
		WebPFree(rgba);
		return failwhy(why, whysz, "the WebP cannot be decoded");
	}
	for (i = 0; i < n; i++) {
		grey = (299 * rgba[4 * i] + 587 * rgba[4 * i + 1] +
		    114 * rgba[4 * i + 2] + 500) / 1000;
		out->pix[i] = on_white(grey, rgba[4 * i + 3]);
	}
	WebPFree(rgba);
	out->width = w;
	out->height = h;
	return 0;
}

/* The average of the source pixels under one pixel of the result. */
static unsigned char
area(const struct image *in, size_t x0, size_t x1, size_t y0, size_t y1)
{
	uint64_t	 sum = 0;
	size_t		 x, y;

	for (y = y0; y < y1; y++)
		for (x = x0; x < x1; x++)
			sum += in->pix[y * in->width + x];
	return (sum + (x1 - x0) * (y1 - y0) / 2) / ((x1 - x0) * (y1 - y0));
}

int
image_scale(const struct image *in, uint32_t max_edge, struct image *out)
{
	uint64_t	 w = in->width, h = in->height, l = w > h ? w : h;
	size_t		 x, y;

	memset(out, 0, sizeof(out[0]));
	if (l <= max_edge || max_edge == 0) {
		if ((out->pix = malloc(w * h)) == NULL)
			return -1;
		memcpy(out->pix, in->pix, w * h);
		out->width = w;
		out->height = h;
		return 0;
	}
	out->width = (w * max_edge + l / 2) / l;
	out->height = (h * max_edge + l / 2) / l;
	out->width += out->width == 0;
	out->height += out->height == 0;
	if ((out->pix = malloc((size_t)out->width * out->height)) == NULL)
		return -1;
	for (y = 0; y < out->height; y++)
		for (x = 0; x < out->width; x++)
			out->pix[y * out->width + x] = area(in,
			    x * w / out->width, (x + 1) * w / out->width,
			    y * h / out->height, (y + 1) * h / out->height);
	return 0;
}
