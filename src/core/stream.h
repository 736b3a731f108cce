/* stream.h: a buffered byte stream over a plain or gzip file, for scanners
 * that read inputs far larger than they keep (the text is never held whole). */
#ifndef PP_CORE_STREAM_H
#define PP_CORE_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <zlib.h>
#include "parplan/core.h"

typedef struct {
    gzFile gz;
    char *buf;        /* buf[len] is always '\0', a sentinel for scanners */
    size_t cap, pos, len;
    uint64_t base;    /* offset in the (decompressed) text of buf[0] */
    bool eof;
    char failure[160]; /* set when reading failed, e.g. corrupt or truncated gzip */
} pp_stream;

pp_status pp_stream_open(pp_stream *s, const char *path, pp_error *err);
void pp_stream_close(pp_stream *s);

/* Makes at least `want` bytes available from buf + pos unless the text ends
 * first; returns how many are available. Moves the buffer, so pointers into
 * it are invalid afterwards. */
size_t pp_stream_fill(pp_stream *s, size_t want);

static inline uint64_t pp_stream_offset(const pp_stream *s) { return s->base + s->pos; }

#endif
