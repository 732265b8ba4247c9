/* Strict RFC 8259 JSON over jsmn, a writer; the bytes outlive struct json. */
#ifndef SANDCASTLE_JSON_H
#define SANDCASTLE_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAXDEPTH	32			/* nested objects and arrays */
#define JSON_MAXLEN	(64U * 1024 * 1024)	/* bytes of one document */
#define JSON_MAXTOKENS	(1U << 20)
#define JSON_MAXEXP	1000			/* |exponent| of a number */

enum json_type {
	JSON_OBJECT = 1,
	JSON_ARRAY,
	JSON_STRING,
	JSON_NUMBER,
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL
};

struct json_tok {
	enum json_type	 type;
	uint32_t	 start;
	uint32_t	 end;
	uint32_t	 size;		/* an object's members, an array's values */
	uint32_t	 next;		/* the token after this value and all it holds */
};

struct json {
	const char	*buf;
	size_t		 len;
	struct json_tok	*toks;
	size_t		 ntoks;
	size_t		 erroff;
};

/* 0, or -1 with why a fixed phrase and j->erroff the byte it refers to. */
int		 json_parse(struct json *j, const char *buf, size_t len,
		    const char **why);
/* As json_parse(), but a lone surrogate escape is taken, as WTF-8. */
int		 json_parse_lone(struct json *j, const char *buf, size_t len,
		    const char **why);
void		 json_free(struct json *);

size_t		 json_next(const struct json *, size_t tok);
long		 json_find(const struct json *, size_t obj, const char *key);
const char	*json_raw(const struct json *, size_t tok, size_t *len);
/* A string equal, once unescaped, to the NUL-free s. */
int		 json_streq(const struct json *, size_t tok, const char *s);
/* *outlen: a \u0000 is copied as a NUL.  -1 when cut or not a string. */
int		 json_string_copy(const struct json *, size_t tok, char *out,
		    size_t outsz, size_t *outlen);
/* A new C string of at most maxlen bytes, NULL (errno set) otherwise or on a NUL. */
char		*json_string_dup(const struct json *, size_t tok, size_t maxlen);
int		 json_int(const struct json *, size_t tok, int64_t min,
		    int64_t max, int64_t *out);

struct json_writer {
	char		*buf;
	size_t		 len;
	size_t		 size;
	int		 failed;	/* ENOMEM or a misuse: finish gives NULL */
	unsigned int	 depth;
	char		 close[JSON_MAXDEPTH + 1];	/* '}' or ']' of each open one */
	unsigned char	 members[JSON_MAXDEPTH + 1];
	int		 afterkey;
};

void		 json_writer_init(struct json_writer *);
void		 json_write_object(struct json_writer *);
void		 json_write_array(struct json_writer *);
void		 json_write_close(struct json_writer *);
void		 json_write_key(struct json_writer *, const char *);
void		 json_write_string(struct json_writer *, const char *);
void		 json_write_string_len(struct json_writer *, const char *,
		    size_t);
void		 json_write_int(struct json_writer *, int64_t);
void		 json_write_uint(struct json_writer *, uint64_t);
void		 json_write_bool(struct json_writer *, int);
void		 json_write_null(struct json_writer *);
/* A value already checked by json_parse(), copied as it is. */
void		 json_write_raw(struct json_writer *, const char *, size_t);
/* The text, NUL-terminated, and the writer emptied; NULL on failure or when unbalanced. */
char		*json_writer_finish(struct json_writer *, size_t *len);
void		 json_writer_free(struct json_writer *);

#endif
