/* The box's seccomp profile, podman's own with the box's calls cut (profile.c). */
#ifndef SANDCASTLED_PROFILE_H
#define SANDCASTLED_PROFILE_H

#include <stddef.h>

/* podman reads the box's seccomp profile (profile.c) on this descriptor. */
#define BOX_PROFILE_FD	3
#define BOX_PODMAN_PROFILE "/usr/share/containers/seccomp.json"

int		 box_profile(char *why, size_t whysz);
char		*box_profile_text(const char *podman, size_t plen, size_t *len,
		    char *why, size_t whysz);

#endif
