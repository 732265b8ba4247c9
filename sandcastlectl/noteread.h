/* Whether a file's bytes are a program of sandcastle: its ELF note. */
#ifndef SANDCASTLECTL_NOTEREAD_H
#define SANDCASTLECTL_NOTEREAD_H

#include <stddef.h>
#include <stdint.h>

#include "note.h"

/*
 * 1 and the program's name in prog when buf, an ELF file of this
 * machine's class and byte order, has a PT_NOTE holding sandcastle's
 * note; 0 when it has none, is no such ELF file or is cut short.
 */
int	note_find(const uint8_t *buf, size_t len,
	    char prog[NOTE_DESC_LEN + 1]);

#endif
