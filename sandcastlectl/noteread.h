/* Whether a file's bytes are a program of sandcastle: its ELF note. */
#ifndef SANDCASTLECTL_NOTEREAD_H
#define SANDCASTLECTL_NOTEREAD_H

#include <stddef.h>
#include <stdint.h>

#include "note.h"

/* 1, the name in prog, when buf is an ELF of this machine with the note. */
int	note_find(const uint8_t *buf, size_t len,
	    char prog[NOTE_DESC_LEN + 1]);

#endif
