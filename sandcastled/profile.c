/* The box's seccomp profile, in a sealed memfd: podman's default with no
 * namespace and no shared memory (sandcastle-box(8), LOCKS). */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "profile.h"

#define PROFILE_MAX	(1024 * 1024)

/* clone's namespace flags; CLONE_NEWTIME is clone3's and unshare's alone. */
static const unsigned long profile_clone_ns[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET
};

/* Taken out of podman's rules, every one of them, and written below. */
static const char *const profile_taken[] = {
	"clone", "clone3", "unshare", "setns", "mmap", "mmap2", "shmget",
	"msgget", "semget", "mq_open", "memfd_create", "memfd_secret", "ipc"
};

static const char *const profile_eperm[] = {
	"unshare", "setns", "shmget", "msgget", "semget", "mq_open",
	"memfd_create", "memfd_secret", "ipc"
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static int
profile_is_taken(const struct json *j, size_t tok)
{
	size_t	 i;

	for (i = 0; i < NELEM(profile_taken); i++)
		if (json_streq(j, tok, profile_taken[i]))
			return 1;
	return 0;
}

static size_t
profile_names(struct json_writer *w, const struct json *j, size_t names)
{
	const char	*raw;
	size_t		 n, t, len, left = 0;

	json_write_array(w);
	for (n = 0, t = names + 1; n < j->toks[names].size;
	    n++, t = json_next(j, t)) {
		if (j->toks[t].type != JSON_STRING || profile_is_taken(j, t))
			continue;
		raw = json_raw(j, t, &len);
		json_write_raw(w, raw, len);
		left++;
	}
	json_write_close(w);
	return left;
}

static void
profile_rule(struct json_writer *out, const struct json *j, size_t rule)
{
	struct json_writer	 w;
	const char		*raw;
	char			 key[64], *s;
	size_t			 n, k, len, left = 1;

	json_writer_init(&w);
	json_write_object(&w);
	for (n = 0, k = rule + 1; n < j->toks[rule].size;
	    n++, k = json_next(j, k + 1)) {
		(void)json_string_copy(j, k, key, sizeof(key), &len);
		json_write_key(&w, key);
		if (strcmp(key, "names") == 0 &&
		    j->toks[k + 1].type == JSON_ARRAY)
			left = profile_names(&w, j, k + 1);
		else {
			raw = json_raw(j, k + 1, &len);
			json_write_raw(&w, raw, len);
		}
	}
	json_write_close(&w);
	if ((s = json_writer_finish(&w, &len)) == NULL) {
		out->failed = 1;
		return;
	}
	if (left > 0)
		json_write_raw(out, s, len);
	free(s);
}

static void
profile_arg(struct json_writer *w, unsigned int index, unsigned long mask,
    unsigned long value)
{
	json_write_key(w, "args");
	json_write_array(w);
	json_write_object(w);
	json_write_key(w, "index");
	json_write_uint(w, index);
	json_write_key(w, "value");
	json_write_uint(w, mask);
	json_write_key(w, "valueTwo");
	json_write_uint(w, value);
	json_write_key(w, "op");
	json_write_string(w, "SCMP_CMP_MASKED_EQ");
	json_write_close(w);
	json_write_close(w);
}

static void
profile_ours(struct json_writer *w, const char *const *names, size_t n,
    int errnum, unsigned int index, unsigned long mask, unsigned long value)
{
	size_t	 i;

	json_write_object(w);
	json_write_key(w, "names");
	json_write_array(w);
	for (i = 0; i < n; i++)
		json_write_string(w, names[i]);
	json_write_close(w);
	json_write_key(w, "action");
	json_write_string(w, errnum == 0 ? "SCMP_ACT_ALLOW" : "SCMP_ACT_ERRNO");
	if (errnum != 0) {
		json_write_key(w, "errnoRet");
		json_write_uint(w, errnum);
	}
	if (mask != 0)
		profile_arg(w, index, mask, value);
	json_write_close(w);
}

static void
profile_rules_ours(struct json_writer *w)
{
	static const char *const clone[] = { "clone" }, *const clone3[] = {
	    "clone3" }, *const mmap[] = { "mmap", "mmap2" };
	unsigned long	 ns = 0;
	size_t		 i;

	for (i = 0; i < NELEM(profile_clone_ns); i++) {
		ns |= profile_clone_ns[i];
		profile_ours(w, clone, 1, EPERM, 0, profile_clone_ns[i],
		    profile_clone_ns[i]);
	}
	profile_ours(w, clone, 1, 0, 0, ns, 0);
	profile_ours(w, clone3, 1, ENOSYS, 0, 0, 0);
	profile_ours(w, profile_eperm, NELEM(profile_eperm), EPERM, 0, 0, 0);
	/* MAP_SHARED_VALIDATE has MAP_SHARED's bit too. */
	profile_ours(w, mmap, 2, 0, 3, MAP_SHARED, 0);
	profile_ours(w, mmap, 2, EPERM, 3, MAP_SHARED, MAP_SHARED);
}

char *
box_profile_text(const char *podman, size_t plen, size_t *len,
    char *why, size_t whysz)
{
	struct json_writer	 w;
	struct json		 j;
	const char		*jwhy, *raw;
	char			 key[64], *s;
	size_t			 n, k, r, rn, rlen;
	long			 sys;

	if (json_parse(&j, podman, plen, &jwhy) == -1) {
		(void)snprintf(why, whysz, "%s at byte %zu", jwhy, j.erroff);
		return NULL;
	}
	if (j.toks[0].type != JSON_OBJECT ||
	    (sys = json_find(&j, 0, "syscalls")) == -1 ||
	    j.toks[sys].type != JSON_ARRAY) {
		json_free(&j);
		(void)snprintf(why, whysz, "no list of syscalls in it");
		return NULL;
	}
	json_writer_init(&w);
	json_write_object(&w);
	for (n = 0, k = 1; n < j.toks[0].size; n++, k = json_next(&j, k + 1)) {
		(void)json_string_copy(&j, k, key, sizeof(key), &rlen);
		json_write_key(&w, key);
		if ((long)k + 1 != sys) {
			raw = json_raw(&j, k + 1, &rlen);
			json_write_raw(&w, raw, rlen);
			continue;
		}
		json_write_array(&w);
		for (rn = 0, r = sys + 1; rn < j.toks[sys].size;
		    rn++, r = json_next(&j, r))
			if (j.toks[r].type == JSON_OBJECT)
				profile_rule(&w, &j, r);
		profile_rules_ours(&w);
		json_write_close(&w);
	}
	json_write_close(&w);
	json_free(&j);
	if ((s = json_writer_finish(&w, len)) == NULL)
		(void)snprintf(why, whysz, "out of memory");
	return s;
}

static char *
profile_read(const char *path, size_t *len, char *why, size_t whysz)
{
	struct stat	 st;
	char		*buf = NULL;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		(void)snprintf(why, whysz, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > PROFILE_MAX) {
		(void)snprintf(why, whysz, "%s: not a file of 1 byte to 1 MiB",
		    path);
		goto out;
	}
	if ((buf = malloc(st.st_size)) == NULL ||
	    (n = read(fd, buf, st.st_size)) != st.st_size) {
		(void)snprintf(why, whysz, "%s: cannot be read", path);
		free(buf);
		buf = NULL;
		goto out;
	}
	*len = st.st_size;
out:
	if (fd != -1)
		close(fd);
	return buf;
}

static int
profile_memfd(const char *text, size_t len)
{
	int	 fd, hi;

	if ((fd = memfd_create("sandcastle-box-seccomp", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1)
		return -1;
	if (write(fd, text, len) != (ssize_t)len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
	    F_SEAL_SEAL) == -1 ||
	    (hi = fcntl(fd, F_DUPFD_CLOEXEC, BOX_PROFILE_FD + 1)) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	return hi;
}

int
box_profile(char *why, size_t whysz)
{
	char	 pwhy[256], *podman, *ours;
	size_t	 plen, len;
	int	 fd;

	if ((podman = profile_read(BOX_PODMAN_PROFILE, &plen, pwhy,
	    sizeof(pwhy))) == NULL) {
		(void)snprintf(why, whysz, "podman's seccomp profile: %s: "
		    "install golang-github-containers-common", pwhy);
		return -1;
	}
	ours = box_profile_text(podman, plen, &len, pwhy, sizeof(pwhy));
	free(podman);
	if (ours == NULL) {
		(void)snprintf(why, whysz, "%s: %s", BOX_PODMAN_PROFILE, pwhy);
		return -1;
	}
	fd = profile_memfd(ours, len);
	free(ours);
	if (fd == -1)
		(void)snprintf(why, whysz, "the box's seccomp profile: %s",
		    strerror(errno));
	return fd;
}
