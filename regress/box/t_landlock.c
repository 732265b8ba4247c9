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

static int
read_group(void)
{
	return landlocked_result(open("/etc/group", O_RDONLY));
}

static int
read_passwd(void)
{
	return landlocked_result(open("/etc/passwd", O_RDONLY));
}

static int
read_language(void)
{
	return landlocked_result(open(TESSDATA "/eng.traineddata", O_RDONLY));
}

static int
write_tmp(void)
{
	return landlocked_result(open("box-tmp", O_WRONLY | O_CREAT, 0600));
}

static int
write_language(void)
{
	return landlocked_result(open(TESSDATA "/eng.traineddata",
	    O_WRONLY));
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
	require_refused(landlocked_run(box_ruleset, read_passwd), EACCES,
	    "the box: /etc/passwd");
	require_done(landlocked_run(NULL, read_passwd), "control: /etc/passwd");
	require_refused(landlocked_run(box_ruleset, read_language), EACCES,
	    "the claude box: a language of Tesseract");
	require_refused(landlocked_run(box_ruleset, write_tmp), EACCES,
	    "the box: a new file");
	require_done(landlocked_run(NULL, write_tmp), "control: a new file");
}

/*
 * B10: ocr, Tesseract loaded with its languages first as the box does it,
 * then the ruleset of no file: Tesseract reads the test's text, and the
 * box opens no language, nor anything else.
 */
ATF_TC_WITHOUT_HEAD(ocr_loaded_then_no_file);
ATF_TC_BODY(ocr_loaded_then_no_file, tc)
{
	struct render		 r = render_text(TEXT);
	struct tess_langs	 l;

	memset(&l, 0, sizeof(l));
	l.n = 1;
	(void)strlcpy(l.name[0], "eng", sizeof(l.name[0]));
	ATF_REQUIRE_MSG(tess_load(&ocr_tess, TESSDATA, &l) == 0, "%s",
	    ocr_tess.why);
	png = render_png(&r, 8);
	require_done(landlocked_run(box_ruleset, ocr_text),
	    "the ocr box: Tesseract reads the test's text");
	require_refused(landlocked_run(box_ruleset, read_language), EACCES,
	    "the ocr box: a language, once loaded");
	require_done(landlocked_run(NULL, read_language),
	    "control: a language");
	require_refused(landlocked_run(box_ruleset, read_passwd), EACCES,
	    "the ocr box: /etc/passwd");
	tess_free(&ocr_tess);
	free(png.p);
	free(r.pix);
}

/* A folder left readable is read only: its files open, never for writing. */
ATF_TC_WITHOUT_HEAD(readable_folder);
ATF_TC_BODY(readable_folder, tc)
{
	require_done(landlocked_run(tessdata_ruleset, read_language),
	    "a readable folder: its file");
	require_refused(landlocked_run(tessdata_ruleset, write_language),
	    EACCES, "a readable folder: writing its file");
	require_refused(landlocked_run(tessdata_ruleset, read_passwd), EACCES,
	    "a readable folder: /etc/passwd");
}

/*
 * The frame's rule on a file: the kernel refuses a folder's right there
 * (EINVAL), so the frame gives the file's alone, and that file only.
 */
ATF_TC_WITHOUT_HEAD(rule_on_a_file);
ATF_TC_BODY(rule_on_a_file, tc)
{
	require_done(landlocked_run(file_ruleset, read_passwd),
	    "a file's rule: that file");
	require_refused(landlocked_run(file_ruleset, read_group), EACCES,
	    "a file's rule: the file beside it");
	require_done(landlocked_run(NULL, read_group),
	    "control: the file beside it");
}

/* B10: no TCP, from ABI 4, whatever network the box was given. */
ATF_TC_WITHOUT_HEAD(box_no_tcp);
ATF_TC_BODY(box_no_tcp, tc)
{
	int	 fd;

	landlocked_port = landlocked_listener(&fd);
	require_done(landlocked_run(NULL, landlocked_tcp_connect),
	    "control: a TCP connect");
	require_from_abi(landlocked_run(box_ruleset, landlocked_tcp_connect),
	    4, EACCES, "the box: a TCP connect");
	require_done(landlocked_run(NULL, landlocked_tcp_bind),
	    "control: a TCP bind");
	require_from_abi(landlocked_run(box_ruleset, landlocked_tcp_bind), 4,
	    EACCES, "the box: a TCP bind");
	close(fd);
}

/* B10: from ABI 6, no signal or abstract socket beyond its own. */
ATF_TC_WITHOUT_HEAD(box_scopes);
ATF_TC_BODY(box_scopes, tc)
{
	int	 fd;

	(void)landlocked_abstract_listener(&fd);
	require_from_abi(landlocked_run(box_ruleset, landlocked_signal), 6,
	    EPERM, "the box: a signal to the test");
	require_done(landlocked_run(NULL, landlocked_signal),
	    "control: a signal to the test");
	require_from_abi(landlocked_run(box_ruleset,
	    landlocked_abstract_connect), 6, EPERM,
	    "the box: the test's abstract socket");
	require_done(landlocked_run(NULL, landlocked_abstract_connect),
	    "control: the test's abstract socket");
	close(fd);
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
