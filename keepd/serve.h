/* keepd's loop (serve.c). */
#ifndef KEEPD_SERVE_H
#define KEEPD_SERVE_H

void		 serve(int listenfd, int secretsfd, const char *gatepath);

#endif
