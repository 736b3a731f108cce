/* arena.c: bump allocator for one problem or one worker's scratch. Memory is
 * released all at once, so nothing allocated from it needs its own free. */
#include <stdlib.h>
#include <string.h>
#include "core/core_internal.h"

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} chunk;

typedef struct adopted {
    struct adopted *next;
    void *block;
} adopted;

/* Chunks start at FIRST_CHUNK bytes and double up to chunk_size. Most
 * arenas hold a few KB (a timing pass, a check, a tiny problem), and an
 * allocator maps a big block afresh where it keeps none: glibc's at first,
 * the sanitizers' always (a 1 MB chunk costs about 3 ms there, 100 times
 * a 64 KB one: the sanitizer build's tests spent most of their time so). */
#define FIRST_CHUNK 4096

struct pp_arena {
    chunk *head;
    adopted *blocks;
    size_t chunk_size, next_size;
};

pp_arena *pp_arena_new(size_t chunk_size)
{
    pp_arena *a = calloc(1, sizeof *a);
    if (a) {
        a->chunk_size = chunk_size ? chunk_size : (size_t)1 << 20;
        a->next_size = a->chunk_size < FIRST_CHUNK ? a->chunk_size : FIRST_CHUNK;
    }
    return a;
}

static chunk *chunk_new(size_t size)
{
    chunk *c = malloc(sizeof *c + size);
    if (c) {
        c->next = NULL;
        c->used = 0;
        c->size = size;
    }
    return c;
}

void *pp_arena_alloc(pp_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        if (size > a->chunk_size / 4) {
            /* A big block gets a chunk of its own, behind the current head,
             * so the head's free space is not wasted. */
            chunk *big = chunk_new(size);
            if (!big)
                return NULL;
            big->used = size;
            if (c) {
                big->next = c->next;
                c->next = big;
            } else {
                a->head = big;
            }
            return big->data;
        }
        while (a->next_size < size)
            a->next_size *= 2;
        c = chunk_new(a->next_size);
        if (!c)
            return NULL;
        if (a->next_size < a->chunk_size)
            a->next_size = a->next_size * 2 < a->chunk_size ? a->next_size * 2 : a->chunk_size;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

void *pp_arena_calloc(pp_arena *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = pp_arena_alloc(a, count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

bool pp_arena_adopt(pp_arena *a, void *block)
{
    if (!block)
        return true;
    adopted *n = pp_arena_alloc(a, sizeof *n);
    if (!n) {
        free(block);
        return false;
    }
    n->block = block;
    n->next = a->blocks;
    a->blocks = n;
    return true;
}

void pp_arena_free(pp_arena *a)
{
    if (!a)
        return;
    for (adopted *b = a->blocks; b; b = b->next)
        free(b->block);
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

char *pp_arena_strdup(pp_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = pp_arena_alloc(a, n);
    if (d)
        memcpy(d, s, n);
    return d;
}
