/* timeline.c: the pictures of every system: rows of boxes written as a
 * Chrome trace (Trace Event Format, through jansson so every string is
 * escaped correctly) and as an SVG Gantt chart. Strings live in one arena;
 * boxes and rows grow in plain arrays. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/core_internal.h"
#include "core/grow.h"
#include "core/timeline_internal.h"

typedef struct {
    int row, category;
    double start, end;
    const char *label;
} box;

struct pp_timeline {
    pp_arena *arena;
    const char *title;
    double us_per_unit;
    const char *unit;  /* the axis's unit when set, else named from us_per_unit */
    const char **row_name;
    int row_count, row_cap;
    const char **category;
    int category_count, category_cap;
    box *boxes;
    int box_count, box_cap;
};

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. The XML
 * non-characters U+FFFE and U+FFFF count as invalid: no SVG may hold them. */
static int utf8_sequence(const unsigned char *s)
{
    unsigned c = s[0], cp, min;
    int n;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        n = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
        return 0;
    return n;
}

/* A copy that jansson and XML both accept: '?' for each byte that is not
 * valid UTF-8, a space for each control character (XML 1.0 forbids them). */
static const char *clean_copy(pp_arena *arena, const char *s)
{
    char *d = pp_arena_alloc(arena, strlen(s) + 1), *out = d;
    if (!d)
        return NULL;
    const unsigned char *in = (const unsigned char *)s;
    while (*in) {
        int n = utf8_sequence(in);
        if (n == 0) {
            *out++ = '?';
            in++;
        } else if (n == 1 && *in < 0x20) {
            *out++ = ' ';
            in++;
        } else {
            memcpy(out, in, (size_t)n);
            out += n;
            in += n;
        }
    }
    *out = '\0';
    return d;
}

pp_timeline *pp_timeline_new(const char *title, double microseconds_per_unit)
{
    if (!isfinite(microseconds_per_unit) || microseconds_per_unit <= 0)
        return NULL;
    pp_timeline *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->us_per_unit = microseconds_per_unit;
    t->arena = pp_arena_new(1 << 16);
    if (t->arena)
        t->title = clean_copy(t->arena, title ? title : "timeline");
    if (!t->title) {
        pp_timeline_free(t);
        return NULL;
    }
    return t;
}

pp_status pp_timeline_set_title(pp_timeline *t, const char *title, pp_error *err)
{
    const char *copy = clean_copy(t->arena, title ? title : "timeline");
    if (!copy)
        return pp_error_set(err, PP_ENOMEM, "timeline \"%s\": out of memory", t->title);
    t->title = copy;
    return PP_OK;
}

pp_status pp_timeline_set_unit(pp_timeline *t, const char *name, pp_error *err)
{
    const char *copy = clean_copy(t->arena, name ? name : "");
    if (!copy)
        return pp_error_set(err, PP_ENOMEM, "timeline \"%s\": out of memory", t->title);
    t->unit = copy;
    return PP_OK;
}

void pp_timeline_free(pp_timeline *t)
{
    if (!t)
        return;
    free(t->row_name);
    free(t->category);
    free(t->boxes);
    pp_arena_free(t->arena);
    free(t);
}

int pp_timeline_add_row(pp_timeline *t, const char *name)
{
    const char *copy = clean_copy(t->arena, name ? name : "");
    if (!copy || !pp_grow((void **)&t->row_name, &t->row_cap, t->row_count + 1, sizeof *t->row_name))
        return -1;
    t->row_name[t->row_count] = copy;
    return t->row_count++;
}

/* The category's index, added in first-seen order; -1 when out of memory. */
static int category_index(pp_timeline *t, const char *name)
{
    const char *copy = clean_copy(t->arena, name);
    if (!copy)
        return -1;
    for (int c = 0; c < t->category_count; c++)
        if (strcmp(t->category[c], copy) == 0)
            return c;
    if (!pp_grow((void **)&t->category, &t->category_cap, t->category_count + 1, sizeof *t->category))
        return -1;
    t->category[t->category_count] = copy;
    return t->category_count++;
}

pp_status pp_timeline_add_box(pp_timeline *t, int row, double start, double end,
                              const char *label, const char *category, pp_error *err)
{
    if (row < 0 || row >= t->row_count)
        return pp_error_set(err, PP_EARG, "timeline \"%s\": box \"%s\" names row %d of %d",
                            t->title, label ? label : "", row, t->row_count);
    if (!isfinite(start) || !isfinite(end) || end < start)
        return pp_error_set(err, PP_EARG, "timeline \"%s\": box \"%s\" on row \"%s\": "
                            "[%g, %g] is not an interval of finite times",
                            t->title, label ? label : "", t->row_name[row], start, end);
    int c = category_index(t, category ? category : "other");
    const char *copy = clean_copy(t->arena, label ? label : "");
    if (c < 0 || !copy || !pp_grow((void **)&t->boxes, &t->box_cap, t->box_count + 1, sizeof *t->boxes))
        return pp_error_set(err, PP_ENOMEM, "timeline \"%s\": out of memory", t->title);
    t->boxes[t->box_count++] = (box){row, c, start, end, copy};
    return PP_OK;
}

