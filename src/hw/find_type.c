/* find_type.c: a device type named by a user, or the catalog's names in
 * the message when it holds none of that name: the one listing every front
 * door's --device and --device-type gives. */
#include <stdio.h>
#include "hw/hw_internal.h"

pp_status pp_hw_find_type(const pp_hw_catalog *cat, const char *name, const char *what,
                          const pp_hw_device_type **out, pp_error *err)
{
    if ((*out = pp_hw_find(cat, name)))
        return PP_OK;
    char known[320] = "";
    size_t n = 0;
    for (size_t k = 0; k < pp_hw_catalog_count(cat) && n < sizeof known; k++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", k ? ", " : "", pp_hw_catalog_type(cat, k)->name);
    return pp_error_set(err, PP_EARG, "%s %s: no such device type (known: %s)", what, name, known);
}
