/*
 * The messages between sandcastled's parent and its children, over
 * each child's socketpair (fd 3 in the child), framed with msg.h.
 * Each receiver checks every message against its rule table with
 * msg_verify(): an unknown type or a wrong size is fatal.
 */
#ifndef SANDCASTLED_PROTO_H
#define SANDCASTLED_PROTO_H

enum proc_msg {
	PROC_READY = 1,		/* child -> parent, no payload: its filter is on */
};

/* Nothing travels between the processes yet that needs more. */
#define PROC_MAXPAYLOAD	(64 * 1024)

#endif
