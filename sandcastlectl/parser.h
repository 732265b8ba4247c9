/* sandcastlectl's words (parser.c): what they ask, and each command's row. */
#ifndef SANDCASTLECTL_PARSER_H
#define SANDCASTLECTL_PARSER_H

#include "ctlcmd.h"

/* By enum action; NONE's row is empty. */
extern const struct command commands[ACTION_COUNT];

const struct parse_result *parse(int argc, char *argv[]);

#endif
