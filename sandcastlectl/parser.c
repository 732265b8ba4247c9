/*
 * The commands' words as tables of tokens (bgpctl's parser.c) and their
 * rows; a word may be cut short while unambiguous ("sec l").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlcmd.h"
#include "parser.h"


enum token_type {
	ENDTOKEN,
	KEYWORD,
	NAME,
	JOBID,		/* a second name: show job's ID */
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
static const struct token t_show_job[];
static const struct token t_show_job_id[];

const struct command commands[ACTION_COUNT] = {
	[NONE] =		{ NULL,			0 },
	[CHECK] =		{ ctl_check,		CMD_FOLDERS },
	/* install says root among the machine's lacks, changing nothing. */
	[INSTALL] =		{ ctl_install,		CMD_FOLDERS | CMD_ROOT },
	[INSTALL_IMAGES] =	{ ctl_install_images,	CMD_FOLDERS },
	[SECRET_LIST] =		{ ctl_secret_list,	CMD_FOLDERS },
	[SECRET_RM] =		{ ctl_secret_rm,	CMD_FOLDERS },
	[SECRET_SET] =		{ ctl_secret_set,	CMD_FOLDERS },
	[SHOW_JOB] =		{ ctl_show_job,		CMD_FOLDERS | CMD_JSON },
	[SHOW_JOBS] =		{ ctl_show_jobs,	CMD_FOLDERS | CMD_JSON },
	[SHOW_SOURCES] =	{ ctl_show_sources,	CMD_JSON },
	[SHOW_STATUS] =		{ ctl_show_status,	CMD_JSON },
	[UNINSTALL] =		{ ctl_uninstall,	CMD_FOLDERS },
	/* version only reads the binaries beside it. */
	[VERSION] =		{ ctl_version,		CMD_ROOT },
};

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
	{ KEYWORD,	"sources",	SHOW_SOURCES,	NULL },
	{ KEYWORD,	"status",	SHOW_STATUS,	NULL },
	{ ENDTOKEN,	NULL,		NONE,		NULL }
};

static const struct token t_show_jobs[] = {
	{ MAYEND,	NULL,		NONE,		NULL },
	{ NAME,		"SOURCE",	NONE,		NULL },
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

static struct parse_result res;

static const struct token *match_token(const char *, const struct token *);
static int	may_end(const struct token *);
static int	takes_json(const char *);
static void	print_commands(const struct token *, const char *,
		    enum action);
static void	parse_fail(const char *, const char *)
		    __attribute__((noreturn));

const struct parse_result *
parse(int argc, char *argv[])
{
	const struct token	*table = t_main, *t;
	int			 i;

	memset(&res, 0, sizeof(res));
	for (i = 0; i < argc; i++) {
		if (takes_json(argv[i])) {
			res.json = 1;
			continue;
		}
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

/* -j, once, after the words of a command whose row takes it. */
static int
takes_json(const char *word)
{
	return strcmp(word, "-j") == 0 && !res.json &&
	    (commands[res.action].flags & CMD_JSON);
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
print_command(const char *line, enum action action)
{
	fprintf(stderr, "\t%s%s\n", line,
	    commands[action].flags & CMD_JSON ? " [-j]" : "");
}

static void
print_commands(const struct token *table, const char *prefix,
    enum action action)
{
	const struct token	*t;
	enum action		 a;
	char			 line[128];

	for (t = table; t->type != ENDTOKEN; t++) {
		if (t->type == MAYEND) {
			print_command(prefix, action);
			continue;
		}
		a = t->value != NONE ? t->value : action;
		(void)snprintf(line, sizeof(line), "%s%s%s", prefix,
		    *prefix ? " " : "", t->keyword);
		if (t->next == NULL)
			print_command(line, a);
		else
			print_commands(t->next, line, a);
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
	print_commands(t_main, "", NONE);
	exit(1);
}
