/*
 * check: the units and drop-ins where install wrote them; a unit of another
 * build or changed, or a drop-in line removing a lock, warns.
 */
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "dropin.h"
#include "check.h"
#include "units.h"

/* The hardening directives a unit of install's may set: its locks. */
static const char *const locks[] = {
	"NoNewPrivileges", "LockPersonality", "RestrictRealtime",
	"RestrictSUIDSGID", "SystemCallArchitectures", "UMask", "LimitCORE",
	"MemoryDenyWriteExecute", "RestrictAddressFamilies",
	"RestrictNamespaces", "KeyringMode", "PrivateUsers", "PrivateNetwork",
	"PrivateTmp", "PrivateDevices", "PrivateIPC", "PrivateMounts",
	"ProtectSystem", "ProtectHome", "ReadWritePaths", "BindPaths",
	"ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs",
	"ProtectControlGroups", "ProtectClock", "ProtectHostname",
	"SystemCallFilter",
};

static const struct rule {
	const char	*key;
	const char	*what;
} rules[] = {
	{ "AmbientCapabilities",	"adds a capability to" },
	{ "CapabilityBoundingSet",	"changes the capabilities of" },
	{ "SecureBits",			"changes the capabilities of" },
	{ "ExecStart",			"replaces the command of" },
	{ "ExecStartPre",		"adds a command to" },
	{ "ExecStartPost",		"adds a command to" },
	{ "ExecCondition",		"adds a command to" },
	{ "ExecReload",			"adds a command to" },
	{ "ExecStop",			"adds a command to" },
	{ "ExecStopPost",		"adds a command to" },
	{ "User",			"changes the account of" },
	{ "Group",			"changes the account of" },
	{ "SupplementaryGroups",	"changes the account of" },
	{ "DynamicUser",		"changes the account of" },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static int	units_state(struct check *, const char *, const char *, char **);
static void	dropin_dirs(const char *, char [][NAME_MAX + 1], size_t *);
static void	dropin_judge(struct check *, const char *, const char *,
		    const struct dropin *, const struct dropin_entry *);
static void	dropin_file(struct check *, const char *, const char *,
		    const struct dropin *);
static void	dropins_of(struct check *, const char *, const char *);
static int	dropin_conf(const struct dirent *);

/* 0 when the unit is this build's, as install writes it; else a warn. */
static int
units_state(struct check *c, const char *dir, const char *id, char **want)
{
	char	 path[PATH_MAX + 64], build[BUILD_ID_LEN + 1], why[256];
	char	*text;
	size_t	 i;
	int	 bad = 0;

	for (i = 0; i < UNIT_COUNT; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", dir,
		    unit_texts[i].name);
		want[i] = unit_render(&unit_texts[i], id, c->env, why,
		    sizeof(why));
		if ((text = file_read(path, 65536, NULL)) == NULL) {
			check_line(c, MARK_WARN, "units: %s: %s; run "
			    "sandcastlectl install", path, strerror(errno));
			bad = 1;
			continue;
		}
		if (!unit_marker(text, build)) {
			check_line(c, MARK_WARN, "units: %s was not written "
			    "by install; run sandcastlectl install",
			    unit_texts[i].name);
			bad = 1;
		} else if (strcmp(build, id) != 0) {
			check_line(c, MARK_WARN, "units: %s was written by "
			    "another build; run sandcastlectl install",
			    unit_texts[i].name);
			bad = 1;
		} else if (want[i] == NULL || strcmp(text, want[i]) != 0) {
			check_line(c, MARK_WARN, "units: %s differs from what "
			    "install writes; run sandcastlectl install",
			    unit_texts[i].name);
			bad = 1;
		}
		free(text);
	}
	return bad;
}

/* systemd's drop-in folders of a unit: its own, its prefixes', its type's. */
static void
dropin_dirs(const char *unit, char names[][NAME_MAX + 1], size_t *n)
{
	const char	*dot = strrchr(unit, '.'), *p;

	*n = 0;
	(void)snprintf(names[(*n)++], NAME_MAX + 1, "%s.d", unit);
	for (p = dot; p > unit; p--)
		if (p[-1] == '-' && p < dot)
			(void)snprintf(names[(*n)++], NAME_MAX + 1, "%.*s%s.d",
			    (int)(p - unit), unit, dot);
	(void)snprintf(names[(*n)++], NAME_MAX + 1, "%s.d", dot + 1);
}

static void
dropin_judge(struct check *c, const char *path, const char *unit,
    const struct dropin *mine, const struct dropin_entry *e)
{
	const char	*v;
	size_t		 i;

	if (strcmp(e->section, "Service") != 0)
		return;
	for (i = 0; i < NELEM(locks); i++)
		if (strcmp(e->key, locks[i]) == 0 &&
		    (v = dropin_get(mine, "Service", e->key)) != NULL &&
		    strcmp(v, e->value) != 0) {
			check_line(c, MARK_WARN, "units: %s: %s=%s removes a "
			    "lock of %s; remove the line", path, e->key,
			    e->value, unit);
			return;
		}
	for (i = 0; i < NELEM(rules); i++)
		if (strcmp(e->key, rules[i].key) == 0) {
			check_line(c, MARK_WARN, "units: %s: %s=%s %s %s; "
			    "remove the line", path, e->key, e->value,
			    rules[i].what, unit);
			return;
		}
}

