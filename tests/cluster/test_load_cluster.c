/* test_load_cluster.c: the cluster and events readers: a small file read
 * field by field (ranks, nodes of devices, links per node, copies' names,
 * events in order), bandwidths and lost devices before and after events, an
 * events file merged in, the bundled scenarios of examples/cluster, and malformed inputs, each checked for the file
 * name, the line:column of the culprit (found here by searching the text)
 * and the reason. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "cluster/load_cluster.h"
#include "cluster/moment.h"
#include "hw/hw_internal.h"

static pp_hw_catalog *cat;

static void check_small(const pp_cluster *c)
{
    CHECK(strcmp(c->name, "small") == 0);
    CHECK_EQ_INT(c->node_count, 3);
    CHECK_EQ_INT(c->device_count, 8);
    const char *names[] = {"a", "v0", "v1"};
    const int first[] = {0, 2, 5}, count[] = {2, 3, 3};
    for (int n = 0; n < 3; n++) {
        CHECK(strcmp(c->nodes[n].name, names[n]) == 0);
        CHECK_EQ_INT(c->nodes[n].first_device, first[n]);
        CHECK_EQ_INT(c->nodes[n].device_count, count[n]);
    }
    CHECK(c->nodes[0].type == pp_hw_find(cat, "RTX-4090D"));
    CHECK(c->nodes[1].type == pp_hw_find(cat, "V100-32GB-SXM2"));
    CHECK(c->nodes[2].type == c->nodes[1].type);
    const int node_of[] = {0, 0, 1, 1, 1, 2, 2, 2};
    for (int d = 0; d < 8; d++)
        CHECK_EQ_INT(c->device_node[d], node_of[d]);
    CHECK_EQ_INT(c->link_count, 8);
    const char *link[] = {"pcie", "ethernet", "nvlink", "pcie", "ethernet", "nvlink", "pcie", "ethernet"};
    const int link_node[] = {0, 0, 1, 1, 1, 2, 2, 2}, ports[] = {1, 1, 1, 1, 2, 1, 1, 2};
    const double bw[] = {25e9, 12.5e9, 150e9, 16e9, 12.5e9, 150e9, 16e9, 12.5e9};
    const double latency[] = {5e-6, 1e-5, 0, 2e-6, 0, 0, 2e-6, 0};
    for (int k = 0; k < 8; k++) {
        const pp_cluster_link *l = &c->links[k];
        CHECK(strcmp(l->name, link[k]) == 0);
        CHECK_EQ_INT(l->node, link_node[k]);
        CHECK_EQ_INT(l->ports, ports[k]);
        CHECK_EQ_INT(l->inter_node, strcmp(link[k], "ethernet") == 0);
        CHECK(l->bandwidth == bw[k]);
        CHECK(l->latency == latency[k]);
    }
}

static void check_small_events(const pp_cluster *c)
{
    CHECK_EQ_INT(c->event_count, 3);
    const pp_cluster_event *e = c->events;
    CHECK(e[0].time == 3600 && strcmp(e[0].link, "ethernet") == 0 && e[0].node == -1 &&
          e[0].bandwidth == 3.125e9 && e[0].lost_device == -1);
    CHECK(e[1].time == 3600 && strcmp(e[1].link, "pcie") == 0 && e[1].node == 2 &&
          e[1].bandwidth == 0 && e[1].lost_device == -1);
    CHECK(e[2].time == 7200 && e[2].lost_device == 3 && e[2].node == -1);
    /* v0's NIC and every other NIC drop at 3600; only v1's PCIe goes down. */
    CHECK(pp_cluster_link_bandwidth_at(c, 4, 3599.9) == 12.5e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 4, 3600) == 3.125e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 1, 1e9) == 3.125e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 6, 3599) == 16e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 6, 3600) == 0);
    CHECK(pp_cluster_link_bandwidth_at(c, 3, 3600) == 16e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 0, 3600) == 25e9);
    CHECK(pp_cluster_device_alive_at(c, 3, 7199));
    CHECK(!pp_cluster_device_alive_at(c, 3, 7200));
    CHECK(pp_cluster_device_alive_at(c, 4, 7200));
}

