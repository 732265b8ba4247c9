/*
 * keepd's headers in one, for the unit tests and benches that include it
 * (regress/keepd, regress/bench); keepd's own files include each header
 * they use, never this one.
 */
#ifndef SANDCASTLE_KEEPD_H
#define SANDCASTLE_KEEPD_H

#include "answer.h"
#include "fetchmsg.h"
#include "fetchtab.h"
#include "keep.h"
#include "lock.h"
#include "tunnel.h"
#include "what.h"

#endif
