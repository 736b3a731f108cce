/* mesh.c: the device mesh of the auto-sharder (`--mesh b=2,m=4`): parsing
 * the axes, their default link, the device count. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "hw/hw_internal.h"
#include "shard/shard_internal.h"
#include "parplan/shard.h"

pp_hw_link pp_shard_default_link(void)
{
    pp_hw_link link = {300e9, 5e-6};
    return link;
}

int64_t shard_axes_devices(const pp_shard_mesh *mesh, uint8_t mask)
{
    int64_t n = 1;
    for (int32_t a = 0; a < mesh->n_axes; a++)
        if (mask & (1u << a))
            n *= mesh->sizes[a];
    return n;
}

int64_t pp_shard_mesh_devices(const pp_shard_mesh *mesh)
{
    return shard_axes_devices(mesh, (uint8_t)~0u); /* every axis the mesh has */
}

static bool name_known(const pp_shard_mesh *m, const char *name)
{
    for (int32_t a = 0; a < m->n_axes; a++)
        if (strcmp(m->names[a], name) == 0)
            return true;
    return false;
}

/* One "name=size" of length len starting at p. */
static pp_status parse_axis(const char *text, const char *p, size_t len, pp_shard_mesh *m, pp_error *err)
{
    const char *eq = memchr(p, '=', len);
    size_t nlen = eq ? (size_t)(eq - p) : len;
    if (!eq || nlen == 0 || nlen >= sizeof m->names[0])
        return pp_error_set(err, PP_EINPUT, "mesh '%s': '%.*s' is not NAME=SIZE (a name of 1 to %d characters)",
                            text, (int)len, p, (int)sizeof m->names[0] - 1);
    for (size_t k = 0; k < nlen; k++)
        if (!isalnum((unsigned char)p[k]) && p[k] != '_') {
            /* The whole character, its UTF-8 continuation bytes with it. */
            size_t c = 1;
            while (k + c < nlen && c < 4 && ((unsigned char)p[k + c] & 0xc0) == 0x80)
                c++;
            return pp_error_set(err, PP_EINPUT, "mesh '%s': axis name '%.*s' has '%.*s' (letters, digits, '_' only)",
                                text, (int)nlen, p, (int)c, p + k);
        }
    if (m->n_axes == PP_SHARD_MAX_AXES)
        return pp_error_set(err, PP_EINPUT, "mesh '%s': more than %d axes", text, PP_SHARD_MAX_AXES);
    char name[sizeof m->names[0]];
    memcpy(name, p, nlen);
    name[nlen] = '\0';
    if (name_known(m, name))
        return pp_error_set(err, PP_EINPUT, "mesh '%s': axis '%s' given twice", text, name);
    const char *s = eq + 1;
    size_t slen = len - nlen - 1;
    long size = 0;
    bool digits = slen > 0 && slen <= 9;
    for (size_t k = 0; digits && k < slen; k++) {
        digits = isdigit((unsigned char)s[k]);
        size = size * 10 + (s[k] - '0');
    }
    if (!digits || size < 1)
        return pp_error_set(err, PP_EINPUT, "mesh '%s': axis '%s' size '%.*s' is not a positive integer", text,
                            name, (int)slen, s);
    memcpy(m->names[m->n_axes], name, nlen + 1);
    m->sizes[m->n_axes++] = (int32_t)size;
    return PP_OK;
}

pp_status pp_shard_mesh_parse(const char *text, const pp_hw_device_type *device, pp_hw_link link,
                              pp_shard_mesh *out, pp_error *err)
{
    pp_shard_mesh m;
    memset(&m, 0, sizeof m);
    m.device = device;
    if (!text || !*text)
        return pp_error_set(err, PP_EINPUT, "mesh '': expected NAME=SIZE[,NAME=SIZE...] such as b=2,m=4");
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        pp_status st = parse_axis(text, p, len, &m, err);
        if (st != PP_OK)
            return st;
        if (!comma)
            break;
        p = comma + 1;
    }
    for (int32_t a = 0; a < m.n_axes; a++)
        m.links[a] = link;
    *out = m;
    return PP_OK;
}

pp_status pp_shard_precision_parse(const char *text, pp_shard_precision *out, pp_error *err)
{
    static const char *const names[] = {"typed", "tf32", "bf16"};
    for (int k = 0; k < 3; k++)
        if (strcmp(text, names[k]) == 0) {
            *out = (pp_shard_precision)k;
            return PP_OK;
        }
    return pp_error_set(err, PP_EARG, "precision '%s': expected typed, tf32 or bf16", text);
}

/* f64 has no figure in the catalog: priced at FP32, which flatters it on
 * data-center parts (FP64 is half of FP32 there). Integers likewise. */
pp_hw_math pp_shard_math_of(pp_shard_precision precision, const char *elem)
{
    if (strcmp(elem, "bf16") == 0 || strcmp(elem, "f16") == 0)
        return PP_HW_BF16;
    if (strncmp(elem, "f8", 2) == 0)
        return PP_HW_FP8;
    if (strcmp(elem, "f32") != 0)
        return PP_HW_FP32;
    return precision == PP_SHARD_PRECISION_TF32 ? PP_HW_TF32
           : precision == PP_SHARD_PRECISION_BF16 ? PP_HW_BF16
                                                  : PP_HW_FP32;
}

void pp_shard_mesh_set_peaks(pp_shard_mesh *mesh, const pp_hw_catalog *catalog)
{
    for (int m = 0; m < PP_HW_MATH_MODES; m++)
        mesh->peaks[m] = pp_hw_catalog_peak(catalog, mesh->device, (pp_hw_math)m);
}

double pp_shard_mesh_peak(const pp_shard_mesh *mesh, pp_hw_math mode)
{
    return mesh->peaks[mode] > 0 ? mesh->peaks[mode] : mesh->device->peak_flops;
}
