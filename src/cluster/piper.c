/* piper.c: reads a profiled workload in the Piper planner's JSON format
 * (Tarnawski et al., "Piper: Multidimensional Planner for DNN
 * Parallelization", NeurIPS 2021; the format is documented in the README of
 * github.com/msr-fiddle/piper) and turns its layer graph into our list of
 * layers.
 *
 * The fields read, all required unless said: "maxDevices" (1 to 10000),
 * "bandwidth" and "maxMemoryPerDevice" (> 0; checked, not kept: the cluster
 * says these), "mbsInBatch" (>= 1; Piper's code reads this name where its
 * README says "maxBatchSize"), "name" (optional), "nodes" (at least one) and
 * "edges" (at least one). A node: "id" (a whole number >= 0, unique), "name"
 * (optional), "TMPCs": per tensor-parallel degree ("1" to "10000") a list
 * of options, each "id" (non-empty, unique within the degree; "vanilla" and
 * "activation recomp" are the ones used), "timePerSample" (seconds of
 * forward + backward of one sample on the profiling device), "parameterSize"
 * (bytes of weights), "memoryUsageA" (bytes per sample in flight),
 * "memoryUsageB" (bytes, constant), "syncTimeFw" (keyed by the source of
 * every incoming edge, no other) and "syncTimeBw" (keyed by the head of
 * every outgoing edge). An edge: "sourceId" and "destId" (ids of two
 * different nodes, the pair at most once), "communicationCost" (bytes per
 * sample). Every number is >= 0 and the edges form no cycle. These are the
 * checks of Piper's Instance::checkInputCorrectness; errors name the file and
 * the JSON path, and load_workload.c puts the line and column in. Piper
 * allows other debug fields, so other keys are ignored. Every node needs a
 * degree-1 "vanilla" option.
 *
 * The conversion, per node, from the degree-1 "vanilla" option:
 * - FLOPs: Piper gives times measured on A100s (bert32a100; we take the
 *   other files to be alike), so work = time x the rate of the catalog's
 *   "A100-80GB-SXM" (peak_flops x efficiency_compute), and other devices
 *   scale by their own rate. The forward is a third of it and the backward
 *   two thirds (a backward costs twice its forward); recomputation is the
 *   extra time of the "activation recomp" option (the forward when the node
 *   has no such option).
 * - weight and traffic bytes are 0: the measured time already includes the
 *   profiling device's memory traffic, and the roofline must not count it
 *   twice.
 * - state = memoryUsageB, gradient = parameterSize, activations =
 *   memoryUsageA (all split by tensor parallelism), checkpoint = memoryUsageA
 *   of "activation recomp" (or vanilla's when absent).
 * - tensor-parallel bytes: the sums of the vanilla option's syncTimeFw and
 *   syncTimeBw at the smallest degree above 1 (in the files they are the
 *   bytes of the tensors all-reduced, equal at every degree).
 * - output bytes of the layer at position k of a topological order (Kahn's
 *   algorithm, smallest id first): the communicationCost of every edge that
 *   crosses a cut after k, which is what a pipeline cut there sends.
 * The workload's tp_divisor is the largest degree the file profiles; its
 * global batch is mbsInBatch, Piper's micro-batches per batch, taken as
 * samples because Piper prices everything per sample and calls the two the
 * same (its data-parallel resync cost is "per sample (microbatch)");
 * recompute is false; its name is "name" or the file's. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/json.h"
#include "cluster/workload_internal.h"
#include "hw/hw_internal.h"

#define PROFILING_DEVICE "A100-80GB-SXM"
/* Piper's DEVICES_LIMIT: bounds maxDevices and the tensor-parallel degrees. */
#define DEGREE_LIMIT 10000

enum { PATH_SIZE = 128 };

typedef struct {
    int64_t id;
    const char *name;
    double time, recompute_time, parameters, memory_a, memory_b, checkpoint;
    double tp_forward, tp_backward;
    int max_degree;
} piper_node;

typedef struct {
    int source, dest; /* node indices */
    double cost;
} piper_edge;

typedef struct {
    const char *file;
    pp_error *err;
    int node_count, edge_count;
    piper_node *nodes;
    piper_edge *edges;
    json_t *index; /* "id" -> node index */
    json_t *edge_index; /* "sourceId>destId" -> edge index */
    int *in_count, *out_count; /* edges into and out of each node */
    int *order;    /* [position] -> node index */
    int *position; /* [node index] -> position */
} piper;

