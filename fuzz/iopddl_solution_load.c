/* iopddl_solution_load.c: libFuzzer target for the IOPDDL answer reader
 * (pp_iopddl_parse_solution, the same code as pp_iopddl_load_solution after
 * the file is read), against a fixed problem of four nodes with 1, 3, 12
 * and 100 strategies. Checks: a failed read returns no answer and says
 * "NAME: byte N: reason" with N within the text; a read answer has one
 * index per node, each within its node's strategies, and written back
 * (pp_iopddl_format_solution) reads to the same answer. Any breach aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "input"

static pp_iopddl_problem *fixed_problem(void)
{
    static const uint32_t counts[] = {1, 3, 12, 100};
    pp_iopddl_builder *b;
    pp_iopddl_problem *p = NULL;
    pp_error err = {0};
    if (pp_iopddl_builder_new(4, counts, &b, &err) != PP_OK || pp_iopddl_builder_finish(b, &p, &err) != PP_OK)
        abort();
    return p;
}

static void check_failure(const pp_error *err, size_t size)
{
    size_t n = strlen(NAME);
    unsigned long long at;
    int used = 0;
    if (strncmp(err->message, NAME, n) != 0)
        abort();
    if (err->status == PP_ENOMEM)
        return;
    if (err->status != PP_EINPUT || sscanf(err->message + n, ": byte %llu: %n", &at, &used) != 1 || used == 0 ||
        at > size || err->message[n + (size_t)used] == '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pp_iopddl_problem *p;
    if (!p)
        p = fixed_problem();
    uint32_t *s = NULL;
    pp_error err = {0};
    pp_status status = pp_iopddl_parse_solution(NAME, (const char *)data, size, p, &s, &err);
    if (status != PP_OK) {
        if (s)
            abort();
        check_failure(&err, size);
        return 0;
    }
    for (uint32_t i = 0; i < p->node_count; i++)
        if (s[i] >= pp_iopddl_strategy_count(p, i))
            abort();
    char line[12 * 4 + 3];
    size_t len = pp_iopddl_format_solution(s, p->node_count, line);
    uint32_t *again = NULL;
    if (pp_iopddl_parse_solution(NAME, line, len, p, &again, &err) != PP_OK ||
        memcmp(s, again, p->node_count * sizeof *s) != 0)
        abort();
    free(again);
    free(s);
    return 0;
}
