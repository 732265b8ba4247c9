/* The control protocol's table, without sandcastled's takes (ctl.h). */
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"
#include "msg.h"

const struct msg_rule ctl_rules[] = {
	CTL_ROWS(MSG_ROW_NO_TAKE)
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