static pp_status out_of_memory(const piper *P)
{
    return pp_error_set(P->err, PP_ENOMEM, "%s: out of memory", P->file);
}

static pp_status whole_number(pp_json_at at, const json_t *obj, const char *key, double min,
                              int64_t *out, pp_error *err)
{
    double x = 0;
    pp_status st = pp_json_number(at, obj, key, true, min, &x, err);
    if (st)
        return st;
    if (x != floor(x) || x > 1e15) {
        char path[PATH_SIZE];
        return pp_error_set(err, PP_EINPUT, "%s: %s: must be a whole number, got %g", at.file,
                            pp_json_path(path, sizeof path, at.path, key, -1), x);
    }
    *out = (int64_t)x;
    return PP_OK;
}

/* Sum of a syncTime map's values, each a number >= 0. */
static pp_status sync_sum(pp_json_at at, const json_t *option, const char *key, double *out,
                          pp_error *err)
{
    char path[PATH_SIZE], item[PATH_SIZE + 64];
    pp_json_at sat = {at.file, pp_json_path(path, sizeof path, at.path, key, -1)};
    json_t *map = json_object_get(option, key);
    *out = 0;
    if (!json_is_object(map))
        return pp_error_set(err, PP_EINPUT, "%s: %s: required, an object", at.file, sat.path);
    const char *k;
    json_t *v;
    json_object_foreach(map, k, v) {
        double x;
        pp_json_at vat = {at.file, pp_json_path(item, sizeof item, sat.path, k, -1)};
        pp_status st = pp_json_as_number(vat, v, 0.0, &x, err);
        if (st)
            return st;
        *out += x;
    }
    return PP_OK;
}

typedef struct {
    double time, parameters, memory_a, memory_b, tp_forward, tp_backward;
} option_figures;

static pp_status read_option(pp_json_at at, const json_t *option, const char **id,
                             option_figures *f, pp_error *err)
{
    pp_status st;
    if (!json_is_object(option))
        return pp_error_set(err, PP_EINPUT, "%s: %s: expected an object", at.file, at.path);
    if ((st = pp_json_string(at, option, "id", true, id, err)) ||
        (st = pp_json_number(at, option, "timePerSample", true, 0.0, &f->time, err)) ||
        (st = pp_json_number(at, option, "parameterSize", true, 0.0, &f->parameters, err)) ||
        (st = pp_json_number(at, option, "memoryUsageA", true, 0.0, &f->memory_a, err)) ||
        (st = pp_json_number(at, option, "memoryUsageB", true, 0.0, &f->memory_b, err)) ||
        (st = sync_sum(at, option, "syncTimeFw", &f->tp_forward, err)) ||
        (st = sync_sum(at, option, "syncTimeBw", &f->tp_backward, err)))
        return st;
    return PP_OK;
}

/* A TMPCs key: a tensor-parallel degree, 1 to DEGREE_LIMIT; 0 if not. */
static int degree_of(const char *key)
{
    char *end;
    long d = strtol(key, &end, 10);
    return key[0] >= '1' && key[0] <= '9' && !*end && d <= DEGREE_LIMIT ? (int)d : 0;
}

/* Piper tells a degree's options apart by their ids. */
static pp_status check_option_id(pp_json_at at, const json_t *options, size_t k, const char *id,
                                 pp_error *err)
{
    if (!id[0])
        return pp_error_set(err, PP_EINPUT, "%s: %s.id: is empty", at.file, at.path);
    for (size_t j = 0; j < k; j++)
        if (strcmp(json_string_value(json_object_get(json_array_get(options, j), "id")), id) == 0)
            return pp_error_set(err, PP_EINPUT, "%s: %s.id: \"%s\" is also option %zu's id",
                                at.file, at.path, id, j);
    return PP_OK;
}

