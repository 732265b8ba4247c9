/*
 * A streamed reply of the Messages API made into the Message an unstreamed
 * one would be, read as the official SDKs read it (sandcastle-box(8)).
 */
#ifndef SANDCASTLE_BOX_STREAM_H
#define SANDCASTLE_BOX_STREAM_H

#include <stddef.h>

#define STREAM_DATA_MAX		(1024U * 1024)	/* bytes of one event's data */
#define STREAM_BLOCKS_MAX	64		/* content blocks of a reply */
#define STREAM_WHY_MAX		160

enum stream_verdict {
	STREAM_MESSAGE,
	STREAM_ERROR,		/* error holds the error event's data */
	STREAM_BROKEN
};

struct stream_result {
	/*
	 * As far as the stream made it, from message_start on, whatever the
	 * verdict; its strings are what json_parse_lone() takes.
	 */
	char		*message;
	size_t		 messagelen;
	char		*error;
	size_t		 errorlen;
	char		 why[STREAM_WHY_MAX];
};

enum stream_verdict stream_message(const char *body, size_t len,
		    struct stream_result *);
void		 stream_result_free(struct stream_result *);

#endif
