/*
 * The commands, as tables of words (the shape of bgpctl's parser.c).
 * A word may be cut short while it stays unambiguous: "sec l" is
 * "secret list".  The list of commands printed on a mistake is made
 * from the same tables, so it cannot drift from what is accepted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandcastlectl.h"

enum token_type {
	ENDTOKEN,
	KEYWORD,
	NAME,
	JOBID,		/* a second name: show job's ID */
	FLAG_JSON,	/* -j */
	MAYEND		/* the command may end here */
};

struct token {
	enum token_type		 type;
	const char		*keyword;
	enum action		 value;
	const struct token	*next;
};

static const struct token t_main[];
static const struct token t_install[];
static const struct token t_secret[];
static const struct token t_secret_name[];
static const struct token t_show[];
static const struct token t_show_jobs[];
static const struct token t_show_jobs_json[];
static const struct token t_show_job[];
static const struct token t_show_job_id[];
static const struct token t_show_sources[];

static const struct token t_main[] = {
	{ KEYWORD,	"check",	CHECK,		NULL },
	{ KEYWORD,	"install",	INSTALL,	t_install },
	{ KEYWORD,	"secret",	NONE,		t_secret },
	{ KEYWORD,	"show",		NONE,		t_show },
	{ KEYWORD,	"uninstall",	UNINSTALL,	NULL },
	{ KEYWORD,	"version",	VERSION,	NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_install[] = {
	{ MAYEND,	NULL,		NONE,		NULL },
	{ KEYWORD,	"--images",	INSTALL_IMAGES,	NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_secret[] = {
	{ KEYWORD,	"list",		SECRET_LIST,	NULL },
	{ KEYWORD,	"rm",		SECRET_RM,	t_secret_name },
	{ KEYWORD,	"set",		SECRET_SET,	t_secret_name },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_secret_name[] = {
	{ NAME,		"NAME",		NONE,		NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_show[] = {
	{ KEYWORD,	"job",		SHOW_JOB,	t_show_job },
	{ KEYWORD,	"jobs",		SHOW_JOBS,	t_show_jobs },
	{ KEYWORD,	"sources",	SHOW_SOURCES,	t_show_sources },
	{ KEYWORD,	"status",	SHOW_STATUS,	NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

/* -j comes before NAME: NAME takes any word. */
static const struct token t_show_jobs[] = {
	{ MAYEND,	NULL,		NONE,		NULL },
	{ FLAG_JSON,	"-j",		NONE,		NULL },
	{ NAME,		"SOURCE",	NONE,		t_show_jobs_json },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_show_jobs_json[] = {
	{ MAYEND,	NULL,		NONE,		NULL },
	{ FLAG_JSON,	"-j",		NONE,		NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_show_job[] = {
	{ NAME,		"SOURCE",	NONE,		t_show_job_id },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_show_job_id[] = {
	{ JOBID,	"ID",		NONE,		NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_show_sources[] = {
	{ MAYEND,	NULL,		NONE,		NULL },
	{ FLAG_JSON,	"-j",		NONE,		NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static struct parse_result res;

static const struct token *match_token(const char *, const struct token *);
static int	may_end(const struct token *);
static void	print_commands(const struct token *, const char *);
static void	parse_fail(const char *, const char *)
		    __attribute__((noreturn));

const struct parse_result *
parse(int argc, char *argv[])
{
	const struct token	*table = t_main, *t;
	int			 i;

	memset(&res, 0, sizeof(res));
	for (i = 0; i < argc; i++) {
		if (table == NULL) {
			if (res.action == SECRET_SET)
				parse_fail(NULL, "secret set takes no value: "
				    "it reads it from the terminal or stdin");
			parse_fail(argv[i], "unexpected word");
		}
		if ((t = match_token(argv[i], table)) == NULL)
			parse_fail(argv[i], "unknown or ambiguous command");
		if (t->type == NAME)
			res.name = argv[i];
		else if (t->type == JOBID)
			res.id = argv[i];
		else if (t->type == FLAG_JSON)
			res.json = 1;
		else if (t->value != NONE)
			res.action = t->value;
		table = t->next;
	}
	if (table != NULL && !may_end(table))
		parse_fail(argc > 0 ? argv[argc - 1] : NULL,
		    argc > 0 ? "the command is not complete" :
		    "no command given");
	return &res;
}

static int
may_end(const struct token *table)
{
	const struct token	*t;

	for (t = table; t->type != ENDTOKEN; t++)
		if (t->type == MAYEND)
			return 1;
	return 0;
}

/* A whole word, else a prefix of exactly one; NAME and JOBID take any word. */
static const struct token *
match_token(const char *word, const struct token *table)
{
	const struct token	*t, *found = NULL;
	size_t			 len = strlen(word);
	int			 n = 0;

	for (t = table; t->type != ENDTOKEN; t++) {
		if (t->type == MAYEND)
			continue;
		if (t->type == NAME || t->type == JOBID)
			return t;
		if (strcmp(word, t->keyword) == 0)
			return t;
		if (len > 0 && strncmp(word, t->keyword, len) == 0) {
			found = t;
			n++;
		}
	}
	return n == 1 ? found : NULL;
}

static void
print_commands(const struct token *table, const char *prefix)
{
	const struct token	*t;
	char			 line[128];

	for (t = table; t->type != ENDTOKEN; t++) {
		if (t->type == MAYEND) {
			fprintf(stderr, "\t%s\n", prefix);
			continue;
		}
		(void)snprintf(line, sizeof(line), "%s%s%s", prefix,
		    *prefix ? " " : "", t->keyword);
		if (t->next == NULL)
			fprintf(stderr, "\t%s\n", line);
		else
			print_commands(t->next, line);
	}
}

static void
parse_fail(const char *word, const char *what)
{
	if (word != NULL)
		fprintf(stderr, "sandcastlectl: %s: %s\n", word, what);
	else
		fprintf(stderr, "sandcastlectl: %s\n", what);
	fprintf(stderr, "commands:\n");
	print_commands(t_main, "");
	exit(1);
}