static void keep_option(piper_node *n, int degree, int lowest_tp, const char *id,
                        const option_figures *f, bool *vanilla, bool *recomp)
{
    if (degree == 1 && strcmp(id, "vanilla") == 0) {
        *vanilla = true;
        n->time = f->time;
        n->parameters = f->parameters;
        n->memory_a = f->memory_a;
        n->memory_b = f->memory_b;
    } else if (degree == 1 && strcmp(id, "activation recomp") == 0) {
        *recomp = true;
        n->recompute_time = f->time;
        n->checkpoint = f->memory_a;
    } else if (degree > 1 && degree == lowest_tp && strcmp(id, "vanilla") == 0) {
        n->tp_forward = f->tp_forward;
        n->tp_backward = f->tp_backward;
    }
}

static int lowest_tp_degree(const json_t *tmpcs)
{
    int lowest = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)tmpcs, key, v) {
        int d = degree_of(key);
        if (d > 1 && (!lowest || d < lowest))
            lowest = d;
    }
    return lowest;
}

static pp_status read_tmpcs(pp_json_at at, const json_t *node, piper_node *n, pp_error *err)
{
    char path[PATH_SIZE], list_path[PATH_SIZE], item[PATH_SIZE];
    pp_json_at tat = {at.file, pp_json_path(path, sizeof path, at.path, "TMPCs", -1)};
    json_t *tmpcs = json_object_get(node, "TMPCs");
    if (!json_is_object(tmpcs))
        return pp_error_set(err, PP_EINPUT, "%s: %s: required, an object", at.file, tat.path);
    int lowest_tp = lowest_tp_degree(tmpcs);
    bool vanilla = false, recomp = false;
    const char *key;
    json_t *options;
    json_object_foreach(tmpcs, key, options) {
        int degree = degree_of(key);
        pp_json_at lat = {at.file, pp_json_path(list_path, sizeof list_path, tat.path, key, -1)};
        if (!degree)
            return pp_error_set(err, PP_EINPUT, "%s: %s: a tensor-parallel degree must be an "
                                "integer from 1 to %d", at.file, lat.path, DEGREE_LIMIT);
        if (!json_is_array(options))
            return pp_error_set(err, PP_EINPUT, "%s: %s: expected an array", at.file, lat.path);
        n->max_degree = degree > n->max_degree ? degree : n->max_degree;
        for (size_t k = 0; k < json_array_size(options); k++) {
            pp_json_at oat = {at.file, pp_json_path(item, sizeof item, tat.path, key, (long)k)};
            option_figures f;
            const char *id;
            pp_status st = read_option(oat, json_array_get(options, k), &id, &f, err);
            if (!st)
                st = check_option_id(oat, options, k, id, err);
            if (st)
                return st;
            keep_option(n, degree, lowest_tp, id, &f, &vanilla, &recomp);
        }
    }
    if (!vanilla)
        return pp_error_set(err, PP_EINPUT, "%s: %s: no \"vanilla\" option for degree 1", at.file,
                            tat.path);
    if (!recomp) {
        n->recompute_time = n->time * 4 / 3;
        n->checkpoint = n->memory_a;
    }
    return PP_OK;
}

static pp_status read_node(piper *P, size_t i, const json_t *node)
{
    char path[PATH_SIZE], key[32];
    pp_json_at at = {P->file, pp_json_path(path, sizeof path, "nodes", "", (long)i)};
    piper_node *n = &P->nodes[i];
    pp_status st;
    if (!json_is_object(node))
        return pp_error_set(P->err, PP_EINPUT, "%s: %s: expected an object", P->file, at.path);
    n->name = NULL;
    if ((st = whole_number(at, node, "id", 0.0, &n->id, P->err)) ||
        (st = pp_json_string(at, node, "name", false, &n->name, P->err)) ||
        (st = read_tmpcs(at, node, n, P->err)))
        return st;
    snprintf(key, sizeof key, "%lld", (long long)n->id);
    json_t *before = json_object_get(P->index, key);
    if (before)
        return pp_error_set(P->err, PP_EINPUT, "%s: %s.id: %lld is also the id of nodes[%lld]",
                            P->file, at.path, (long long)n->id,
                            (long long)json_integer_value(before));
    if (json_object_set_new(P->index, key, json_integer((json_int_t)i)))
        return out_of_memory(P);
    return PP_OK;
}

