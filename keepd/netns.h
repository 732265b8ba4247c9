/* keepd's own network namespace (netns.c). */
#ifndef KEEPD_NETNS_H
#define KEEPD_NETNS_H

void		 netns_enter(void);

#endif
