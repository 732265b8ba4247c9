/*
 * libFuzzer target for envelope_path_check(): a path it takes must pass
 * a second, naive reading of the rules, written and decoded once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../keepd/envelope.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	abort();
}

/* What no accepted path holds, written or decoded. */
static void
naive(const char *p, size_t n)
{
	size_t	 i;

	if (n == 0 || p[0] != '/')
		abort();
	for (i = 0; i < n; i++) {
		if (p[i] < 0x21 || p[i] > 0x7e || strchr("\\?#:", p[i]) != NULL)
			abort();
		if (i + 1 < n && ((p[i] == '.' && p[i + 1] == '.') ||
		    (p[i] == '/' && p[i + 1] == '/')))
			abort();
		if (p[i] == '.' && p[i - 1] == '/' && (i + 1 == n ||
		    p[i + 1] == '/'))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data, *why = NULL;
	char		 dec[ENVELOPE_PATH_MAX];
	size_t		 i, n = 0;

	if (envelope_path_check(p, size, &why) != 0) {
		if (why == NULL)
			abort();
		return 0;
	}
	if (size > ENVELOPE_PATH_MAX)
		abort();
	naive(p, size);
	for (i = 0; i < size; i++) {
		if (p[i] != '%') {
			dec[n++] = p[i];
			continue;
		}
		if (i + 2 >= size)
			abort();
		dec[n++] = hex(p[i + 1]) << 4 | hex(p[i + 2]);
		i += 2;
	}
	if (memchr(dec, '%', n) != NULL)
		abort();
	naive(dec, n);
	return 0;
}
