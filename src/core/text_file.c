/* text_file.c: reading a whole file into memory, for the readers that
 * locate their errors by line and column and for the writer that patches a
 * module's text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/core.h"

pp_status pp_read_text_file(const char *path, char **text, size_t *size, pp_error *err)
{
    *text = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        char *grown = n == cap ? realloc(buf, cap *= 2) : buf;
        if (!grown)
            free(buf);
        buf = grown;
    }
    int read_errno = errno;
    bool failed = ferror(f);
    fclose(f);
    if (!buf)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
    if (failed) {
        free(buf);
        return pp_error_set(err, PP_EIO, "%s: read error: %s", path, strerror(read_errno));
    }
    buf[n] = '\0';
    *text = buf;
    *size = n;
    return PP_OK;
}
