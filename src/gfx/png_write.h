/* PNG encoding for screenshots: our own writer over zlib's deflate (no
 * third-party image code in the runtime). Internal to gfx. */
#ifndef ZE_GFX_PNG_WRITE_H
#define ZE_GFX_PNG_WRITE_H

#include "zengine/base.h"

/* Write `rgba` (width * height * 4 bytes, top row first) as an 8-bit RGBA
 * PNG at `path` (temporary file, then rename). Each row gets the filter
 * (none, sub, up, average, Paeth) with the smallest sum of absolute
 * values; deflate at level 6. Memory from `alloc` (zlib's too). ZE_ERR_IO
 * when the file cannot be written, ZE_ERR_OUT_OF_MEMORY, ZE_ERR_INVALID_ARG
 * for sizes PNG cannot hold. The same pixels give the same bytes. */
ze_result ze__png_write(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba,
                        ze_allocator_t alloc);

#endif /* ZE_GFX_PNG_WRITE_H */
