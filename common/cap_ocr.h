/* ocr's own word, for its box. */
#ifndef SANDCASTLE_CAP_OCR_H
#define SANDCASTLE_CAP_OCR_H

#include "cap.h"

#define JW_LANGUAGES	JW_CAP_WORD(CAP_OCR, 0)	/* the image lacks a language */

#endif
