/* An HTTP request's head as JSON: the one shape of box/ and contract.c. */
#include <string.h>

#include "httpjson.h"

void
http_json_head(struct json_writer *w, const char *key, const char *value,
    const char *method, const char *path, const char *header,
    const char *hvalue)
{
	json_write_object(w);
	json_write_key(w, key);
	json_write_string(w, value);
	json_write_key(w, "method");
	json_write_string(w, method);
	json_write_key(w, "path");
	json_write_string(w, path);
	json_write_key(w, "headers");
	json_write_object(w);
	if (strcmp(method, "POST") == 0) {
		json_write_key(w, "content-type");
		json_write_string(w, "application/json");
	}
	json_write_key(w, header);
	json_write_string(w, hvalue);
	json_write_close(w);
}
