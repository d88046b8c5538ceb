/* The .meta parser on arbitrary bytes: never crashes or leaks; whatever
 * parses formats to text that parses again to the same text (format is a
 * fixed point after one round); a rejection that claims a recovered uuid
 * holds a non-nil one. */
#include <string.h>

#include "zengine/mem.h"
#include "zengine/vfs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ze_log_set_level(ZE_LOG_OFF);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ze_allocator_t a = ze_mem_system_allocator();
    ze_vfs_meta_t m;
    ze_vfs_meta_init(&m, a);
    ze_diag_capture_t diag = {0};
    ze_diag_sink_t sink = ze_diag_capture_sink(&diag);
    ze_result e = ze_vfs_meta_parse((const char *)data, size, &m, &sink);
    if (e == ZE_OK) {
        ZE_VERIFY(diag.count == 0);
        ZE_VERIFY(!ze_uuid_is_nil(m.uuid));
        ze_vfs_buffer_t t1, t2;
        ZE_VERIFY(ze_vfs_meta_format(&m, a, &t1) == ZE_OK);
        ze_vfs_meta_t m2;
        ze_vfs_meta_init(&m2, a);
        ZE_VERIFY(ze_vfs_meta_parse((const char *)t1.data, t1.size, &m2, NULL) == ZE_OK);
        ZE_VERIFY(ze_uuid_eq(m.uuid, m2.uuid));
        ZE_VERIFY(m.artifacts.count == m2.artifacts.count);
        ZE_VERIFY(m.sub_assets.count == m2.sub_assets.count);
        ZE_VERIFY(m.source_hash == m2.source_hash && m.import_time == m2.import_time);
        ZE_VERIFY(strcmp(m.importer, m2.importer) == 0);
        ZE_VERIFY(ze_vfs_meta_format(&m2, a, &t2) == ZE_OK);
        ZE_VERIFY(t1.size == t2.size && memcmp(t1.data, t2.data, t1.size) == 0);
        ze_vfs_buffer_free(&t1);
        ze_vfs_buffer_free(&t2);
        ze_vfs_meta_free(&m2);
    } else {
        ZE_VERIFY(e == ZE_ERR_PARSE || e == ZE_ERR_UNSUPPORTED || e == ZE_ERR_OUT_OF_MEMORY);
        ZE_VERIFY(diag.count == 1 || e == ZE_ERR_OUT_OF_MEMORY);
        if (m.uuid_recovered)
            ZE_VERIFY(!ze_uuid_is_nil(m.uuid));
        ZE_VERIFY(m.artifacts.count == 0 && m.sub_assets.count == 0 && !m.settings);
    }
    ze_vfs_meta_free(&m);
    return 0;
}
