/* The results on their way to the sources (coreresult.c). */
#ifndef SANDCASTLED_CORERESULT_H
#define SANDCASTLED_CORERESULT_H

#include "corebase.h"

void	 core_result_add(struct core *, size_t src, const char *id, int cap,
	    enum contract_status, const char *output, const char *error);
void	 core_result_finish(struct core *, size_t src,
	    const struct records_job *, struct job_outcome *);
void	 core_result_unnoted(struct core *, size_t src, const char *id);
int	 core_result_next(struct core *, time_t now);
void	 core_result_answer(struct core *, struct keepcli_answer *,
	    const char *down);
int	 core_result_held(const struct core *);
void	 core_recover(struct core *);
time_t	 core_result_wake(const struct core *);

#endif
