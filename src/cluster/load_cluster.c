/* load_cluster.c: reads a cluster file (nodes of devices, their link classes,
 * a timeline of bandwidth changes and lost devices) and events files that add
 * to the timeline. Every error says FILE:LINE:COLUMN, the JSON path and what
 * was wrong; jansson keeps no positions, so the position is found again in
 * the text from the JSON path, only when there is an error to report.
 *
 * The format, one JSON object (examples/cluster/ has real machines):
 *
 *   {
 *     "name": "two-kinds", "comment": "any text",
 *     "nodes": [
 *       {"name": "a", "device": "RTX-4090D", "count": 8, "copies": 1,
 *        "links": [
 *          {"class": "pcie", "bandwidth": 25e9, "latency": 5e-6},
 *          {"class": "ethernet", "inter_node": true, "ports": 1,
 *           "bandwidth": 12.5e9, "latency": 1e-5}
 *        ]}
 *     ],
 *     "timeline": [
 *       {"time": 3600, "link": "ethernet", "bandwidth": 3.125e9},
 *       {"time": 3600, "link": "pcie", "node": "a", "bandwidth": 0},
 *       {"time": 7200, "lost_device": 3}
 *     ]
 *   }
 *
 * - "nodes" is required, at least one entry. "name" (top level) is optional
 *   text, default the file name; "comment" (anywhere) is text, not kept.
 * - A node: "name" (required, not empty), "device" (required, a type of the
 *   catalog, by name or alias), "count" devices (integer >= 1, required),
 *   "copies" (integer >= 1, default 1): the entry stands for that many
 *   identical nodes, named name0, name1, ... when copies > 1. Node names are
 *   unique. Devices are numbered in node order (the global rank).
 * - "links" of a node, one entry per link class: "class" (required, unique
 *   within the node), "bandwidth" (bytes/s per port and direction, > 0,
 *   required), "latency" (s per message, >= 0, default 0). By default a class
 *   is inside the node: every device has a port of it; several such classes
 *   are several physical links per device pair. "inter_node": true makes it
 *   the node's NICs to other nodes, "ports" of them (integer >= 1, default 1)
 *   shared by the node's devices. A node of several devices needs an
 *   intra-node class; when there are several nodes, each needs an inter-node
 *   class.
 * - "timeline" (optional) lists events; an events file is {"events": [...]}
 *   (plus optional "name" and "comment") with the same entries, merged into
 *   the cluster's. An event has "time" (s since the run began, >= 0,
 *   required) and either "link" (a class) with "bandwidth" (>= 0, 0 = down,
 *   required) and optional "node" (a node's name; absent = every node with
 *   that class; the class must exist in the node, or in some node), or
 *   "lost_device" (a device rank in range). Events are kept sorted by time;
 *   events at the same time keep their order, the cluster's before an events
 *   file's.
 * - Numbers are finite JSON numbers; counts are integers. Unknown keys are
 *   errors, and so are keys repeated within one object. A cluster has at most
 *   CLUSTER_MAX_DEVICES devices, CLUSTER_MAX_NODES nodes, CLUSTER_MAX_LINKS
 *   links (classes times nodes) and CLUSTER_MAX_PORTS ports per class
 *   (load_cluster.h). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/load_cluster.h"
#include "core/core_internal.h"
#include "core/grow.h"
#include "core/json.h"
#include "hw/hw_internal.h"

enum { PATH_SIZE = 160 };

typedef struct {
    const char *file;
    const char *text;
    size_t size;
    pp_error *err;
} reader;

static const char *const root_keys[] = {"name", "comment", "nodes", "timeline", NULL};
static const char *const node_keys[] = {"name", "comment", "device", "count", "copies", "links", NULL};
static const char *const link_keys[] = {"class", "comment", "inter_node", "ports", "bandwidth",
                                        "latency", NULL};
static const char *const event_keys[] = {"time", "comment", "link", "node", "bandwidth",
                                         "lost_device", NULL};
static const char *const events_root_keys[] = {"name", "comment", "events", NULL};

/* ---------------------------------------------------------------- errors */

