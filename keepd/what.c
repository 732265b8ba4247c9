/* Printable ASCII and cut short, so a field cannot forge a log line. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "envelope.h"
#include "json.h"
#include "what.h"

#define WHAT_FIELD_MAX	256

static void
what_field(const struct json *j, const char *key, char *out, size_t outsz)
{
	size_t	 i, n;
	long	 v;

	if ((v = json_find(j, 0, key)) == -1 ||
	    j->toks[v].type != JSON_STRING)
		return;
	(void)json_string_copy(j, (size_t)v, out, outsz, &n);
	if (n >= outsz)
		n = outsz - 1;
	for (i = 0; i < n; i++)
		if ((unsigned char)out[i] <= 0x20 ||
		    (unsigned char)out[i] >= 0x7f)
			out[i] = '?';
	out[n] = '\0';
	if (n == 0)
		(void)strlcpy(out, "-", outsz);
}

void
envelope_what(const char *buf, size_t len, char *out, size_t outsz)
{
	char		 d[NAME_LEN + 1] = "-", m[16] = "-";
	char		 p[WHAT_FIELD_MAX + 1] = "-";
	struct json	 j;
	const char	*why;

	if (len <= ENVELOPE_MAX && json_parse(&j, buf, len, &why) == 0) {
		if (j.toks[0].type == JSON_OBJECT) {
			what_field(&j, "destination", d, sizeof(d));
			what_field(&j, "method", m, sizeof(m));
			what_field(&j, "path", p, sizeof(p));
		}
		json_free(&j);
	}
	(void)snprintf(out, outsz, "%s %s %s", d, m, p);
}
