/*
 * The box's Landlock ruleset, the real function of libbox.a
 * (box_landlock()), put on in a forked child with no seccomp filter, so
 * that a refusal can only be Landlock's; each with its control, the
 * same call without the ruleset.  Here on the machine; inside a real
 * box, with podman's flags, in regress/launcher/t_landlock.c.  Built
 * twice: t_landlock on this kernel's ABI, t_landlock.abi1 on ABI 1,
 * where the rights of later ABIs are the controls.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../box/box.h"
#include "../../box/ocr.h"
#include "render.h"
#include "../lib/landlocked.h"

#define TESSDATA	"/usr/share/tesseract-ocr/5/tessdata"
#define LANGUAGE	TESSDATA "/eng.traineddata"
#define TEXT		"HELLO WORLD"

static struct render_buf	png;
static struct tess		ocr_tess;

static int
box_ruleset(void)
{
	return box_landlock(NULL);
}

/* A folder left readable, as a test build may ask: only that folder. */
static int
tessdata_ruleset(void)
{
	return box_landlock(TESSDATA);
}

/* A file, not a folder, given a folder's rights: the frame keeps a file's. */
static int
file_ruleset(void)
{
	return box_landlock("/etc/passwd");
}

/*
 * ocr's own work under its ruleset: Tesseract, loaded with its languages
 * before the ruleset as the box loads it, on an image the test drew.
 */
static int
ocr_text(void)
{
	struct ocr_settings	 os;
	struct box_outcome	 o;

	memset(&os, 0, sizeof(os));
	os.langs.n = 1;
	(void)snprintf(os.langs.name[0], sizeof(os.langs.name[0]), "eng");
	os.max_pixels = 1000000;
	os.max_edge = 4000;
	memset(&o, 0, sizeof(o));
	ocr_read(&os, &ocr_tess, png.p, png.len, &o, NULL);
	if (o.failed) {
		fprintf(stderr, "ocr: %s\n", o.error);
		return 3;
	}
	return strstr(o.output, TEXT) != NULL ? 0 : 4;
}

/* B10: a box, once its capability loaded, opens no file: not /etc/passwd. */
ATF_TC_WITHOUT_HEAD(box_no_file);
ATF_TC_BODY(box_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "the box: /etc/passwd", box_ruleset, "read /etc/passwd",
		    EACCES, 0, NULL },
		{ "control: /etc/passwd", NULL, "read /etc/passwd", 0, 0,
		    NULL },
		{ "the claude box: a language of Tesseract", box_ruleset,
		    "read " LANGUAGE, EACCES, 0, NULL },
		{ "the box: a new file", box_ruleset, "make box-tmp", EACCES, 0,
		    NULL },
		{ "control: a new file", NULL, "make box-tmp", 0, 0, NULL },
	};

	LANDLOCKED_CASES(c);
}

/*
 * B10: ocr, Tesseract loaded with its languages first as the box does it,
 * then the ruleset of no file: Tesseract reads the test's text, and the
 * box opens no language, nor anything else.
 */
ATF_TC_WITHOUT_HEAD(ocr_loaded_then_no_file);
ATF_TC_BODY(ocr_loaded_then_no_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "the ocr box: Tesseract reads the test's text", box_ruleset,
		    NULL, 0, 0, ocr_text },
		{ "the ocr box: a language, once loaded", box_ruleset,
		    "read " LANGUAGE, EACCES, 0, NULL },
		{ "control: a language", NULL, "read " LANGUAGE, 0, 0, NULL },
		{ "the ocr box: /etc/passwd", box_ruleset, "read /etc/passwd",
		    EACCES, 0, NULL },
	};
	struct render		 r = render_text(TEXT);
	struct tess_langs	 l;

	memset(&l, 0, sizeof(l));
	l.n = 1;
	(void)strlcpy(l.name[0], "eng", sizeof(l.name[0]));
	ATF_REQUIRE_MSG(tess_load(&ocr_tess, TESSDATA, &l) == 0, "%s",
	    ocr_tess.why);
	png = render_png(&r, 8);
	LANDLOCKED_CASES(c);
	tess_free(&ocr_tess);
	free(png.p);
	free(r.pix);
}

/* A folder left readable is read only: its files open, never for writing. */
ATF_TC_WITHOUT_HEAD(readable_folder);
ATF_TC_BODY(readable_folder, tc)
{
	static const struct landlocked_case c[] = {
		{ "a readable folder: its file", tessdata_ruleset,
		    "read " LANGUAGE, 0, 0, NULL },
		{ "a readable folder: writing its file", tessdata_ruleset,
		    "write " LANGUAGE, EACCES, 0, NULL },
		{ "a readable folder: /etc/passwd", tessdata_ruleset,
		    "read /etc/passwd", EACCES, 0, NULL },
	};

	LANDLOCKED_CASES(c);
}

/*
 * The frame's rule on a file: the kernel refuses a folder's right there
 * (EINVAL), so the frame gives the file's alone, and that file only.
 */
ATF_TC_WITHOUT_HEAD(rule_on_a_file);
ATF_TC_BODY(rule_on_a_file, tc)
{
	static const struct landlocked_case c[] = {
		{ "a file's rule: that file", file_ruleset, "read /etc/passwd",
		    0, 0, NULL },
		{ "a file's rule: the file beside it", file_ruleset,
		    "read /etc/group", EACCES, 0, NULL },
		{ "control: the file beside it", NULL, "read /etc/group", 0, 0,
		    NULL },
	};

	LANDLOCKED_CASES(c);
}

/* B10: no TCP, from ABI 4, whatever network the box was given. */
ATF_TC_WITHOUT_HEAD(box_no_tcp);
ATF_TC_BODY(box_no_tcp, tc)
{
	static const struct landlocked_case c[] = {
		{ "control: a TCP connect", NULL, NULL, 0, 0,
		    landlocked_tcp_connect },
		{ "the box: a TCP connect", box_ruleset, NULL, EACCES, 4,
		    landlocked_tcp_connect },
		{ "control: a TCP bind", NULL, NULL, 0, 0,
		    landlocked_tcp_bind },
		{ "the box: a TCP bind", box_ruleset, NULL, EACCES, 4,
		    landlocked_tcp_bind },
	};

	LANDLOCKED_CASES(c);
}

/* B10: from ABI 6, no signal or abstract socket beyond its own. */
ATF_TC_WITHOUT_HEAD(box_scopes);
ATF_TC_BODY(box_scopes, tc)
{
	static const struct landlocked_case c[] = {
		{ "the box: a signal to the test", box_ruleset, NULL, EPERM, 6,
		    landlocked_signal },
		{ "control: a signal to the test", NULL, NULL, 0, 0,
		    landlocked_signal },
		{ "the box: the test's abstract socket", box_ruleset, NULL,
		    EPERM, 6, landlocked_abstract_connect },
		{ "control: the test's abstract socket", NULL, NULL, 0, 0,
		    landlocked_abstract_connect },
	};

	LANDLOCKED_CASES(c);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, box_no_file);
	ATF_TP_ADD_TC(tp, ocr_loaded_then_no_file);
	ATF_TP_ADD_TC(tp, readable_folder);
	ATF_TP_ADD_TC(tp, rule_on_a_file);
	ATF_TP_ADD_TC(tp, box_no_tcp);
	ATF_TP_ADD_TC(tp, box_scopes);
	return atf_no_error();
}
