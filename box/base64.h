/* Strict base64 (RFC 4648, section 4): padded, no white space, no pad bits. */
#ifndef SANDCASTLE_BOX_BASE64_H
#define SANDCASTLE_BOX_BASE64_H

#include <stddef.h>

/* In a new buffer of *outlen bytes, or NULL and why (a fixed phrase). */
unsigned char	*base64_decode(const char *s, size_t len, size_t max,
		    size_t *outlen, const char **why);

#endif
