/*
 * The reader of sandcastle's ELF note (common/note.h) in any bytes: every
 * offset and size checked against the length, in 64 bits.
 */
#include <elf.h>
#include <endian.h>
#include <string.h>

#include "noteread.h"

#if BYTE_ORDER == LITTLE_ENDIAN
#define NOTE_DATA	ELFDATA2LSB
#else
#define NOTE_DATA	ELFDATA2MSB
#endif

static int	note_segment(const uint8_t *, size_t, size_t, char *);

/* The notes of one PT_NOTE, each part padded to 8 or to 4 (gABI). */
static int
note_segment(const uint8_t *p, size_t len, size_t align, char *prog)
{
	Elf64_Nhdr	 nh;
	size_t		 off = 0, pad = align == 8 ? 8 : 4, namesz, descsz;

	while (len - off >= sizeof(nh)) {
		memcpy(&nh, p + off, sizeof(nh));
		off += sizeof(nh);
		namesz = ((size_t)nh.n_namesz + pad - 1) & ~(pad - 1);
		descsz = ((size_t)nh.n_descsz + pad - 1) & ~(pad - 1);
		if (namesz > len - off || descsz > len - off - namesz)
			return 0;
		if (nh.n_namesz == sizeof(NOTE_NAME) && nh.n_type ==
		    NOTE_TYPE && nh.n_descsz == NOTE_DESC_LEN &&
		    memcmp(p + off, NOTE_NAME, sizeof(NOTE_NAME)) == 0 &&
		    memchr(p + off + namesz, '\0', NOTE_DESC_LEN) != NULL) {
			memcpy(prog, p + off + namesz, NOTE_DESC_LEN);
			prog[NOTE_DESC_LEN] = '\0';
			return 1;
		}
		off += namesz + descsz;
	}
	return 0;
}

int
note_find(const uint8_t *buf, size_t len, char prog[NOTE_DESC_LEN + 1])
{
	Elf64_Ehdr	 eh;
	Elf64_Phdr	 ph;
	uint64_t	 i;

	if (len < sizeof(eh))
		return 0;
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != NOTE_DATA ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phoff > len ||
	    (uint64_t)eh.e_phnum * sizeof(ph) > len - eh.e_phoff)
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, buf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > len ||
		    ph.p_filesz > len - ph.p_offset)
			continue;
		if (note_segment(buf + ph.p_offset, ph.p_filesz,
		    ph.p_align, prog))
			return 1;
	}
	return 0;
}
