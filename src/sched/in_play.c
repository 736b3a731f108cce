/* in_play.c: which devices a search need consider. Devices no op names
 * (every op that may run there may run anywhere) with the same capacity and
 * channels are interchangeable: a schedule that uses one of them maps onto
 * any other. Of such a class only as many as there are ops free to go
 * anywhere can ever be used, so only the first that many take part; the
 * rest would each be woken, stepped and tried for every ready op (issue 32:
 * a problem may list thousands that no op needs). A class is sought among
 * a few earlier ones only, so the test stays O(D^2 x that few), and a
 * device that matches none simply takes part. */
#include <stdlib.h>
#include "sched/sched_internal.h"
#include "sched/solver.h"

enum { SPARE_CLASSES = 8 };

bool sc_devices_alike(const pp_sched_problem *p, int a, int b)
{
    if (p->capacity[a] != p->capacity[b] || pp_sched_has_channel(p, a, b) != pp_sched_has_channel(p, b, a))
        return false;
    for (int c = 0; c < p->device_count; c++)
        if (c != a && c != b && (pp_sched_has_channel(p, a, c) != pp_sched_has_channel(p, b, c) ||
                                 pp_sched_has_channel(p, c, a) != pp_sched_has_channel(p, c, b)))
            return false;
    return true;
}

bool sc_devices_in_play(const pp_sched_problem *p, unsigned char *in_play)
{
    int D = p->device_count, anywhere = 0, classes = 0;
    int rep[SPARE_CLASSES], used[SPARE_CLASSES];
    unsigned char *named = calloc((size_t)D + 1, 1);
    if (!named)
        return false;
    for (int i = 0; i < p->op_count; i++) {
        anywhere += p->allowed_start[i] == p->allowed_start[i + 1];
        for (int k = p->allowed_start[i]; k < p->allowed_start[i + 1]; k++)
            named[p->allowed_device[k]] = 1;
    }
    for (int d = 0; d < D; d++) {
        in_play[d] = 1;
        if (named[d])
            continue;
        int c = 0;
        while (c < classes && !sc_devices_alike(p, rep[c], d))
            c++;
        if (c == classes && classes < SPARE_CLASSES)
            rep[classes] = d, used[classes++] = 0;
        if (c < classes)
            in_play[d] = used[c]++ < anywhere;
    }
    free(named);
    return true;
}

