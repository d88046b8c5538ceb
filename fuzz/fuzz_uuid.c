/* ze_uuid_parse on arbitrary bytes: never reads past `size`, and whatever
 * parses formats back to the same value in canonical lowercase. */
#include <ctype.h>
#include <string.h>

#include "zengine/base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_uuid_t u;
    if (ze_uuid_parse((const char *)data, size, &u) != ZE_OK)
        return 0;
    char buf[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(u, buf);
    ZE_VERIFY(strlen(buf) == ZE_UUID_STRING_LEN);
    for (size_t i = 0; i < ZE_UUID_STRING_LEN; i++)
        ZE_VERIFY(tolower(data[i]) == buf[i]);
    ze_uuid_t again;
    ZE_VERIFY(ze_uuid_parse(buf, ZE_UUID_STRING_LEN, &again) == ZE_OK);
    ZE_VERIFY(ze_uuid_eq(u, again));
    return 0;
}