/* An edge's endpoint as a node index, or an error naming the edge. */
static pp_status endpoint(piper *P, pp_json_at at, const json_t *edge, const char *key, int *out)
{
    int64_t id = 0;
    char name[32], path[PATH_SIZE];
    pp_status st = whole_number(at, edge, key, 0.0, &id, P->err);
    if (st)
        return st;
    snprintf(name, sizeof name, "%lld", (long long)id);
    json_t *v = json_object_get(P->index, name);
    if (!v)
        return pp_error_set(P->err, PP_EINPUT, "%s: %s: no node has id %lld", P->file,
                            pp_json_path(path, sizeof path, at.path, key, -1), (long long)id);
    *out = (int)json_integer_value(v);
    return PP_OK;
}

static pp_status read_edge(piper *P, size_t i, const json_t *edge)
{
    char path[PATH_SIZE], key[64];
    pp_json_at at = {P->file, pp_json_path(path, sizeof path, "edges", "", (long)i)};
    piper_edge *e = &P->edges[i];
    pp_status st;
    if (!json_is_object(edge))
        return pp_error_set(P->err, PP_EINPUT, "%s: %s: expected an object", P->file, at.path);
    if ((st = endpoint(P, at, edge, "sourceId", &e->source)) ||
        (st = endpoint(P, at, edge, "destId", &e->dest)) ||
        (st = pp_json_number(at, edge, "communicationCost", true, 0.0, &e->cost, P->err)))
        return st;
    long long from = (long long)P->nodes[e->source].id, to = (long long)P->nodes[e->dest].id;
    if (e->source == e->dest)
        return pp_error_set(P->err, PP_EINPUT, "%s: %s: edge from node %lld to itself (a cycle)",
                            P->file, at.path, from);
    snprintf(key, sizeof key, "%lld>%lld", from, to);
    json_t *before = json_object_get(P->edge_index, key);
    if (before)
        return pp_error_set(P->err, PP_EINPUT, "%s: %s: edge %lld -> %lld is also edges[%lld]",
                            P->file, at.path, from, to, (long long)json_integer_value(before));
    if (json_object_set_new(P->edge_index, key, json_integer((json_int_t)i)))
        return out_of_memory(P);
    P->out_count[e->source]++;
    P->in_count[e->dest]++;
    return PP_OK;
}

/* As Piper checks: node v's syncTimeFw names exactly the sources of its
 * incoming edges, and its syncTimeBw exactly the heads of its outgoing ones. */
static pp_status check_sync_map(const piper *P, pp_json_at at, const json_t *map, int v,
                                bool incoming)
{
    long long self = (long long)P->nodes[v].id;
    int count = 0;
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)map, key, x) {
        char *end, pair[64];
        long long other = strtoll(key, &end, 10);
        snprintf(pair, sizeof pair, "%lld>%lld", incoming ? other : self, incoming ? self : other);
        if (end == key || *end || !json_object_get(P->edge_index, pair)) {
            snprintf(pair, sizeof pair, "%s -> %lld", key, self);
            if (!incoming)
                snprintf(pair, sizeof pair, "%lld -> %s", self, key);
            return pp_error_set(P->err, PP_EINPUT, "%s: %s: key \"%s\": there is no edge %s",
                                P->file, at.path, key, pair);
        }
        count++;
    }
    int want = incoming ? P->in_count[v] : P->out_count[v];
    if (count != want)
        return pp_error_set(P->err, PP_EINPUT, "%s: %s: names %d of node %lld's %d %s edges; "
                            "it must name them all", P->file, at.path, count, self, want,
                            incoming ? "incoming" : "outgoing");
    return PP_OK;
}

static pp_status check_sync(const piper *P, int v, const json_t *node)
{
    char path[PATH_SIZE], fw[PATH_SIZE + 16], bw[PATH_SIZE + 16];
    const char *key;
    json_t *options;
    json_object_foreach(json_object_get(node, "TMPCs"), key, options) {
        for (size_t k = 0; k < json_array_size(options); k++) {
            json_t *option = json_array_get(options, k);
            char at_path[PATH_SIZE];
            snprintf(at_path, sizeof at_path, "nodes[%d].TMPCs", v);
            pp_json_path(path, sizeof path, at_path, key, (long)k);
            pp_json_at fat = {P->file, pp_json_path(fw, sizeof fw, path, "syncTimeFw", -1)};
            pp_json_at bat = {P->file, pp_json_path(bw, sizeof bw, path, "syncTimeBw", -1)};
            pp_status st = check_sync_map(P, fat, json_object_get(option, "syncTimeFw"), v, true);
            if (!st)
                st = check_sync_map(P, bat, json_object_get(option, "syncTimeBw"), v, false);
            if (st)
                return st;
        }
    }
    return PP_OK;
}

