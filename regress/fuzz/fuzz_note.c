/*
 * libFuzzer target for noteread.c: the input is whatever file install finds
 * where it would put a binary.  A note found is a NUL-terminated name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sandcastlectl/noteread.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	prog[NOTE_DESC_LEN + 1];

	if (note_find(data, size, prog) && strlen(prog) >= sizeof(prog))
		abort();
	return 0;
}
