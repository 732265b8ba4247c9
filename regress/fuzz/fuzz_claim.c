/*
 * libFuzzer target for contract_claim_parse(): an answer it takes holds
 * at most the limit of jobs, each with an id the contract takes and no
 * two alike, a capability that was asked for or a reason it fails, and
 * an input that is itself JSON, the bytes of the answer at its offset
 * (the span the launcher maps); a refused answer leaves nothing behind.
 * The result envelope of every job taken must be made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "contract.h"

#define LIMIT	2

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_job(const struct contract_job *job, unsigned int caps,
    const uint8_t *data, size_t size)
{
	struct json	 j;
	const char	*why;
	char		*e;
	size_t		 len;

	if (!contract_id_valid(job->id))
		abort();
	if (job->cap == -1 ? job->failed[0] == '\0' :
	    job->failed[0] != '\0' || (caps & CAP_BIT(job->cap)) == 0)
		abort();
	if (job->input != NULL) {
		if (json_parse(&j, job->input, job->inputlen, &why) != 0)
			abort();
		json_free(&j);
		if (job->inputoff > size || job->inputlen > size -
		    job->inputoff || memcmp(data + job->inputoff, job->input,
		    job->inputlen) != 0)
			abort();
	}
	if ((e = contract_result_envelope("notes", job->id,
	    CONTRACT_FAILED_JOB, NULL, 0, job->failed, &len)) == NULL)
		abort();
	free(e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct contract_claim	 c;
	char			 why[CONTRACT_WHY_MAX];
	unsigned int		 caps = size > 0 && data[0] & 1 ?
				    CAP_BIT(CAP_CLAUDE) : CAP_BIT(CAP_CLAUDE) |
				    CAP_BIT(CAP_OCR);
	size_t			 i, k;

	why[0] = '\0';
	if (contract_claim_parse((const char *)data, size, caps, LIMIT, &c,
	    why, sizeof(why)) != 0) {
		if (why[0] == '\0' || c.jobs != NULL || c.njobs != 0)
			abort();
		return 0;
	}
	if (c.njobs > LIMIT)
		abort();
	for (i = 0; i < c.njobs; i++) {
		check_job(&c.jobs[i], caps, data, size);
		for (k = 0; k < i; k++)
			if (strcmp(c.jobs[k].id, c.jobs[i].id) == 0)
				abort();
	}
	contract_claim_free(&c);
	return 0;
}
