/* The keep protocol's table, without keepd's takes (keep.h). */
#include <stddef.h>
#include <stdint.h>

#include "keep.h"
#include "msg.h"

const struct msg_rule keep_rules[] = {
	KEEP_ROWS(MSG_ROW_NO_TAKE)
};
const size_t keep_nrules = sizeof(keep_rules) / sizeof(keep_rules[0]);
