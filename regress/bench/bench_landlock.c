/*
 * make bench: what the Landlock rulesets cost, with each process's real
 * ruleset function: putting it on, then the core's records of a job and
 * ocr's Tesseract with and without it, interleaved.  Not a test.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "landlock.h"
#include "records.h"
#include "../../sandcastled/lock.h"
#include "../../keepd/lock.h"
#include "../../box/box.h"
#include "../../box/ocr.h"
#include "../box/render.h"

#define TESSDATA	"/usr/share/tesseract-ocr/5/tessdata"
#define STARTS		200
#define JOBS		200
#define OCRS		5
#define NOW		1780000000

static int			 datafd = -1, secretsfd = -1;
static struct render_buf	 png;

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
core(void)
{
	return landlock_core(datafd, "data");
}

static int
keepd(void)
{
	return landlock_keepd(secretsfd, "secrets", "run");
}

/* The frame's three calls alone, no log line: the keep frontend's view. */
static int
bare(void)
{
	char	 why[256];

	return landlock_apply(LANDLOCK_KEEPFE, NULL, 0, why, sizeof(why));
}

static int
box(void)
{
	return box_landlock(NULL);
}

/* The box's order: Tesseract loaded (main, before any child), then no file. */
static struct tess	 tess;

/* ruleset(), its log line (the daemons') kept off the terminal. */
static int
quiet(int (*ruleset)(void))
{
	int	 null, saved, abi;

	if ((null = open("/dev/null", O_WRONLY)) == -1 ||
	    (saved = dup(STDERR_FILENO)) == -1 ||
	    dup2(null, STDERR_FILENO) == -1)
		_exit(1);
	abi = ruleset();
	if (dup2(saved, STDERR_FILENO) == -1)
		_exit(1);
	close(null);
	close(saved);
	return abi;
}

/* The child's seconds for work() under ruleset() (or none), sent on fd. */
static void
child(int fd, int (*ruleset)(void), double (*work)(void))
{
	double	 t;

	if (ruleset != NULL && quiet(ruleset) < 1)
		_exit(1);
	t = work();
	_exit(write(fd, &t, sizeof(t)) == sizeof(t) ? 0 : 1);
}

static double
in_child(int (*ruleset)(void), double (*work)(void))
{
	double	 t = -1;
	pid_t	 pid;
	int	 p[2], status;

	if (pipe(p) == -1 || (pid = fork()) == -1)
		exit(1);
	if (pid == 0) {
		close(p[0]);
		child(p[1], ruleset, work);
	}
	close(p[1]);
	if (read(p[0], &t, sizeof(t)) != sizeof(t))
		t = -1;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || t < 0) {
		fprintf(stderr, "bench: a child could not measure\n");
		exit(1);
	}
	return t;
}

static int	(*start_ruleset)(void);

static double
start_work(void)
{
	double	 t0;
	int	 null;

	/* The log line goes to /dev/null, opened before the clock starts. */
	if ((null = open("/dev/null", O_WRONLY)) == -1 ||
	    dup2(null, STDERR_FILENO) == -1)
		_exit(1);
	t0 = now();
	if (start_ruleset() < 1)
		_exit(1);
	return now() - t0;
}

static void
start_cost(const char *proc, int (*ruleset)(void))
{
	double	 sum = 0;
	int	 i;

	start_ruleset = ruleset;
	for (i = 0; i < STARTS; i++)
		sum += in_child(NULL, start_work);
	printf("bench:   %-22s %8.1f us\n", proc, sum / STARTS * 1e6);
}

