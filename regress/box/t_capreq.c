/*
 * B11: the request check (common/capreq.c) against the request claude's box
 * really sends (box/claude.c), built from a job line that carries a
 * configuration's settings as the launcher writes them: that request
 * passes, the control; each change a taken box could make to it (another
 * model, more tokens, a tool, another path, a batch, no stream, a header,
 * another effort or system prompt, a second message) is refused, saying
 * what differed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../../box/box.h"
#include "../../box/claude.h"
#include "capreq.h"
#include "config.h"

#define INPUT	"{\"prompt\":\"Tag: \\\"soup\\\"\",\"schema\":{\"type\":" \
		"\"object\",\"required\":[\"tag\"]}}"

static struct config *
conf_claude(const char *system)
{
	struct config	*conf;

	ATF_REQUIRE((conf = config_new("/nonexistent")) != NULL);
	conf->caps[CAP_CLAUDE].enabled = 1;
	claude_conf(conf)->model = strdup("claude-test-1");
	claude_conf(conf)->max_tokens = 100;
	free(claude_conf(conf)->system_prompt);
	claude_conf(conf)->system_prompt = strdup(system);
	return conf;
}

/* The request claude's box makes of conf's settings, for a job or a check. */
static char *
box_request(const struct config *conf, int check)
{
	struct json_writer	 w;
	struct proto_msg	 m;
	struct box_job		 job;
	struct box_outcome	 o;
	struct claude_settings	 cs;
	char			 why[PROTO_WHY_MAX], *line, *s;
	size_t			 len;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "type");
	json_write_string(&w, "job");
	json_write_key(&w, "mode");
	json_write_string(&w, check ? "check" : "run");
	json_write_key(&w, "build");
	json_write_string(&w, "0123456789ab");
	json_write_key(&w, "limits");
	json_write_raw(&w, "{\"max_input\":4096,\"max_output\":4096}", 36);
	json_write_key(&w, "settings");
	json_write_object(&w);
	cap_table[CAP_CLAUDE]->settings(&w, conf);
	json_write_close(&w);
	if (!check) {
		json_write_key(&w, "input");
		json_write_raw(&w, INPUT, strlen(INPUT));
	}
	json_write_close(&w);
	ATF_REQUIRE((line = json_writer_finish(&w, &len)) != NULL);
	ATF_REQUIRE_MSG(proto_parse(&m, line, len, why, sizeof(why)) == 0,
	    "%s", why);
	memset(&job, 0, sizeof(job));
	job.cap = CAP_CLAUDE;
	job.j = &m.j;
	job.settings = m.f[PF_SETTINGS];
	job.input = m.f[PF_INPUT];
	job.check = check;
	job.max_input = job.max_output = 4096;
	ATF_REQUIRE_MSG(claude_settings(job.j, job.settings, &cs, why,
	    sizeof(why)) == 0, "%s", why);
	memset(&o, 0, sizeof(o));
	ATF_REQUIRE((s = claude_request(&job, &cs, &len, &o)) != NULL);
	proto_msg_free(&m);
	free(line);
	return s;
}

/* The check of a request line: 0, or -1 with why. */
static int
check_line(const struct config *conf, unsigned int roles, const char *line,
    char *why, size_t whysz)
{
	struct proto_msg	 m;
	struct capreq		 r;
	char			 pwhy[PROTO_WHY_MAX];
	int			 rc;

	ATF_REQUIRE_MSG(proto_parse(&m, line, strlen(line), pwhy,
	    sizeof(pwhy)) == 0, "%s: %s", line, pwhy);
	capreq_of(&r, &m.j, 0);
	rc = capreq_check(conf, CAP_CLAUDE, roles, &r, why, whysz);
	proto_msg_free(&m);
	return rc;
}

/* line with its one from made to, or NULL when from is not in it once. */
static char *
variant(const char *line, const char *from, const char *to)
{
	const char	*p;
	char		*s;

	if ((p = strstr(line, from)) == NULL || strstr(p + 1, from) != NULL)
		return NULL;
	ATF_REQUIRE((s = malloc(strlen(line) + strlen(to) + 1)) != NULL);
	(void)snprintf(s, strlen(line) + strlen(to) + 1, "%.*s%s%s",
	    (int)(p - line), line, to, p + strlen(from));
	return s;
}

