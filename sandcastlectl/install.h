/*
 * sandcastlectl install and uninstall: the steps, each in a file of its
 * own.
 */
#ifndef SANDCASTLECTL_INSTALL_H
#define SANDCASTLECTL_INSTALL_H

#include <stddef.h>

struct config;
struct ctl_env;

/* 0, or -1 after the refusal lines on stderr. */
int	install_machine(void);
/* This build's images; -1 with the one that could not be built in tag. */
int	install_images(const struct config *, const char *bindir,
	    const char *id, char *tag, size_t tagsz);
/* Other builds' images than id's, or every build's; one in use stays, named. */
int	images_remove_old(const char *id, int wait);
int	images_remove_all(int wait);

#endif
