/*
 * The box's image decoding and scaling (box/image.c) on images the test
 * draws and encodes: each format read back to the same pixels (the
 * control), then each way an image is refused, for its reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../../box/image.h"
#include "render.h"

static uint32_t
crc32_of(const unsigned char *p, size_t n)
{
	uint32_t	 c = 0xffffffff;
	size_t		 i;
	int		 k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffff;
}

static void
be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static char *
decode_why(const struct render_buf *b, uint64_t max_pixels)
{
	static char	 why[IMAGE_WHY_MAX];
	struct image	 im;

	if (image_decode(b->p, b->len, max_pixels, &im, why, sizeof(why)) == 0) {
		image_free(&im);
		return NULL;
	}
	ATF_CHECK(im.pix == NULL);
	return why;
}

/* The decoded grey is the drawn one, within what JPEG loses. */
static void
same_pixels(struct render_buf b, const struct render *r, int tolerance)
{
	struct image	 im;
	char		 why[IMAGE_WHY_MAX];
	size_t		 i, off = 0;

	ATF_REQUIRE_MSG(image_decode(b.p, b.len, 10000000, &im, why,
	    sizeof(why)) == 0, "%s", why);
	ATF_REQUIRE_EQ(im.width, r->w);
	ATF_REQUIRE_EQ(im.height, r->h);
	for (i = 0; i < (size_t)r->w * r->h; i++)
		if (abs((int)im.pix[i] - (int)r->pix[i]) > tolerance)
			off++;
	ATF_CHECK_MSG(off < (size_t)r->w * r->h / 100, "%zu pixels differ", off);
	image_free(&im);
	free(b.p);
}

ATF_TC_WITHOUT_HEAD(decode);
ATF_TC_BODY(decode, tc)
{
	struct render	 r = render_text("HELLO");

	same_pixels(render_png(&r, 8), &r, 0);
	same_pixels(render_jpeg(&r), &r, 48);
	same_pixels(render_webp(&r), &r, 0);
	free(r.pix);
}

/* A header that claims 100000x100000 on a tiny body: max_pixels, not a decode error. */
ATF_TC_WITHOUT_HEAD(header_first);
ATF_TC_BODY(header_first, tc)
{
	struct render		 r = render_text("HE");
	struct render_buf	 png = render_png(&r, 8), jpg = render_jpeg(&r);
	struct render_buf	 webp = render_webp(&r);
	const char		*why;
	size_t			 i;

	ATF_REQUIRE(decode_why(&png, 1000000) == NULL);
	be32(png.p + 16, 100000);
	be32(png.p + 20, 100000);
	be32(png.p + 29, crc32_of(png.p + 12, 17));
	png.len = 64;
	why = decode_why(&png, 1000000);
	ATF_CHECK_MSG(why != NULL && strcmp(why, "the image has 10000000000 "
	    "pixels (100000x100000), more than max_pixels 1000000") == 0,
	    "%s", why);
	/* JPEG: the frame header holds 16-bit sides. */
	for (i = 2; i + 9 < jpg.len; i++)
		if (jpg.p[i] == 0xff && jpg.p[i + 1] == 0xc0)
			break;
	ATF_REQUIRE(i + 9 < jpg.len);
	jpg.p[i + 5] = jpg.p[i + 7] = 0xea;
	jpg.p[i + 6] = jpg.p[i + 8] = 0x60;
	jpg.len = i + 400 < jpg.len ? i + 400 : jpg.len;
	why = decode_why(&jpg, 1000000);
	ATF_CHECK_MSG(why != NULL && strstr(why, "(60000x60000), more than "
	    "max_pixels") != NULL, "%s", why);
	/* WebP lossless: 14-bit sides after the VP8L signature. */
	ATF_REQUIRE(memcmp(webp.p + 12, "VP8L", 4) == 0);
	webp.p[21] = 0xff;
	webp.p[22] = 0xff;
	webp.p[23] = 0xff;
	webp.p[24] = (webp.p[24] & 0xf0) | 0x0f;
	webp.len = 40;
	why = decode_why(&webp, 1000000);
	ATF_CHECK_MSG(why != NULL && strstr(why, "(16384x16384), more than "
	    "max_pixels") != NULL, "%s", why);
	free(png.p);
	free(jpg.p);
	free(webp.p);
	free(r.pix);
}

