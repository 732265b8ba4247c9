/* Which destination a caller of the keep-frontend may name: a taken core
 * cannot reach claude's key, nor a taken launcher a source's token. */
#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "capreq.h"
#include "config.h"
#include "destrule.h"
#include "json.h"

static int
destrule_allowed(const struct config *conf, const char *dest, int launcher)
{
	const struct source	*src;
	int			 c;

	if (launcher)
		return (c = cap_from_name(dest)) != -1 &&
		    cap_table[c]->destination != NULL && conf->caps[c].enabled;
	TAILQ_FOREACH(src, &conf->sources, entry)
		if (strcmp(dest, src->dest.name) == 0)
			return 1;
	return 0;
}

static int
destrule_request(const struct config *conf, const struct json *j,
    const char *dest, char *why, size_t whysz)
{
	struct capreq	 r;
	char		 bad[256];

	capreq_of(&r, j, 0);
	if (capreq_check(conf, cap_from_name(dest), CAPREQ_ANY, &r, bad,
	    sizeof(bad)) == 0)
		return 0;
	(void)snprintf(why, whysz, "the box launcher's request is not the "
	    "one the box of %s sends: %s", dest, bad);
	return -1;
}

int
keepfe_may(const struct config *conf, const char *envelope, size_t len,
    int launcher, char *why, size_t whysz)
{
	struct json	 j;
	const char	*jwhy;
	char		 dest[NAME_LEN + 1];
	size_t		 n;
	long		 t;
	int		 ok;

	if (json_parse(&j, envelope, len, &jwhy) == -1) {
		(void)snprintf(why, whysz, "the envelope is not JSON: %s",
		    jwhy);
		return -1;
	}
	ok = j.toks[0].type == JSON_OBJECT &&
	    (t = json_find(&j, 0, "destination")) != -1 &&
	    json_string_copy(&j, t, dest, sizeof(dest), &n) == 0 &&
	    n == strlen(dest) && destrule_allowed(conf, dest, launcher);
	if (!ok)
		(void)snprintf(why, whysz, "the envelope names no destination "
		    "the %s may use", launcher ? "box launcher" : "core");
	else if (launcher)
		ok = destrule_request(conf, &j, dest, why, whysz) == 0;
	json_free(&j);
	return ok ? 0 : -1;
}