static pp_status fail(const reader *R, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static pp_status fail(const reader *R, const char *path, const char *fmt, ...)
{
    char reason[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    int line, column;
    pp_json_locate(R->text, R->size, path, &line, &column);
    return pp_error_set(R->err, PP_EINPUT, "%s:%d:%d: %s%s%s", R->file, line, column, path,
                        path[0] ? ": " : "", reason);
}

static pp_status out_of_memory(const reader *R)
{
    return pp_error_set(R->err, PP_ENOMEM, "%s: out of memory", R->file);
}

/* The core/json.h getters say "FILE: PATH: reason"; this puts the position
 * of `path` after FILE. */
static pp_status relocate(const reader *R, const char *path, pp_status st)
{
    return pp_json_relocate(R->err, st, R->file, R->text, R->size, path);
}

static pp_status relocate_member(const reader *R, const char *path, const char *key, pp_status st)
{
    char child[PATH_SIZE];
    return relocate(R, pp_json_path(child, sizeof child, path, key, -1), st);
}

/* ---------------------------------------------------------------- typed values */

static pp_status check_keys(const reader *R, const char *path, const json_t *v,
                            const char *const *keys)
{
    pp_json_at where = {R->file, path};
    pp_status st = pp_json_object(where, v, keys, R->err);
    if (st != PP_EINPUT || !json_is_object(v))
        return relocate(R, path, st);
    const char *key;
    json_t *item;
    json_object_foreach((json_t *)v, key, item) {
        bool known = false;
        for (const char *const *k = keys; *k && !known; k++)
            known = strcmp(*k, key) == 0;
        if (!known)
            return relocate_member(R, path, key, st);
    }
    return st;
}

static pp_status get_string(const reader *R, const char *path, const json_t *obj, const char *key,
                            bool required, const char **out)
{
    pp_json_at where = {R->file, path};
    return relocate_member(R, path, key, pp_json_string(where, obj, key, required, out, R->err));
}

static pp_status get_number(const reader *R, const char *path, const json_t *obj, const char *key,
                            bool required, double min, double *out)
{
    pp_json_at where = {R->file, path};
    return relocate_member(R, path, key, pp_json_number(where, obj, key, required, min, out, R->err));
}

static pp_status get_array(const reader *R, const char *path, const json_t *obj, const char *key,
                           bool required, json_t **out)
{
    pp_json_at where = {R->file, path};
    return relocate_member(R, path, key, pp_json_array(where, obj, key, required, out, R->err));
}

static pp_status get_positive(const reader *R, const char *path, const json_t *obj,
                              const char *key, double *out)
{
    pp_status st = get_number(R, path, obj, key, true, 0, out);
    char child[PATH_SIZE];
    if (st == PP_OK && *out <= 0)
        return fail(R, pp_json_path(child, sizeof child, path, key, -1), "must be > 0, got %g", *out);
    return st;
}

static pp_status get_int(const reader *R, const char *path, const json_t *obj, const char *key,
                         bool required, int min, int max, int *out)
{
    double x = *out;
    pp_status st = get_number(R, path, obj, key, required, -INFINITY, &x);
    if (st || !json_object_get(obj, key))
        return st;
    char child[PATH_SIZE];
    if (x != floor(x) || x < min || x > max)
        return fail(R, pp_json_path(child, sizeof child, path, key, -1),
                    "expected an integer from %d to %d, got %.17g", min, max, x);
    *out = (int)x;
    return PP_OK;
}

static pp_status get_bool(const reader *R, const char *path, const json_t *obj, const char *key,
                          bool *out)
{
    json_t *v = json_object_get(obj, key);
    char child[PATH_SIZE];
    if (v && !json_is_boolean(v))
        return fail(R, pp_json_path(child, sizeof child, path, key, -1), "expected true or false");
    if (v)
        *out = json_is_true(v);
    return PP_OK;
}

/* ---------------------------------------------------------------- nodes */

/* One entry of "nodes" as read, before its copies are made. */
typedef struct {
    const char *name;
    const pp_hw_device_type *type;
    int count;
    int copies;
    int first_link; /* into the reader's list of link classes */
    int link_count;
} node_entry;

typedef struct {
    node_entry *entries;
    int entry_count;
    pp_cluster_link *links; /* names point into the JSON */
    int link_count, link_cap;
    int64_t nodes, devices, node_links;
} node_list;

static pp_status parse_link(const reader *R, const char *path, const json_t *v, pp_cluster_link *l)
{
    const char *name = NULL;
    pp_status st = check_keys(R, path, v, link_keys);
    if (!st)
        st = get_string(R, path, v, "class", true, &name);
    *l = (pp_cluster_link){(char *)name, -1, false, 1, 0.0, 0.0};
    if (!st)
        st = get_bool(R, path, v, "inter_node", &l->inter_node);
    if (!st)
        st = get_int(R, path, v, "ports", false, 1, CLUSTER_MAX_PORTS, &l->ports);
    char child[PATH_SIZE];
    if (!st && !l->inter_node && json_object_get(v, "ports"))
        return fail(R, pp_json_path(child, sizeof child, path, "ports", -1),
                    "only an inter_node class has ports (a class inside the node has one per device)");
    if (!st)
        st = get_positive(R, path, v, "bandwidth", &l->bandwidth);
    if (!st)
        st = get_number(R, path, v, "latency", false, 0, &l->latency);
    return st;
}

static pp_status parse_links(const reader *R, const char *path, const json_t *links, node_list *L,
                             node_entry *e)
{
    char child[PATH_SIZE];
    size_t n = json_array_size(links);
    if (!pp_grow((void **)&L->links, &L->link_cap, L->link_count + (int)n + 1, sizeof *L->links))
        return out_of_memory(R);
    e->first_link = L->link_count;
    for (size_t k = 0; k < n; k++) {
        pp_json_path(child, sizeof child, path, "links", (long)k);
        pp_cluster_link *l = &L->links[e->first_link + (int)k];
        pp_status st = parse_link(R, child, json_array_get(links, k), l);
        if (st)
            return st;
        for (int j = e->first_link; j < e->first_link + (int)k; j++)
            if (strcmp(L->links[j].name, l->name) == 0)
                return fail(R, child, "link class \"%s\" appears twice in this node", l->name);
        L->link_count++;
        e->link_count++;
    }
    return PP_OK;
}

static bool has_class(const node_list *L, const node_entry *e, bool inter_node)
{
    for (int k = e->first_link; k < e->first_link + e->link_count; k++)
        if (L->links[k].inter_node == inter_node)
            return true;
    return false;
}

static pp_status parse_node(const reader *R, const pp_hw_catalog *cat, const char *path,
                            const json_t *v, node_list *L, node_entry *e)
{
    const char *device = NULL;
    json_t *links = NULL;
    char child[PATH_SIZE];
    *e = (node_entry){NULL, NULL, 0, 1, L->link_count, 0};
    pp_status st = check_keys(R, path, v, node_keys);
    if (!st)
        st = get_string(R, path, v, "name", true, &e->name);
    if (!st && !e->name[0])
        return fail(R, pp_json_path(child, sizeof child, path, "name", -1), "a node needs a name");
    if (!st)
        st = get_string(R, path, v, "device", true, &device);
    if (!st && !(e->type = pp_hw_find(cat, device)))
        return fail(R, pp_json_path(child, sizeof child, path, "device", -1),
                    "unknown device type \"%s\"", device);
    if (!st)
        st = get_int(R, path, v, "count", true, 1, CLUSTER_MAX_DEVICES, &e->count);
    if (!st)
        st = get_int(R, path, v, "copies", false, 1, CLUSTER_MAX_NODES, &e->copies);
    if (!st)
        st = get_array(R, path, v, "links", false, &links);
    if (!st && links)
        st = parse_links(R, path, links, L, e);
    if (!st && e->count > 1 && !has_class(L, e, false))
        return fail(R, path, "a node of %d devices needs a link class inside the node", e->count);
    return st;
}

static pp_status count_node(const reader *R, const char *path, node_list *L, const node_entry *e)
{
    L->nodes += e->copies;
    L->devices += (int64_t)e->count * e->copies;
    L->node_links += (int64_t)e->link_count * e->copies;
    if (L->nodes > CLUSTER_MAX_NODES)
        return fail(R, path, "more than %d nodes in the cluster", CLUSTER_MAX_NODES);
    if (L->devices > CLUSTER_MAX_DEVICES)
        return fail(R, path, "more than %d devices in the cluster", CLUSTER_MAX_DEVICES);
    if (L->node_links > CLUSTER_MAX_LINKS)
        return fail(R, path, "more than %d links (classes times nodes) in the cluster",
                    CLUSTER_MAX_LINKS);
    return PP_OK;
}

static pp_status parse_nodes(const reader *R, const pp_hw_catalog *cat, const json_t *nodes,
                             node_list *L)
{
    size_t n = json_array_size(nodes);
    char path[PATH_SIZE];
    if (n == 0)
        return fail(R, "nodes", "a cluster needs at least one node");
    if (n > CLUSTER_MAX_NODES)
        return fail(R, "nodes", "more than %d nodes in the cluster", CLUSTER_MAX_NODES);
    L->entries = calloc(n, sizeof *L->entries);
    if (!L->entries)
        return out_of_memory(R);
    for (size_t k = 0; k < n; k++) {
        pp_json_path(path, sizeof path, "", "nodes", (long)k);
        pp_status st = parse_node(R, cat, path, json_array_get(nodes, k), L, &L->entries[k]);
        if (!st)
            st = count_node(R, path, L, &L->entries[k]);
        if (st)
            return st;
        L->entry_count++;
    }
    for (int k = 0; L->nodes > 1 && k < L->entry_count; k++)
        if (!has_class(L, &L->entries[k], true))
            return fail(R, pp_json_path(path, sizeof path, "", "nodes", k),
                        "the cluster has several nodes: this node needs an inter_node link class");
    return PP_OK;
}

/* ---------------------------------------------------------------- building */

static pp_status name_node(const reader *R, pp_cluster *c, json_t *names, const node_entry *e,
                           int entry, int copy, int node)
{
    size_t size = strlen(e->name) + 12;
    char *name = pp_arena_alloc(c->arena, size), parent[PATH_SIZE], path[PATH_SIZE];
    if (!name)
        return out_of_memory(R);
    if (e->copies > 1)
        snprintf(name, size, "%s%d", e->name, copy);
    else
        memcpy(name, e->name, size - 11);
    pp_json_path(parent, sizeof parent, "", "nodes", entry);
    pp_json_path(path, sizeof path, parent, "name", -1);
    if (json_object_get(names, name))
        return fail(R, path, "two nodes are named \"%s\"", name);
    c->nodes[node].name = name;
    return json_object_set_new(names, name, json_true()) ? out_of_memory(R) : PP_OK;
}

static pp_status add_node(const reader *R, pp_cluster *c, json_t *names, const node_list *L,
                          int entry, int copy)
{
    const node_entry *e = &L->entries[entry];
    int n = c->node_count++;
    pp_status st = name_node(R, c, names, e, entry, copy, n);
    if (st)
        return st;
    pp_cluster_node *node = &c->nodes[n];
    node->type = e->type;
    node->first_device = c->device_count;
    node->device_count = e->count;
    for (int k = 0; k < e->count; k++)
        c->device_node[c->device_count++] = n;
    for (int k = 0; k < e->link_count; k++) {
        pp_cluster_link *l = &c->links[c->link_count++];
        *l = L->links[e->first_link + k];
        l->node = n;
        l->name = pp_arena_strdup(c->arena, l->name);
        if (!l->name)
            return out_of_memory(R);
    }
    return PP_OK;
}

static pp_status build_nodes(const reader *R, pp_cluster *c, const node_list *L)
{
    pp_arena *a = c->arena;
    c->nodes = pp_arena_calloc(a, (size_t)L->nodes, sizeof *c->nodes);
    c->device_node = pp_arena_calloc(a, (size_t)L->devices, sizeof *c->device_node);
    c->links = pp_arena_calloc(a, (size_t)L->node_links + 1, sizeof *c->links);
    json_t *names = json_object();
    if (!c->nodes || !c->device_node || !c->links || !names) {
        json_decref(names);
        return out_of_memory(R);
    }
    pp_status st = PP_OK;
    for (int k = 0; !st && k < L->entry_count; k++)
        for (int copy = 0; !st && copy < L->entries[k].copies; copy++)
            st = add_node(R, c, names, L, k, copy);
    json_decref(names);
    return st;
}

/* ---------------------------------------------------------------- events */

/* What an event may name: nodes by name, link classes of any node, and the
 * links of each node (links[link_start[n] .. link_start[n + 1]]). */
typedef struct {
    json_t *nodes;
    json_t *classes;
    int *link_start;
} cluster_index;

static void index_free(cluster_index *x)
{
    json_decref(x->nodes);
    json_decref(x->classes);
    free(x->link_start);
}

static bool index_make(const pp_cluster *c, cluster_index *x)
{
    x->nodes = json_object();
    x->classes = json_object();
    x->link_start = calloc((size_t)c->node_count + 1, sizeof *x->link_start);
    bool ok = x->nodes && x->classes && x->link_start;
    for (int n = 0; ok && n < c->node_count; n++)
        ok = json_object_set_new(x->nodes, c->nodes[n].name, json_integer(n)) == 0;
    for (int k = 0; ok && k < c->link_count; k++) {
        ok = json_object_set_new(x->classes, c->links[k].name, json_true()) == 0;
        x->link_start[c->links[k].node + 1] = k + 1;
    }
    for (int n = 0; ok && n < c->node_count; n++)
        if (x->link_start[n + 1] < x->link_start[n])
            x->link_start[n + 1] = x->link_start[n];
    return ok;
}

static bool node_has_class(const pp_cluster *c, const cluster_index *x, int node, const char *name)
{
    for (int k = x->link_start[node]; k < x->link_start[node + 1]; k++)
        if (strcmp(c->links[k].name, name) == 0)
            return true;
    return false;
}

static pp_status parse_link_event(const reader *R, const pp_cluster *c, const cluster_index *x,
                                  const char *path, const json_t *v, pp_cluster_event *e)
{
    const char *link = NULL, *node = NULL;
    char child[PATH_SIZE];
    pp_status st = get_string(R, path, v, "link", true, &link);
    if (!st)
        st = get_string(R, path, v, "node", false, &node);
    if (!st)
        st = get_number(R, path, v, "bandwidth", true, 0, &e->bandwidth);
    if (st)
        return st;
    json_t *index = node ? json_object_get(x->nodes, node) : NULL;
    if (node && !index)
        return fail(R, pp_json_path(child, sizeof child, path, "node", -1), "no node is named \"%s\"",
                    node);
    e->node = index ? (int)json_integer_value(index) : -1;
    pp_json_path(child, sizeof child, path, "link", -1);
    if (node && !node_has_class(c, x, e->node, link))
        return fail(R, child, "node \"%s\" has no link class \"%s\"", node, link);
    if (!node && !json_object_get(x->classes, link))
        return fail(R, child, "no node has a link class \"%s\"", link);
    e->link = pp_arena_strdup(c->arena, link);
    return e->link ? PP_OK : out_of_memory(R);
}

static pp_status parse_event(const reader *R, const pp_cluster *c, const cluster_index *x,
                             const char *path, const json_t *v, pp_cluster_event *e)
{
    *e = (pp_cluster_event){0.0, NULL, -1, 0.0, -1};
    pp_status st = check_keys(R, path, v, event_keys);
    if (!st)
        st = get_number(R, path, v, "time", true, 0, &e->time);
    if (st)
        return st;
    bool link = json_object_get(v, "link"), lost = json_object_get(v, "lost_device");
    if (link == lost)
        return fail(R, path, "an event has either \"link\" or \"lost_device\"%s",
                    link ? ", not both" : "");
    if (link)
        return parse_link_event(R, c, x, path, v, e);
    char child[PATH_SIZE];
    const char *extra = json_object_get(v, "node") ? "node" : "bandwidth";
    if (json_object_get(v, extra))
        return fail(R, pp_json_path(child, sizeof child, path, extra, -1),
                    "a lost_device event has no \"%s\"", extra);
    e->link = pp_arena_strdup(c->arena, "");
    if (!e->link)
        return out_of_memory(R);
    return get_int(R, path, v, "lost_device", true, 0, c->device_count - 1, &e->lost_device);
}

typedef struct {
    pp_cluster_event e;
    size_t order;
} ordered_event;

static int compare_events(const void *a, const void *b)
{
    const ordered_event *x = a, *y = b;
    if (x->e.time != y->e.time)
        return x->e.time < y->e.time ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* c's events and then `more`, sorted by time, ties in that order. */
static pp_status merge_events(const reader *R, pp_cluster *c, const ordered_event *more, size_t n)
{
    size_t total = (size_t)c->event_count + n;
    if (total > INT32_MAX)
        return fail(R, "", "too many events");
    ordered_event *all = malloc((total + 1) * sizeof *all);
    pp_cluster_event *events = pp_arena_alloc(c->arena, (total + 1) * sizeof *events);
    if (!all || !events) {
        free(all);
        return out_of_memory(R);
    }
    for (size_t k = 0; k < (size_t)c->event_count; k++)
        all[k] = (ordered_event){c->events[k], k};
    for (size_t k = 0; k < n; k++)
        all[c->event_count + k] = (ordered_event){more[k].e, c->event_count + k};
    qsort(all, total, sizeof *all, compare_events);
    for (size_t k = 0; k < total; k++)
        events[k] = all[k].e;
    free(all);
    c->events = events;
    c->event_count = (int)total;
    return PP_OK;
}

/* Reads the events of `list` (an array at `path`) and merges them into c;
 * c is unchanged if anything is wrong. */
static pp_status add_events(const reader *R, pp_cluster *c, const char *path, const json_t *list)
{
    size_t n = json_array_size(list);
    cluster_index x = {0};
    ordered_event *more = malloc((n + 1) * sizeof *more);
    pp_status st = more && index_make(c, &x) ? PP_OK : out_of_memory(R);
    char child[PATH_SIZE];
    for (size_t k = 0; !st && k < n; k++) {
        pp_json_path(child, sizeof child, "", path, (long)k);
        st = parse_event(R, c, &x, child, json_array_get(list, k), &more[k].e);
    }
    if (!st)
        st = merge_events(R, c, more, n);
    index_free(&x);
    free(more);
    return st;
}

/* ---------------------------------------------------------------- readers */

static pp_status read_cluster(const reader *R, const json_t *root, const pp_hw_catalog *cat,
                              pp_cluster *c)
{
    const char *name = R->file;
    json_t *nodes = NULL, *timeline = NULL;
    pp_status st = check_keys(R, "", root, root_keys);
    if (!st)
        st = get_string(R, "", root, "name", false, &name);
    if (!st)
        st = get_array(R, "", root, "nodes", true, &nodes);
    if (!st)
        st = get_array(R, "", root, "timeline", false, &timeline);
    if (st)
        return st;
    c->name = pp_arena_strdup(c->arena, name);
    if (!c->name)
        return out_of_memory(R);
    node_list L = {0};
    st = parse_nodes(R, cat, nodes, &L);
    if (!st)
        st = build_nodes(R, c, &L);
    free(L.entries);
    free(L.links);
    if (!st && timeline)
        st = add_events(R, c, "timeline", timeline);
    return st;
}

pp_status pp_cluster_load_buffer(const char *name, const void *data, size_t size,
                                 const pp_hw_catalog *cat, pp_cluster **out, pp_error *err)
{
    *out = NULL;
    reader R = {name, data, size, err};
    json_t *root = NULL;
    pp_status st = pp_json_load_buffer(name, data, size, &root, err);
    if (st)
        return st;
    pp_arena *a = pp_arena_new(1 << 16);
    pp_cluster *c = a ? pp_arena_calloc(a, 1, sizeof *c) : NULL;
    if (!c) {
        pp_arena_free(a);
        json_decref(root);
        return out_of_memory(&R);
    }
    c->arena = a;
    st = read_cluster(&R, root, cat, c);
    json_decref(root);
    if (st) {
        pp_cluster_free(c);
        return st;
    }
    *out = c;
    return PP_OK;
}

pp_status cluster_add_events_buffer(pp_cluster *c, const char *name, const void *data,
                                    size_t size, pp_error *err)
{
    reader R = {name, data, size, err};
    json_t *root = NULL, *events = NULL;
    const char *text = NULL;
    pp_status st = pp_json_load_buffer(name, data, size, &root, err);
    if (!st)
        st = check_keys(&R, "", root, events_root_keys);
    if (!st)
        st = get_string(&R, "", root, "name", false, &text);
    if (!st)
        st = get_array(&R, "", root, "events", true, &events);
    if (!st)
        st = add_events(&R, c, "events", events);
    json_decref(root);
    return st;
}

pp_status pp_cluster_load(const char *path, const pp_hw_catalog *cat, pp_cluster **out,
                          pp_error *err)
{
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    pp_status st = pp_read_text_file(path, &text, &size, err);
    if (!st)
        st = pp_cluster_load_buffer(path, text, size, cat, out, err);
    free(text);
    return st;
}

pp_status pp_cluster_add_events_file(pp_cluster *c, const char *path, pp_error *err)
{
    char *text = NULL;
    size_t size = 0;
    pp_status st = pp_read_text_file(path, &text, &size, err);
    if (!st)
        st = cluster_add_events_buffer(c, path, text, size, err);
    free(text);
    return st;
}
