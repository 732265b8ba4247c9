/*
 * Each configuration file's name and SHA-256, on a child's command line:
 * the child sees whether a file it read is the one its parent read.
 */
#include <sys/types.h>

#include <sha2.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

void
config_file_add(struct config *cfg, const char *name, const char *buf,
    size_t len)
{
	struct config_file	*f;

	if ((f = reallocarray(cfg->files, cfg->nfiles + 1,
	    sizeof(*f))) == NULL)
		fatal("the configuration's files");
	cfg->files = f;
	f += cfg->nfiles++;
	(void)strlcpy(f->name, name, sizeof(f->name));
	(void)SHA256Data((const uint8_t *)buf, len, f->sha256);
}

/* "name=sha256 name=sha256 ...": names hold no space and no '='. */
char *
config_digests(const struct config *cfg)
{
	size_t	 i, sz = 1;
	char	*line;

	for (i = 0; i < cfg->nfiles; i++)
		sz += strlen(cfg->files[i].name) + 1 + 64 + 1;
	if ((line = calloc(1, sz)) == NULL)
		fatal("the configuration's digests");
	for (i = 0; i < cfg->nfiles; i++) {
		if (i > 0)
			(void)strlcat(line, " ", sz);
		(void)strlcat(line, cfg->files[i].name, sz);
		(void)strlcat(line, "=", sz);
		(void)strlcat(line, cfg->files[i].sha256, sz);
	}
	return line;
}

/* The digest line holds name with this digest (1), another (0), or none (-1). */
static int
line_holds(const char *line, const char *name, const char *sha256)
{
	size_t		 n = strlen(name);
	const char	*p;

	for (p = line; *p != '\0'; p += strcspn(p, " "), p += *p == ' ') {
		if (strncmp(p, name, n) != 0 || p[n] != '=')
			continue;
		return strncmp(p + n + 1, sha256, 64) == 0 &&
		    (p[n + 65] == ' ' || p[n + 65] == '\0');
	}
	return -1;
}

/* 0 when cfg read line's files as they were; 1 with the first that differs. */
int
config_digests_differ(const struct config *cfg, const char *line,
    char *name, size_t namesz, const char **how)
{
	const char	*p;
	size_t		 i, n, k;

	for (i = 0; i < cfg->nfiles; i++) {
		switch (line_holds(line, cfg->files[i].name,
		    cfg->files[i].sha256)) {
		case 1:
			continue;
		case 0:
			*how = "changed";
			break;
		default:
			*how = "added";
		}
		(void)strlcpy(name, cfg->files[i].name, namesz);
		return 1;
	}
	for (p = line; *p != '\0'; p += strcspn(p, " "), p += *p == ' ') {
		n = strcspn(p, "=");
		for (k = 0; k < cfg->nfiles; k++)
			if (strlen(cfg->files[k].name) == n &&
			    strncmp(cfg->files[k].name, p, n) == 0)
				break;
		if (k < cfg->nfiles)
			continue;
		*how = "removed";
		(void)snprintf(name, namesz, "%.*s", (int)n, p);
		return 1;
	}
	return 0;
}
