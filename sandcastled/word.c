/*
 * sandcastle's own word for how a job ended, for the log: a box's
 * failure line is hostile, so it only picks a word from this table
 * (sandcastle-box(8), FAILURES).
 */
#include <string.h>

#include "job.h"

static const char *const job_words[JW_COUNT] = {
	[JW_NONE] = "none",
	[JW_INPUT] = "input",
	[JW_CAPABILITY] = "capability",
	[JW_BOX] = "box",
	[JW_PROTOCOL] = "protocol",
	[JW_SCHEMA] = "schema",
	[JW_DECLINED] = "declined",
	[JW_MAX_TOKENS] = "max_tokens",
	[JW_API] = "api",
	[JW_TIME] = "time",
	[JW_OUTPUT] = "output",
	[JW_FILTER] = "filter",
	[JW_KILLED] = "killed",
	[JW_EXIT] = "exit",
	[JW_PODMAN] = "podman",
	[JW_BUILD] = "build",
	[JW_LEFTOVER] = "leftover",
	[JW_KEY] = "key",
	[JW_CREDIT] = "credit",
	[JW_RATE] = "rate",
	[JW_MODEL] = "model",
	[JW_API_DOWN] = "api_down",
	[JW_UNREACHABLE] = "unreachable",
	[JW_LANGUAGES] = "languages",
	[JW_RELEASED] = "released",
	[JW_RECORD] = "record",
	[JW_STOPPED] = "stopped",
	[JW_LAUNCHER] = "launcher",
	[JW_CONTEXT] = "context_window",
	[JW_STOP_REASON] = "stop_reason",
};

/* How the box side's errors begin, whether they release, and their word. */
static const struct {
	const char	*start;
	int		 release;
	enum job_word	 word;
	const char	*also;		/* further on in it, or NULL */
} box_words[] = {
	{ "protocol: ", 0, JW_PROTOCOL, NULL },
	{ "the reply does not satisfy the schema", 0, JW_SCHEMA, NULL },
	{ "the reply is not JSON", 0, JW_SCHEMA, NULL },
	{ "the reply holds no text", 0, JW_SCHEMA, NULL },
	{ "the model declined", 0, JW_DECLINED, NULL },
	{ "the reply was cut at max_tokens", 0, JW_MAX_TOKENS, NULL },
	{ "the reply was cut at the model's context window", 0, JW_CONTEXT,
	    NULL },
	{ "the model stopped ", 0, JW_STOP_REASON, NULL },
	{ "the API refused the request", 0, JW_API, NULL },
	{ "the key was rejected", 1, JW_KEY, NULL },
	{ "credit exhausted", 1, JW_CREDIT, NULL },
	{ "rate limited", 1, JW_RATE, NULL },
	{ "the model ", 1, JW_MODEL, " is not available to this key" },
	{ "the API is overloaded", 1, JW_API_DOWN, NULL },
	{ "the API failed", 1, JW_API_DOWN, NULL },
	{ "the API answered", 1, JW_API_DOWN, NULL },
	{ "the API's answer is not a Messages reply", 1, JW_API_DOWN, NULL },
	{ "the API's answer is not an event stream", 1, JW_API_DOWN, NULL },
	{ "the API's stream is not a Messages stream", 1, JW_API_DOWN, NULL },
	{ "the keep or the API could not be reached", 1, JW_UNREACHABLE, NULL },
	{ "the languages configured are", 1, JW_LANGUAGES, NULL },
	{ "box of build ", 1, JW_BUILD, NULL },
};

const char *
job_word_name(enum job_word w)
{
	return (unsigned int)w < JW_COUNT ? job_words[w] : "unknown";
}

enum job_word
job_word_of_box(const char *error, int release)
{
	size_t	 i;

	for (i = 0; i < sizeof(box_words) / sizeof(box_words[0]); i++)
		if (box_words[i].release == (release != 0) &&
		    strncmp(error, box_words[i].start,
		    strlen(box_words[i].start)) == 0 &&
		    (box_words[i].also == NULL ||
		    strstr(error, box_words[i].also) != NULL))
			return box_words[i].word;
	return release ? JW_RELEASED : JW_BOX;
}
