/* sbuf.c: the growable string the module writer builds its text in. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "shard/write_internal.h"

void shard_sb_add(shard_sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > INT_MAX || !pp_grow((void **)&b->s, &b->cap, (int)(b->n + n + 1), 1)) {
        b->failed = true;
        return;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void shard_sb_str(shard_sbuf *b, const char *s)
{
    shard_sb_add(b, s, strlen(s));
}

void shard_sb_int(shard_sbuf *b, long long v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    shard_sb_add(b, buf, (size_t)n);
}

/* Hands the string over, or frees it and reports the failed allocation. */
pp_status shard_sb_take(shard_sbuf *b, char **out, pp_error *err)
{
    shard_sb_add(b, "", 0);
    if (b->failed) {
        free(b->s);
        *out = NULL;
        return pp_error_set(err, PP_ENOMEM, "writing the sharded module: out of memory");
    }
    *out = b->s;
    return PP_OK;
}

