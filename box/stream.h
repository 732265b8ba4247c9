/*
 * A streamed reply of the Messages API ("stream": true) made into the
 * Message a reply not streamed would have been, for claude.c to judge
 * the same way.  The events are the API's: message_start, then each
 * content block as content_block_start, its deltas (text_delta,
 * thinking_delta, signature_delta, input_json_delta) and
 * content_block_stop, then message_delta with the stop_reason and the
 * usage so far, and message_stop; ping anywhere; error anywhere, as
 * the API's error would have been its answer; events of another name
 * ignored, as the API's versioning policy asks.  Anything else out of
 * that order breaks the stream.
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
