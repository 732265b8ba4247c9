/* For the tests that include keepd's headers in one; no file of keepd/ does. */
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
