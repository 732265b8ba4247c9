/*
 * sandcastlectl show sources [-j]: each source as the core last
 * scheduled it, from the copy sandcastled's parent keeps (ctl.h, struct
 * ctl_source): when it is asked next, its back-off, its jobs of the
 * last hour against max_jobs_per_hour, its resting capabilities and the
 * error of its last call.  The parent checked every text; they are
 * still cut at their NUL and printed as printable ASCII only.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "ctl.h"
#include "json.h"
#include "msg.h"
#include "sandcastlectl.h"
#include "show.h"
#include "records.h"

struct srclist {
	struct ctl_source	*v;
	size_t			 n;
};

static void
text_of(const char *field, size_t size, char *out)
{
	size_t	 i;

	for (i = 0; i + 1 < size && field[i] != '\0'; i++)
		out[i] = field[i] >= 0x20 && field[i] < 0x7f ? field[i] : '?';
	out[i] = '\0';
}

/* Within a day from now as hh:mm:ss, later with its date. */
static void
fmt_time(int64_t t, time_t now, char *buf, size_t bufsz)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (localtime_r(&tt, &tm) == NULL || strftime(buf, bufsz,
	    t - (int64_t)now < 86400 ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &tm) == 0)
		(void)strlcpy(buf, "-", bufsz);
}

/* 30s, 2m, 1m30s, 1h, 1h5m: as sandcastle.conf(5) writes durations. */
static void
fmt_duration(uint32_t s, char *buf, size_t bufsz)
{
	uint32_t	 h = s / 3600, m = s % 3600 / 60, sec = s % 60;
	size_t		 n = 0;

	buf[0] = '\0';
	if (h > 0)
		n += snprintf(buf + n, bufsz - n, "%uh", h);
	if (m > 0 && n < bufsz)
		n += snprintf(buf + n, bufsz - n, "%um", m);
	if ((sec > 0 || s == 0) && n < bufsz)
		(void)snprintf(buf + n, bufsz - n, "%us", sec);
}

static void
fmt_resting(const struct ctl_source *v, time_t now, char *buf, size_t bufsz)
{
	char	 t[32], one[64];
	int	 c;

	buf[0] = '\0';
	for (c = 0; c < CAP_COUNT; c++) {
		if ((v->caps & CAP_BIT(c)) == 0 || v->rest[c] <= now)
			continue;
		fmt_time(v->rest[c], now, t, sizeof(t));
		(void)snprintf(one, sizeof(one), "%s%s until %s",
		    buf[0] != '\0' ? ", " : "", cap_name(c), t);
		(void)strlcat(buf, one, bufsz);
	}
	if (buf[0] == '\0')
		(void)strlcpy(buf, "-", bufsz);
}

static void
print_table(const struct srclist *sl, time_t now)
{
	const struct ctl_source	*v;
	char			 name[CTL_NAME_MAX], error[CTL_ERROR_MAX];
	char			 next[32], backoff[32], jobs[32], rest[160];
	size_t			 i;

	printf("%-16s %-9s %-9s %-9s %-22s %s\n", "SOURCE", "NEXT POLL",
	    "BACK-OFF", "JOBS/HOUR", "RESTING", "LAST ERROR");
	for (i = 0; i < sl->n; i++) {
		v = &sl->v[i];
		text_of(v->name, sizeof(v->name), name);
		text_of(v->error, sizeof(v->error), error);
		if (v->next <= now)
			(void)strlcpy(next, "now", sizeof(next));
		else
			fmt_time(v->next, now, next, sizeof(next));
		if (v->backoff == 0)
			(void)strlcpy(backoff, "none", sizeof(backoff));
		else
			fmt_duration(v->backoff, backoff, sizeof(backoff));
		(void)snprintf(jobs, sizeof(jobs), "%u/%u", v->jobs_hour,
		    v->max_jobs);
		fmt_resting(v, now, rest, sizeof(rest));
		printf("%-16s %-9s %-9s %-9s %-22s %s\n", name, next, backoff,
		    jobs, rest, error[0] != '\0' ? error : "-");
	}
}

static void
json_time(struct json_writer *w, int64_t t)
{
	char	 buf[32];

	if (t != 0 && records_time((time_t)t, buf, sizeof(buf)) == 0)
		json_write_string(w, buf);
	else
		json_write_null(w);
}

static void
json_resting(struct json_writer *w, const struct ctl_source *v, time_t now)
{
	int	 c;

	json_write_array(w);
	for (c = 0; c < CAP_COUNT; c++) {
		if ((v->caps & CAP_BIT(c)) == 0 || v->rest[c] <= now)
			continue;
		json_write_object(w);
		json_write_key(w, "capability");
		json_write_string(w, cap_name(c));
		json_write_key(w, "until");
		json_time(w, v->rest[c]);
		json_write_close(w);
	}
	json_write_close(w);
}

static void
json_source(struct json_writer *w, const struct ctl_source *v, time_t now)
{
	char	 name[CTL_NAME_MAX], error[CTL_ERROR_MAX];

	text_of(v->name, sizeof(v->name), name);
	text_of(v->error, sizeof(v->error), error);
	json_write_object(w);
	json_write_key(w, "source");
	json_write_string(w, name);
	json_write_key(w, "next_poll");
	if (v->next <= now)
		json_write_string(w, "now");
	else
		json_time(w, v->next);
	json_write_key(w, "backoff_seconds");
	json_write_uint(w, v->backoff);
	json_write_key(w, "failures");
	json_write_uint(w, v->failures);
	json_write_key(w, "jobs_last_hour");
	json_write_uint(w, v->jobs_hour);
	json_write_key(w, "max_jobs_per_hour");
	json_write_uint(w, v->max_jobs);
	json_write_key(w, "resting");
	json_resting(w, v, now);
	json_write_key(w, "last_error");
	if (error[0] != '\0')
		json_write_string(w, error);
	else
		json_write_null(w);
	json_write_key(w, "last_error_at");
	json_time(w, error[0] != '\0' ? v->error_at : 0);
	json_write_key(w, "as_of");
	json_time(w, v->at);
	json_write_close(w);
}

static void
print_json(const struct srclist *sl, time_t now)
{
	struct json_writer	 w;
	char			*s;
	size_t			 i, len;

	json_writer_init(&w);
	json_write_array(&w);
	for (i = 0; i < sl->n; i++)
		json_source(&w, &sl->v[i], now);
	json_write_close(&w);
	if ((s = json_writer_finish(&w, &len)) == NULL)
		errx(1, "out of memory");
	printf("%s\n", s);
	free(s);
	json_writer_free(&w);
}

static void
add_source(struct srclist *sl, const struct msg *m)
{
	struct ctl_source	*v;

	if ((v = reallocarray(sl->v, sl->n + 1, sizeof(*v))) == NULL)
		errx(1, "out of memory");
	sl->v = v;
	memcpy(&sl->v[sl->n++], m->data, sizeof(*v));
}

int
ctl_show_sources(int json)
{
	struct show_conn	 sc;
	struct srclist		 sl = { NULL, 0 };
	struct msg		 m;

	show_open(&sc);
	show_send(&sc, CTL_SHOW_SOURCES, NULL, 0);
	for (;;) {
		show_get(&sc, &m);
		if (m.type == CTL_END)
			break;
		if (m.type != CTL_SOURCE)
			errx(1, "%s: sandcastled answered out of turn", sc.path);
		add_source(&sl, &m);
		msg_free(&m);
	}
	msg_free(&m);
	show_close(&sc);
	if (json)
		print_json(&sl, time(NULL));
	else
		print_table(&sl, time(NULL));
	free(sl.v);
	return 0;
}