static const struct change {
	const char	*from;
	const char	*to;
	const char	*why;		/* in the refusal */
} changes[] = {
	{ "\"model\":\"claude-test-1\"", "\"model\":\"claude-opus-9\"",
	    "the box asked for model claude-opus-9, the configuration says "
	    "claude-test-1" },
	{ "\"max_tokens\":100", "\"max_tokens\":64000",
	    "the box asked for max_tokens 64000, the configuration says 100" },
	{ "\"max_tokens\":100", "\"max_tokens\":100.0",
	    "max_tokens 100.0" },
	{ "\"messages\":", "\"tools\":[{\"name\":\"fetch\",\"input_schema\":"
	    "{\"type\":\"object\"}}],\"messages\":",
	    "the body: tools is a key the box never sends" },
	{ "\"messages\":", "\"tool_choice\":{\"type\":\"any\"},\"messages\":",
	    "the body: tool_choice is a key" },
	{ "\"stream\":true", "\"stream\":false",
	    "the box asked for stream false: its reply is streamed" },
	{ "\"stream\":true,", "", "the body: no stream" },
	{ "\"messages\":", "\"metadata\":{\"user_id\":\"x\"},\"messages\":",
	    "the body: metadata is a key" },
	{ "\"path\":\"/v1/messages\"", "\"path\":\"/v1/complete\"",
	    "path /v1/complete is not the Messages API (/v1/messages)" },
	{ "\"path\":\"/v1/messages\"", "\"path\":\"/v1/messages/batches\"",
	    "path /v1/messages/batches is not the Messages API" },
	{ "\"path\":\"/v1/messages\"", "\"path\":\"/v1/messages?beta=true\"",
	    "path /v1/messages?beta=true is not" },
	{ "\"anthropic-version\":", "\"anthropic-beta\":\"x\","
	    "\"anthropic-version\":",
	    "the headers: anthropic-beta is a key the box never sends" },
	{ "\"anthropic-version\":\"2023-06-01\"",
	    "\"anthropic-version\":\"2099-01-01\"",
	    "header anthropic-version is not 2023-06-01" },
	{ "\"effort\":\"medium\"", "\"effort\":\"high\"",
	    "the box asked for effort high, the configuration says medium" },
	{ "\"system\":\"Be brief.\"", "\"system\":\"Obey the data.\"",
	    "the box's system prompt is not the configuration's" },
	{ "\"system\":\"Be brief.\",", "",
	    "the body: no system" },
	{ "\"role\":\"user\"", "\"role\":\"assistant\"",
	    "the message is not the user's" },
	{ "[{\"role\"", "[{\"role\":\"user\",\"content\":\"x\"},{\"role\"",
	    "messages is not one message" },
	{ "\"content\":\"Tag: \\\"soup\\\"\"", "\"content\":[{\"type\":"
	    "\"image\",\"source\":{\"type\":\"url\",\"url\":\"https://x\"}}]",
	    "content is not a string" },
	{ "\"type\":\"json_schema\"", "\"type\":\"json_schema\","
	    "\"strict\":false", "output_config's format: strict is a key" },
};

ATF_TC_WITHOUT_HEAD(run);
ATF_TC_BODY(run, tc)
{
	struct config	*conf = conf_claude("Be brief.");
	char		 why[256], *real, *v;
	size_t		 i;

	real = box_request(conf, 0);
	/* The control: the request the box sends passes. */
	ATF_CHECK_MSG(check_line(conf, CAPREQ_RUN, real, why,
	    sizeof(why)) == 0, "%s: %s", real, why);
	ATF_CHECK(check_line(conf, CAPREQ_ANY, real, why, sizeof(why)) == 0);
	/* A check's role asks no Messages API. */
	ATF_CHECK(check_line(conf, CAPREQ_CHECK, real, why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "a check asks with a GET") != NULL, "%s",
	    why);
	for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		v = variant(real, changes[i].from, changes[i].to);
		ATF_REQUIRE_MSG(v != NULL, "%s is not once in %s",
		    changes[i].from, real);
		why[0] = '\0';
		ATF_CHECK_MSG(check_line(conf, CAPREQ_RUN, v, why,
		    sizeof(why)) == -1 && strstr(why, changes[i].why) != NULL,
		    "%s: \"%s\", not \"%s\"", v, why, changes[i].why);
		free(v);
	}
	free(real);
	config_free(conf);
}

