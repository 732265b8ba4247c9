/*
 * The configuration's values read and written back for -nv: the layer
 * below config.c and cap.c, so both read and print with the same words.
 */
#include <arpa/inet.h>

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"
#include "confparse.h"
#include "log.h"
#include "paths.h"
#include "values.h"
#include "yamltree.h"

static const char *const box_keys[] = {
	"memory", "cpus", "pids", "tmp", NULL
};
static const char *const dest_keys[] = {
	"address", "secret", "internal", "ca_file", NULL
};

char *
conf_strdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatal("configuration");
	return p;
}

/* The largest unit that writes the size exactly. */
static void
fmt_size(uint64_t v, char *buf, size_t bufsz)
{
	if (v != 0 && v % GiB == 0)
		snprintf(buf, bufsz, "%lluGiB", (unsigned long long)(v / GiB));
	else if (v != 0 && v % MiB == 0)
		snprintf(buf, bufsz, "%lluMiB", (unsigned long long)(v / MiB));
	else if (v != 0 && v % KiB == 0)
		snprintf(buf, bufsz, "%lluKiB", (unsigned long long)(v / KiB));
	else
		snprintf(buf, bufsz, "%llu", (unsigned long long)v);
}

int
conf_duration(struct yfile *yf, struct ynode *n, uint32_t min, uint32_t max,
    uint32_t *out)
{
	const char	*s, *why;
	char		 a[32], b[32];
	uint32_t	 v;

	if (n == NULL)
		return 0;
	if (yscalar(yf, n, "a duration, as 30s, 15m or 1h30m", &s) == -1)
		return -1;
	if (parse_duration(s, &v, &why) == -1) {
		yerr_value(yf, n, "%s", why);
		return -1;
	}
	if (v < min || v > max) {
		duration_fmt(min, a, sizeof(a));
		duration_fmt(max, b, sizeof(b));
		yerr_value(yf, n, "is out of range: write a duration from %s "
		    "to %s", a, b);
		return -1;
	}
	*out = v;
	return 0;
}

static int
conf_size(struct yfile *yf, struct ynode *n, uint64_t min, uint64_t max,
    uint64_t *out)
{
	const char	*s, *why;
	char		 a[32], b[32];
	uint64_t	 v;

	if (n == NULL)
		return 0;
	if (yscalar(yf, n, "a size, as 16MiB", &s) == -1)
		return -1;
	if (parse_size(s, &v, &why) == -1) {
		yerr_value(yf, n, "%s", why);
		return -1;
	}
	if (v < min || v > max) {
		fmt_size(min, a, sizeof(a));
		fmt_size(max, b, sizeof(b));
		yerr_value(yf, n, "is out of range: write a size from %s to %s",
		    a, b);
		return -1;
	}
	*out = v;
	return 0;
}

int
conf_u32(struct yfile *yf, struct ynode *n, uint32_t min, uint32_t max,
    uint32_t *out)
{
	uint64_t	 v;

	if (n == NULL)
		return 0;
	if (yuint(yf, n, min, max, &v) == -1)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int
conf_name(struct yfile *yf, struct ynode *n, char *buf, size_t bufsz)
{
	const char	*s, *why;

	if (ystring(yf, n, "a name, as notes", &s) == -1)
		return -1;
	if (name_valid(s, &why) == -1) {
		yerr_value(yf, n, "%s", why);
		return -1;
	}
	strlcpy(buf, s, bufsz);
	return 0;
}

int
conf_path(struct yfile *yf, struct ynode *n, char **out)
{
	const char	*s, *p;
	char		 buf[PATH_MAX];

	if (ystring(yf, n, "an absolute path", &s) == -1)
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (iscntrl((unsigned char)*p)) {
			yerr(yf, n, "holds a control character: "
			    "write the path alone");
			return -1;
		}
	}
	if (s[0] == '~' && s[1] != '/' && s[1] != '\0') {
		yerr_value(yf, n, "names another account's home: only ~/ is "
		    "expanded: write the path in full");
		return -1;
	}
	if (s[0] == '~' && path_expand_home(s, buf, sizeof(buf)) == -1) {
		yerr_value(yf, n, "cannot be expanded: set HOME, or write the "
		    "path in full");
		return -1;
	}
	if ((s[0] == '~' ? buf[0] : s[0]) != '/') {
		yerr_value(yf, n, "is not an absolute path: write it from /, "
		    "or from ~/");
		return -1;
	}
	free(*out);
	*out = conf_strdup(s[0] == '~' ? buf : s);
	return 0;
}

