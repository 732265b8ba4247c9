/* Each program's ELF note (readelf -n); install replaces only files with it. */
#ifndef SANDCASTLE_NOTE_H
#define SANDCASTLE_NOTE_H

#include <stdint.h>

#define NOTE_NAME	"sandcastle"
#define NOTE_TYPE	1
#define NOTE_DESC_LEN	32	/* the program's name, NUL-padded */

/* In the file of each program's main(): the linker puts it in a PT_NOTE. */
#define PROGRAM_NOTE(prog)						\
	__attribute__((used, section(".note.sandcastle"), aligned(4)))	\
	static const struct {						\
		uint32_t	namesz, descsz, type;			\
		char		name[(sizeof(NOTE_NAME) + 3) & ~3];	\
		char		desc[NOTE_DESC_LEN];			\
	} program_note = { sizeof(NOTE_NAME), NOTE_DESC_LEN, NOTE_TYPE,	\
	    NOTE_NAME, prog }

#endif
