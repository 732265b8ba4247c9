/* The capabilities' table, and what is said of any of them. */
#include <stdio.h>
#include <string.h>

#include "cap.h"

const struct cap_word cap_box_words[] = {
	{ JW_BOX, 0 }, { JW_PROTOCOL, 0 }, { JW_BUILD, 1 }, { JW_NONE, 0 }
};

const char *const cap_headers[] = { "content-type", "accept", NULL };

#define CAP_ROW(id, name)	[CAP_##id] = &cap_##name,
const struct cap_row *const cap_table[CAP_COUNT] = { CAP_ROWS };
#undef CAP_ROW
_Static_assert(JW_CAP_WORD(CAP_COUNT, 0) <= JW_CAP_END,
    "room for each capability's own words");

const char *
cap_name(enum cap_id c)
{
	return (unsigned int)c < CAP_COUNT ? cap_table[c]->name : "unknown";
}

int
cap_from_name(const char *name)
{
	int	 c;

	for (c = 0; c < CAP_COUNT; c++)
		if (strcmp(name, cap_table[c]->name) == 0)
			return c;
	return -1;
}

const struct box_limits *
cap_default_box(enum cap_id c)
{
	return (unsigned int)c < CAP_COUNT ? &cap_table[c]->defaults.box :
	    NULL;
}

const char *
cap_names(void)
{
	static char	 buf[CAP_COUNT * 16 + 8];
	int		 c;

	if (buf[0] != '\0')
		return buf;
	for (c = 0; c < CAP_COUNT; c++) {
		if (c > 0)
			(void)strlcat(buf, c == CAP_COUNT - 1 ? " or " : ", ",
			    sizeof(buf));
		(void)strlcat(buf, cap_table[c]->name, sizeof(buf));
	}
	return buf;
}

const char *
cap_word_name(int w)
{
	const struct cap_row	*row;
	int			 c;

	if (w < JW_CAP || w >= JW_CAP_END)
		return NULL;
	if ((c = (w - JW_CAP) / JW_CAP_WORDS) >= CAP_COUNT)
		return NULL;
	row = cap_table[c];
	if ((size_t)JW_CAP_INDEX(w) >= row->nnames)
		return NULL;
	return row->names[JW_CAP_INDEX(w)];
}

int
cap_word_of_name(const char *name)
{
	const struct cap_row	*row;
	size_t			 i;
	int			 c;

	for (c = 0; c < CAP_COUNT; c++) {
		row = cap_table[c];
		for (i = 0; i < row->nnames; i++)
			if (row->names[i] != NULL &&
			    strcmp(name, row->names[i]) == 0)
				return JW_CAP_WORD(c, (int)i);
	}
	return -1;
}

int
capreq_check(const struct config *conf, enum cap_id cap, unsigned int roles,
    const struct capreq *r, char *why, size_t whysz)
{
	if ((unsigned int)cap >= CAP_COUNT ||
	    cap_table[cap]->request_check == NULL) {
		(void)snprintf(why, whysz, "the box of %s makes no request",
		    cap_name(cap));
		return -1;
	}
	return cap_table[cap]->request_check(conf, roles, r, why, whysz);
}
