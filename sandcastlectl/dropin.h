/*
 * systemd's unit file syntax as sandcastle's units and drop-ins use it:
 * [Section], Key=Value, comments and continued lines; else an error.
 */
#ifndef SANDCASTLE_DROPIN_H
#define SANDCASTLE_DROPIN_H

#include <stddef.h>

#define DROPIN_MAX_SIZE		65536	/* bytes in a file */
#define DROPIN_MAX_ENTRIES	512
#define DROPIN_MAX_NAME		64	/* a section's or a key's name */

struct dropin_entry {
	char	 section[DROPIN_MAX_NAME];
	char	 key[DROPIN_MAX_NAME];
	char	*value;			/* trimmed; "" for Key= */
	int	 line;			/* of the key */
};

struct dropin {
	struct dropin_entry	*entries;
	size_t			 n;
};

/* 0, or -1 with why ("line N: ...") and nothing to free. */
int	dropin_parse(const char *buf, size_t len, struct dropin *,
	    char *why, size_t whysz);
void	dropin_free(struct dropin *);
const char *dropin_get(const struct dropin *, const char *section,
	    const char *key);

#endif
