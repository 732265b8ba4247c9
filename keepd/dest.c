/* The destinations, read once: TLS made ready before anything hostile comes. */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tls.h>

#include "cap.h"
#include "config.h"
#include "conn.h"
#include "dest.h"
#include "fetchmsg.h"
#include "http.h"
#include "log.h"

static struct keep_dest	*dests;
static size_t		 ndests;

static struct tls_config *
dest_tls(const struct destination *d)
{
	struct tls_config	*cfg;
	const char		*file;
	uint8_t			*ca;
	size_t			 len;

	file = d->ca_file != NULL ? d->ca_file : tls_default_ca_cert_file();
	if ((cfg = tls_config_new()) == NULL)
		fatalx("destination %s: cannot make its TLS configuration",
		    d->name);
	if ((ca = tls_load_file(file, &len, NULL)) == NULL)
		fatal("destination %s: %s: cannot read the CA bundle",
		    d->name, file);
	if (tls_config_set_ca_mem(cfg, ca, len) == -1)
		fatalx("destination %s: %s: %s", d->name, file,
		    tls_config_error(cfg));
	tls_unload_file(ca, len);
	/* Verification is libtls's default: it is never turned off. */
	return cfg;
}

static void
dest_add(const struct destination *d)
{
	static const char *const none[] = { NULL };
	struct keep_dest	*k = &dests[ndests++];
	char			 why[KEEP_REASON_MAX];

	k->d = d;
	/* A capability's API takes its key as its row says; a source, Bearer. */
	k->auth = d->cap != -1 ? &cap_table[d->cap]->credential : &http_bearer;
	k->headers = d->cap != -1 && cap_table[d->cap]->headers != NULL ?
	    cap_table[d->cap]->headers : none;
	if (k->auth->header == NULL)
		fatalx("destination %s: capability %s writes no secret",
		    d->name, cap_name(d->cap));
	if ((k->conn = calloc(1, sizeof(*k->conn))) == NULL)
		fatal("destination %s", d->name);
	if (conn_prepare(k->conn, d->tls ? dest_tls(d) : NULL, d->host, why,
	    sizeof(why)) == -1)
		fatalx("destination %s: %s", d->name, why);
	log_debug("destination %s: %s:%u, %s", d->name, d->host,
	    (unsigned int)d->port, d->tls ? "TLS" : "plain HTTP (internal)");
}

void
dest_init(const struct config *conf)
{
	size_t	 i;

	if (tls_init() == -1)
		fatalx("cannot start libtls");
	if ((dests = calloc(conf->ndests, sizeof(*dests))) == NULL)
		fatal("destinations");
	for (i = 0; i < conf->ndests; i++)
		dest_add(conf->dests[i]);
}

const struct keep_dest *
dest_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < ndests; i++)
		if (strcmp(dests[i].d->name, name) == 0)
			return &dests[i];
	return NULL;
}

size_t
dest_count(void)
{
	return ndests;
}

const char *const *
dest_known(const char *name, void *arg)
{
	const struct keep_dest	*k;

	return (k = dest_find(name)) != NULL ? k->headers : NULL;
}
