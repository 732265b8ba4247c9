/*
 * ocr's box side (box/ocr.c, box/tess.c) on images the test draws: the
 * real path from the job's base64 to Tesseract's text, for each format,
 * and the check of the languages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../box/box.h"
#include "../../box/ocr.h"
#include "render.h"

#define TESSDATA	"/usr/share/tesseract-ocr/5/tessdata"
#define TEXT		"HELLO WORLD"

/* Tesseract with eng, loaded once as the box loads it before its filter. */
static struct tess *
eng(void)
{
	static struct tess	 t;
	static int		 loaded;
	struct tess_langs	 l;

	if (!loaded) {
		memset(&l, 0, sizeof(l));
		l.n = 1;
		(void)strlcpy(l.name[0], "eng", sizeof(l.name[0]));
		ATF_REQUIRE_MSG(tess_load(&t, TESSDATA, &l) == 0, "%s", t.why);
		loaded = 1;
	}
	return &t;
}

static void
settings(struct ocr_settings *os, uint64_t max_pixels, uint32_t max_edge)
{
	memset(os, 0, sizeof(*os));
	os->langs.n = 1;
	(void)strlcpy(os->langs.name[0], "eng", sizeof(os->langs.name[0]));
	os->max_pixels = max_pixels;
	os->max_edge = max_edge;
}

/* The output's text, or the failure's error. */
static char *
read_back(const struct render_buf *b, uint64_t max_pixels, uint32_t max_edge,
    struct box_outcome *o, struct image *handed)
{
	struct ocr_settings	 os;
	struct json		 j;
	const char		*why;
	size_t			 len;
	char			*s;

	settings(&os, max_pixels, max_edge);
	memset(o, 0, sizeof(*o));
	ocr_read(&os, eng(), b->p, b->len, o, handed);
	if (o->failed)
		return strdup(o->error);
	ATF_REQUIRE(o->output != NULL);
	ATF_REQUIRE(json_parse(&j, o->output, strlen(o->output), &why) == 0);
	s = json_string_dup(&j, json_find(&j, 0, "text"), 4096);
	ATF_REQUIRE(s != NULL);
	json_free(&j);
	(void)len;
	return s;
}

static void
reads_text(struct render_buf b, const char *format)
{
	struct box_outcome	 o;
	struct image		 handed;
	char			*text;

	text = read_back(&b, 1000000, 4000, &o, &handed);
	ATF_CHECK_MSG(strcmp(text, TEXT) == 0, "%s: read \"%s\"", format, text);
	ATF_CHECK(o.record != NULL && strstr(o.record, "\"sha256\":\"") != NULL);
	free(text);
	box_outcome_free(&o);
	free(b.p);
}

ATF_TC_WITHOUT_HEAD(png_text);
ATF_TC_BODY(png_text, tc)
{
	struct render	 r = render_text(TEXT);

	reads_text(render_png(&r, 8), "PNG");
	free(r.pix);
}

ATF_TC_WITHOUT_HEAD(jpeg_text);
ATF_TC_BODY(jpeg_text, tc)
{
	struct render	 r = render_text(TEXT);

	reads_text(render_jpeg(&r), "JPEG");
	free(r.pix);
}

ATF_TC_WITHOUT_HEAD(webp_text);
ATF_TC_BODY(webp_text, tc)
{
	struct render	 r = render_text(TEXT);

	reads_text(render_webp(&r), "WebP");
	free(r.pix);
}

/* A side over max_edge is scaled before Tesseract sees it, and still reads. */
ATF_TC_WITHOUT_HEAD(scaled);
ATF_TC_BODY(scaled, tc)
{
	struct render		 r = render_text(TEXT);
	struct render_buf	 b = render_png(&r, 8);
	struct box_outcome	 o;
	struct image		 handed;
	char			*text;

	text = read_back(&b, 1000000, r.w / 2 + 100, &o, &handed);
	ATF_CHECK_EQ(handed.width, r.w / 2 + 100);
	ATF_CHECK(handed.height < r.h);
	ATF_CHECK_MSG(strcmp(text, TEXT) == 0, "read \"%s\"", text);
	/* Control: within max_edge, the bitmap is the image's own size. */
	free(text);
	box_outcome_free(&o);
	text = read_back(&b, 1000000, r.w, &o, &handed);
	ATF_CHECK_EQ(handed.width, r.w);
	ATF_CHECK_EQ(handed.height, r.h);
	free(text);
	box_outcome_free(&o);
	free(b.p);
	free(r.pix);
}

/* Over max_pixels: refused with its reason, and the control passes. */
ATF_TC_WITHOUT_HEAD(max_pixels);
ATF_TC_BODY(max_pixels, tc)
{
	struct render		 r = render_text(TEXT);
	struct render_buf	 b = render_png(&r, 8);
	struct box_outcome	 o;
	char			*text;

	text = read_back(&b, (uint64_t)r.w * r.h - 1, 4000, &o, NULL);
	ATF_CHECK(o.failed && !o.release);
	ATF_CHECK_MSG(strstr(text, "more than max_pixels") != NULL, "%s", text);
	/* The record still has the image's size and hash. */
	ATF_CHECK(o.record != NULL && strstr(o.record, "\"bytes\":") != NULL);
	free(text);
	box_outcome_free(&o);
	text = read_back(&b, (uint64_t)r.w * r.h, 4000, &o, NULL);
	ATF_CHECK(!o.failed);
	free(text);
	box_outcome_free(&o);
	free(b.p);
	free(r.pix);
}

