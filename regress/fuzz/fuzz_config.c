/*
 * libFuzzer target of the configuration parser.  The first byte
 * splits the rest: the part before the split is config.yaml, the part
 * after it a source file; both are parsed, printed and freed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static FILE	*null;
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct config	*cfg;
	size_t		 split;

	if (len == 0)
		return 0;
	if (null == NULL && (null = fopen("/dev/null", "w")) == NULL)
		return 0;
	split = (size_t)data[0] * (len - 1) / 255;
	if ((cfg = config_new("fuzz")) == NULL)
		return 0;
	config_parse_main(cfg, "fuzz/config.yaml", (const char *)data + 1,
	    split, &errs);
	config_parse_source(cfg, "fuzz/sources/notes.yaml", "notes",
	    (const char *)data + 1 + split, len - 1 - split, &errs);
	conferrs_print(null, &errs);
	config_print(null, cfg);
	conferrs_free(&errs);
	config_free(cfg);
	return 0;
}