/* The events file adds 100 nvlink, 3600 a's ethernet (after the cluster's
 * two at 3600) and 7200 ethernet (after the lost device). */
static void check_merged(const pp_cluster *c)
{
    CHECK_EQ_INT(c->event_count, 6);
    const double time[] = {100, 3600, 3600, 3600, 7200, 7200};
    const int node[] = {-1, -1, 2, 0, -1, -1}, lost[] = {-1, -1, -1, -1, 3, -1};
    const char *link[] = {"nvlink", "ethernet", "pcie", "ethernet", "", "ethernet"};
    for (int k = 0; k < 6 && k < c->event_count; k++) {
        CHECK(c->events[k].time == time[k]);
        CHECK_EQ_INT(c->events[k].node, node[k]);
        CHECK_EQ_INT(c->events[k].lost_device, lost[k]);
        CHECK(strcmp(c->events[k].link, link[k]) == 0);
    }
    CHECK(pp_cluster_link_bandwidth_at(c, 2, 99) == 150e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 5, 100) == 50e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 1, 3600) == 1e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 4, 3600) == 3.125e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 1, 7200) == 12.5e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 7, 7200) == 12.5e9);
}

static void test_small_file(void)
{
    pp_cluster *c = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_load(PP_DATA_DIR "/cluster-small.json", cat, &c, &err), PP_OK);
    if (!c) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    check_small(c);
    check_small_events(c);
    pp_error bad = {0};
    CHECK_EQ_INT(pp_cluster_add_events_file(c, PP_DATA_DIR "/cluster-bad-event.events.json", &bad),
                 PP_EINPUT);
    CHECK(strstr(bad.message, "cluster-bad-event.events.json:3:24: events[1].link: "
                              "no node has a link class \"infiniband\"") != NULL);
    CHECK_EQ_INT(c->event_count, 3);
    CHECK_EQ_INT(pp_cluster_add_events_file(c, PP_DATA_DIR "/cluster-small.events.json", &err), PP_OK);
    check_merged(c);
    pp_error missing = {0};
    CHECK_EQ_INT(pp_cluster_add_events_file(c, PP_DATA_DIR "/no-such.json", &missing), PP_EIO);
    pp_cluster_free(c);
}

static void test_bad_file(void)
{
    pp_cluster *c = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_load(PP_DATA_DIR "/cluster-bad-device.json", cat, &c, &err), PP_EINPUT);
    CHECK(c == NULL);
    CHECK(strstr(err.message, "/cluster-bad-device.json:3:29: nodes[0].device: "
                              "unknown device type \"TPU-v9\"") != NULL);
    pp_error missing = {0};
    CHECK_EQ_INT(pp_cluster_load(PP_DATA_DIR "/no-such.json", cat, &c, &missing), PP_EIO);
}

/* The bundled scenarios: node layout from the file names, bandwidths from
 * their sources (bytes/s each way), the Ethernet drop merged in. */
