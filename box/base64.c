/* Strict: one form only, so that two texts never stand for the same bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "base64.h"

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* The bytes of one group of four; 0 when it breaks a rule. */
static size_t
b64_group(const unsigned char *s, int last, unsigned char *out,
    const char **why)
{
	uint32_t	 v = 0;
	int		 i, d, pad = 0;

	for (i = 0; i < 4; i++) {
		if (s[i] == '=' && last && i >= 2 && (pad || i == 3 ||
		    s[3] == '=')) {
			pad++;
			v <<= 6;
			continue;
		}
		if (pad || (d = b64_value(s[i])) == -1) {
			*why = s[i] == '=' ? "padding inside the base64" :
			    "a character outside the base64 alphabet";
			return 0;
		}
		v = v << 6 | (uint32_t)d;
	}
	if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff))) {
		*why = "bits set in the base64 padding";
		return 0;
	}
	out[0] = v >> 16;
	out[1] = v >> 8;
	out[2] = v;
	return 3 - pad;
}

unsigned char *
base64_decode(const char *s, size_t len, size_t max, size_t *outlen,
    const char **why)
{
	const unsigned char	*u = (const unsigned char *)s;
	unsigned char		*out;
	size_t			 i, n, got = 0;

	if (len == 0 || len % 4 != 0) {
		*why = len == 0 ? "no base64" :
		    "base64 whose length is not a multiple of 4";
		return NULL;
	}
	if (len / 4 * 3 - (u[len - 1] == '=') - (u[len - 2] == '=') > max) {
		*why = "more bytes than max_input";
		return NULL;
	}
	if ((out = malloc(len / 4 * 3)) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	for (i = 0; i < len; i += 4) {
		if ((n = b64_group(u + i, i + 4 == len, out + got, why)) == 0) {
			free(out);
			return NULL;
		}
		got += n;
	}
	*outlen = got;
	return out;
}