static void
conf_internal(struct yfile *yf, struct ynode *n, struct destination *d)
{
	const char	*s, *why;

	if (ystring(yf, n, "ip:port, as 192.168.1.20:8080", &s) == -1)
		return;
	if (internal_parse(s, &d->internal_ip, &d->internal_port, &why) == -1)
		yerr_value(yf, n, "%s", why);
	else
		d->has_internal = 1;
}

static void
conf_address(struct yfile *yf, struct ynode *n, int has_internal,
    struct destination *d)
{
	const char	*s, *why;

	if (ystring(yf, n, "an address, as https://notes.example.com/api",
	    &s) == -1)
		return;
	if (address_parse(s, has_internal, d, &why) == -1) {
		yerr_value(yf, n, "%s", why);
		return;
	}
	d->address = conf_strdup(s);
}

void
conf_destination(struct yfile *yf, struct ynode *n, const char *name,
    struct destination *d)
{
	struct ynode	*in;

	if (ymap(yf, n, "{ address: https://…, secret: … }") == -1)
		return;
	ymap_known(yf, n, dest_keys);
	strlcpy(d->name, name, sizeof(d->name));
	d->file = conf_strdup(yf->file);
	d->line = n->line;
	if ((in = yget(n, "internal")) != NULL)
		conf_internal(yf, in, d);
	conf_address(yf, yneed(yf, n, "address", "write where the destination "
	    "is, as address: https://notes.example.com/api"), in != NULL, d);
	conf_name(yf, yneed(yf, n, "secret", "name the secret sent there, "
	    "as secret: notes"), d->secret, sizeof(d->secret));
	if ((in = yget(n, "ca_file")) != NULL)
		conf_path(yf, in, &d->ca_file);
}

static void
conf_cpus(struct yfile *yf, struct ynode *n, uint32_t *millicpus)
{
	const char	*p;
	uint32_t	 v = 0, scale = 1000;

	if (yscalar(yf, n, "a number of CPUs, as 1 or 0.5", &p) == -1)
		return;
	if (!n->plain) {
		yerr_value(yf, n, "is quoted, so it is text: write the number "
		    "plain, without quotes");
		return;
	}
	if (p[0] == '0' && isdigit((unsigned char)p[1]))
		goto bad;
	for (; isdigit((unsigned char)*p) && v <= 64000; p++)
		v = v * 10 + (uint32_t)(*p - '0') * 1000;
	if (p == n->value)
		goto bad;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p) && scale > 1; p++)
			v += (uint32_t)(*p - '0') * (scale /= 10);
	if (*p != '\0' || p[-1] == '.')
		goto bad;
	if (v == 0 || v > 64000) {
		yerr_value(yf, n, "is out of range: write a number above 0 and "
		    "at most 64");
		return;
	}
	*millicpus = v;
	return;
bad:
	yerr_value(yf, n, "is not a number of CPUs: write a number above 0 "
	    "with at most 3 decimals, as 1 or 0.5");
}

static void
conf_box(struct yfile *yf, struct ynode *n, struct box_limits *box)
{
	if (n == NULL || ymap(yf, n, "{ memory: 256MiB, cpus: 1 }") == -1)
		return;
	ymap_known(yf, n, box_keys);
	conf_size(yf, yget(n, "memory"), 16 * MiB, 64 * GiB, &box->memory);
	conf_cpus(yf, yget(n, "cpus"), &box->millicpus);
	conf_u32(yf, yget(n, "pids"), 1, 4096, &box->pids);
	conf_size(yf, yget(n, "tmp"), 1 * MiB, 4 * GiB, &box->tmp);
}

