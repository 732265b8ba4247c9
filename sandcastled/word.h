/* A box's failure word, held to its capability's row (word.c). */
#ifndef SANDCASTLED_WORD_H
#define SANDCASTLED_WORD_H

#include "cap.h"
#include "outcome.h"

/* 0 and the word of a box's failure line, -1 when its row lacks it. */
int		 job_word_of_box(enum cap_id, const char *name, int release,
		    enum job_word *word);

#endif