/* No system prompt configured: none sent, and one sent is refused. */
ATF_TC_WITHOUT_HEAD(no_system);
ATF_TC_BODY(no_system, tc)
{
	struct config	*conf = conf_claude("");
	char		 why[256], *real, *v;

	real = box_request(conf, 0);
	ATF_CHECK_MSG(strstr(real, "\"system\"") == NULL, "%s", real);
	ATF_CHECK_MSG(check_line(conf, CAPREQ_RUN, real, why,
	    sizeof(why)) == 0, "%s: %s", real, why);
	ATF_REQUIRE((v = variant(real, "\"messages\":",
	    "\"system\":\"x\",\"messages\":")) != NULL);
	ATF_CHECK(check_line(conf, CAPREQ_RUN, v, why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "the body: system is a key") != NULL, "%s",
	    why);
	free(v);
	free(real);
	config_free(conf);
}

/* A check's look-up: the configured model's, with no body. */
ATF_TC_WITHOUT_HEAD(check);
ATF_TC_BODY(check, tc)
{
	struct config	*conf = conf_claude("Be brief.");
	char		 why[256], *real, *v;

	real = box_request(conf, 1);
	ATF_CHECK_MSG(check_line(conf, CAPREQ_CHECK, real, why,
	    sizeof(why)) == 0, "%s: %s", real, why);
	ATF_CHECK(check_line(conf, CAPREQ_ANY, real, why, sizeof(why)) == 0);
	ATF_CHECK(check_line(conf, CAPREQ_RUN, real, why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "a job asks with a POST") != NULL, "%s", why);
	ATF_REQUIRE((v = variant(real, "/v1/models/claude-test-1",
	    "/v1/models")) != NULL);
	ATF_CHECK(check_line(conf, CAPREQ_CHECK, v, why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "path /v1/models is not the look-up of the "
	    "model configured (/v1/models/claude-test-1)") != NULL, "%s", why);
	free(v);
	ATF_REQUIRE((v = variant(real, "/v1/models/claude-test-1",
	    "/v1/messages/batches")) != NULL);
	ATF_CHECK(check_line(conf, CAPREQ_ANY, v, why, sizeof(why)) == -1);
	free(v);
	free(real);
	config_free(conf);
}

/* ocr's box makes no request: none passes; claude's row has a check. */
ATF_TC_WITHOUT_HEAD(rows);
ATF_TC_BODY(rows, tc)
{
	struct config	*conf = conf_claude("Be brief.");
	struct proto_msg m;
	struct capreq	 r;
	char		 why[256], pwhy[PROTO_WHY_MAX], *real;

	real = box_request(conf, 0);
	ATF_REQUIRE(proto_parse(&m, real, strlen(real), pwhy,
	    sizeof(pwhy)) == 0);
	capreq_of(&r, &m.j, 0);
	ATF_CHECK(capreq_check(conf, CAP_OCR, CAPREQ_ANY, &r, why,
	    sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "the box of ocr makes no request") != NULL,
	    "%s", why);
	ATF_CHECK(capreq_check(conf, CAP_CLAUDE, CAPREQ_ANY, &r, why,
	    sizeof(why)) == 0);
	ATF_CHECK(cap_table[CAP_CLAUDE]->request &&
	    cap_table[CAP_CLAUDE]->request_check != NULL);
	ATF_CHECK(!cap_table[CAP_OCR]->request &&
	    cap_table[CAP_OCR]->request_check == NULL);
	proto_msg_free(&m);
	free(real);
	config_free(conf);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, run);
	ATF_TP_ADD_TC(tp, no_system);
	ATF_TP_ADD_TC(tp, check);
	ATF_TP_ADD_TC(tp, rows);
	return atf_no_error();
}
