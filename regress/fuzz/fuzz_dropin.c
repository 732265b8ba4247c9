/*
 * libFuzzer target for dropin.c: the input is a drop-in file an
 * operator (or anyone who can write one) left in a unit's folder.  Every
 * entry it gives back is read, to the last byte of its value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sandcastlectl/dropin.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dropin	 d;
	char		 why[256];
	size_t		 i, sum = 0;

	if (dropin_parse((const char *)data, size, &d, why, sizeof(why)) ==
	    -1) {
		if (strlen(why) == 0)
			abort();
		return 0;
	}
	for (i = 0; i < d.n; i++)
		sum += strlen(d.entries[i].section) + strlen(d.entries[i].key) +
		    strlen(d.entries[i].value);
	(void)dropin_get(&d, "Service", "ExecStart");
	dropin_free(&d);
	return sum == (size_t)-1;
}
