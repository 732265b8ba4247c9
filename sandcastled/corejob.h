/* A job's life in the core (corejob.c). */
#ifndef SANDCASTLED_COREJOB_H
#define SANDCASTLED_COREJOB_H

#include "corebase.h"

void	 core_job_start(struct core *, struct core_job *);

#endif
