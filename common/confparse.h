/* The configuration's values read and written back (confparse.c). */
#ifndef SANDCASTLE_CONFPARSE_H
#define SANDCASTLE_CONFPARSE_H

#include <stdint.h>
#include <stdio.h>

#include "yamltree.h"

#define KiB		(1ULL << 10)
#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)

struct capability;
struct destination;

char		*conf_strdup(const char *);	/* fatal without memory */
int		 conf_u32(struct yfile *, struct ynode *, uint32_t min,
		    uint32_t max, uint32_t *);
int		 conf_duration(struct yfile *, struct ynode *, uint32_t min,
		    uint32_t max, uint32_t *);
int		 conf_name(struct yfile *, struct ynode *, char *, size_t);
/* An absolute path, ~/ expanded, into a new string. */
int		 conf_path(struct yfile *, struct ynode *, char **);
/* max_input, max_output, timeout, cooldown and box. */
void		 conf_cap(struct yfile *, struct ynode *,
		    struct capability *);
void		 conf_destination(struct yfile *, struct ynode *,
		    const char *name, struct destination *);
void		 destination_free(struct destination *);

/* -nv: a value that YAML would not read back plain is quoted. */
void		 print_str(FILE *, const char *key, const char *,
		    int indent);
void		 print_duration(FILE *, const char *key, uint32_t, int indent);
void		 print_cap(FILE *, const struct capability *);
void		 conf_jobs(struct yfile *, struct ynode *, uint32_t all,
		    uint32_t *);
void		 print_destination(FILE *, const struct destination *,
		    int indent);

#endif
