/*
 * For t_image and t_ocr: text drawn by the test itself with a 5x7 font
 * of a few capitals, and the bitmap encoded as PNG, JPEG or WebP with
 * each library, so every image the tests read is one whose text they
 * know.  Header-only: the Makefile builds each test from its one file.
 */
#ifndef SANDCASTLE_REGRESS_RENDER_H
#define SANDCASTLE_REGRESS_RENDER_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <webp/encode.h>

#include <atf-c.h>

#define RENDER_SCALE	12
#define RENDER_MARGIN	40

/* Each glyph: 7 rows of 5 bits, the high bit on the left. */
static const struct {
	char		 c;
	unsigned char	 rows[7];
} render_font[] = {
	{ 'H', { 0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11 } },
	{ 'E', { 0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f } },
	{ 'L', { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f } },
	{ 'O', { 0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e } },
	{ 'W', { 0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a } },
	{ 'R', { 0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11 } },
	{ 'D', { 0x1e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1e } },
	{ 'T', { 0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
	{ ' ', { 0, 0, 0, 0, 0, 0, 0 } },
};

struct render {
	uint32_t	 w, h;
	unsigned char	*pix;	/* grey, 0 black */
};

struct render_buf {
	unsigned char	*p;
	size_t		 len;
};

static inline const unsigned char *
render_glyph(char c)
{
	size_t	 i;

	for (i = 0; i < sizeof(render_font) / sizeof(render_font[0]); i++)
		if (render_font[i].c == c)
			return render_font[i].rows;
	atf_tc_fail("no glyph for %c", c);
	return NULL;
}

/* Black text on white, each font pixel RENDER_SCALE square. */
static inline struct render
render_text(const char *text)
{
	struct render		 r;
	const unsigned char	*g;
	size_t			 n = strlen(text), i, x, y, px, py;

	r.w = 2 * RENDER_MARGIN + n * 6 * RENDER_SCALE;
	r.h = 2 * RENDER_MARGIN + 7 * RENDER_SCALE;
	ATF_REQUIRE((r.pix = malloc((size_t)r.w * r.h)) != NULL);
	memset(r.pix, 255, (size_t)r.w * r.h);
	for (i = 0; i < n; i++) {
		g = render_glyph(text[i]);
		for (y = 0; y < 7; y++)
			for (x = 0; x < 5; x++) {
				if (!(g[y] & (0x10 >> x)))
					continue;
				for (py = 0; py < RENDER_SCALE; py++)
					for (px = 0; px < RENDER_SCALE; px++)
						r.pix[(RENDER_MARGIN + y *
						    RENDER_SCALE + py) * r.w +
						    RENDER_MARGIN + (i * 6 + x) *
						    RENDER_SCALE + px] = 0;
			}
	}
	return r;
}

static inline void
render_png_write(png_structp png, png_bytep data, size_t n)
{
	struct render_buf	*b = png_get_io_ptr(png);

	ATF_REQUIRE((b->p = realloc(b->p, b->len + n)) != NULL);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static inline void
render_png_flush(png_structp png)
{
}

/* Grey rows of depth 8, or of depth 1 (all white) for a large one. */
static inline struct render_buf
render_png(const struct render *r, int depth)
{
	struct render_buf	 b = { NULL, 0 };
	png_structp		 png;
	png_infop		 info;
	unsigned char		*row;
	uint32_t		 y;

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	ATF_REQUIRE(png != NULL && (info = png_create_info_struct(png)) != NULL);
	ATF_REQUIRE(setjmp(png_jmpbuf(png)) == 0);
	png_set_write_fn(png, &b, render_png_write, render_png_flush);
	png_set_IHDR(png, info, r->w, r->h, depth, PNG_COLOR_TYPE_GRAY,
	    PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
	    PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	ATF_REQUIRE((row = calloc(1, r->w)) != NULL);
	if (depth == 1)
		memset(row, 0xff, (r->w + 7) / 8);
	for (y = 0; y < r->h; y++)
		png_write_row(png, depth == 1 ? row : r->pix + (size_t)y * r->w);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	free(row);
	return b;
}

static inline struct render_buf
render_jpeg(const struct render *r)
{
	struct jpeg_compress_struct	 c;
	struct jpeg_error_mgr		 err;
	struct render_buf		 b = { NULL, 0 };
	unsigned long			 len = 0;
	JSAMPROW			 row;

	c.err = jpeg_std_error(&err);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &b.p, &len);
	c.image_width = r->w;
	c.image_height = r->h;
	c.input_components = 1;
	c.in_color_space = JCS_GRAYSCALE;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 95, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		row = r->pix + (size_t)c.next_scanline * r->w;
		(void)jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	b.len = len;
	return b;
}

static inline struct render_buf
render_webp(const struct render *r)
{
	struct render_buf	 b = { NULL, 0 };
	unsigned char		*rgb, *out;
	size_t			 i;

	ATF_REQUIRE((rgb = malloc((size_t)r->w * r->h * 3)) != NULL);
	for (i = 0; i < (size_t)r->w * r->h; i++)
		rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = r->pix[i];
	b.len = WebPEncodeLosslessRGB(rgb, r->w, r->h, r->w * 3, &out);
	ATF_REQUIRE(b.len > 0);
	ATF_REQUIRE((b.p = malloc(b.len)) != NULL);
	memcpy(b.p, out, b.len);
	WebPFree(out);
	free(rgb);
	return b;
}

#endif
