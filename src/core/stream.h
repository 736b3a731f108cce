/* stream.h: a buffered byte stream over a plain or gzip file, for scanners
 * that read inputs far larger than they keep (the text is never held whole),
 * or over text a caller already holds in memory. */
#ifndef PP_CORE_STREAM_H
#define PP_CORE_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <zlib.h>
#include "parplan/core.h"

/* Zero bytes after the text: scanners may read this far past buf + len
 * (a word-at-a-time number scan) without testing for the end. */
enum { PP_STREAM_PAD = 32 };

typedef struct pp_inflater pp_inflater;

typedef struct {
    int fd;
    z_stream *z;           /* NULL when the file is plain text, or inflated by `inflater` */
    pp_inflater *inflater; /* a large gzip file's inflating thread (stream.c), or NULL */
    unsigned char *zin;    /* compressed bytes, z->next_in points into it */
    bool zin_eof;
    char *buf;             /* buf[len .. len + PP_STREAM_PAD) are '\0', a sentinel */
    size_t mapped;         /* bytes mapped at buf when the file is mapped whole, else 0 */
    size_t cap, pos, len;
    uint64_t base;         /* offset in the (decompressed) text of buf[0] */
    bool eof;              /* no text follows buf[len - 1]: end of file, or failed */
    pp_status failed;      /* PP_OK, or why reading stopped early: PP_EINPUT for
                              corrupt or truncated gzip, PP_EIO, PP_ENOMEM */
    char failure[160];     /* and what the reader said */
} pp_stream;

/* Opens path; gzip is recognised by its magic bytes, not by the name. */
pp_status pp_stream_open(pp_stream *s, const char *path, pp_error *err);
/* Text already in memory, plain or gzip (told apart as files are), copied:
 * the scanners' sentinel needs bytes after it. `name` stands for the file
 * in messages. */
pp_status pp_stream_open_memory(pp_stream *s, const char *name, const void *data, size_t size,
                                pp_error *err);
void pp_stream_close(pp_stream *s);

/* Makes at least `want` bytes available from buf + pos unless the text ends
 * first; returns how many are available. `want` is capped at the buffer's
 * capacity: about 4 MB, or a small file's size, but never under 64 bytes.
 * Moves the buffer, so pointers into it are invalid afterwards. */
size_t pp_stream_fill(pp_stream *s, size_t want);

/* Asks for huge pages under a large malloc'd block. Readers grow arrays of
 * hundreds of MB, and faulting them in 4 KB at a time cost as much as
 * scanning the text (measured on this project's VM; BENCHMARKS.md). Only a
 * hint: the block stays malloc's, and a refusal changes nothing. */
void pp_advise_huge_pages(void *block, size_t size);

/* Faults in the pages under [start, start + size) in one system call, where
 * the kernel can (Linux 5.14 on); elsewhere does nothing. */
void pp_prefault(void *start, size_t size);

static inline uint64_t pp_stream_offset(const pp_stream *s) { return s->base + s->pos; }

#endif