static double
records_work(void)
{
	struct records_job	 j = { "notes", NULL, 1, CAP_CLAUDE, "{}", 2,
	    NOW - 60 };
	struct records_meta	 m;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX], id[16];
	double			 t0 = now();
	int			 i;

	memset(&o, 0, sizeof(o));
	o.status = JOB_SUCCEEDED;
	o.output = "{\"tag\":\"recipes\"}";
	o.box_started = 1;
	for (i = 0; i < JOBS; i++) {
		(void)snprintf(id, sizeof(id), "%d", i + 1);
		j.id = id;
		if (records_begin(datafd, &j, why, sizeof(why)) == -1 ||
		    records_finish(datafd, &j, &o, NOW, why, sizeof(why)) ==
		    -1 || records_result(datafd, "notes", id, RECORDS_SENT,
		    why, sizeof(why)) != 0 || records_read(datafd, "notes",
		    id, &m, why, sizeof(why)) == -1) {
			fprintf(stderr, "bench: records: %s\n", why);
			_exit(1);
		}
	}
	if (records_prune(datafd, 30, NOW + 40 * 86400, why, sizeof(why)) !=
	    JOBS)
		_exit(1);
	return (now() - t0) / JOBS;
}

static double
ocr_work(void)
{
	struct ocr_settings	 os;
	struct box_outcome	 o;
	double			 t0 = now();
	int			 i;

	memset(&os, 0, sizeof(os));
	os.langs.n = 1;
	(void)snprintf(os.langs.name[0], sizeof(os.langs.name[0]), "eng");
	os.max_pixels = 1000000;
	os.max_edge = 4000;
	for (i = 0; i < OCRS; i++) {
		memset(&o, 0, sizeof(o));
		ocr_read(&os, &tess, png.p, png.len, &o, NULL);
		if (o.failed || strstr(o.output, "HELLO WORLD") == NULL) {
			fprintf(stderr, "bench: ocr: %s\n", o.error);
			_exit(1);
		}
		box_outcome_free(&o);
	}
	return (now() - t0) / OCRS;
}

/* A job with the ruleset and without, interleaved, rounds times. */
static void
job_cost(const char *what, int (*ruleset)(void), double (*work)(void),
    int rounds, const char *unit, double scale)
{
	double	 with = 0, without = 0;
	int	 i;

	for (i = 0; i < rounds; i++) {
		without += in_child(NULL, work);
		with += in_child(ruleset, work);
	}
	printf("bench:   %-22s %8.1f %s without, %8.1f %s with (%+.1f%%)\n",
	    what, without / rounds * scale, unit, with / rounds * scale, unit,
	    (with - without) / without * 100);
}

static void
layout(void)
{
	if (mkdir("data", 0700) == -1 || mkdir("secrets", 0700) == -1 ||
	    mkdir("run", 0700) == -1 ||
	    (datafd = open("data", O_RDONLY | O_DIRECTORY)) == -1 ||
	    (secretsfd = open("secrets", O_RDONLY | O_DIRECTORY)) == -1) {
		perror("bench: the folders");
		exit(1);
	}
}

int
main(void)
{
	struct render		 r;
	struct tess_langs	 langs;
	const char		*why;
	int			 abi;

	if ((abi = landlock_abi(&why)) < 1) {
		fprintf(stderr, "bench: no Landlock here: %s\n", why);
		return 1;
	}
	/* Read once here, as each daemon has before: its rule's cost alone. */
	tzset();
	layout();
	r = render_text("HELLO WORLD");
	png = render_png(&r, 8);
	memset(&langs, 0, sizeof(langs));
	langs.n = 1;
	(void)strlcpy(langs.name[0], "eng", sizeof(langs.name[0]));
	if (tess_load(&tess, TESSDATA, &langs) == -1) {
		fprintf(stderr, "bench: Tesseract: %s\n", tess.why);
		return 1;
	}
	printf("bench: landlock ABI %d, each ruleset put on, %d starts (a "
	    "daemon's with its log line, its first):\n", abi, STARTS);
	start_cost("core", core);
	start_cost("keep frontend", landlock_keepfe);
	start_cost("keepd", keepd);
	start_cost("sandcastle-box", box);
	start_cost("the calls alone", bare);
	printf("bench: a job, without and with the ruleset:\n");
	job_cost("core's records", core, records_work, 10, "us", 1e6);
	job_cost("ocr's Tesseract", box, ocr_work, 3, "ms", 1e3);
	tess_free(&tess);
	free(png.p);
	free(r.pix);
	return 0;
}