int pp_timeline_row_count(const pp_timeline *t) { return t->row_count; }
int pp_timeline_box_count(const pp_timeline *t) { return t->box_count; }
int pp_timeline_category_count(const pp_timeline *t) { return t->category_count; }

static pp_status written(FILE *f, const pp_timeline *t, const char *what, pp_error *err)
{
    if (fflush(f) != 0 || ferror(f))
        return pp_error_set(err, PP_EIO, "timeline \"%s\": writing the %s failed", t->title, what);
    return PP_OK;
}

/* ---- Chrome trace ---------------------------------------------------- */

/* One event per line, streamed, so a large timeline never exists twice in
 * memory; jansson writes each event. `first` tracks the comma. */
static pp_status put_event(json_t *event, FILE *f, bool *first, const pp_timeline *t, pp_error *err)
{
    if (!event)
        return pp_error_set(err, PP_ENOMEM, "timeline \"%s\": out of memory", t->title);
    fputs(*first ? "\n" : ",\n", f);
    *first = false;
    int rc = json_dumpf(event, f, JSON_COMPACT | JSON_REAL_PRECISION(15));
    json_decref(event);
    if (rc != 0)
        return pp_error_set(err, PP_EIO, "timeline \"%s\": writing the trace failed", t->title);
    return PP_OK;
}

/* Metadata events carry no ts: Perfetto refuses negative ones and needs none. */
static pp_status put_metadata(const pp_timeline *t, FILE *f, bool *first, pp_error *err)
{
    pp_status st = put_event(json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name",
                                       "ph", "M", "pid", 1, "tid", 0, "args", "name", t->title),
                             f, first, t, err);
    for (int r = 0; r < t->row_count && st == PP_OK; r++) {
        st = put_event(json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
                                 "pid", 1, "tid", r + 1, "args", "name", t->row_name[r]),
                       f, first, t, err);
        if (st == PP_OK)
            st = put_event(json_pack("{s:s, s:s, s:i, s:i, s:{s:i}}", "name", "thread_sort_index",
                                     "ph", "M", "pid", 1, "tid", r + 1, "args", "sort_index", r),
                           f, first, t, err);
    }
    return st;
}

static pp_status put_box(const pp_timeline *t, const box *b, FILE *f, bool *first, pp_error *err)
{
    double ts = b->start * t->us_per_unit, dur = (b->end - b->start) * t->us_per_unit;
    if (!isfinite(ts) || !isfinite(dur))
        return pp_error_set(err, PP_EARG, "timeline \"%s\": box \"%s\" overflows in microseconds",
                            t->title, b->label);
    return put_event(json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:f, s:f}}", "name", b->label,
                               "cat", t->category[b->category], "ph", "X", "ts", ts, "dur", dur,
                               "pid", 1, "tid", b->row + 1, "args", "start", b->start, "end", b->end),
                     f, first, t, err);
}

pp_status pp_timeline_write_trace(const pp_timeline *t, FILE *f, pp_error *err)
{
    bool first = true;
    fputs("{\"traceEvents\": [", f);
    pp_status st = put_metadata(t, f, &first, err);
    for (int i = 0; i < t->box_count && st == PP_OK; i++)
        st = put_box(t, &t->boxes[i], f, &first, err);
    if (st != PP_OK)
        return st;
    fputs("\n],\n\"displayTimeUnit\": \"ms\"}\n", f);
    return written(f, t, "trace", err);
}

/* ---- SVG Gantt chart ------------------------------------------------- */

enum {
    MARGIN = 10,
    TITLE_HEIGHT = 36,
    LANE_HEIGHT = 24,
    BOX_INSET = 3,
    PLOT_WIDTH = 1000,
    AXIS_HEIGHT = 34,
    LEGEND_ROW = 20,
    SWATCH = 12,
    MIN_BOX = 2
};

/* Tableau 10: distinct hues, each readable under dark text. Categories past
 * the tenth reuse colours in order. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define PALETTE_SIZE ((int)(sizeof palette / sizeof palette[0]))

/* The chart's geometry: where the plot is and how times map onto it. */
typedef struct {
    double left, top, width, height;
    double t0, t1, scale;  /* pixels per time unit */
    double legend_top;
    int legend_rows;
} layout;

