/* keep.sock (listen.c). */
#ifndef KEEPD_LISTEN_H
#define KEEPD_LISTEN_H

int		 keepsock_open(const char *path);
void		 keepsock_close(void);

#endif
