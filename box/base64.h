/*
 * Strict base64 (RFC 4648, section 4): the standard alphabet, padding to
 * a multiple of four, no white space, and no bit set in the padding.
 */
#ifndef SANDCASTLE_BOX_BASE64_H
#define SANDCASTLE_BOX_BASE64_H

#include <stddef.h>

/*
 * The bytes of the len characters at s in a new buffer of *outlen bytes,
 * or NULL and why (a fixed phrase) when s is not strict base64 or would
 * decode to more than max bytes.
 */
unsigned char	*base64_decode(const char *s, size_t len, size_t max,
		    size_t *outlen, const char **why);

#endif
