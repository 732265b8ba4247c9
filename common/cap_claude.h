/* claude's settings, words and API version, for its box and the tests. */
#ifndef SANDCASTLE_CAP_CLAUDE_H
#define SANDCASTLE_CAP_CLAUDE_H

#include <stdint.h>

#include "cap.h"
#include "values.h"

/* The Messages API's version, which claude's box says in each request. */
#define CLAUDE_ANTHROPIC_VERSION	"2023-06-01"

/* Its own words (sandcastled(8), BOXES); any job's are outcome.h's. */
#define JW_CLAUDE(i)	JW_CAP_WORD(CAP_CLAUDE, i)
#define JW_SCHEMA	JW_CLAUDE(0)
#define JW_DECLINED	JW_CLAUDE(1)
#define JW_MAX_TOKENS	JW_CLAUDE(2)
#define JW_CONTEXT	JW_CLAUDE(3)
#define JW_STOP_REASON	JW_CLAUDE(4)
#define JW_API		JW_CLAUDE(5)
#define JW_KEY		JW_CLAUDE(6)
#define JW_CREDIT	JW_CLAUDE(7)
#define JW_RATE		JW_CLAUDE(8)
#define JW_MODEL	JW_CLAUDE(9)
#define JW_API_DOWN	JW_CLAUDE(10)

struct claude_conf {
	struct destination dest;
	char		*model;
	uint32_t	 max_tokens;
	char		*effort;	/* low, medium, high, xhigh or max */
	char		*system_prompt;
};

struct config;

struct claude_conf *claude_conf(const struct config *);

#endif
