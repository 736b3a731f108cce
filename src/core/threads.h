/* threads.h: the one way the solvers run one function over an array of
 * contexts on several threads (threads.c). */
#ifndef PP_CORE_THREADS_H
#define PP_CORE_THREADS_H

#include <stddef.h>

/* Runs run(context t) for each of the `threads` contexts of `size` bytes in
 * the array `contexts`, on as many threads, the first on the caller's;
 * returns when all are done. A context whose thread could not start runs
 * on the caller's thread after its own, so every context is run and the
 * work is only slower. */
void pp_threads_run(int threads, void *(*run)(void *), void *contexts, size_t size);

#endif