/* A source's or a capability's jobs: at most all of them, all when unset. */
void
conf_jobs(struct yfile *yf, struct ynode *n, uint32_t all, uint32_t *out)
{
	uint64_t	 v;

	*out = all;
	if (n == NULL || yuint(yf, n, 1, JOBS_MAX, &v) == -1)
		return;
	if (v > all) {
		yerr_value(yf, n, "is more than the jobs of config.yaml (%u), "
		    "the boxes at once of every source and capability: raise "
		    "that, or lower this", all);
		return;
	}
	*out = (uint32_t)v;
}

void
conf_cap(struct yfile *yf, struct ynode *n, struct capability *cap)
{
	conf_size(yf, yget(n, "max_input"), 1, 32 * MiB, &cap->max_input);
	conf_size(yf, yget(n, "max_output"), 1, 32 * MiB, &cap->max_output);
	conf_duration(yf, yget(n, "timeout"), 1, 3600, &cap->timeout);
	conf_duration(yf, yget(n, "cooldown"), 1, 86400, &cap->cooldown);
	conf_box(yf, yget(n, "box"), &cap->box);
}

void
destination_free(struct destination *d)
{
	free(d->address);
	free(d->path);
	free(d->ca_file);
	free(d->file);
}

void
print_str(FILE *fp, const char *key, const char *s, int indent)
{
	const char	*p;
	int		 plain;

	plain = *s != '\0' && (isalnum((unsigned char)*s) || *s == '/') &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789/._~+:@-") == strlen(s) && strstr(s, ": ") == NULL &&
	    s[strlen(s) - 1] != ':';
	fprintf(fp, "%*s%s: ", indent, "", key);
	if (plain) {
		fprintf(fp, "%s\n", s);
		return;
	}
	fputc('"', fp);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(fp, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", fp);
		else if (*p == '\t')
			fputs("\\t", fp);
		else if (iscntrl((unsigned char)*p))
			fprintf(fp, "\\x%02x", (unsigned char)*p);
		else
			fputc(*p, fp);
	}
	fputs("\"\n", fp);
}

void
print_duration(FILE *fp, const char *key, uint32_t v, int indent)
{
	char	 buf[32];

	duration_fmt(v, buf, sizeof(buf));
	fprintf(fp, "%*s%s: %s\n", indent, "", key, buf);
}

static void
print_size(FILE *fp, const char *key, uint64_t v, int indent)
{
	char	 buf[32];

	fmt_size(v, buf, sizeof(buf));
	fprintf(fp, "%*s%s: %s\n", indent, "", key, buf);
}

void
print_destination(FILE *fp, const struct destination *d, int indent)
{
	char	 ip[INET_ADDRSTRLEN];

	fprintf(fp, "%*sdestination:\n", indent, "");
	fprintf(fp, "%*saddress: %s://%s:%u%s\n", indent + 2, "",
	    d->tls ? "https" : "http", d->host, d->port,
	    d->path ? d->path : "");
	fprintf(fp, "%*ssecret: %s\n", indent + 2, "", d->secret);
	if (d->has_internal &&
	    inet_ntop(AF_INET, &d->internal_ip, ip, sizeof(ip)) != NULL)
		fprintf(fp, "%*sinternal: %s:%u\n", indent + 2, "", ip,
		    d->internal_port);
	if (d->ca_file != NULL)
		print_str(fp, "ca_file", d->ca_file, indent + 2);
}

void
print_cap(FILE *fp, const struct capability *cap)
{
	print_size(fp, "max_input", cap->max_input, 4);
	print_size(fp, "max_output", cap->max_output, 4);
	print_duration(fp, "timeout", cap->timeout, 4);
	print_duration(fp, "cooldown", cap->cooldown, 4);
	fprintf(fp, "    jobs: %u\n", cap->jobs);
	fprintf(fp, "    box:\n");
	print_size(fp, "memory", cap->box.memory, 6);
	fprintf(fp, "      cpus: %u", cap->box.millicpus / 1000);
	if (cap->box.millicpus % 1000 != 0) {
		char	 frac[8];
		size_t	 n;

		snprintf(frac, sizeof(frac), "%03u", cap->box.millicpus % 1000);
		for (n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		fprintf(fp, ".%s", frac);
	}
	fprintf(fp, "\n      pids: %u\n", cap->box.pids);
	print_size(fp, "tmp", cap->box.tmp, 6);
}
