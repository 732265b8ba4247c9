/* A child's answer, checked before keepd passes it: it read a hostile one. */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "answer.h"
#include "fetchmsg.h"
#include "keep.h"
#include "keepbody.h"

#define RETRY_MAX	(7U * 24 * 3600)	/* a week is as long as it says */

/* Retry-After: delay-seconds or an IMF-fixdate; 0 when unreadable. */
uint32_t
answer_retry_after(const char *v, time_t now)
{
	struct tm	 tm;
	const char	*end;
	uint64_t	 n = 0;
	time_t		 t;

	if (v == NULL || *v == '\0')
		return 0;
	if (strspn(v, "0123456789") == strlen(v)) {
		for (; *v != '\0' && n <= RETRY_MAX; v++)
			n = n * 10 + (uint64_t)(*v - '0');
		return n > RETRY_MAX ? RETRY_MAX : (uint32_t)n;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (end == NULL || *end != '\0' || (t = timegm(&tm)) == -1)
		return 0;
	if (t <= now)
		return 0;
	return t - now > RETRY_MAX ? RETRY_MAX : (uint32_t)(t - now);
}

int
answer_check(const void *data, size_t len, int fd, uint32_t *status)
{
	struct keep_answer	 a;
	const char		*why;

	if (len < sizeof(a))
		return -1;
	memcpy(&a, data, sizeof(a));
	if (a.status < 200 || a.status > 599 || a.body_len > KEEP_MAXBODY ||
	    a.ctype_len > KEEP_CTYPE_MAX || a.ctype_len != len - sizeof(a))
		return -1;
	if (a.body_len == 0 && fd != -1)
		return -1;
	if (a.body_len > 0 && (fd == -1 ||
	    keepbody_check(fd, a.body_len, &why) == -1))
		return -1;
	*status = a.status;
	return 0;
}

int
refused_check(const void *data, size_t len)
{
	struct keep_refused	 r;

	if (len < sizeof(r))
		return -1;
	memcpy(&r, data, sizeof(r));
	if (r.code < KEEP_R_ENVELOPE || r.code > KEEP_R_REFUSED ||
	    r.reason_len > KEEP_REASON_MAX || r.reason_len != len - sizeof(r))
		return -1;
	return 0;
}
