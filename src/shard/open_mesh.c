/* open_mesh.c: the mesh a front door names (the CLI's --mesh, --device and
 * --precision; Python's mesh=, device=, precision=): the device type from
 * the built-in catalog, the axes, the math mode and its peaks. One copy for
 * both, so they refuse the same mesh with the same words. */
#include "parplan/shard_request.h"
#include "shard/request_internal.h"
#include "shard/shard_internal.h"

pp_status pp_shard_mesh_open(const pp_shard_mesh_spec *spec, pp_hw_catalog **catalog, pp_shard_mesh *mesh,
                             pp_error *err)
{
    const pp_hw_device_type *device;
    pp_status st = pp_hw_catalog_builtin(catalog, err);
    if (st == PP_OK)
        st = pp_hw_find_type(*catalog, spec->device, spec->device_flag, &device, err);
    if (st == PP_OK)
        st = pp_shard_mesh_parse(spec->mesh, device, pp_shard_default_link(), mesh, err);
    if (st == PP_OK)
        st = pp_shard_precision_parse(spec->precision, &mesh->precision, err);
    if (st != PP_OK)
        return st;
    pp_shard_mesh_set_peaks(mesh, *catalog);
    if (pp_shard_mesh_devices(mesh) < 2)
        return pp_error_set(err, PP_EARG, "mesh %s: one device, nothing to shard over", spec->mesh);
    return PP_OK;
}
