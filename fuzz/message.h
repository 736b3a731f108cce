/* message.h: what every fuzz target of a JSON reader asks of a failed
 * load: the status is an input error (or out of memory), and the message
 * starts with the input's name NAME, then either ": " and a reason or
 * ":LINE:COLUMN: " with a position inside the input. Aborts otherwise. */
#ifndef PP_FUZZ_MESSAGE_H
#define PP_FUZZ_MESSAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/core.h"

static const char NAME[] = "input.json";

static inline void check_message(const pp_error *err, pp_status status, const uint8_t *data, size_t size)
{
    size_t n = sizeof NAME - 1;
    if ((status != PP_EINPUT && status != PP_ENOMEM) || err->status != status ||
        strncmp(err->message, NAME, n) != 0)
        abort();
    const char *rest = err->message + n;
    if (strncmp(rest, ": ", 2) == 0 && rest[2] != '\0')
        return;
    long lines = 1;
    for (size_t k = 0; k < size; k++)
        lines += data[k] == '\n';
    long line, column;
    int used = 0;
    if (sscanf(rest, ":%ld:%ld: %n", &line, &column, &used) != 2 || used == 0 || line < 1 ||
        line > lines || column < 1 || (size_t)column > size + 1)
        abort();
}

#endif