static pp_status read_graph(piper *P, const json_t *nodes, const json_t *edges)
{
    pp_status st = PP_OK;
    for (size_t i = 0; !st && i < json_array_size(nodes); i++)
        st = read_node(P, i, json_array_get(nodes, i));
    for (size_t i = 0; !st && i < json_array_size(edges); i++)
        st = read_edge(P, i, json_array_get(edges, i));
    for (int v = 0; !st && v < P->node_count; v++)
        st = check_sync(P, v, json_array_get(nodes, (size_t)v));
    return st;
}

/* A node on a cycle, given the nodes Kahn's algorithm could not place: each
 * has an unplaced predecessor, so walking back node_count steps from any of
 * them ends on a cycle. */
static int node_on_cycle(const piper *P)
{
    int at = 0;
    while (P->position[at] >= 0)
        at++;
    for (int step = 0; step < P->node_count; step++)
        for (int e = 0; e < P->edge_count; e++)
            if (P->edges[e].dest == at && P->position[P->edges[e].source] < 0) {
                at = P->edges[e].source;
                break;
            }
    return at;
}

/* Kahn's algorithm, taking the ready node of smallest id each time, so the
 * order does not depend on how the file lists its nodes. */
static pp_status topological_order(piper *P, int *indegree)
{
    for (int v = 0; v < P->node_count; v++)
        P->position[v] = -1;
    for (int e = 0; e < P->edge_count; e++)
        indegree[P->edges[e].dest]++;
    for (int placed = 0; placed < P->node_count; placed++) {
        int next = -1;
        for (int v = 0; v < P->node_count; v++)
            if (P->position[v] < 0 && indegree[v] == 0 &&
                (next < 0 || P->nodes[v].id < P->nodes[next].id))
                next = v;
        if (next < 0) {
            int v = node_on_cycle(P);
            return pp_error_set(P->err, PP_EINPUT, "%s: edges: a cycle runs through node %lld "
                                "(nodes[%d]); a Piper graph must be acyclic",
                                P->file, (long long)P->nodes[v].id, v);
        }
        P->position[next] = placed;
        P->order[placed] = next;
        for (int e = 0; e < P->edge_count; e++)
            if (P->edges[e].source == next)
                indegree[P->edges[e].dest]--;
    }
    return PP_OK;
}

static void fill_layer(const piper_node *n, double rate, pp_cluster_layer *l)
{
    l->forward_flops = n->time / 3 * rate;
    l->backward_flops = n->time * 2 / 3 * rate;
    l->recompute_flops = fmax(n->recompute_time - n->time, 0.0) * rate;
    l->state_bytes = n->memory_b;
    l->gradient_bytes = n->parameters;
    l->activation_bytes = n->memory_a;
    l->checkpoint_bytes = n->checkpoint;
    l->tp_forward_bytes = n->tp_forward;
    l->tp_backward_bytes = n->tp_backward;
}

static pp_status build(piper *P, const char *name, double rate, int64_t batch,
                       pp_cluster_workload **out)
{
    pp_cluster_workload *w = cluster_workload_new(P->node_count, name);
    if (!w)
        return out_of_memory(P);
    for (int k = 0; k < P->node_count; k++) {
        const piper_node *n = &P->nodes[P->order[k]];
        char fallback[32];
        snprintf(fallback, sizeof fallback, "node%lld", (long long)n->id);
        fill_layer(n, rate, &w->layers[k]);
        w->layers[k].name = cluster_workload_strdup(w, n->name ? n->name : fallback);
        if (!w->layers[k].name) {
            pp_cluster_workload_free(w);
            return out_of_memory(P);
        }
        w->tp_divisor = n->max_degree > w->tp_divisor ? n->max_degree : w->tp_divisor;
    }
    for (int e = 0; e < P->edge_count; e++)
        for (int k = P->position[P->edges[e].source]; k < P->position[P->edges[e].dest]; k++)
            w->layers[k].output_bytes += P->edges[e].cost;
    w->global_batch = batch;
    *out = w;
    return PP_OK;
}

