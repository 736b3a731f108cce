/* stream.c: buffered reading of plain or gzip text through zlib, which reads
 * uncompressed files transparently, so one path serves both. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/stream.h"

enum { STREAM_BUFFER = 4 << 20 };

pp_status pp_stream_open(pp_stream *s, const char *path, pp_error *err)
{
    memset(s, 0, sizeof *s);
    s->gz = gzopen(path, "rb");
    if (!s->gz)
        return pp_error_set(err, PP_EIO, "%s: cannot open: %s", path,
                            errno ? strerror(errno) : "out of memory");
    gzbuffer(s->gz, 1 << 20);
    s->cap = STREAM_BUFFER;
    s->buf = malloc(s->cap + 1);
    if (!s->buf) {
        gzclose(s->gz);
        s->gz = NULL;
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
    }
    s->buf[0] = '\0';
    return PP_OK;
}

void pp_stream_close(pp_stream *s)
{
    if (s->gz)
        gzclose(s->gz);
    free(s->buf);
    s->gz = NULL;
    s->buf = NULL;
}

size_t pp_stream_fill(pp_stream *s, size_t want)
{
    size_t have = s->len - s->pos;
    if (have >= want || s->eof)
        return have;
    memmove(s->buf, s->buf + s->pos, have);
    s->base += s->pos;
    s->pos = 0;
    s->len = have;
    while (s->len < want && !s->eof) {
        size_t room = s->cap - s->len;
        int n = gzread(s->gz, s->buf + s->len, (unsigned)(room > (1u << 30) ? (1u << 30) : room));
        if (n > 0) {
            s->len += (size_t)n;
            continue;
        }
        s->eof = true;
        int code = Z_OK;
        const char *msg = gzerror(s->gz, &code);
        if (n < 0 || (code != Z_OK && code != Z_STREAM_END))
            snprintf(s->failure, sizeof s->failure, "%s",
                     code == Z_ERRNO ? strerror(errno) : msg);
    }
    s->buf[s->len] = '\0';
    return s->len - s->pos;
}
