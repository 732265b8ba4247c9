/*
 * The parser's pieces (config.c) that a capability's row (cap.c) reads
 * and prints its own settings with: the same checks, the same words.
 */
#ifndef SANDCASTLE_CONFPARSE_H
#define SANDCASTLE_CONFPARSE_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "yamltree.h"

#define KiB		(1ULL << 10)
#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)

char		*conf_strdup(const char *);	/* fatal without memory */
int		 conf_u32(struct yfile *, struct ynode *, uint32_t min,
		    uint32_t max, uint32_t *);
/* max_input, max_output, timeout, cooldown and box. */
void		 conf_cap(struct yfile *, struct ynode *,
		    struct capability *);
void		 conf_destination(struct yfile *, struct ynode *,
		    const char *name, struct destination *);
void		 destination_free(struct destination *);

void		 print_str(FILE *, const char *key, const char *,
		    int indent);
void		 print_cap(FILE *, const struct capability *);
void		 print_destination(FILE *, const struct destination *,
		    int indent);

#endif
