/*
 * A streamed reply of the Messages API made into the Message a reply not
 * streamed would have been, for claude.c to judge the same way, read as
 * the official SDKs read it; events out of the API's order break the
 * stream (sandcastle-box(8)).
 */
#ifndef SANDCASTLE_BOX_STREAM_H
#define SANDCASTLE_BOX_STREAM_H

#include <stddef.h>

#define STREAM_DATA_MAX		(1024U * 1024)	/* bytes of one event's data */
#define STREAM_BLOCKS_MAX	64		/* content blocks of a reply */
#define STREAM_WHY_MAX		160

enum stream_verdict {
	STREAM_MESSAGE,		/* message: the Message whole */
	STREAM_ERROR,		/* error: the error event's data */
	STREAM_BROKEN		/* why */
};

struct stream_result {
	/*
	 * The Message as far as the stream made it, from message_start on
	 * (its usage too), whatever the verdict; NULL before.  JSON whose
	 * strings json_parse_lone() takes: the API's own fields as it sent
	 * them, a block's text, thinking and signature in UTF-8.
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
