/* An HTTP request as the keep and the box reader take it, in JSON. */
#ifndef SANDCASTLE_HTTPJSON_H
#define SANDCASTLE_HTTPJSON_H

#include "json.h"

/*
 * Opens the request's object with key: value first, then its method,
 * path and headers: content-type for a POST and header: hvalue.
 */
void	http_json_head(struct json_writer *, const char *key,
	    const char *value, const char *method, const char *path,
	    const char *header, const char *hvalue);

#endif
