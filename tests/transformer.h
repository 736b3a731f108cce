/* transformer.h: the text of a transformer bench/shard-gen-transformer
 * writes, for the tests that shard or plan one. */
#ifndef PP_TESTS_TRANSFORMER_H
#define PP_TESTS_TRANSFORMER_H

#include <stdio.h>
#include <stdlib.h>
#include "core/grow.h"

/* The generator's text for args (its flags), or NULL when it could not be
 * run (no python3) or wrote nothing. */
static inline char *transformer_text(const char *args, size_t *size)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 %s/bench/shard-gen-transformer %s 2>/dev/null", PP_SOURCE_DIR, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char *text = NULL;
    int cap = 0, n = 0;
    size_t got = 1;
    while (got > 0 && pp_grow((void **)&text, &cap, n + 4096, 1)) {
        got = fread(text + n, 1, (size_t)(cap - n), p);
        n += (int)got;
    }
    /* got > 0: the text outgrew memory before the generator was done */
    if (pclose(p) != 0 || got > 0 || n == 0) {
        free(text);
        return NULL;
    }
    *size = (size_t)n;
    return text;
}

#endif
