/* cluster_load.c: libFuzzer target for the cluster reader
 * (pp_cluster_load_buffer, the same code as pp_cluster_load after the file is
 * read) and the events reader (cluster_add_events_buffer, fed the same text
 * against the loaded cluster). Checks: a failed load returns no cluster and
 * says why, starting with "NAME: " or "NAME:LINE:COLUMN: " with the position
 * inside the text; a loaded cluster is consistent (devices numbered in node
 * order, device_node agreeing with the nodes, links grouped by node with
 * numbers the format allows, node names unique, events sorted by time and
 * naming what exists); a failed events file leaves the events as they were.
 * Any breach aborts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cluster/load_cluster.h" /* CLUSTER_MAX_*: the limits the reader enforces */
#include "parplan/cluster.h"
#include "message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_names(const pp_cluster *c)
{
    char **names = malloc((size_t)c->node_count * sizeof *names);
    if (!names)
        return;
    for (int n = 0; n < c->node_count; n++)
        names[n] = c->nodes[n].name;
    qsort(names, (size_t)c->node_count, sizeof *names, compare_names);
    for (int n = 1; n < c->node_count; n++)
        if (strcmp(names[n - 1], names[n]) == 0)
            abort();
    free(names);
}

static void check_nodes(const pp_cluster *c)
{
    int d = 0;
    if (c->node_count < 1 || c->node_count > CLUSTER_MAX_NODES || !c->name)
        abort();
    for (int n = 0; n < c->node_count; n++) {
        const pp_cluster_node *node = &c->nodes[n];
        if (!node->name[0] || !node->type || node->first_device != d || node->device_count < 1)
            abort();
        for (int k = 0; k < node->device_count; k++)
            if (c->device_node[d++] != n)
                abort();
    }
    if (d != c->device_count || d > CLUSTER_MAX_DEVICES)
        abort();
    check_names(c);
}

static void check_links(const pp_cluster *c)
{
    for (int k = 0; k < c->link_count; k++) {
        const pp_cluster_link *l = &c->links[k];
        if (l->node < 0 || l->node >= c->node_count || (k > 0 && l->node < c->links[k - 1].node) ||
            !l->name || !isfinite(l->bandwidth) || l->bandwidth <= 0 || !isfinite(l->latency) ||
            l->latency < 0 || l->ports < 1 || (!l->inter_node && l->ports != 1))
            abort();
    }
}

static bool has_link(const pp_cluster *c, const pp_cluster_event *e)
{
    for (int k = 0; k < c->link_count; k++)
        if ((e->node < 0 || e->node == c->links[k].node) && strcmp(c->links[k].name, e->link) == 0)
            return true;
    return false;
}

static void check_events(const pp_cluster *c)
{
    for (int k = 0; k < c->event_count; k++) {
        const pp_cluster_event *e = &c->events[k];
        if (!isfinite(e->time) || e->time < 0 || (k > 0 && e->time < c->events[k - 1].time) ||
            !e->link || e->node < -1 || e->node >= c->node_count)
            abort();
        if (e->lost_device >= 0 ? e->lost_device >= c->device_count || e->node != -1
                                : e->lost_device != -1 || !isfinite(e->bandwidth) ||
                                      e->bandwidth < 0 || !has_link(c, e))
            abort();
    }
}

/* The same text as an events file: merged in sorted, or refused with the
 * events unchanged. */
static void check_events_file(pp_cluster *c, const uint8_t *data, size_t size)
{
    int before = c->event_count;
    const pp_cluster_event *events = c->events;
    pp_error err = {0};
    pp_status status = cluster_add_events_buffer(c, NAME, data, size, &err);
    if (status != PP_OK) {
        if (c->event_count != before || c->events != events)
            abort();
        check_message(&err, status, data, size);
        return;
    }
    check_events(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pp_hw_catalog *cat;
    pp_error err = {0};
    if (!cat && pp_hw_catalog_builtin(&cat, &err) != PP_OK)
        abort();
    pp_cluster *c = NULL;
    pp_status status = pp_cluster_load_buffer(NAME, data, size, cat, &c, &err);
    if (status != PP_OK) {
        if (c)
            abort();
        check_message(&err, status, data, size);
        return 0;
    }
    check_nodes(c);
    check_links(c);
    check_events(c);
    check_events_file(c, data, size);
    pp_cluster_free(c);
    return 0;
}
