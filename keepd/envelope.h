/* The closed envelope the keep takes (keepd(8), THE ENVELOPE). */
#ifndef SANDCASTLE_ENVELOPE_H
#define SANDCASTLE_ENVELOPE_H

#include <stddef.h>

#include "config.h"
#include "keep.h"

#define ENVELOPE_MAX		KEEP_MAXENVELOPE
#define ENVELOPE_PATH_MAX	2048
#define ENVELOPE_VALUE_MAX	256	/* bytes of a header's value */
#define ENVELOPE_WHY_MAX	256

enum envelope_method {
	ENVELOPE_GET = 1,
	ENVELOPE_POST
};

#define ENVELOPE_NHDRS		4
#define ENVELOPE_NAME_MAX	32	/* bytes of a header's name */

struct envelope {
	char		 destination[NAME_LEN + 1];
	enum envelope_method method;
	char		 path[ENVELOPE_PATH_MAX + 1];	/* as written: not decoded */
	size_t		 nhdrs;
	char		 name[ENVELOPE_NHDRS][ENVELOPE_NAME_MAX + 1];
	char		 value[ENVELOPE_NHDRS][ENVELOPE_VALUE_MAX + 1];
	/* The body exactly as sent, in the caller's buffer; NULL for none. */
	const char	*body;
	size_t		 bodylen;
};

/* NULL for no destination; else the headers it takes beyond cap_headers. */
typedef const char *const *(*envelope_known_fn)(const char *name, void *arg);

/* 0, or -1 and why, naming the field and the rule.  buf must outlive env. */
int		 envelope_parse(struct envelope *env, const char *buf,
		    size_t len, envelope_known_fn known, void *arg, char *why,
		    size_t whysz);

int		 envelope_path_check(const char *path, size_t len,
		    const char **why);

const char	*envelope_method_name(enum envelope_method);
/* The value of the header name (lower case), or NULL. */
const char	*envelope_header(const struct envelope *, const char *name);

#endif