static pp_cluster *load_example(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/cluster/%s", PP_SOURCE_DIR, name);
    pp_cluster *c = NULL;
    pp_error err = {0};
    if (pp_cluster_load(path, cat, &c, &err) != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(c != NULL);
    return c;
}

static void check_hetero(const char *other, const char *type, double intra, int total)
{
    char name[64];
    snprintf(name, sizeof name, "hetero-%s-%d.json", other, total);
    pp_cluster *c = load_example(name);
    if (!c)
        return;
    int per = total == 8 ? 4 : 8, nodes = total / per;
    CHECK_EQ_INT(c->device_count, total);
    CHECK_EQ_INT(c->node_count, nodes);
    CHECK_EQ_INT(c->link_count, 2 * nodes);
    for (int d = 0; d < total; d++) {
        const pp_cluster_node *n = &c->nodes[c->device_node[d]];
        CHECK(n->type == pp_hw_find(cat, d < total / 2 ? "RTX-4090D" : type));
        CHECK_EQ_INT(n->device_count, per);
    }
    for (int k = 0; k < c->link_count; k++) {
        const pp_cluster_link *l = &c->links[k];
        bool fast = c->nodes[l->node].type != pp_hw_find(cat, "RTX-4090D");
        CHECK_EQ_INT(l->node, k / 2);
        CHECK(l->inter_node == (k % 2 == 1));
        CHECK(l->bandwidth == (l->inter_node ? 12.5e9 : fast ? intra : 12.9e9));
    }
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_add_events_file(
                     c, PP_SOURCE_DIR "/examples/cluster/ethernet-drop.events.json", &err), PP_OK);
    CHECK(pp_cluster_link_bandwidth_at(c, 1, 1799) == 12.5e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 2 * nodes - 1, 1800) == 3.125e9);
    CHECK(pp_cluster_link_bandwidth_at(c, 0, 1800) == c->links[0].bandwidth);
    pp_cluster_free(c);
}

static void test_examples(void)
{
    const int totals[] = {8, 16, 32};
    for (int k = 0; k < 3; k++) {
        check_hetero("v100", "V100-32GB-SXM2", 150e9, totals[k]);
        check_hetero("l20", "L20", 31.5e9, totals[k]);
    }
    const int dgx[] = {4, 8, 16, 32, 64};
    for (int k = 0; k < 5; k++) {
        char name[64], last[16];
        snprintf(name, sizeof name, "dgx-a100-%d.json", dgx[k]);
        pp_cluster *c = load_example(name);
        if (!c)
            continue;
        CHECK_EQ_INT(c->node_count, dgx[k]);
        CHECK_EQ_INT(c->device_count, 8 * dgx[k]);
        snprintf(last, sizeof last, "dgx%d", dgx[k] - 1);
        CHECK(strcmp(c->nodes[dgx[k] - 1].name, last) == 0);
        CHECK_EQ_INT(c->nodes[dgx[k] - 1].first_device, 8 * (dgx[k] - 1));
        CHECK(c->links[1].inter_node && c->links[1].ports == 8 && c->links[1].bandwidth == 25e9);
        CHECK(!c->links[0].inter_node && c->links[0].bandwidth == 240e9);
        pp_cluster_free(c);
    }
}

typedef struct {
    const char *text;
    const char *marker; /* the error is at its first occurrence; NULL: the first '{' */
    const char *reason;
} bad_case;

#define LINKS "\"links\": [{\"class\": \"pcie\", \"bandwidth\": 1e9}]"
#define NODE_A "{\"name\": \"a\", \"device\": \"l20\", \"count\": 2, " LINKS "}"
#define NIC "{\"class\": \"eth\", \"inter_node\": true, \"bandwidth\": 1e9}"
#define WITH_EVENT(e) "{\"nodes\": [" NODE_A "],\n \"timeline\": [\n  " e "]}"
#define WITH_NODE(n) "{\"nodes\": [\n  " n "\n]}"
#define WITH_LINK(l) WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 1,\n   \"links\": [" l "]}")

