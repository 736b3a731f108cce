/* stream.c: buffered reading of plain or gzip text. Large plain files are
 * mapped, small ones go straight from read() into the scanner's buffer;
 * gzip files are inflated into it with zlib's inflate (not gzread, which
 * drops the text it inflated in a call that then fails, so a damaged file
 * could not be reported where it breaks); large gzip files on a thread of
 * their own, a few chunks ahead of the scanner. */
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE), MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/core_internal.h"
#include "core/stream.h"

/* Two huge pages hold a full buffer and its sentinel. Small files get a
 * buffer of their own size (at least MIN_BUFFER, which the scanners'
 * lookahead needs): a gzip file then inflates through many refills, which
 * the fuzz target compares against the same text read at once. */
enum { HUGE_PAGE = 2 << 20, STREAM_BUFFER = 2 * HUGE_PAGE - 64, MIN_BUFFER = 64 };

/* Gzip files of at least INFLATE_MIN_FILE bytes are inflated on a thread,
 * INFLATE_CHUNKS chunks of INFLATE_CHUNK bytes ahead (see start_inflater). */
enum { INFLATE_CHUNKS = 3, INFLATE_CHUNK = 1 << 20, INFLATE_MIN_FILE = 256 << 10 };

void pp_advise_huge_pages(void *block, size_t size)
{
#ifdef MADV_HUGEPAGE
    long page = sysconf(_SC_PAGESIZE);
    if (!block || size < (size_t)HUGE_PAGE || page <= 0)
        return;
    /* Whole pages, the allocator's header included: advising part of a
     * mapping splits it, and realloc can then no longer move it by mremap. */
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t start = (uintptr_t)block & ~mask, stop = ((uintptr_t)block + size + mask) & ~mask;
    madvise((void *)start, stop - start, MADV_HUGEPAGE);
#else
    (void)block;
    (void)size;
#endif
}

void pp_prefault(void *start, size_t size)
{
#ifdef MADV_POPULATE_WRITE
    long page = sysconf(_SC_PAGESIZE);
    if (!start || size == 0 || page <= 0)
        return;
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t from = (uintptr_t)start & ~mask, to = ((uintptr_t)start + size + mask) & ~mask;
    madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
    (void)start;
    (void)size;
#endif
}

static char *buffer_new(size_t size)
{
    if (size < (size_t)HUGE_PAGE)
        return malloc(size);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, size) != 0)
        return NULL;
    pp_advise_huge_pages(p, size);
    return p;
}

static void stop(pp_stream *s, pp_status why, const char *what)
{
    s->eof = true;
    if (s->failed == PP_OK) {
        s->failed = why;
        snprintf(s->failure, sizeof s->failure, "%s", what);
    }
}

/* Reads into dst until size bytes, end of file or an error; returns the count. */
static size_t read_some(pp_stream *s, void *dst, size_t size, bool *at_end)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(s->fd, (char *)dst + got, size - got);
        if (n > 0) {
            got += (size_t)n;
        } else if (n == 0) {
            *at_end = true;
            break;
        } else if (errno != EINTR) {
            stop(s, PP_EIO, strerror(errno));
            *at_end = true;
            break;
        }
    }
    return got;
}

static bool start_gzip(pp_stream *s, const char *path, pp_error *err)
{
    s->z = calloc(1, sizeof *s->z);
    char *text = buffer_new(s->cap + PP_STREAM_PAD);
    if (!s->z || !text || inflateInit2(s->z, 15 + 16) != Z_OK) {
        free(text);
        free(s->z);
        s->z = NULL;
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return false;
    }
    s->zin = (unsigned char *)s->buf;
    s->z->next_in = s->zin;
    s->z->avail_in = (uInt)s->len;
    s->zin_eof = s->eof && s->failed == PP_OK;
    s->buf = text;
    s->len = 0;
    s->eof = s->failed != PP_OK;
    return true;
}

static bool is_gzip(const char *text, size_t size)
{
    return size >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b;
}

/* The pages of a mapped file are read in POPULATE_CHUNK bytes a system
 * call (Linux 5.14 on), looking at the stop flag between calls: a 1.3 GB
 * file not yet in the page cache takes seconds to read, and a time limit
 * covers reading. Elsewhere the mapping reads them at once (MAP_POPULATE). */