/* Width estimate of text in pixels: code points times an average glyph width. */
static double text_width(const char *s, double glyph)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n * glyph;
}

static void put_xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Legend items flow left to right and wrap at the chart's width; returns the
 * number of legend rows and, when f is given, draws them. */
static int legend(const pp_timeline *t, const layout *l, FILE *f)
{
    double x = MARGIN, right = l->left + PLOT_WIDTH, y = l->legend_top;
    int rows = t->category_count > 0;
    for (int c = 0; c < t->category_count; c++) {
        double w = SWATCH + 6 + text_width(t->category[c], 7) + 18;
        if (x > MARGIN && x + w > right) {
            x = MARGIN;
            y += LEGEND_ROW;
            rows++;
        }
        if (f) {
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#333\" "
                       "stroke-width=\"0.5\"/>\n", x, y, SWATCH, SWATCH, palette[c % PALETTE_SIZE]);
            fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">", x + SWATCH + 6, y + SWATCH - 2);
            put_xml(f, t->category[c]);
            fputs("</text>\n", f);
        }
        x += w;
    }
    return rows;
}

static pp_status plan_layout(const pp_timeline *t, layout *l, pp_error *err)
{
    double names = 60;
    for (int r = 0; r < t->row_count; r++)
        names = fmax(names, text_width(t->row_name[r], 7));
    l->left = MARGIN + names + 10;
    l->top = TITLE_HEIGHT;
    l->t0 = 0;
    l->t1 = 0;
    for (int i = 0; i < t->box_count; i++) {
        l->t0 = fmin(l->t0, t->boxes[i].start);
        l->t1 = fmax(l->t1, t->boxes[i].end);
    }
    if (l->t1 <= l->t0)
        l->t1 = l->t0 + 1;
    if (!isfinite(l->t1 - l->t0))
        return pp_error_set(err, PP_EARG, "timeline \"%s\": the times span more than a double holds", t->title);
    l->scale = PLOT_WIDTH / (l->t1 - l->t0);
    l->legend_top = l->top + t->row_count * LANE_HEIGHT + AXIS_HEIGHT + 8;
    l->legend_rows = legend(t, l, NULL);
    l->width = l->left + PLOT_WIDTH + 2 * MARGIN;
    l->height = l->legend_top + l->legend_rows * LEGEND_ROW + MARGIN;
    return PP_OK;
}

static double x_of(const layout *l, double time) { return l->left + (time - l->t0) * l->scale; }

/* A round step (1, 2 or 5 times a power of ten) giving about `target` ticks. */
static double tick_step(double range, int target)
{
    double raw = range / target, power = pow(10, floor(log10(raw))), m = raw / power;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

/* The name of the caller's time unit when it is a usual one, else NULL. */
static const char *unit_name(double us_per_unit)
{
    return us_per_unit == 1e6 ? "s" : us_per_unit == 1e3 ? "ms" : us_per_unit == 1 ? "us" : NULL;
}

/* Grid lines through the lanes, labelled ticks below them and the unit
 * left of the first tick. */
static void axis(const layout *l, int rows, const char *unit, FILE *f)
{
    double step = tick_step(l->t1 - l->t0, 8), bottom = l->top + rows * LANE_HEIGHT;
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    fprintf(f, "<g stroke=\"#999\" stroke-width=\"0.5\">\n");
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", l->left, bottom,
            l->left + PLOT_WIDTH, bottom);
    for (double k = ceil(l->t0 / step - 1e-9); k * step <= l->t1 + step * 1e-9; k++) {
        double x = x_of(l, k * step);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke-dasharray=\"2,3\"/>\n",
                x, l->top, x, bottom);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", x, bottom, x, bottom + 5);
    }
    fputs("</g>\n<g text-anchor=\"middle\">\n", f);
    for (double k = ceil(l->t0 / step - 1e-9); k * step <= l->t1 + step * 1e-9; k++)
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">%.*f</text>\n", x_of(l, k * step), bottom + 18,
                decimals, k == 0 ? 0.0 : k * step);
    fputs("</g>\n", f);
    if (unit) {
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">time (", l->left - 8, bottom + 18);
        put_xml(f, unit);
        fputs(")</text>\n", f);
    }
}

static void lanes(const pp_timeline *t, const layout *l, FILE *f)
{
    for (int r = 0; r < t->row_count; r++)
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", l->left,
                l->top + r * LANE_HEIGHT, PLOT_WIDTH, LANE_HEIGHT, r % 2 ? "#ffffff" : "#f2f2f2");
    fputs("<g text-anchor=\"end\">\n", f);
    for (int r = 0; r < t->row_count; r++) {
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">", l->left - 8, l->top + r * LANE_HEIGHT + LANE_HEIGHT / 2 + 4);
        put_xml(f, t->row_name[r]);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
}

