/*
 * render_image png|jpeg|webp TEXT: TEXT drawn with regress/box/render.h
 * and written, encoded, on stdout: the images of the tests that link no
 * image library (launcher/t_job, the daemon's shell tests, make bench).
 */
#include <stdio.h>
#include <string.h>

#include "render.h"

int
main(int argc, char *argv[])
{
	struct render		 r;
	struct render_buf	 b;

	if (argc != 3) {
		fprintf(stderr, "usage: render_image png|jpeg|webp TEXT\n");
		return 1;
	}
	r = render_text(argv[2]);
	if (strcmp(argv[1], "png") == 0)
		b = render_png(&r, 8);
	else if (strcmp(argv[1], "jpeg") == 0)
		b = render_jpeg(&r);
	else
		b = render_webp(&r);
	return fwrite(b.p, 1, b.len, stdout) == b.len ? 0 : 1;
}
