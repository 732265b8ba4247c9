/*
 * libFuzzer target for envelope_parse(): an envelope it takes keeps
 * every rule again when read back from the struct.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../keepd/envelope.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* notes, a source; api, a destination that takes one header more. */
static const char *const *
known(const char *name, void *arg)
{
	static const char *const none[] = { NULL };
	static const char *const more[] = { "x-version", NULL };

	(void)arg;
	return strcmp(name, "notes") == 0 ? none : strcmp(name, "api") == 0 ?
	    more : NULL;
}

static void
check(const struct envelope *env, const char *buf, size_t size)
{
	const char	*why;
	size_t		 i, h;

	if (known(env->destination, NULL) == NULL ||
	    env->nhdrs > ENVELOPE_NHDRS ||
	    (env->method != ENVELOPE_GET && env->method != ENVELOPE_POST) ||
	    envelope_path_check(env->path, strlen(env->path), &why) != 0)
		abort();
	if (env->method == ENVELOPE_GET && env->body != NULL)
		abort();
	if (env->body != NULL && (env->body < buf ||
	    env->body + env->bodylen > buf + size || env->bodylen == 0))
		abort();
	for (h = 0; h < env->nhdrs; h++) {
		if (strspn(env->name[h], "abcdefghijklmnopqrstuvwxyz-") !=
		    strlen(env->name[h]))
			abort();
		for (i = 0; env->value[h][i] != '\0'; i++)
			if (env->value[h][i] < 0x20 || env->value[h][i] > 0x7e)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct envelope	 env;
	char		 why[ENVELOPE_WHY_MAX];

	if (envelope_parse(&env, (const char *)data, size, known, NULL, why,
	    sizeof(why)) != 0)
		return 0;
	check(&env, (const char *)data, size);
	return 0;
}
