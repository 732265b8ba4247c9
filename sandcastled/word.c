/*
 * The word of a box's failure line, held to its capability's row
 * (cap.h): the line is hostile, so a word the row lacks, or one sent
 * with the other release, is the box's own fault (sandcastle-box(8)).
 */
#include "cap.h"
#include "word.h"

static int
word_in(const struct cap_word *w, int word, int release)
{
	for (; w != NULL && w->word != JW_NONE; w++)
		if ((int)w->word == word && w->release == (release != 0))
			return 1;
	return 0;
}

int
job_word_of_box(enum cap_id cap, const char *name, int release,
    enum job_word *word)
{
	int	 w;

	if ((unsigned int)cap >= CAP_COUNT ||
	    (w = job_word_of_name(name)) == -1 ||
	    (!word_in(cap_box_words, w, release) &&
	    !word_in(cap_table[cap].words, w, release)))
		return -1;
	*word = w;
	return 0;
}
