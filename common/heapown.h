/* A spare's own copy of the heap it shares with its parent (heapown.c). */
#ifndef SANDCASTLE_HEAPOWN_H
#define SANDCASTLE_HEAPOWN_H

void	heap_mark(void);	/* in main(), before the heap grows */
void	heap_own(void);		/* in the spare, and its parent after the fork */

#endif
