/*
 * atomicio.c: all of a buffer through the short counts and EINTR a
 * signal makes of a blocking write(2) and read(2), and the end of file
 * that read_all() names.  A reader that drains a small pipe slowly and a
 * 1 ms timer whose handler has no SA_RESTART make both happen; the
 * control is a plain write(2) under the same timer, which comes back
 * short.
 */

#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "atomicio.h"

#define BIG	(64 * 1024)

static volatile sig_atomic_t	ticks;

static void
on_tick(int sig)
{
	ticks++;
}

/* A 1 ms timer whose signal interrupts a blocked call. */
static void
timer_on(void)
{
	struct sigaction	sa;
	struct itimerval	it = { { 0, 1000 }, { 0, 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	ATF_REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

static void
timer_off(void)
{
	struct itimerval	it;

	memset(&it, 0, sizeof(it));
	ATF_REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

static unsigned char *
pattern(size_t len)
{
	unsigned char	*b;
	size_t		 i;

	ATF_REQUIRE((b = malloc(len)) != NULL);
	for (i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 7 + i / 251);
	return b;
}

/*
 * A child that reads the pipe 512 bytes at a time, 3 ms apart, so that a
 * writer blocked on the full pipe meets the 1 ms timer before room:
 * EINTR with nothing written, or a short count.  It exits 0 when it got
 * want bytes of the pattern.
 */
static pid_t
slow_reader(int p[2], size_t want)
{
	unsigned char	*b, buf[512];
	size_t		 got = 0;
	ssize_t		 n;
	pid_t		 pid;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid != 0) {
		close(p[0]);
		return pid;
	}
	close(p[1]);
	b = pattern(want);
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		if (got + (size_t)n > want || memcmp(b + got, buf, n) != 0)
			_exit(2);
		got += (size_t)n;
		usleep(3000);
	}
	_exit(got == want ? 0 : 1);
}

static void
reader_ok(pid_t pid)
{
	int	status;

	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the reader did not get every byte in order (status %d)", status);
}

ATF_TC_WITHOUT_HEAD(write_all_interrupted);
ATF_TC_BODY(write_all_interrupted, tc)
{
	unsigned char	*b = pattern(BIG);
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2];

	/* The control: under the timer, one write(2) comes back short. */
	ATF_REQUIRE(pipe(p) == 0);
	(void)fcntl(p[1], F_SETPIPE_SZ, 4096);
	pid = slow_reader(p, BIG);
	timer_on();
	while ((n = write(p[1], b, BIG)) == -1 && errno == EINTR)
		;
	timer_off();
	ATF_REQUIRE_MSG(n > 0 && n < BIG, "write(2) wrote %zd of %d", n, BIG);
	ATF_REQUIRE(write(p[1], b + n, BIG - n) == BIG - n);
	close(p[1]);
	reader_ok(pid);

	/* write_all() goes on through every short count and EINTR. */
	ATF_REQUIRE(pipe(p) == 0);
	(void)fcntl(p[1], F_SETPIPE_SZ, 4096);
	pid = slow_reader(p, BIG);
	ticks = 0;
	timer_on();
	ATF_REQUIRE(write_all(p[1], b, BIG) == 0);
	timer_off();
	ATF_REQUIRE_MSG(ticks > 0, "no signal came during the write");
	close(p[1]);
	reader_ok(pid);
	free(b);
}

ATF_TC_WITHOUT_HEAD(read_all_pieces);
ATF_TC_BODY(read_all_pieces, tc)
{
	unsigned char	*b = pattern(BIG), *got;
	pid_t		 pid;
	int		 p[2], status;
	size_t		 off;

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		/* In pieces of 1000 bytes, now and then after a pause. */
		close(p[0]);
		for (off = 0; off < BIG; off += 1000) {
			if (write_all(p[1], b + off, BIG - off < 1000 ?
			    BIG - off : 1000) == -1)
				_exit(1);
			if (off % 50000 == 0)
				usleep(1000);
		}
		_exit(0);
	}
	close(p[1]);
	ATF_REQUIRE((got = malloc(BIG)) != NULL);
	timer_on();
	ATF_REQUIRE(read_all(p[0], got, BIG) == 0);
	timer_off();
	ATF_REQUIRE(memcmp(got, b, BIG) == 0);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	close(p[0]);
	free(got);
	free(b);
}

ATF_TC_WITHOUT_HEAD(read_all_end);
ATF_TC_BODY(read_all_end, tc)
{
	char	buf[32];
	int	p[2];

	/* Ten bytes, then the end: asked for ten, all; for eleven, EPIPE. */
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE(write(p[1], "0123456789", 10) == 10);
	ATF_REQUIRE(write(p[1], "0123456789", 10) == 10);
	close(p[1]);
	ATF_REQUIRE(read_all(p[0], buf, 10) == 0);
	ATF_REQUIRE(memcmp(buf, "0123456789", 10) == 0);
	errno = 0;
	ATF_REQUIRE(read_all(p[0], buf, 11) == -1);
	ATF_REQUIRE_EQ(errno, EPIPE);
	close(p[0]);
}

ATF_TC_WITHOUT_HEAD(write_all_error);
ATF_TC_BODY(write_all_error, tc)
{
	int	p[2];

	/* A pipe with no reader: EPIPE, not a loop. */
	signal(SIGPIPE, SIG_IGN);
	ATF_REQUIRE(pipe(p) == 0);
	close(p[0]);
	errno = 0;
	ATF_REQUIRE(write_all(p[1], "x", 1) == -1);
	ATF_REQUIRE_EQ(errno, EPIPE);
	close(p[1]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, write_all_interrupted);
	ATF_TP_ADD_TC(tp, read_all_pieces);
	ATF_TP_ADD_TC(tp, read_all_end);
	ATF_TP_ADD_TC(tp, write_all_error);
	return atf_no_error();
}
