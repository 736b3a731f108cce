/* utf8.c: how much of a text a message may quote without cutting a UTF-8
 * sequence (pp_utf8_prefix, parplan/options.h): error.c cuts long
 * messages with it, and the option checks quote input through it. */
#include "parplan/options.h"

/* Bytes in the UTF-8 sequence a lead byte starts; 1 for a byte that
 * starts none (a stray continuation byte is then kept as it is). */
static size_t sequence_length(unsigned char lead)
{
    return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

size_t pp_utf8_prefix(const char *text, size_t limit)
{
    size_t n = 0;
    while (n < limit && text[n]) {
        size_t step = sequence_length((unsigned char)text[n]);
        if (n + step > limit)
            break;
        n += step;
    }
    return n;
}