#ifdef MADV_POPULATE_READ
enum { POPULATE_CHUNK = 64 << 20, POPULATE_AT_ONCE = 0 };

static void populate(char *area, size_t size)
{
    for (size_t at = 0; at < size && !pp_stop_raised(NULL); at += POPULATE_CHUNK)
        madvise(area + at, size - at < POPULATE_CHUNK ? size - at : POPULATE_CHUNK, MADV_POPULATE_READ);
}
#else
enum { POPULATE_AT_ONCE = MAP_POPULATE };

static void populate(char *area, size_t size)
{
    (void)area;
    (void)size;
}
#endif

/* A large plain file is mapped whole instead of read into the buffer: no
 * copy, and no refills. The file's pages come first in a reservation one
 * page longer, so zeros follow the text (the rest of its last page reads
 * as zeros, then an anonymous page): the sentinel scanners need. Gzip
 * files, and any failure, leave the stream as it was, to be read. As with
 * any mapped input, a file truncated by another program while it is read
 * raises SIGBUS; inputs are read once, at the start, so that was accepted. */
static bool map_plain(pp_stream *s, size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return false;
    size_t span = (size / (size_t)page + 1) * (size_t)page;
    if (span - size < PP_STREAM_PAD)
        span += (size_t)page;
    char *area = mmap(NULL, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED)
        return false;
    if (mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | POPULATE_AT_ONCE, s->fd, 0) == MAP_FAILED ||
        is_gzip(area, size)) {
        munmap(area, span);
        return false;
    }
    populate(area, size);
    s->buf = area;
    s->mapped = span;
    s->cap = s->len = size;
    s->eof = true;
    return true;
}

static bool start_inflater(pp_stream *s);

pp_status pp_stream_open(pp_stream *s, const char *path, pp_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd = open(path, O_RDONLY);
    if (s->fd < 0)
        return pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > STREAM_BUFFER &&
        (uint64_t)st.st_size <= SIZE_MAX - 2 * (uint64_t)HUGE_PAGE && map_plain(s, (size_t)st.st_size))
        return PP_OK;
    s->cap = STREAM_BUFFER;
    bool regular = fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular && st.st_size < STREAM_BUFFER)
        s->cap = st.st_size < MIN_BUFFER ? MIN_BUFFER : (size_t)st.st_size;
    s->buf = buffer_new(s->cap + PP_STREAM_PAD);
    if (!s->buf) {
        pp_stream_close(s);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
    }
    s->len = read_some(s, s->buf, s->cap, &s->eof);
    if (is_gzip(s->buf, s->len) && !start_gzip(s, path, err)) {
        pp_stream_close(s);
        return PP_ENOMEM;
    }
    /* Without a thread (none could start) it is inflated here, as small files are. */
    if (s->z && s->failed == PP_OK && regular && st.st_size >= INFLATE_MIN_FILE)
        start_inflater(s);
    memset(s->buf + s->len, 0, PP_STREAM_PAD);
    return PP_OK;
}

/* Gzip text in memory is inflated like a file's: the copy is the compressed
 * input, read to its end at once, and the text buffer as small as a small
 * file's would be (the fuzz target compares many refills against one). */
pp_status pp_stream_open_memory(pp_stream *s, const char *name, const void *data, size_t size,
                                pp_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->cap = size < MIN_BUFFER ? MIN_BUFFER : size;
    s->buf = buffer_new(s->cap + PP_STREAM_PAD);
    if (!s->buf)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", name);
    if (size)
        memcpy(s->buf, data, size);
    s->len = size;
    s->eof = true;
    if (is_gzip(s->buf, size)) {
        if (s->cap > STREAM_BUFFER)
            s->cap = STREAM_BUFFER;
        if (!start_gzip(s, name, err)) {
            pp_stream_close(s);
            return PP_ENOMEM;
        }
    }
    memset(s->buf + s->len, 0, PP_STREAM_PAD);
    return PP_OK;
}

static void stop_inflater(pp_stream *s);

