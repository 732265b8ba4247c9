/*
 * A streamed reply of the Messages API made into the Message a reply not
 * streamed would have been, for claude.c to judge the same way; events
 * out of the API's order break the stream (sandcastle-box(8)).
 */
#ifndef SANDCASTLE_BOX_STREAM_H
#define SANDCASTLE_BOX_STREAM_H

#include <stddef.h>

#define STREAM_DATA_MAX		(1024U * 1024)	/* bytes of one event's data */
#define STREAM_BLOCKS_MAX	64		/* content blocks of a reply */
#define STREAM_WHY_MAX		160

enum stream_verdict {
	STREAM_MESSAGE,		/* *out: the Message */
	STREAM_ERROR,		/* *out: the error event's data */
	STREAM_BROKEN		/* why */
};

/* *out is a JSON text the caller frees, for STREAM_MESSAGE and STREAM_ERROR. */
enum stream_verdict stream_message(const char *body, size_t len, char **out,
		    size_t *outlen, char *why, size_t whysz);

#endif
