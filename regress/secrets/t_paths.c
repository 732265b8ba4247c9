/*
 * Where sandcastle's folders are, and the rules of a private folder.  A
 * path that does not fit is refused, never cut.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"

#ifdef __SANITIZE_ADDRESS__
#endif

ATF_TC_WITHOUT_HEAD(defaults);
ATF_TC_BODY(defaults, tc)
{
	char	buf[256];

	ATF_REQUIRE(setenv("HOME", "/h/op", 1) == 0);
	ATF_REQUIRE(unsetenv("SANDCASTLE_CONFIG") == 0);
	ATF_CHECK(path_config_dir(NULL, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/h/op/.config/sandcastle");
	ATF_CHECK(path_secrets_dir(NULL, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/h/op/.local/share/sandcastle/secrets");
	ATF_CHECK(path_state_dir(buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/h/op/.local/state/sandcastle");
	ATF_REQUIRE(setenv("SANDCASTLE_CONFIG", "/etc/sc", 1) == 0);
	ATF_CHECK(path_config_dir(NULL, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/etc/sc");
	/* The flag wins over the environment. */
	ATF_CHECK(path_config_dir("/flag", buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/flag");
	ATF_CHECK(path_secrets_dir("~/s", buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/h/op/s");
}

ATF_TC_WITHOUT_HEAD(home_from_passwd);
ATF_TC_BODY(home_from_passwd, tc)
{
	struct passwd	*pw;
	char		 buf[512], want[512];

	ATF_REQUIRE((pw = getpwuid(geteuid())) != NULL);
	ATF_REQUIRE(unsetenv("HOME") == 0);
	snprintf(want, sizeof(want), "%s/.config/sandcastle", pw->pw_dir);
	ATF_REQUIRE(unsetenv("SANDCASTLE_CONFIG") == 0);
	ATF_CHECK(path_config_dir(NULL, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, want);
	ATF_REQUIRE(setenv("HOME", "", 1) == 0);
	ATF_CHECK(path_config_dir(NULL, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, want);
}

ATF_TC_WITHOUT_HEAD(expand_home);
ATF_TC_BODY(expand_home, tc)
{
	char	buf[64];

	ATF_REQUIRE(setenv("HOME", "/h", 1) == 0);
	ATF_CHECK(path_expand_home("~", buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/h");
	ATF_CHECK(path_expand_home("~/a/b", buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/h/a/b");
	ATF_CHECK(path_expand_home("~other/a", buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "~other/a");
	ATF_CHECK(path_expand_home("/abs/~", buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/abs/~");
}

ATF_TC_WITHOUT_HEAD(runtime);
ATF_TC_BODY(runtime, tc)
{
	char	buf[128];

	ATF_REQUIRE(unsetenv("XDG_RUNTIME_DIR") == 0);
	ATF_CHECK(path_runtime_dir(buf, sizeof(buf)) == -1);
	ATF_CHECK_EQ(errno, ENOENT);
	ATF_CHECK_STREQ(path_why(), "XDG_RUNTIME_DIR is not set");
	ATF_CHECK(path_runtime_file(CONTROL_SOCK, buf, sizeof(buf)) == -1);
	ATF_CHECK_STREQ(path_why(), "XDG_RUNTIME_DIR is not set");
	ATF_REQUIRE(setenv("XDG_RUNTIME_DIR", "", 1) == 0);
	ATF_CHECK(path_runtime_dir(buf, sizeof(buf)) == -1);
	ATF_REQUIRE(setenv("XDG_RUNTIME_DIR", "/run/user/7", 1) == 0);
	ATF_CHECK(path_runtime_dir(buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/run/user/7/sandcastle");
	ATF_CHECK(path_runtime_file(CONTROL_SOCK, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/run/user/7/sandcastle/control.sock");
}

ATF_TC_WITHOUT_HEAD(truncation);
ATF_TC_BODY(truncation, tc)
{
	/* "/run/user/7/sandcastle/control.sock" is 35 bytes, 36 with its NUL. */
	char	buf[36];

	ATF_REQUIRE(setenv("XDG_RUNTIME_DIR", "/run/user/7", 1) == 0);
	ATF_CHECK(path_runtime_file(CONTROL_SOCK, buf, sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "/run/user/7/sandcastle/control.sock");
	ATF_CHECK(path_runtime_file(CONTROL_SOCK, buf, sizeof(buf) - 1) == -1);
	ATF_CHECK_EQ(errno, ENAMETOOLONG);
	ATF_CHECK_MSG(strstr(path_why(), "path too long") != NULL, "%s",
	    path_why());
	ATF_REQUIRE(setenv("HOME", "/h", 1) == 0);
	ATF_CHECK(path_secrets_dir(NULL, buf, 10) == -1);
	ATF_CHECK_EQ(errno, ENAMETOOLONG);
	ATF_CHECK(path_config_dir("/a/long/flag", buf, 12) == -1);
	ATF_CHECK(path_config_dir("/a/long/flag", buf, 13) == 0);
}

/* A1: a private folder is the operator's, closed to every other account. */
ATF_TC_WITHOUT_HEAD(private_dir);
ATF_TC_BODY(private_dir, tc)
{
	struct stat	st;
	char		why[512];
	int		fd;

	umask(022);
	ATF_CHECK_MSG(path_private_dir("a/b/c", why, sizeof(why)) == 0, "%s",
	    why);
	ATF_REQUIRE(stat("a/b/c", &st) == 0 && S_ISDIR(st.st_mode));
	ATF_CHECK_EQ(st.st_mode & 07777, 0700);
	ATF_REQUIRE(stat("a/b", &st) == 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0700);
	/* Once there, it is checked again and passes. */
	ATF_CHECK(path_private_dir("a/b/c", why, sizeof(why)) == 0);
	ATF_CHECK(path_private_dir("a/b/c/", why, sizeof(why)) == 0);

	ATF_REQUIRE(chmod("a/b/c", 0755) == 0);
	ATF_CHECK(path_private_dir("a/b/c", why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "a/b/c: group or others have access "
	    "(mode 0755): chmod 700 a/b/c");
	ATF_REQUIRE(symlink("b", "a/link") == 0);
	ATF_CHECK(path_private_dir("a/link", why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "a/link: is a symbolic link");
	ATF_REQUIRE((fd = open("a/file", O_CREAT | O_WRONLY, 0600)) != -1);
	close(fd);
	ATF_CHECK(path_private_dir("a/file", why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "a/file: is not a folder");
	ATF_CHECK(path_private_dir("a/file/x", why, sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "cannot be made") != NULL, "%s", why);
}

/* A1: a folder of another account's is refused. */
ATF_TC(private_dir_not_yours);
ATF_TC_HEAD(private_dir_not_yours, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(private_dir_not_yours, tc)
{
	char	why[512];

	ATF_REQUIRE(mkdir("other", 0700) == 0 && chmod("other", 0700) == 0);
	ATF_REQUIRE(chown("other", 65534, 65534) == 0);
	ATF_CHECK(path_private_dir("other", why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "other: is not yours (owner uid 65534)");
	ATF_CHECK(path_private_dir("mine", why, sizeof(why)) == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, defaults);
	ATF_TP_ADD_TC(tp, home_from_passwd);
	ATF_TP_ADD_TC(tp, expand_home);
	ATF_TP_ADD_TC(tp, runtime);
	ATF_TP_ADD_TC(tp, truncation);
	ATF_TP_ADD_TC(tp, private_dir);
	ATF_TP_ADD_TC(tp, private_dir_not_yours);
	return atf_no_error();
}
