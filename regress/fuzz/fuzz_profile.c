/*
 * libFuzzer target for sandcastled/profile.c: the input stands for
 * podman's seccomp.json.  Whatever it holds, the profile made of it is
 * refused with a reason or is JSON whose last rules are ours, and no
 * rule of the input's keeps a call profile.c takes over.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../sandcastled/profile.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The names of the rules before ours never hold "unshare". */
static void
no_unshare_before_ours(const struct json *j)
{
	size_t	 n, r, k, t;
	long	 sys, names;

	if ((sys = json_find(j, 0, "syscalls")) == -1)
		abort();
	/* Ours are the last twelve: seven of clone's flags and five more. */
	if (j->toks[sys].size < 12)
		abort();
	for (n = 0, r = sys + 1; n + 12 < j->toks[sys].size;
	    n++, r = json_next(j, r)) {
		if ((names = json_find(j, r, "names")) == -1 ||
		    j->toks[names].type != JSON_ARRAY)
			continue;
		for (k = 0, t = names + 1; k < j->toks[names].size;
		    k++, t = json_next(j, t))
			if (json_streq(j, t, "unshare") ||
			    json_streq(j, t, "clone3"))
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json	 j;
	const char	*why;
	char		 reason[256], *s;
	size_t		 len;

	reason[0] = '\0';
	if ((s = box_profile_text((const char *)data, size, &len, reason,
	    sizeof(reason))) == NULL) {
		if (reason[0] == '\0')
			abort();
		return 0;
	}
	if (json_parse(&j, s, len, &why) == -1)
		abort();
	no_unshare_before_ours(&j);
	json_free(&j);
	free(s);
	return 0;
}
