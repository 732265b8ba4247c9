/*
 * check: each source pinged through the keep and the gate, as the core
 * would; a source's words are hostile, escaped before a line.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "keepcli.h"
#include "paths.h"
#include "contract.h"
#include "check.h"

static void
reason_of(const struct keepcli_answer *a, char *out, size_t outsz)
{
	size_t	 i, n = strnlen(a->reason, sizeof(a->reason));

	for (i = 0; i < n && i + 1 < outsz; i++)
		out[i] = a->reason[i] >= 0x20 && a->reason[i] < 0x7f ?
		    a->reason[i] : '?';
	out[i] = '\0';
}

static void
unreachable(struct check *c, const struct source *src, const char *why)
{
	check_line(c, MARK_FAIL, "source %s: %s cannot be reached: %s",
	    src->name, src->name, why);
}

static void
ping_answer(struct check *c, const struct source *src,
    const struct keepcli_answer *a)
{
	char		 why[CONTRACT_WHY_MAX];
	uint64_t	 waiting;

	if (a->refused && a->code == KEEP_R_SECRET) {
		check_line(c, MARK_FAIL, "source %s: unusable secret: %s; set "
		    "it with sandcastlectl secret set %s", src->name,
		    src->dest.secret, src->dest.secret);
		return;
	}
	if (a->refused) {
		reason_of(a, why, sizeof(why));
		unreachable(c, src, why);
		return;
	}
	switch (contract_answer(a, 0, why, sizeof(why))) {
	case CONTRACT_OK:
		break;
	case CONTRACT_TOKEN:
		check_line(c, MARK_FAIL, "source %s: the token was rejected; "
		    "create a new worker token and set it with sandcastlectl "
		    "secret set %s", src->name, src->dest.secret);
		return;
	default:
		unreachable(c, src, why);
		return;
	}
	if (contract_ping_parse(a->body, a->body_len, &waiting, why,
	    sizeof(why)) == -1) {
		check_line(c, MARK_FAIL, "source %s: %s cannot be reached: the "
		    "ping answer is not {\"waiting\": N}: %s", src->name,
		    src->name, why);
		return;
	}
	check_line(c, MARK_OK, "source %s: reachable, %llu waiting", src->name,
	    (unsigned long long)waiting);
}

static void
check_source(struct check *c, const char *keepsock, const struct source *src)
{
	struct keepcli_answer	 a;
	struct keepcli		*k;
	const char		*why;
	char			*env;
	size_t			 len;

	if ((env = contract_ping_envelope(src->name, &len)) == NULL) {
		check_line(c, MARK_FAIL, "source %s: out of memory", src->name);
		return;
	}
	if ((k = keepcli_open(keepsock, &why)) == NULL) {
		unreachable(c, src, why);
		free(env);
		return;
	}
	if (keepcli_request(k, env, len, 0, &a, &why) == -1)
		unreachable(c, src, why);
	else if (keepcli_answer_map(&a) == -1) {
		unreachable(c, src, strerror(errno));
		keepcli_answer_free(&a);
	} else {
		ping_answer(c, src, &a);
		keepcli_answer_free(&a);
	}
	keepcli_close(k);
	free(env);
}

int
check_sources(struct check *c)
{
	const struct source	*src;
	char			 path[PATH_MAX];

	if (!c->keep || path_runtime_file(KEEP_SOCK, path, sizeof(path)) == -1)
		return 0;
	TAILQ_FOREACH(src, &c->conf->sources, entry)
		check_source(c, path, src);
	return 0;
}