static const bad_case bad_cases[] = {
    {"[1]", "[", "expected an object, got an array"},
    {"{\"nodes\": [" NODE_A "], \"nodez\": 1}", "1}", "nodez: unknown key"},
    {"{\"name\": \"x\"}", NULL, "nodes: missing"},
    {"{\"nodes\": {}}", "{}", "nodes: expected an array"},
    {"{\"nodes\": []}", "[]", "at least one node"},
    {"{\"name\": 3, \"nodes\": [" NODE_A "]}", "3", "name: expected a string"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"TPU-v9\", \"count\": 1}"), "\"TPU",
     "nodes[0].device: unknown device type \"TPU-v9\""},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\"}"), "{\"name", "nodes[0].count: missing"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 0}"), "0}",
     "nodes[0].count: expected an integer from 1 to 1000000, got 0"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 2.5}"), "2.5", "expected an integer"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": \"8\"}"), "\"8\"",
     "count: expected a finite number"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 1, \"copies\": 0}"), "0}",
     "nodes[0].copies: expected an integer"},
    {WITH_NODE("{\"name\": \"\", \"device\": \"l20\", \"count\": 1}"), "\"\"", "needs a name"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 1, \"colour\": 1}"), "1}",
     "nodes[0].colour: unknown key"},
    {WITH_NODE("{\"name\": \"x\", \"device\": \"l20\", \"count\": 1, \"copies\": 2, \"links\": [" NIC "]},\n"
               "  {\"name\": \"x1\", \"device\": \"l20\", \"count\": 1, \"links\": [" NIC "]}"),
     "\"x1\"", "nodes[1].name: two nodes are named \"x1\""},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 600000, \"copies\": 2, " LINKS "}"), "{\"name",
     "nodes[0]: more than 1000000 devices"},
    {WITH_LINK("{\"class\": \"pcie\", \"bandwidth\": 0}"), "0}",
     "nodes[0].links[0].bandwidth: must be > 0"},
    {WITH_LINK("{\"class\": \"pcie\", \"bandwidth\": 1e9, \"latency\": -1}"), "-1",
     "latency: expected a number >= 0, got -1"},
    {WITH_LINK("{\"bandwidth\": 1e9}"), "{\"band", "nodes[0].links[0].class: missing"},
    {WITH_LINK("{\"class\": \"pcie\", \"bandwith\": 1e9}"), "1e9", "links[0].bandwith: unknown key"},
    {WITH_LINK("{\"class\": \"p\", \"bandwidth\": 1},\n    {\"class\": \"p\", \"bandwidth\": 2}"),
     "{\"class\": \"p\", \"bandwidth\": 2", "links[1]: link class \"p\" appears twice"},
    {WITH_LINK("{\"class\": \"p\", \"ports\": 2, \"bandwidth\": 1}"), "2,",
     "links[0].ports: only an inter_node class has ports"},
    {WITH_LINK("{\"class\": \"p\", \"inter_node\": \"yes\", \"bandwidth\": 1}"), "\"yes\"",
     "inter_node: expected true or false"},
    {WITH_LINK("{\"class\": \"p\", \"inter_node\": true, \"ports\": 0, \"bandwidth\": 1}"), "0,",
     "links[0].ports: expected an integer from 1 to 1024"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 2, \"links\": [" NIC "]}"), "{\"name",
     "nodes[0]: a node of 2 devices needs a link class inside the node"},
    {WITH_NODE("{\"name\": \"a\", \"device\": \"l20\", \"count\": 1, \"copies\": 2}"), "{\"name",
     "nodes[0]: the cluster has several nodes: this node needs an inter_node link class"},
    {"{\"nodes\": [" NODE_A "], \"timeline\": 5}", "5}", "timeline: expected an array"},
    {WITH_EVENT("{\"time\": 1, \"link\": \"ib\", \"bandwidth\": 0}"), "\"ib\"",
     "timeline[0].link: no node has a link class \"ib\""},
    {WITH_EVENT("{\"time\": 1, \"link\": \"pcie\", \"node\": \"zz\", \"bandwidth\": 0}"), "\"zz\"",
     "timeline[0].node: no node is named \"zz\""},
    {WITH_EVENT("{\"time\": 1, \"link\": \"pcie\", \"bandwidth\": 0},\n  "
                "{\"time\": 2, \"link\": \"eth\", \"node\": \"a\", \"bandwidth\": 0}"), "\"eth\"",
     "timeline[1].link: node \"a\" has no link class \"eth\""},
    {WITH_EVENT("{\"time\": 1, \"link\": \"pcie\", \"bandwidth\": 0, \"lost_device\": 1}"), "{\"time",
     "timeline[0]: an event has either \"link\" or \"lost_device\", not both"},
    {WITH_EVENT("{\"time\": 1}"), "{\"time", "timeline[0]: an event has either"},
    {WITH_EVENT("{\"time\": 1, \"lost_device\": 2}"), "2}",
     "timeline[0].lost_device: expected an integer from 0 to 1, got 2"},
    {WITH_EVENT("{\"time\": 1, \"lost_device\": 0, \"bandwidth\": 1}"), "1}",
     "timeline[0].bandwidth: a lost_device event has no \"bandwidth\""},
    {WITH_EVENT("{\"time\": -1, \"lost_device\": 0}"), "-1", "timeline[0].time: expected a number >= 0"},
    {WITH_EVENT("{\"link\": \"pcie\", \"bandwidth\": 1}"), "{\"link", "timeline[0].time: missing"},
    {WITH_EVENT("{\"time\": 1, \"link\": \"pcie\"}"), "{\"time", "timeline[0].bandwidth: missing"},
};

