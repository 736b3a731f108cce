/* text_file.c: reading a whole file into memory, for the readers that
 * locate their errors by line and column and for the writer that patches a
 * module's text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "core/core_internal.h"

pp_status pp_read_text_file(const char *path, char **text, size_t *size, pp_error *err)
{
    *text = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno));
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        /* One byte always kept for the terminating zero. */
        if (n + 1 >= cap && !pp_grow_large((void **)&buf, &cap, 1 << 16, 1)) {
            free(buf);
            buf = NULL;
            break;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        if (got == 0)
            break;
        n += got;
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
