/* test_meshes.c: a cluster's devices as meshes (parplan/cluster_mesh.h).
 *  - dgx-a100-8 (8 nodes of 8 A100): one group of 64, nodes of 8, NVLink
 *    inside and the NIC between; the meshes are every power of two to 64,
 *    inside a node one axis or two, across nodes one axis or nodes x node,
 *    each listed once, 13 in all, counted by hand.
 *  - hetero-v100-16: two groups of 8, each its own node's link inside.
 *  - a run of devices: one node's NVLink, two nodes' NIC, refused across
 *    types (naming them) and past the cluster's end. */
#include <string.h>
#include "check.h"
#include "parplan/cluster_mesh.h"

#define EXAMPLES PP_SOURCE_DIR "/examples/cluster"

static pp_cluster *load(pp_hw_catalog *cat, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", EXAMPLES, name);
    pp_cluster *c = NULL;
    pp_error err = {0};
    if (pp_cluster_load(path, cat, &c, &err) != PP_OK)
        fprintf(stderr, "%s: %s\n", path, err.message);
    return c;
}

static void dgx(pp_hw_catalog *cat)
{
    pp_cluster *c = load(cat, "dgx-a100-8.json");
    pp_cluster_meshes m;
    pp_error err = {0};
    CHECK(c && pp_cluster_meshes_of(c, &m, &err) == PP_OK);
    if (!c)
        return;
    CHECK(m.n_groups == 1 && m.groups[0].count == 64 && m.groups[0].node_size == 8);
    CHECK(m.groups[0].intra.bandwidth > m.groups[0].inter.bandwidth && m.groups[0].inter.bandwidth > 0);
    for (int32_t d = 0; d < 64; d++)
        CHECK(m.groups[0].ids[d] == d);
    CHECK(m.n_meshes == 13);
    for (int32_t k = 0; k < m.n_meshes; k++) {
        const pp_cluster_mesh *x = &m.meshes[k];
        int32_t shape = x->axes[0] * (x->n_axes == 2 ? x->axes[1] : 1);
        CHECK(shape == x->devices && (x->devices & (x->devices - 1)) == 0 && x->devices <= 64);
        CHECK(x->spans == (x->devices > 8));
        CHECK(!x->spans || x->n_axes == 1 || x->axes[1] == 8);
        for (int32_t j = 0; j < k; j++)
            CHECK(!(m.meshes[j].devices == x->devices && m.meshes[j].n_axes == x->n_axes &&
                    m.meshes[j].axes[0] == x->axes[0]));
    }
    const pp_hw_device_type *type;
    pp_hw_link link;
    CHECK(pp_cluster_devices_link(c, 0, 8, &type, &link, &err) == PP_OK);
    CHECK(type == m.groups[0].type && link.bandwidth == m.groups[0].intra.bandwidth);
    CHECK(pp_cluster_devices_link(c, 4, 8, &type, &link, &err) == PP_OK);
    CHECK(link.bandwidth == m.groups[0].inter.bandwidth);
    CHECK(pp_cluster_devices_link(c, 0, 65, &type, &link, &err) == PP_EARG);
    pp_cluster_meshes_free(&m);
    pp_cluster_free(c);
}

static void hetero(pp_hw_catalog *cat)
{
    pp_cluster *c = load(cat, "hetero-v100-16.json");
    pp_cluster_meshes m;
    pp_error err = {0};
    CHECK(c && pp_cluster_meshes_of(c, &m, &err) == PP_OK);
    if (!c)
        return;
    CHECK(m.n_groups == 2 && m.groups[0].count == 8 && m.groups[1].count == 8);
    CHECK(m.groups[0].type != m.groups[1].type);
    CHECK(m.groups[0].intra.bandwidth == 12.9e9 && m.groups[1].intra.bandwidth == 150e9);
    CHECK(m.groups[0].inter.bandwidth == 12.5e9 && m.groups[0].ports == 1);
    /* one node a type: no mesh spans nodes */
    for (int32_t k = 0; k < m.n_meshes; k++)
        CHECK(!m.meshes[k].spans && m.meshes[k].devices <= 8);
    const pp_hw_device_type *type;
    pp_hw_link link;
    CHECK(pp_cluster_devices_link(c, 4, 8, &type, &link, &err) == PP_EARG);
    CHECK(strstr(err.message, "device 8 is a V100-32GB-SXM2, device 4 a RTX-4090D") != NULL);
    pp_cluster_meshes_free(&m);
    pp_cluster_free(c);
}

int main(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    dgx(cat);
    hetero(cat);
    pp_hw_catalog_free(cat);
    return CHECK_DONE();
}
