/*
 * libFuzzer target for box/image.c: any bytes through the box's own
 * decoders and the scaling.  A refusal says why and leaves no pixels; a
 * taken image is within max_pixels and scales within max_edge.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../../box/image.h"

#define FUZZ_MAX_PIXELS	(1024 * 1024)
#define FUZZ_MAX_EDGE	64

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image	 im, out;
	char		 why[IMAGE_WHY_MAX];

	why[0] = '\0';
	if (image_decode(data, size, FUZZ_MAX_PIXELS, &im, why,
	    sizeof(why)) == -1) {
		if (why[0] == '\0' || im.pix != NULL)
			abort();
		return 0;
	}
	if ((uint64_t)im.width * im.height > FUZZ_MAX_PIXELS || im.pix == NULL)
		abort();
	if (image_scale(&im, FUZZ_MAX_EDGE, &out) == 0) {
		if (out.width > FUZZ_MAX_EDGE || out.height > FUZZ_MAX_EDGE)
			abort();
		image_free(&out);
	}
	image_free(&im);
	return 0;
}
