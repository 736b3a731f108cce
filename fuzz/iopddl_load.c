/* iopddl_load.c: libFuzzer target for the IOPDDL loader. Writes the input to
 * a file (the loader reads files, plain or gzip), loads it, and when it loads,
 * evaluates the all-zero assignment, which must not crash either. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "parplan/iopddl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/pp-fuzz-iopddl-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(path);
        return 0;
    }
    fwrite(data, 1, size, f);
    fclose(f);
    pp_error err = {0};
    pp_iopddl_problem *p = NULL;
    if (pp_iopddl_load(path, &p, &err) == PP_OK) {
        uint32_t *zero = calloc(p->node_count, sizeof *zero);
        pp_iopddl_evaluation ev;
        if (zero)
            pp_iopddl_evaluate(p, zero, &ev, &err);
        free(zero);
        pp_iopddl_free(p);
    } else if (err.status == PP_OK || err.message[0] == '\0') {
        abort(); /* a failed load must say why */
    }
    unlink(path);
    return 0;
}