/* A PNG of 20000x20000 of one colour, small on disk, refused unread. */
ATF_TC_WITHOUT_HEAD(bomb);
ATF_TC_BODY(bomb, tc)
{
	struct render		 r;
	struct render_buf	 b;
	const char		*why;

	r.w = r.h = 20000;
	r.pix = NULL;
	b = render_png(&r, 1);
	ATF_CHECK_MSG(b.len < 2 * 1024 * 1024, "%zu bytes", b.len);
	why = decode_why(&b, 40000000);
	ATF_CHECK_MSG(why != NULL && strstr(why, "the image has 400000000 "
	    "pixels") != NULL, "%s", why);
	free(b.p);
}

static void
truncated(struct render_buf b, const char *format)
{
	const char	*why;
	char		 want[64];

	ATF_REQUIRE(decode_why(&b, 10000000) == NULL);
	b.len = b.len * 2 / 3;
	why = decode_why(&b, 10000000);
	(void)snprintf(want, sizeof(want), "the %s", format);
	ATF_CHECK_MSG(why != NULL && strncmp(why, want, strlen(want)) == 0,
	    "%s: %s", format, why ? why : "(taken)");
	free(b.p);
}

ATF_TC_WITHOUT_HEAD(truncated);
ATF_TC_BODY(truncated, tc)
{
	struct render	 r = render_text("HELLO WORLD");

	truncated(render_png(&r, 8), "PNG");
	truncated(render_jpeg(&r), "JPEG");
	truncated(render_webp(&r), "WebP");
	free(r.pix);
}

ATF_TC_WITHOUT_HEAD(other_formats);
ATF_TC_BODY(other_formats, tc)
{
	static unsigned char	 gif[] = "GIF89a\x01\x00\x01\x00\x80\x00\x00"
				    "\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00"
				    "\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01"
				    "\x00\x00\x02\x02D\x01\x00;";
	static unsigned char	 bmp[58] = "BM:\x00\x00\x00\x00\x00\x00\x00"
				    "6\x00\x00\x00(\x00\x00\x00\x01\x00\x00\x00"
				    "\x01\x00\x00\x00\x01\x00\x18\x00";
	struct render_buf	 b;
	const char		*why;

	b.p = gif;
	b.len = sizeof(gif) - 1;
	why = decode_why(&b, 1000);
	ATF_CHECK(why != NULL && strcmp(why, "not a JPEG, PNG or WebP image") == 0);
	b.p = bmp;
	b.len = sizeof(bmp);
	why = decode_why(&b, 1000);
	ATF_CHECK(why != NULL && strcmp(why, "not a JPEG, PNG or WebP image") == 0);
	/* The magic bytes alone decide: a PNG's name on GIF bytes is still a GIF. */
	ATF_CHECK_EQ(image_format(gif, sizeof(gif) - 1), IMAGE_UNKNOWN);
}

ATF_TC_WITHOUT_HEAD(scale);
ATF_TC_BODY(scale, tc)
{
	struct image	 in, out;
	size_t		 i;

	in.width = 3000;
	in.height = 1000;
	ATF_REQUIRE((in.pix = malloc(3000 * 1000)) != NULL);
	for (i = 0; i < 3000 * 1000; i++)
		in.pix[i] = (i % 3000) < 1500 ? 0 : 255;
	ATF_REQUIRE(image_scale(&in, 1000, &out) == 0);
	ATF_CHECK_EQ(out.width, 1000);
	ATF_CHECK_EQ(out.height, 333);
	ATF_CHECK_EQ(out.pix[0], 0);
	ATF_CHECK_EQ(out.pix[999], 255);
	image_free(&out);
	/* Control: a side at max_edge is left as it is. */
	ATF_REQUIRE(image_scale(&in, 3000, &out) == 0);
	ATF_CHECK_EQ(out.width, 3000);
	ATF_CHECK_EQ(out.height, 1000);
	ATF_CHECK(memcmp(out.pix, in.pix, 3000 * 1000) == 0);
	image_free(&out);
	free(in.pix);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, decode);
	ATF_TP_ADD_TC(tp, header_first);
	ATF_TP_ADD_TC(tp, bomb);
	ATF_TP_ADD_TC(tp, truncated);
	ATF_TP_ADD_TC(tp, other_formats);
	ATF_TP_ADD_TC(tp, scale);
	return atf_no_error();
}
