/*
 * The control socket as the show commands speak it (common/ctl.h): each
 * answer checked against show.c's table; a failure ends the command.
 */
#ifndef SANDCASTLECTL_SHOW_H
#define SANDCASTLECTL_SHOW_H

#include <stddef.h>
#include <stdint.h>

/* The answers of one type to a question: v holds n of size bytes each. */
struct show_answers {
	uint32_t	 type;
	size_t		 size;
	void		*v;		/* NULL while none came */
	size_t		 n;
};

/* The answers of type, each size bytes, until CTL_END: *n of them, or NULL. */
void	*show_ask(uint32_t ask, uint32_t type, size_t size, size_t *n);
/* The same for answers of several types, each kept in its want[]. */
void	 show_ask_all(uint32_t ask, struct show_answers *want, size_t nwant);
/* A text field of an answer cut at its NUL and made printable ASCII. */
void	 show_text(char *, size_t);

#endif