void pp_stream_close(pp_stream *s)
{
    if (s->inflater)
        stop_inflater(s);
    if (s->z) {
        inflateEnd(s->z);
        free(s->z);
    }
    if (s->fd >= 0)
        close(s->fd);
    free(s->zin);
    if (s->mapped)
        munmap(s->buf, s->mapped);
    else
        free(s->buf);
    s->z = NULL;
    s->zin = NULL;
    s->buf = NULL;
    s->mapped = 0;
    s->fd = -1;
}

static void read_compressed(pp_stream *s)
{
    z_stream *z = s->z;
    memmove(s->zin, z->next_in, z->avail_in);
    z->next_in = s->zin;
    z->avail_in += (uInt)read_some(s, s->zin + z->avail_in, s->cap - z->avail_in, &s->zin_eof);
}

/* After a gzip member: another member may follow (concatenated files).
 * Anything else is ignored, as gzip and zlib's gzread do. */
static void next_member(pp_stream *s)
{
    z_stream *z = s->z;
    if (z->avail_in < 2 && !s->zin_eof)
        read_compressed(s);
    if (z->avail_in >= 2 && z->next_in[0] == 0x1f && z->next_in[1] == 0x8b) {
        if (inflateReset(z) != Z_OK)
            stop(s, PP_EINPUT, "cannot restart inflate");
    } else {
        s->eof = true;
    }
}

static void inflate_more(pp_stream *s)
{
    z_stream *z = s->z;
    if (z->avail_in == 0 && !s->zin_eof)
        read_compressed(s);
    if (s->failed != PP_OK)
        return;
    z->next_out = (unsigned char *)s->buf + s->len;
    z->avail_out = (uInt)(s->cap - s->len);
    int rc = inflate(z, Z_NO_FLUSH);
    s->len = (size_t)((char *)z->next_out - s->buf);
    switch (rc) {
    case Z_OK:
        break;
    case Z_STREAM_END:
        next_member(s);
        break;
    case Z_BUF_ERROR:
        if (z->avail_in == 0 && s->zin_eof)
            stop(s, PP_EINPUT, "unexpected end of file (truncated gzip)");
        break;
    case Z_MEM_ERROR:
        stop(s, PP_ENOMEM, "out of memory");
        break;
    default:
        stop(s, PP_EINPUT, z->msg ? z->msg : "corrupt gzip data");
        break;
    }
}

/* A large gzip file is inflated on a thread of its own: inflate and its
 * CRC take as long as the scanner (A: 0.06 of 0.14 CPU s), and with the
 * text read ahead the load ends sooner wherever a second core has any time
 * (the one-second contract). The thread runs the same inflate_more on a
 * stream of its own whose buffer is one chunk at a time; the scanner's
 * refills copy the chunks in order. The thread stops at the end of the
 * text or at the first failure, which the scanner takes over once it has
 * every byte inflated before it, so messages name the same byte. */

struct pp_inflater {
    pp_stream src;                  /* fd, z and zin; buf is the chunk being filled */
    char *chunk[INFLATE_CHUNKS];
    size_t chunk_len[INFLATE_CHUNKS];
    int head, count;                /* ready chunks: head, head + 1, ... (mod INFLATE_CHUNKS) */
    size_t taken;                   /* bytes of chunk[head] already copied out */
    bool done, quit;                /* done: src reached its end (src.eof) */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t thread;
};

static void *inflater_main(void *arg)
{
    pp_inflater *f = arg;
    for (bool done = false; !done;) {
        pthread_mutex_lock(&f->lock);
        while (f->count == INFLATE_CHUNKS && !f->quit)
            pthread_cond_wait(&f->changed, &f->lock);
        int slot = (f->head + f->count) % INFLATE_CHUNKS;
        bool quit = f->quit;
        pthread_mutex_unlock(&f->lock);
        if (quit)
            break;
        f->src.buf = f->chunk[slot];
        f->src.len = 0;
        while (f->src.len < f->src.cap && !f->src.eof)
            inflate_more(&f->src);
        done = f->src.eof;
        pthread_mutex_lock(&f->lock);
        f->chunk_len[slot] = f->src.len;
        f->count++;
        f->done = done;
        pthread_cond_broadcast(&f->changed);
        pthread_mutex_unlock(&f->lock);
    }
    return NULL;
}

