/* json.h: jansson glue for our own small JSON formats. Loading turns
 * jansson's errors into "FILE:LINE:COLUMN: reason"; the typed getters and the
 * key check report "FILE: PATH: reason" with the JSON path of the value
 * (ops[3].duration), so every reader words its errors the same way. Jansson
 * keeps no positions, so a reader that keeps the text finds the line and
 * column again from the path, only when there is an error to report, and
 * says "FILE:LINE:COLUMN: PATH: reason". */
#ifndef PP_CORE_JSON_H
#define PP_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "parplan/core.h"

/* Parses a whole file (or a buffer, named `name` in messages). The root must
 * be an object or an array; a key repeated within one object is an error.
 * PP_EIO when the file cannot be opened or read, PP_EINPUT for bad JSON. */
pp_status pp_json_load_file(const char *path, json_t **out, pp_error *err);
pp_status pp_json_load_buffer(const char *name, const void *data, size_t size, json_t **out,
                              pp_error *err);

/* Where a value sits: the file, and its JSON path ("" for the root). */
typedef struct {
    const char *file;
    const char *path;
} pp_json_at;

/* Writes the path of `parent`'s member `key` into buf, followed by "[index]"
 * when index >= 0: ("ops", 3) -> "ops[3]", ("ops[3]", "devices", 0) ->
 * "ops[3].devices[0]". Truncates to size. Returns buf. */
char *pp_json_path(char *buf, size_t size, const char *parent, const char *key, long index);

/* The value at `at` must be an object whose keys are all in `allowed`
 * (NULL-terminated); an unknown key (often a typo) is named with its path. */
pp_status pp_json_object(pp_json_at at, const json_t *value, const char *const *allowed,
                         pp_error *err);

/* The value at `at` itself, with its type checked. Numbers must be finite and
 * >= min (pass -INFINITY for any finite number). */
pp_status pp_json_as_string(pp_json_at at, const json_t *value, const char **out, pp_error *err);
pp_status pp_json_as_number(pp_json_at at, const json_t *value, double min, double *out,
                            pp_error *err);

/* Member `key` of the object at `at`. When it is absent: an error if
 * required, otherwise *out is left as it was (the caller's default). */
pp_status pp_json_string(pp_json_at at, const json_t *obj, const char *key, bool required,
                         const char **out, pp_error *err);
pp_status pp_json_number(pp_json_at at, const json_t *obj, const char *key, bool required,
                         double min, double *out, pp_error *err);
pp_status pp_json_array(pp_json_at at, const json_t *obj, const char *key, bool required,
                        json_t **out, pp_error *err);

/* Where the value at `path` (as pp_json_path writes it) begins in the JSON
 * `text`: *line and *column from 1, columns counting characters (UTF-8
 * sequences), as jansson counts them. Keys are compared unescaped; a key
 * repeated within an object is found at its last occurrence (the one jansson
 * keeps when repeats are allowed). When the path goes further than the text,
 * the position is that of the deepest part that exists (a missing key is
 * reported at its object). Returns the length in bytes of the part of
 * `path` found: strlen(path) when all of it. */
size_t pp_json_locate(const char *text, size_t size, const char *path, int *line, int *column);

/* When st is PP_EINPUT and err's message reads "FILE: ...", puts the
 * position of `path` in text after FILE: "FILE:LINE:COLUMN: ...". Returns
 * st. */
pp_status pp_json_relocate(pp_error *err, pp_status st, const char *file, const char *text,
                           size_t size, const char *path);

/* The same for a message "FILE: PATH: reason" from any reader: the path is
 * the message's own, and the position is put in when the path leads into the
 * text: all of it, or all but a missing last key or element when it has no
 * space (so that "FILE: some words: ..." is not taken for a path). Other
 * messages are left as they are. Readers call it once, where they return. */
pp_status pp_json_place(pp_error *err, pp_status st, const char *file, const char *text,
                        size_t size);

#endif