/* Drawn boxes by row, then category, then start: the order in which boxes
 * closer than a pixel meet, so they can be drawn as one. */
static int by_row_category_start(const void *x, const void *y)
{
    const box *a = *(const box *const *)x, *b = *(const box *const *)y;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->category != b->category)
        return a->category < b->category ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

/* One row's boxes of one category as a group: its colour and one tooltip
 * (what, where, how many, how long busy), then a plain rectangle per run of
 * boxes less than MIN_BOX pixels apart where the run so far or the next box
 * is narrower than that (wide boxes keep their edges), at least MIN_BOX
 * wide. A millisecond
 * transfer in a step of seconds would otherwise be a fraction of a pixel
 * (invisible, its colour unreadable), and a tooltip per box made pictures
 * of thousands of boxes megabytes long; the trace keeps every box. */
static int draw_group(const pp_timeline *t, const layout *l, const box *const *order, int n, FILE *f)
{
    const box *first = order[0];
    int k = 0;
    double busy = 0;
    for (; k < n && order[k]->row == first->row && order[k]->category == first->category; k++)
        busy += order[k]->end - order[k]->start;
    fprintf(f, "<g fill=\"%s\"><title>", palette[first->category % PALETTE_SIZE]);
    put_xml(f, t->category[first->category]);
    fputs(" on ", f);
    put_xml(f, t->row_name[first->row]);
    fprintf(f, ": %d box%s, busy %.6g</title>\n", k, k == 1 ? "" : "es", busy);
    double y = l->top + first->row * LANE_HEIGHT + BOX_INSET;
    for (int i = 0; i < k;) {
        double end = order[i]->end;
        int j = i + 1;
        for (; j < k && (order[j]->start - end) * l->scale < MIN_BOX &&
               fmin(end - order[i]->start, order[j]->end - order[j]->start) * l->scale < MIN_BOX;
             j++)
            end = fmax(end, order[j]->end);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\"/>\n", x_of(l, order[i]->start),
                y, fmax((end - order[i]->start) * l->scale, MIN_BOX), LANE_HEIGHT - 2 * BOX_INSET);
        i = j;
    }
    fputs("</g>\n", f);
    return k;
}

static pp_status box_rects(const pp_timeline *t, const layout *l, FILE *f, pp_error *err)
{
    const box **order = malloc(((size_t)t->box_count + 1) * sizeof *order);
    if (!order)
        return pp_error_set(err, PP_ENOMEM, "timeline \"%s\": out of memory", t->title);
    int n = 0;
    for (int i = 0; i < t->box_count; i++)
        if (t->boxes[i].end > t->boxes[i].start)
            order[n++] = &t->boxes[i];
    qsort(order, (size_t)n, sizeof *order, by_row_category_start);
    for (int i = 0; i < n;)
        i += draw_group(t, l, order + i, n - i, f);
    free(order);
    return PP_OK;
}

/* Labels go on top of every box, where they fit, and let the pointer through
 * to the box beneath so its tooltip shows. */
static void box_labels(const pp_timeline *t, const layout *l, FILE *f)
{
    fputs("<g font-size=\"11\" text-anchor=\"middle\" fill=\"#111\" pointer-events=\"none\">\n", f);
    for (int i = 0; i < t->box_count; i++) {
        const box *b = &t->boxes[i];
        double w = (b->end - b->start) * l->scale;
        if (b->end <= b->start || !b->label[0] || text_width(b->label, 6.5) + 6 > w)
            continue;
        fprintf(f, "<text x=\"%.3f\" y=\"%.2f\">", x_of(l, b->start) + w / 2,
                l->top + b->row * LANE_HEIGHT + LANE_HEIGHT / 2 + 4);
        put_xml(f, b->label);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
}

pp_status pp_timeline_write_svg(const pp_timeline *t, FILE *f, pp_error *err)
{
    layout l = {0};
    pp_status st = plan_layout(t, &l, err);
    if (st != PP_OK)
        return st;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
            ceil(l.width), ceil(l.height), ceil(l.width), ceil(l.height));
    put_xml(f, t->title);
    fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", f);
    fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"16\" font-weight=\"bold\">", MARGIN);
    put_xml(f, t->title);
    fputs("</text>\n", f);
    lanes(t, &l, f);
    axis(&l, t->row_count, t->unit ? t->unit : unit_name(t->us_per_unit), f);
    fputs("<g stroke=\"#333\" stroke-width=\"0.3\">\n", f);
    st = box_rects(t, &l, f, err);
    if (st != PP_OK)
        return st;
    fputs("</g>\n", f);
    box_labels(t, &l, f);
    legend(t, &l, f);
    fputs("</svg>\n", f);
    return written(f, t, "SVG", err);
}