/* The chunks and f itself: all a thread that never started leaves. */
static void inflater_discard(pp_inflater *f)
{
    for (int k = 0; k < INFLATE_CHUNKS; k++)
        free(f->chunk[k]);
    free(f);
}

static void inflater_free(pp_inflater *f)
{
    f->src.buf = NULL;
    pp_stream_close(&f->src);
    inflater_discard(f);
}

/* Hands s's inflate over to a thread; false (s unchanged) if none starts. */
static bool start_inflater(pp_stream *s)
{
    pp_inflater *f = calloc(1, sizeof *f);
    if (!f)
        return false;
    bool ok = true;
    for (int k = 0; k < INFLATE_CHUNKS; k++)
        ok = (f->chunk[k] = malloc(INFLATE_CHUNK)) != NULL && ok;
    if (!ok || pthread_mutex_init(&f->lock, NULL) != 0) {
        inflater_discard(f);
        return false;
    }
    pthread_cond_init(&f->changed, NULL);
    f->src.fd = s->fd;
    f->src.z = s->z;
    f->src.zin = s->zin;
    f->src.zin_eof = s->zin_eof;
    /* Chunks of at most this much text; read_compressed reads at most as
     * much a call into zin, which holds s->cap. */
    f->src.cap = s->cap < INFLATE_CHUNK ? s->cap : INFLATE_CHUNK;
    if (pthread_create(&f->thread, NULL, inflater_main, f) != 0) {
        pthread_cond_destroy(&f->changed);
        pthread_mutex_destroy(&f->lock);
        inflater_discard(f);
        return false;
    }
    s->fd = -1;
    s->z = NULL;
    s->zin = NULL;
    s->inflater = f;
    return true;
}

static void stop_inflater(pp_stream *s)
{
    pp_inflater *f = s->inflater;
    pthread_mutex_lock(&f->lock);
    f->quit = true;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
    pthread_join(f->thread, NULL);
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->lock);
    inflater_free(f);
    s->inflater = NULL;
}

/* Copies inflated text into s's buffer, up to its capacity; at the end of
 * the text, marks s ended, failed as the inflater did. */
static void take_inflated(pp_stream *s)
{
    pp_inflater *f = s->inflater;
    pthread_mutex_lock(&f->lock);
    while (f->count == 0 && !f->done)
        pthread_cond_wait(&f->changed, &f->lock);
    bool empty = f->count == 0;
    pthread_mutex_unlock(&f->lock);
    if (empty) {
        s->eof = true;
        if (f->src.failed != PP_OK)
            stop(s, f->src.failed, f->src.failure);
        return;
    }
    /* chunk[head] stays the scanner's until it is handed back below. */
    size_t n = f->chunk_len[f->head] - f->taken;
    if (n > s->cap - s->len)
        n = s->cap - s->len;
    memcpy(s->buf + s->len, f->chunk[f->head] + f->taken, n);
    s->len += n;
    f->taken += n;
    if (f->taken == f->chunk_len[f->head]) {
        pthread_mutex_lock(&f->lock);
        f->head = (f->head + 1) % INFLATE_CHUNKS;
        f->count--;
        f->taken = 0;
        pthread_cond_broadcast(&f->changed);
        pthread_mutex_unlock(&f->lock);
    }
}

size_t pp_stream_fill(pp_stream *s, size_t want)
{
    size_t have = s->len - s->pos;
    if (have >= want || s->eof)
        return have;
    if (want > s->cap)
        want = s->cap;
    memmove(s->buf, s->buf + s->pos, have);
    s->base += s->pos;
    s->pos = 0;
    s->len = have;
    while (s->len < want && !s->eof) {
        if (s->inflater)
            take_inflated(s);
        else if (s->z)
            inflate_more(s);
        else
            s->len += read_some(s, s->buf + s->len, s->cap - s->len, &s->eof);
    }
    memset(s->buf + s->len, 0, PP_STREAM_PAD);
    return s->len - s->pos;
}
