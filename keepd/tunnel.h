/* The way out, a CONNECT through gate.sock (tunnel.c). */
#ifndef KEEPD_TUNNEL_H
#define KEEPD_TUNNEL_H

#include <stddef.h>
#include <stdint.h>

/* keepd's half: gate.sock connected and the CONNECT written, or -1 with why. */
int		 tunnel_request(const char *gatepath, const char *host,
		    uint16_t port, char *why, size_t whysz);
/* 0, or -1 with why and *code (KEEP_R_REFUSED or KEEP_R_GATE), fd closed. */
int		 tunnel_await(int fd, char *why, size_t whysz,
		    uint32_t *code);
/* 0 opened, KEEP_R_REFUSED for the gate's 403, KEEP_R_GATE otherwise. */
int		 tunnel_answer(const char *head, size_t len, char *why,
		    size_t whysz);

#endif
