/* keepd's table of messages (fetchtab.c): main() hands it down at start. */
#ifndef KEEPD_FETCHTAB_H
#define KEEPD_FETCHTAB_H

#include "fetchmsg.h"

extern const struct fetch_msgrow fetch_msgtab[FETCH_MSG_END];

#endif