static pp_status profiling_rate(const char *file, const pp_hw_catalog *cat, double *rate,
                                pp_error *err)
{
    const pp_hw_device_type *t = pp_hw_find(cat, PROFILING_DEVICE);
    if (!t)
        return pp_error_set(err, PP_EARG, "%s: a Piper profile needs the device type \"%s\" "
                            "(its timings were measured on it) in the catalog", file,
                            PROFILING_DEVICE);
    *rate = t->peak_flops * t->efficiency_compute;
    return PP_OK;
}

/* Piper refuses a bandwidth or memory size of 0; we read neither further. */
static pp_status positive(pp_json_at at, const json_t *root, const char *key, pp_error *err)
{
    double x = 0;
    pp_status st = pp_json_number(at, root, key, true, 0.0, &x, err);
    if (!st && x <= 0)
        st = pp_error_set(err, PP_EINPUT, "%s: %s: must be > 0", at.file, key);
    return st;
}

static pp_status read_top(const char *file, const json_t *root, json_t **nodes, json_t **edges,
                          int64_t *batch, const char **name, pp_error *err)
{
    pp_json_at at = {file, ""};
    int64_t devices = 0;
    pp_status st;
    if ((st = pp_json_array(at, root, "nodes", true, nodes, err)) ||
        (st = pp_json_array(at, root, "edges", true, edges, err)) ||
        (st = whole_number(at, root, "maxDevices", 1.0, &devices, err)) ||
        (st = positive(at, root, "bandwidth", err)) ||
        (st = positive(at, root, "maxMemoryPerDevice", err)) ||
        (st = whole_number(at, root, "mbsInBatch", 1.0, batch, err)) ||
        (st = pp_json_string(at, root, "name", false, name, err)))
        return st;
    if (devices > DEGREE_LIMIT)
        return pp_error_set(err, PP_EINPUT, "%s: maxDevices: at most %d, got %lld", file,
                            DEGREE_LIMIT, (long long)devices);
    if (json_array_size(*nodes) == 0 || json_array_size(*edges) == 0 ||
        json_array_size(*nodes) > INT_MAX / 4 || json_array_size(*edges) > INT_MAX / 4)
        return pp_error_set(err, PP_EINPUT, "%s: %zu nodes and %zu edges; Piper needs at least one "
                            "of each", file, json_array_size(*nodes), json_array_size(*edges));
    return PP_OK;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static pp_status read_piper(piper *P, const json_t *root, double rate, pp_cluster_workload **out)
{
    json_t *nodes, *edges;
    int64_t batch = 0;
    const char *name = base_name(P->file);
    pp_status st = read_top(P->file, root, &nodes, &edges, &batch, &name, P->err);
    if (st)
        return st;
    P->node_count = (int)json_array_size(nodes);
    P->edge_count = (int)json_array_size(edges);
    P->nodes = calloc((size_t)P->node_count, sizeof *P->nodes);
    P->edges = calloc((size_t)P->edge_count + 1, sizeof *P->edges);
    P->order = calloc((size_t)P->node_count, sizeof *P->order);
    P->position = calloc((size_t)P->node_count, sizeof *P->position);
    P->in_count = calloc((size_t)P->node_count, sizeof *P->in_count);
    P->out_count = calloc((size_t)P->node_count, sizeof *P->out_count);
    int *indegree = calloc((size_t)P->node_count, sizeof *indegree);
    P->index = json_object();
    P->edge_index = json_object();
    if (!P->nodes || !P->edges || !P->order || !P->position || !P->in_count || !P->out_count ||
        !indegree || !P->index || !P->edge_index)
        st = out_of_memory(P);
    if (!st && !(st = read_graph(P, nodes, edges)) && !(st = topological_order(P, indegree)))
        st = build(P, name, rate, batch, out);
    free(indegree);
    return st;
}

pp_status cluster_piper_read(const char *file, const json_t *root, const pp_hw_catalog *cat,
                             pp_cluster_workload **out, pp_error *err)
{
    double rate = 0;
    pp_status st = profiling_rate(file, cat, &rate, err);
    if (st)
        return st;
    piper P = {.file = file, .err = err};
    st = read_piper(&P, root, rate, out);
    free(P.nodes);
    free(P.edges);
    free(P.order);
    free(P.position);
    free(P.in_count);
    free(P.out_count);
    json_decref(P.index);
    json_decref(P.edge_index);
    return st;
}
