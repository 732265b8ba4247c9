/* A strict layer over libyaml: anchors, tags, octal and the like refused. */
#ifndef SANDCASTLE_YAMLTREE_H
#define SANDCASTLE_YAMLTREE_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

/* Problems found, each one line "file:line: key: what is wrong". */
struct conferr {
	TAILQ_ENTRY(conferr) entry;
	char		*line;
};
TAILQ_HEAD(conferrs, conferr);

#define YAML_FILE_MAX	(1024 * 1024)
#define YAML_DEPTH_MAX	16
#define YAML_STRING_MAX	(64 * 1024)

enum ynode_type {
	YNODE_SCALAR,
	YNODE_MAP,
	YNODE_SEQ
};

struct ynode {
	enum ynode_type	 type;
	int		 line;
	int		 plain;		/* a scalar written without quotes */
	int		 bad;		/* already refused: say nothing more */
	char		*key;
	char		*path;		/* "capabilities.claude", "x[1]" */
	char		*value;
	size_t		 len;
	TAILQ_HEAD(ynodes, ynode) kids;
	size_t		 nkids;
	TAILQ_ENTRY(ynode) entry;
};

struct yerr;

struct yfile {
	const char	*file;
	const char	*base;		/* the key of the file itself */
	struct conferrs	*errs;
	struct yerr	*pending;
	size_t		 npending;
	size_t		 nerrs;
};

void		 yfile_init(struct yfile *, const char *file, struct conferrs *);
size_t		 yfile_done(struct yfile *);
void		 yerr(struct yfile *, const struct ynode *, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
void		 yerr_line(struct yfile *, int, const char *key, const char *,
		    ...) __attribute__((format(printf, 4, 5)));
/* `key: "value" ...' with the value quoted, escaped and shortened. */
void		 yerr_value(struct yfile *, const struct ynode *, const char *,
		    ...) __attribute__((format(printf, 3, 4)));
void		 conferr_add(struct conferrs *, const char *file, int line,
		    const char *key, const char *, ...)
		    __attribute__((format(printf, 5, 6)));

/* The root mapping (an empty one for an empty file), NULL on a syntax error. */
struct ynode	*yparse(struct yfile *, const char *buf, size_t len);
void		 yfree(struct ynode *);

/* Typed access; each refuses what is not of its type, once. */
int		 ymap(struct yfile *, struct ynode *, const char *example);
int		 yseq(struct yfile *, struct ynode *, const char *example);
void		 ymap_known(struct yfile *, const struct ynode *,
		    const char *const *keys);
struct ynode	*yget(const struct ynode *, const char *key);
struct ynode	*yneed(struct yfile *, const struct ynode *, const char *key,
		    const char *hint);
/* Any scalar with a value; ystring() also refuses YAML 1.1's booleans and null. */
int		 yscalar(struct yfile *, struct ynode *, const char *what,
		    const char **);
int		 ystring(struct yfile *, struct ynode *, const char *what,
		    const char **);
int		 yuint(struct yfile *, struct ynode *, uint64_t min, uint64_t max,
		    uint64_t *);

#endif
