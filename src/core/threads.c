/* threads.c: pp_threads_run (threads.h), the solvers' one way to run a
 * function on several threads: the cluster search's workers, rankers and
 * uniform judges, the scheduler's epochs, the IOPDDL neighbourhood's
 * regions and the shard search's workers. The caller's thread runs the
 * first context while the others run on threads of their own. */
#include "core/threads.h"

#include <pthread.h>
#include <stdlib.h>

void pp_threads_run(int threads, void *(*run)(void *), void *contexts, size_t size)
{
    char *at = contexts;
    pthread_t *ids = threads > 1 ? calloc((size_t)threads, sizeof *ids) : NULL;
    int started = 1;
    while (ids && started < threads &&
           pthread_create(&ids[started], NULL, run, at + (size_t)started * size) == 0)
        started++;
    run(at);
    for (int t = started; t < threads; t++)
        run(at + (size_t)t * size);
    for (int t = 1; t < started; t++)
        pthread_join(ids[t], NULL);
    free(ids);
}