static void
check_langs(const char *langs, struct box_outcome *o)
{
	struct box_job	 job;
	struct proto_msg m;
	char		 line[512], why[PROTO_WHY_MAX];

	(void)snprintf(line, sizeof(line), "{\"type\":\"job\",\"mode\":"
	    "\"check\",\"build\":\"0123456789ab\",\"limits\":{\"max_input\":"
	    "1000,\"max_output\":1000},\"settings\":{\"languages\":%s,"
	    "\"max_pixels\":100,\"max_edge\":100}}", langs);
	ATF_REQUIRE_MSG(proto_parse(&m, line, strlen(line), why,
	    sizeof(why)) == 0, "%s", why);
	memset(&job, 0, sizeof(job));
	job.cap = CAP_OCR;
	job.j = &m.j;
	job.settings = m.f[PF_SETTINGS];
	job.check = 1;
	job.max_input = job.max_output = 1000;
	job.loaded = eng();
	memset(o, 0, sizeof(*o));
	(void)ocr_run(&job, o);
	proto_msg_free(&m);
}

ATF_TC_WITHOUT_HEAD(check);
ATF_TC_BODY(check, tc)
{
	struct box_outcome	 o;

	check_langs("[\"eng\"]", &o);
	ATF_CHECK_MSG(!o.failed, "%s", o.error);
	ATF_CHECK(o.output != NULL &&
	    strstr(o.output, "{\"languages\":[") == o.output &&
	    strstr(o.output, "\"eng\"") != NULL);
	box_outcome_free(&o);
	check_langs("[\"eng\",\"zzz\"]", &o);
	ATF_CHECK(o.failed && o.word == JW_LANGUAGES);
	ATF_CHECK_MSG(strstr(o.error, "configured are eng+zzz") != NULL &&
	    strstr(o.error, "the image has ") != NULL &&
	    strstr(o.error, "eng") != NULL, "%s", o.error);
	/* What check's proof reads: the image's languages, as the reply. */
	ATF_CHECK_MSG(o.reply != NULL &&
	    strstr(o.reply, "{\"languages\":[") == o.reply &&
	    strstr(o.reply, "\"eng\"") != NULL &&
	    strstr(o.reply, "zzz") == NULL, "%s", o.reply ? o.reply : "none");
	box_outcome_free(&o);
}

/* A configured language the image lacks releases the job: not its fault. */
ATF_TC_WITHOUT_HEAD(missing_language);
ATF_TC_BODY(missing_language, tc)
{
	struct render		 r = render_text("HELLO");
	struct render_buf	 b = render_png(&r, 8);
	struct ocr_settings	 os;
	struct box_outcome	 o;

	settings(&os, 1000000, 4000);
	os.langs.n = 2;
	(void)strlcpy(os.langs.name[1], "zzz", sizeof(os.langs.name[1]));
	memset(&o, 0, sizeof(o));
	ocr_read(&os, eng(), b.p, b.len, &o, NULL);
	ATF_CHECK(o.failed && o.release && o.word == JW_LANGUAGES);
	ATF_CHECK_MSG(strstr(o.error, "zzz") != NULL, "%s", o.error);
	box_outcome_free(&o);
	free(b.p);
	free(r.pix);
}

/* ocr_load() of a languages file as install writes it, and of bad ones. */
static int
load_file(const char *text, struct tess *t)
{
	char	 path[] = "/tmp/t_ocr.langs.XXXXXX";
	int	 fd, r;

	ATF_REQUIRE((fd = mkstemp(path)) != -1);
	ATF_REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	r = ocr_load(t, TESSDATA, path);
	unlink(path);
	return r;
}

ATF_TC_WITHOUT_HEAD(languages_file);
ATF_TC_BODY(languages_file, tc)
{
	struct tess	 t;

	ATF_CHECK_MSG(load_file("eng\n", &t) == 0, "%s", t.why);
	ATF_CHECK(t.ok && t.loaded.n == 1 &&
	    strcmp(t.loaded.name[0], "eng") == 0);
	tess_free(&t);
	ATF_CHECK(load_file("", &t) == -1);
	ATF_CHECK_MSG(strstr(t.why, "not 1 to 16 language names") != NULL,
	    "%s", t.why);
	ATF_CHECK(load_file("eng\n../x\n", &t) == -1);
	ATF_CHECK(load_file("zzz\n", &t) == -1);
	ATF_CHECK_MSG(strstr(t.why, "cannot load its languages zzz") != NULL,
	    "%s", t.why);
	tess_free(&t);
	ATF_CHECK(ocr_load(&t, TESSDATA, "/nonexistent/languages") == -1);
	ATF_CHECK_MSG(strstr(t.why, "/nonexistent/languages: ") != NULL &&
	    strstr(t.why, "run sandcastlectl install") != NULL, "%s", t.why);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, png_text);
	ATF_TP_ADD_TC(tp, jpeg_text);
	ATF_TP_ADD_TC(tp, webp_text);
	ATF_TP_ADD_TC(tp, scaled);
	ATF_TP_ADD_TC(tp, max_pixels);
	ATF_TP_ADD_TC(tp, check);
	ATF_TP_ADD_TC(tp, missing_language);
	ATF_TP_ADD_TC(tp, languages_file);
	return atf_no_error();
}
