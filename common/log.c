/* Daemon logging, each line vis(3)-escaped: no outside name forges a line. */

/* Use the OpenBSD argument order of strnvis(3) and silence libbsd's warning. */
#define LIBBSD_OPENBSD_VIS

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <vis.h>

#include "atomicio.h"
#include "log.h"

#define LOG_MAXMSG	1024		/* formatted, before escaping */
/* vis(3) writes at most 4 bytes for each byte. */
#define LOG_MAXVIS	(4 * LOG_MAXMSG + 1)
#define LOG_MAXLINE	(64 + 64 + LOG_MAXVIS + 8)
#define LOG_VISFLAGS	(VIS_CSTYLE | VIS_OCTAL | VIS_NL | VIS_TAB)

static char	log_ident[64];
static char	log_proc[64];
static int	log_foreground = 1;
static int	log_verbosity;

static void	log_vemit(int, int, const char *, va_list)
		    __attribute__((format(printf, 3, 0)));
static void	log_stderr(const char *);
static void	log_write(int, const char *);

void
log_init(const char *procname, int foreground, int verbose)
{
	int	 saved = errno;

	strlcpy(log_ident, procname, sizeof(log_ident));
	log_proc[0] = '\0';
	log_foreground = foreground;
	log_verbosity = verbose;
	if (!foreground)
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	errno = saved;
}

void
log_procname(const char *procname)
{
	if (strcmp(procname, log_ident) == 0)
		log_proc[0] = '\0';
	else
		strlcpy(log_proc, procname, sizeof(log_proc));
}

int
log_verbose(void)
{
	return log_verbosity;
}

/* errnum: the errno to append, or -1.  errno survives for the code after. */
static void
log_vemit(int pri, int errnum, const char *fmt, va_list ap)
{
	char	 msg[LOG_MAXMSG], vis[LOG_MAXVIS];
	size_t	 len;
	int	 saved = errno;

	if (pri == LOG_DEBUG && log_verbosity <= 0)
		return;
	msg[0] = '\0';
	if (fmt != NULL)
		vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum != -1) {
		len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, "%s%s",
		    len > 0 ? ": " : "", strerror(errnum));
	}
	strnvis(vis, msg, sizeof(vis), LOG_VISFLAGS);
	log_write(pri, vis);
	errno = saved;
}

static void
log_write(int pri, const char *text)
{
	const char	*sep = log_proc[0] != '\0' ? ": " : "";

	if (log_foreground)
		log_stderr(text);
	else
		syslog(pri, "%s%s%s", log_proc, sep, text);
}

/* One write(2) a line, so that the lines of several processes do not mix. */
static void
log_stderr(const char *text)
{
	char		 line[LOG_MAXLINE];
	const char	*ident = log_ident[0] != '\0' ? log_ident :
			    getprogname();
	const char	*sep = log_proc[0] != '\0' ? ": " : "";
	size_t		 len;
	int		 r;

	r = snprintf(line, sizeof(line), "%s: %s%s%s\n", ident, log_proc, sep,
	    text);
	if (r < 0)
		return;
	len = (size_t)r < sizeof(line) ? (size_t)r : sizeof(line) - 1;
	(void)write_all(STDERR_FILENO, line, len);
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	log_vemit(pri, -1, fmt, ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit(LOG_ERR, errno, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit(LOG_ERR, -1, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit(LOG_INFO, -1, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit(LOG_DEBUG, -1, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit(LOG_CRIT, errno, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit(LOG_CRIT, -1, fmt, ap);
	va_end(ap);
	exit(1);
}

int
failwhy(char *why, size_t whysz, const char *fmt, ...)
{
	va_list	 ap;

	if (why != NULL && whysz > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(why, whysz, fmt, ap);
		va_end(ap);
	}
	return -1;
}
