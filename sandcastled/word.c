/* The word of a box's failure line, held to its capability's row: a word
 * the row lacks, or sent with the other release, is the box's fault. */
#include <string.h>

#include "cap.h"
#include "word.h"

/* By name, since two rows may each have a word of the same name. */
static int
word_in(const struct cap_word *w, const char *name, int release,
    enum job_word *word)
{
	for (; w != NULL && w->word != JW_NONE; w++)
		if (strcmp(job_word_name(w->word), name) == 0 &&
		    w->release == (release != 0)) {
			*word = w->word;
			return 1;
		}
	return 0;
}

int
job_word_of_box(enum cap_id cap, const char *name, int release,
    enum job_word *word)
{
	if ((unsigned int)cap >= CAP_COUNT ||
	    (!word_in(cap_box_words, name, release, word) &&
	    !word_in(cap_table[cap]->words, name, release, word)))
		return -1;
	return 0;
}
