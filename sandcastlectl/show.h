/*
 * The control socket as sandcastlectl's show commands speak it
 * (common/ctl.h): connect, say hello, ask, and read each answer
 * checked against show.c's table of what sandcastled may send.  Every
 * failure ends the command with a line that says why.
 */
#ifndef SANDCASTLECTL_SHOW_H
#define SANDCASTLECTL_SHOW_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"

struct show_conn {
	struct msgchan	 chan;
	char		 path[PATH_MAX];	/* control.sock, for the errors */
};

/* Connects to control.sock and trades hellos. */
void	show_open(struct show_conn *);
void	show_send(struct show_conn *, uint32_t type, const void *, size_t);
/* One message, checked; CTL_ERROR ends the command with its reason. */
void	show_get(struct show_conn *, struct msg *);
void	show_close(struct show_conn *);

#endif
