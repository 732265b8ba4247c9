/* The source contract (sandcastled(8), SOURCE CONTRACT), pure. */
#ifndef SANDCASTLE_CONTRACT_H
#define SANDCASTLE_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "keepcli.h"

#define CONTRACT_ID_MAX		128	/* characters of a text id */
#define CONTRACT_NUMID_MAX	20	/* digits of a number id */
#define CONTRACT_LIMIT		1	/* jobs the core asks for in each claim */
#define CONTRACT_LINE_MAX	200
#define CONTRACT_WHY_MAX	1024
#define CONTRACT_JOBWHY_MAX	256
/* A job's failure for a missing input; any other is of its capability. */
#define CONTRACT_NO_INPUT	"the job has no input"

enum contract_verdict {
	CONTRACT_OK,
	CONTRACT_TOKEN,		/* 401, 403: the token was rejected */
	CONTRACT_GONE,		/* 409 on a result: keep it, never send again */
	CONTRACT_REDIRECT,	/* 3xx: never followed */
	CONTRACT_FAILED,	/* another status, or a body unreadable */
	CONTRACT_UNREACHABLE,
	CONTRACT_REFUSED,
	CONTRACT_KEEP		/* the keep is down, or the secret unusable */
};

enum contract_status {
	CONTRACT_SUCCEEDED,
	CONTRACT_FAILED_JOB,
	CONTRACT_RELEASED
};

struct contract_job {
	char		 id[CONTRACT_ID_MAX + 1];	/* digits, or the text */
	int		 numeric;
	int		 cap;		/* enum cap_id; -1 when failed is set */
	/* "" or why the job fails at once, without a box (never sent to a log). */
	char		 failed[CONTRACT_JOBWHY_MAX];
	char		*input;
	size_t		 inputlen;
	size_t		 inputoff;	/* where they lie in the claim's body */
};

struct contract_claim {
	struct contract_job	*jobs;
	size_t			 njobs;
};

/* NUL-terminated JSON, or NULL with errno (EINVAL: an argument is bad). */
char	*contract_ping_envelope(const char *source, size_t *len);
/* caps: CAP_BIT()s; listed in enum cap_id's order.  limit: CONTRACT_LIMIT. */
char	*contract_claim_envelope(const char *source, unsigned int caps,
	    unsigned int limit, size_t *len);
/* output (succeeded) or error (failed); neither for released. */
char	*contract_result_envelope(const char *source, const char *id,
	    enum contract_status, const char *output, size_t outputlen,
	    const char *error, size_t *len);

/* result: 409 is CONTRACT_GONE, elsewhere CONTRACT_FAILED. */
enum contract_verdict contract_answer(const struct keepcli_answer *,
	    int result, char *why, size_t whysz);
/* A gate's refusal or a source left out for the keep: later changes nothing. */
int	 contract_backs_off(enum contract_verdict);

int	 contract_ping_parse(const char *body, size_t len, uint64_t *waiting,
	    char *why, size_t whysz);
int	 contract_claim_parse(const char *body, size_t len, unsigned int caps,
	    unsigned int limit, struct contract_claim *claim, char *why,
	    size_t whysz);
void	 contract_claim_free(struct contract_claim *);

/* A job's id as text: 1 when it is one the contract takes (path- and folder-safe). */
int	 contract_id_valid(const char *id);
const char *contract_status_name(enum contract_status);

#endif