static void
dropin_file(struct check *c, const char *path, const char *unit,
    const struct dropin *mine)
{
	struct dropin	 d;
	char		*text, why[256];
	size_t		 len, i;

	if ((text = file_read(path, DROPIN_MAX_SIZE, &len)) == NULL) {
		check_line(c, MARK_WARN, "units: %s: %s", path,
		    strerror(errno));
		return;
	}
	if (dropin_parse(text, len, &d, why, sizeof(why)) == -1) {
		check_line(c, MARK_WARN, "units: %s: %s; check reads only "
		    "plain Key=Value lines and cannot say what it changes in "
		    "%s: fix it", path, why, unit);
		free(text);
		return;
	}
	for (i = 0; i < d.n; i++)
		dropin_judge(c, path, unit, mine, &d.entries[i]);
	dropin_free(&d);
	free(text);
}

static int
dropin_conf(const struct dirent *de)
{
	size_t	len = strlen(de->d_name);

	return de->d_name[0] != '.' && len > 5 &&
	    strcmp(de->d_name + len - 5, ".conf") == 0;
}

/* systemd's folders of user units, in its order (systemd.unit(5)). */
static size_t
unit_roots(char roots[][PATH_MAX])
{
	const char	*home = getenv("HOME"), *x, *run;
	size_t		 n = 0;

	(void)units_dir(roots[n++], PATH_MAX);
	x = getenv("XDG_CONFIG_HOME");
	if (x != NULL && x[0] == '/')
		(void)snprintf(roots[n++], PATH_MAX, "%s/systemd/"
		    "user.control", x);
	else if (home != NULL)
		(void)snprintf(roots[n++], PATH_MAX, "%s/.config/systemd/"
		    "user.control", home);
	if ((run = getenv("XDG_RUNTIME_DIR")) != NULL && run[0] == '/') {
		(void)snprintf(roots[n++], PATH_MAX, "%s/systemd/"
		    "user.control", run);
		(void)snprintf(roots[n++], PATH_MAX, "%s/systemd/user", run);
	}
	(void)strlcpy(roots[n++], "/etc/systemd/user", PATH_MAX);
	(void)strlcpy(roots[n++], "/run/systemd/user", PATH_MAX);
	if (home != NULL)
		(void)snprintf(roots[n++], PATH_MAX, "%s/.local/share/"
		    "systemd/user", home);
	(void)strlcpy(roots[n++], "/usr/local/lib/systemd/user", PATH_MAX);
	(void)strlcpy(roots[n++], "/usr/lib/systemd/user", PATH_MAX);
	return n;
}

/* Each *.conf of dir, in the order systemd reads them. */
static void
dropins_in(struct check *c, const char *dir, const char *unit,
    const struct dropin *mine)
{
	char		 path[3 * PATH_MAX];
	struct dirent	**list;
	int		 n, i;

	if ((n = scandir(dir, &list, dropin_conf, alphasort)) == -1)
		return;
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    list[i]->d_name) < sizeof(path))
			dropin_file(c, path, unit, mine);
		free(list[i]);
	}
	free(list);
}

static void
dropins_of(struct check *c, const char *unit, const char *text)
{
	char		 roots[10][PATH_MAX], names[8][NAME_MAX + 1];
	char		 dir[2 * PATH_MAX], why[256];
	struct dropin	 mine;
	size_t		 nroots, nnames, r, k;

	if (dropin_parse(text, strlen(text), &mine, why, sizeof(why)) == -1) {
		check_line(c, MARK_FAIL, "units: %s as this build writes it: "
		    "%s", unit, why);
		return;
	}
	nroots = unit_roots(roots);
	dropin_dirs(unit, names, &nnames);
	for (r = 0; r < nroots; r++)
		for (k = 0; k < nnames; k++)
			if ((size_t)snprintf(dir, sizeof(dir), "%s/%s",
			    roots[r], names[k]) < sizeof(dir))
				dropins_in(c, dir, unit, &mine);
	dropin_free(&mine);
}

int
check_unit_installed(const char *unit)
{
	char	 dir[PATH_MAX], path[PATH_MAX + 64], build[BUILD_ID_LEN + 1];
	char	*text;
	int	 yes;

	if (units_dir(dir, sizeof(dir)) == -1)
		return 0;
	(void)snprintf(path, sizeof(path), "%s/%s", dir, unit);
	if ((text = file_read(path, 65536, NULL)) == NULL)
		return 0;
	yes = unit_marker(text, build);
	free(text);
	return yes;
}

int
check_units(struct check *c)
{
	char		 dir[PATH_MAX], path[PATH_MAX + 64];
	char		 build[BUILD_ID_LEN + 1], why[256];
	char		*want[UNIT_COUNT] = { NULL }, *text;
	const char	*id;
	size_t		 i;
	int		 any = 0;

	if (units_dir(dir, sizeof(dir)) == -1)
		return 0;
	for (i = 0; i < UNIT_COUNT && !any; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", dir,
		    unit_texts[i].name);
		if ((text = file_read(path, 65536, NULL)) != NULL) {
			any = unit_marker(text, build);
			free(text);
		}
	}
	if (!any)
		return 0;
	if ((id = check_build(c, why, sizeof(why))) == NULL) {
		check_line(c, MARK_WARN, "units: this build's id: %s", why);
		return 0;
	}
	if (units_state(c, dir, id, want) == 0)
		check_line(c, MARK_OK, "units: %s and its three services are "
		    "this build's", UNIT_TARGET);
	for (i = 0; i < UNIT_COUNT; i++) {
		if (want[i] != NULL && strstr(unit_texts[i].name, ".service"))
			dropins_of(c, unit_texts[i].name, want[i]);
		free(want[i]);
	}
	return 0;
}
