/*
 * A1: the rules of a secret's file (sandcastlectl(8), SECRETS): each one is
 * refused with its own reason, beside a good file that is read, and no
 * reason ever holds a byte of the content.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secrets.h"

#ifdef __SANITIZE_ADDRESS__
#endif

#define CANARY	"SCTEST-CANARY-5e1f"

static int	folder(void);
static void	put(int, const char *, const void *, size_t, mode_t);
static void	refused(int, const char *, const char *);
static void	usable(int, const char *, const char *);
static int	tmp_files(int);

/* A secrets folder of the test's own, 0700. */
static int
folder(void)
{
	int	fd;

	ATF_REQUIRE(mkdir("secrets", 0700) == 0);
	ATF_REQUIRE(chmod("secrets", 0700) == 0);
	ATF_REQUIRE((fd = open("secrets", O_RDONLY | O_DIRECTORY)) != -1);
	return fd;
}

static void
put(int dirfd, const char *name, const void *data, size_t len, mode_t mode)
{
	int	fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ATF_REQUIRE(fd != -1);
	ATF_REQUIRE(write(fd, data, len) == (ssize_t)len);
	ATF_REQUIRE(fchmod(fd, mode) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static void
refused(int dirfd, const char *name, const char *reason)
{
	struct secret	s;
	char		why[256];

	ATF_REQUIRE_MSG(secret_read(dirfd, name, &s, why, sizeof(why)) == -1,
	    "%s was read", name);
	ATF_CHECK_STREQ_MSG(why, reason, "%s", name);
	ATF_CHECK_MSG(strstr(why, "CANARY") == NULL, "%s: the reason holds "
	    "the content", name);
	ATF_CHECK(s.value == NULL);
}

static void
usable(int dirfd, const char *name, const char *value)
{
	struct secret	s;
	char		why[256] = "";

	ATF_REQUIRE_MSG(secret_read(dirfd, name, &s, why, sizeof(why)) == 0,
	    "%s: %s", name, why);
	ATF_CHECK_EQ(s.len, strlen(value));
	ATF_CHECK_STREQ(s.value, value);
	secret_free(&s);
	ATF_CHECK(s.value == NULL);
}

/* What check tells "missing" by. */
ATF_TC_WITHOUT_HEAD(missing);
ATF_TC_BODY(missing, tc)
{
	struct secret	s;
	char		why[256];
	int		d = folder(), r;

	r = secret_read(d, "none", &s, why, sizeof(why));
	ATF_CHECK_EQ(errno, ENOENT);
	ATF_CHECK_EQ(r, -1);
	ATF_CHECK_STREQ(why, "is not set");
	put(d, "none", "v", 1, 0600);
	usable(d, "none", "v");
}

static int
tmp_files(int dirfd)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	ATF_REQUIRE((d = fdopendir(dup(dirfd))) != NULL);
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		n += strncmp(de->d_name, ".tmp-", 5) == 0;
	closedir(d);
	return n;
}

ATF_TC_WITHOUT_HEAD(symlink);
ATF_TC_BODY(symlink, tc)
{
	int	d = folder();

	put(d, "good", CANARY, strlen(CANARY), 0600);
	ATF_REQUIRE(symlinkat("good", d, "link") == 0);
	refused(d, "link", "is a symbolic link");
	usable(d, "good", CANARY);
}

ATF_TC_WITHOUT_HEAD(not_regular);
ATF_TC_BODY(not_regular, tc)
{
	int	d = folder();

	put(d, "good", CANARY, strlen(CANARY), 0600);
	/* A FIFO would hang a blocking open: the refusal proves it did not. */
	ATF_REQUIRE(mkfifoat(d, "fifo", 0600) == 0);
	ATF_REQUIRE(mkdirat(d, "dir", 0700) == 0);
	refused(d, "fifo", "is not a regular file");
	refused(d, "dir", "is not a regular file");
	refused(d, "none", "is not set");
	usable(d, "good", CANARY);
}

ATF_TC(not_yours);
ATF_TC_HEAD(not_yours, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(not_yours, tc)
{
	int	d = folder();

	put(d, "good", CANARY, strlen(CANARY), 0600);
	put(d, "other", CANARY, strlen(CANARY), 0600);
	ATF_REQUIRE(fchownat(d, "other", 65534, 65534, 0) == 0);
	refused(d, "other", "is not yours (owner uid 65534)");
	usable(d, "good", CANARY);
}

ATF_TC_WITHOUT_HEAD(access);
ATF_TC_BODY(access, tc)
{
	int	d = folder();

	put(d, "group", CANARY, strlen(CANARY), 0640);
	put(d, "others", CANARY, strlen(CANARY), 0604);
	put(d, "exec", CANARY, strlen(CANARY), 0610);
	put(d, "good", CANARY, strlen(CANARY), 0600);
	put(d, "readonly", CANARY, strlen(CANARY), 0400);
	refused(d, "group", "group or others have access (mode 0640)");
	refused(d, "others", "group or others have access (mode 0604)");
	refused(d, "exec", "group or others have access (mode 0610)");
	usable(d, "good", CANARY);
	usable(d, "readonly", CANARY);
}

ATF_TC_WITHOUT_HEAD(empty);
ATF_TC_BODY(empty, tc)
{
	int	d = folder();

	put(d, "empty", "", 0, 0600);
	put(d, "newline", "\n", 1, 0600);
	put(d, "good", "x\n", 2, 0600);
	refused(d, "empty", "is empty");
	refused(d, "newline", "is empty");
	usable(d, "good", "x");
}

ATF_TC_WITHOUT_HEAD(size);
ATF_TC_BODY(size, tc)
{
	char	buf[SECRET_MAX + 2];
	int	d = folder();

	memset(buf, 'a', sizeof(buf));
	memcpy(buf, CANARY, strlen(CANARY));
	put(d, "over", buf, SECRET_MAX + 1, 0600);
	put(d, "over2", buf, SECRET_MAX + 2, 0600);
	put(d, "exact", buf, SECRET_MAX, 0600);
	buf[SECRET_MAX] = '\n';
	put(d, "exactnl", buf, SECRET_MAX + 1, 0600);
	refused(d, "over", "is larger than 16 KiB");
	refused(d, "over2", "is larger than 16 KiB");
	buf[SECRET_MAX] = '\0';
	usable(d, "exact", buf);
	usable(d, "exactnl", buf);
}

ATF_TC_WITHOUT_HEAD(line_break);
ATF_TC_BODY(line_break, tc)
{
	int	d = folder();

	put(d, "middle", CANARY "\n" CANARY, strlen(CANARY) * 2 + 1, 0600);
	put(d, "two", CANARY "\n\n", strlen(CANARY) + 2, 0600);
	put(d, "first", "\n" CANARY, strlen(CANARY) + 1, 0600);
	put(d, "final", CANARY "\n", strlen(CANARY) + 1, 0600);
	refused(d, "middle", "holds a line break before its end");
	refused(d, "two", "holds a line break before its end");
	refused(d, "first", "holds a line break before its end");
	/* Control: the one final line break is allowed, and stripped. */
	usable(d, "final", CANARY);
}

ATF_TC_WITHOUT_HEAD(control_chars);
ATF_TC_BODY(control_chars, tc)
{
	int	d = folder();

	put(d, "cr", CANARY "\r", strlen(CANARY) + 1, 0600);
	put(d, "crlf", CANARY "\r\n", strlen(CANARY) + 2, 0600);
	put(d, "tab", "a\t" CANARY, strlen(CANARY) + 2, 0600);
	put(d, "del", CANARY "\x7f", strlen(CANARY) + 1, 0600);
	put(d, "nul", CANARY "\0x", strlen(CANARY) + 2, 0600);
	put(d, "esc", "\x1b[0m" CANARY, strlen(CANARY) + 4, 0600);
	put(d, "good", " ~" CANARY "\xc3\xa9", strlen(CANARY) + 4, 0600);
	refused(d, "cr", "holds a control character");
	refused(d, "crlf", "holds a control character");
	refused(d, "tab", "holds a control character");
	refused(d, "del", "holds a control character");
	refused(d, "nul", "holds a control character");
	refused(d, "esc", "holds a control character");
	usable(d, "good", " ~" CANARY "\xc3\xa9");
}

ATF_TC_WITHOUT_HEAD(check_value);
ATF_TC_BODY(check_value, tc)
{
	const char	*why = NULL;

	ATF_CHECK(secret_check_value("abc", 3, &why) == 0);
	ATF_CHECK(secret_check_value("", 0, &why) == -1);
	ATF_CHECK_STREQ(why, "is empty");
	ATF_CHECK(secret_check_value("a\nb", 3, &why) == -1);
	ATF_CHECK_STREQ(why, "holds a line break before its end");
	ATF_CHECK(secret_check_value("a\rb", 3, &why) == -1);
	ATF_CHECK_STREQ(why, "holds a control character");
}

ATF_TC_WITHOUT_HEAD(write_read);
ATF_TC_BODY(write_read, tc)
{
	struct stat	st;
	char		why[256] = "";
	int		d = folder();

	umask(0);
	ATF_REQUIRE_MSG(secret_write(d, "notes", "one", 3, why,
	    sizeof(why)) == 0, "%s", why);
	ATF_REQUIRE(fstatat(d, "notes", &st, AT_SYMLINK_NOFOLLOW) == 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0600);
	ATF_CHECK(S_ISREG(st.st_mode));
	usable(d, "notes", "one");
	ATF_REQUIRE(secret_write(d, "notes", "two", 3, why, sizeof(why)) == 0);
	usable(d, "notes", "two");
	ATF_CHECK_EQ(tmp_files(d), 0);
}

ATF_TC_WITHOUT_HEAD(write_refused);
ATF_TC_BODY(write_refused, tc)
{
	char	why[256];
	int	d = folder();

	ATF_REQUIRE(secret_write(d, "notes", "old", 3, why, sizeof(why)) == 0);
	ATF_CHECK(secret_write(d, "notes", CANARY "\n" CANARY,
	    strlen(CANARY) * 2 + 1, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "holds a line break before its end");
	ATF_CHECK(secret_write(d, "notes", CANARY "\r", strlen(CANARY) + 1,
	    why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "holds a control character");
	ATF_CHECK(secret_write(d, "notes", "", 0, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "is empty");
	ATF_CHECK(strstr(why, "CANARY") == NULL);
	usable(d, "notes", "old");
	ATF_CHECK_EQ(tmp_files(d), 0);
}

/* The rename fails (a folder holds the name): no temporary file stays. */
ATF_TC_WITHOUT_HEAD(write_fails_clean);
ATF_TC_BODY(write_fails_clean, tc)
{
	struct stat	st;
	char		why[256];
	int		d = folder();

	ATF_REQUIRE(mkdirat(d, "taken", 0700) == 0);
	ATF_REQUIRE(mkdirat(d, "taken/x", 0700) == 0);
	ATF_CHECK(secret_write(d, "taken", "v", 1, why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strncmp(why, "cannot be written: ", 19) == 0, "%s", why);
	ATF_CHECK_EQ(tmp_files(d), 0);
	ATF_REQUIRE(fstatat(d, "taken/x", &st, 0) == 0);
	/* Control: the same write under a free name works. */
	ATF_CHECK(secret_write(d, "free", "v", 1, why, sizeof(why)) == 0);
	ATF_CHECK_EQ(tmp_files(d), 0);
}

ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	static const char *const bad[] = {
		"Upper", "a.b", "a/b", "-a", "_a", ".tmp-x", "", "a b",
		"../x"
	};
	struct secret	s;
	char		n64[66], why[256];
	size_t		i;
	int		d = folder();

	memset(n64, 'a', 64);
	n64[64] = '\0';
	ATF_CHECK(secret_write(d, n64, "v", 1, why, sizeof(why)) == 0);
	usable(d, n64, "v");
	ATF_CHECK(secret_write(d, "a-b_9", "v", 1, why, sizeof(why)) == 0);
	ATF_CHECK(secret_write(d, "9a", "v", 1, why, sizeof(why)) == 0);
	n64[64] = 'a';
	n64[65] = '\0';
	ATF_CHECK(secret_write(d, n64, "v", 1, why, sizeof(why)) == -1);
	ATF_CHECK(secret_read(d, n64, &s, why, sizeof(why)) == -1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ATF_CHECK_MSG(secret_write(d, bad[i], "v", 1, why,
		    sizeof(why)) == -1, "'%s' was taken", bad[i]);
		ATF_CHECK_MSG(secret_name_check(bad[i], why, sizeof(why)) == -1,
		    "'%s' was taken", bad[i]);
	}
	ATF_CHECK(secret_name_check("a-b_9", why, sizeof(why)) == 0);
}

ATF_TC_WITHOUT_HEAD(remove);
ATF_TC_BODY(remove, tc)
{
	struct stat	st;
	char		why[256];
	int		d = folder();

	ATF_REQUIRE(secret_write(d, "old", "v", 1, why, sizeof(why)) == 0);
	ATF_CHECK(secret_remove(d, "old", why, sizeof(why)) == 0);
	ATF_CHECK(fstatat(d, "old", &st, 0) == -1 && errno == ENOENT);
	ATF_CHECK(secret_remove(d, "old", why, sizeof(why)) == -1);
	ATF_CHECK_EQ(errno, ENOENT);
	ATF_CHECK_STREQ(why, "not set");
}

ATF_TC_WITHOUT_HEAD(dir_rules);
ATF_TC_BODY(dir_rules, tc)
{
	struct stat	st;
	char		why[512];
	int		fd;

	ATF_REQUIRE(mkdir("open", 0755) == 0 && chmod("open", 0755) == 0);
	ATF_CHECK(secrets_dir_open("open", 0, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "open: group or others have access "
	    "(mode 0755): chmod 700 open");
	ATF_REQUIRE(symlink("open", "link") == 0);
	ATF_CHECK(secrets_dir_open("link", 0, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "link: is a symbolic link");
	ATF_REQUIRE((fd = open("file", O_CREAT | O_WRONLY, 0600)) != -1);
	close(fd);
	ATF_CHECK(secrets_dir_open("file", 0, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "file: is not a folder");
	ATF_CHECK(secrets_dir_open("none", 0, why, sizeof(why)) == -1);
	ATF_CHECK_EQ(errno, ENOENT);
	/* Control: a 0700 folder of ours, and one made with its parents. */
	ATF_REQUIRE(chmod("open", 0700) == 0);
	ATF_CHECK((fd = secrets_dir_open("open", 0, why, sizeof(why))) != -1);
	close(fd);
	ATF_CHECK((fd = secrets_dir_open("a/b/secrets", 1, why,
	    sizeof(why))) != -1);
	close(fd);
	ATF_REQUIRE(stat("a/b/secrets", &st) == 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0700);
	ATF_REQUIRE(stat("a", &st) == 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0700);
}

ATF_TC(dir_not_yours);
ATF_TC_HEAD(dir_not_yours, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(dir_not_yours, tc)
{
	char	why[512];
	int	fd;

	ATF_REQUIRE(mkdir("other", 0700) == 0 && chmod("other", 0700) == 0);
	ATF_REQUIRE(chown("other", 65534, 65534) == 0);
	ATF_CHECK(secrets_dir_open("other", 0, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "other: is not yours (owner uid 65534)");
	ATF_REQUIRE(mkdir("mine", 0700) == 0 && chmod("mine", 0700) == 0);
	ATF_CHECK((fd = secrets_dir_open("mine", 0, why, sizeof(why))) != -1);
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, symlink);
	ATF_TP_ADD_TC(tp, not_regular);
	ATF_TP_ADD_TC(tp, missing);
	ATF_TP_ADD_TC(tp, not_yours);
	ATF_TP_ADD_TC(tp, access);
	ATF_TP_ADD_TC(tp, empty);
	ATF_TP_ADD_TC(tp, size);
	ATF_TP_ADD_TC(tp, line_break);
	ATF_TP_ADD_TC(tp, control_chars);
	ATF_TP_ADD_TC(tp, check_value);
	ATF_TP_ADD_TC(tp, write_read);
	ATF_TP_ADD_TC(tp, write_refused);
	ATF_TP_ADD_TC(tp, write_fails_clean);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, remove);
	ATF_TP_ADD_TC(tp, dir_rules);
	ATF_TP_ADD_TC(tp, dir_not_yours);
	return atf_no_error();
}
