/* threads.c: cluster_threads_run, the planner's one way to run a function
 * on several threads (the search's workers, the ranking of the branches,
 * the uniform baseline's judges): the caller's thread runs the first
 * context while the others run on threads of their own; a context whose
 * thread could not start runs on the caller's after its own, so every
 * context is run and the work is only slower. */
#include "cluster/planner.h"

#include <pthread.h>
#include <stdlib.h>

void cluster_threads_run(int threads, void *(*run)(void *), void *contexts, size_t size)
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
