/* A request's child, a spare until keepd names its destination (fetch.c). */
#ifndef KEEPD_FETCH_H
#define KEEPD_FETCH_H

__attribute__((noreturn)) void
		 fetch_run(int fd);

#endif