/* Line and column (from 1) of the first occurrence of marker in text. */
static void position(const char *text, const char *marker, int *line, int *column)
{
    const char *hit = strstr(text, marker ? marker : "{");
    *line = 1;
    *column = 1;
    for (const char *p = text; hit && p < hit; p++) {
        *line += *p == '\n';
        *column = *p == '\n' ? 1 : *column + 1;
    }
    CHECK(hit != NULL);
}

static void test_bad_cases(void)
{
    int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
    CHECK(n >= 20);
    for (int k = 0; k < n; k++) {
        const bad_case *b = &bad_cases[k];
        pp_cluster *c = NULL;
        pp_error err = {0};
        pp_status st = pp_cluster_load_buffer("bad.json", b->text, strlen(b->text), cat, &c, &err);
        int line, column;
        position(b->text, b->marker, &line, &column);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "bad.json:%d:%d: ", line, column);
        bool ok = st == PP_EINPUT && !c && strncmp(err.message, prefix, strlen(prefix)) == 0 &&
                  strstr(err.message, b->reason);
        if (!ok)
            fprintf(stderr, "case %d: status %d, message \"%s\", expected \"%s...%s\"\n", k, st,
                    err.message, prefix, b->reason);
        CHECK(ok);
        pp_cluster_free(c);
    }
}

/* Syntax errors keep jansson's position; an events file's own errors. */
static void test_bad_other(void)
{
    pp_cluster *c = NULL;
    pp_error err = {0};
    const char *text = "{\"nodes\": [\n  {\"count\": 1e400}]}";
    CHECK_EQ_INT(pp_cluster_load_buffer("bad.json", text, strlen(text), cat, &c, &err), PP_EINPUT);
    CHECK(strncmp(err.message, "bad.json:2:", 11) == 0 && strstr(err.message, "overflow"));
    pp_error_clear(&err);
    text = "{\"nodes\": [" NODE_A "]}";
    CHECK_EQ_INT(pp_cluster_load_buffer("ok.json", text, strlen(text), cat, &c, &err), PP_OK);
    if (!c)
        return;
    CHECK(strcmp(c->name, "ok.json") == 0);
    text = "{\"events\": [],\n \"event\": []}";
    CHECK_EQ_INT(cluster_add_events_buffer(c, "ev.json", text, strlen(text), &err), PP_EINPUT);
    CHECK(strncmp(err.message, "ev.json:2:11: event: unknown key", 32) == 0);
    pp_error_clear(&err);
    text = "{\"comment\": \"none\"}";
    CHECK_EQ_INT(cluster_add_events_buffer(c, "ev.json", text, strlen(text), &err), PP_EINPUT);
    CHECK(strncmp(err.message, "ev.json:1:1: events: missing", 28) == 0);
    CHECK_EQ_INT(c->event_count, 0);
    pp_cluster_free(c);
}

int main(void)
{
    pp_error err = {0};
    if (pp_hw_catalog_builtin(&cat, &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    test_small_file();
    test_bad_file();
    test_examples();
    test_bad_cases();
    test_bad_other();
    pp_hw_catalog_free(cat);
    return CHECK_DONE();
}
