/* devices.h: the built-in catalog's JSON text, compiled into the library from
 * data/devices.json by CMake (src/hw/devices.c.in), not NUL-terminated. */
#ifndef PP_HW_DEVICES_H
#define PP_HW_DEVICES_H

#include <stddef.h>

extern const unsigned char hw_devices_json[];
extern const size_t hw_devices_json_size;

#endif
