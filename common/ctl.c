/* The control protocol's table: each message's size, said here alone. */
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"
#include "msg.h"

const struct msg_rule ctl_rules[] = {
	{ CTL_HELLO, "CTL_HELLO", sizeof(struct ctl_hello),
	    sizeof(struct ctl_hello), 0 },
	{ CTL_ERROR, "CTL_ERROR", 1, CTL_MAXPAYLOAD, 0 },
	{ CTL_END, "CTL_END", 0, 0, 0 },
	{ CTL_SHOW_STATUS, "CTL_SHOW_STATUS", 0, 0, 0 },
	{ CTL_STATUS_PROC, "CTL_STATUS_PROC", sizeof(struct ctl_proc),
	    sizeof(struct ctl_proc), 0 },
	{ CTL_SHOW_SOURCES, "CTL_SHOW_SOURCES", 0, 0, 0 },
	{ CTL_SOURCE, "CTL_SOURCE", sizeof(struct ctl_source),
	    sizeof(struct ctl_source), 0 },
};
const size_t ctl_nrules = sizeof(ctl_rules) / sizeof(ctl_rules[0]);

const char *
ctl_state_name(int32_t state)
{
	switch (state) {
	case CTL_PROC_RUNNING:
		return "running";
	case CTL_PROC_STARTING:
		return "starting";
	}
	return "unknown";
}
