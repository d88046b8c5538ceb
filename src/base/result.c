/* Result names and the assert-tier failure paths. */
#include <stdio.h>
#include <stdlib.h>

#include "zengine/base.h"

const char *ze_result_str(ze_result r)
{
    static const char *const names[ZE_RESULT_COUNT] = {
        [ZE_OK] = "ok",
        [ZE_ERR_INVALID_ARG] = "invalid argument",
        [ZE_ERR_OUT_OF_MEMORY] = "out of memory",
        [ZE_ERR_BUDGET] = "memory budget exceeded",
        [ZE_ERR_FULL] = "full",
        [ZE_ERR_EMPTY] = "empty",
        [ZE_ERR_NOT_FOUND] = "not found",
        [ZE_ERR_EXISTS] = "already exists",
        [ZE_ERR_IO] = "I/O error",
        [ZE_ERR_PARSE] = "malformed input",
        [ZE_ERR_UNSUPPORTED] = "unsupported",
        [ZE_ERR_LIMIT] = "limit reached",
        [ZE_ERR_STATE] = "invalid state",
        [ZE_ERR_DENIED] = "denied",
        [ZE_ERR_CONFLICT] = "conflict",
        [ZE_ERR_CYCLE] = "cycle",
        [ZE_ERR_TIMEOUT] = "timed out",
        [ZE_ERR_FAULT_INJECTED] = "injected fault",
        [ZE_ERR_INTERNAL] = "internal error",
        [ZE_ERR_PATH_ESCAPE] = "path escapes its root",
        [ZE_ERR_TOO_LONG] = "too long",
        [ZE_ERR_NOT_DIR] = "not a directory",
        [ZE_ERR_IS_DIR] = "is a directory",
        [ZE_ERR_NOT_EMPTY] = "directory not empty",
        [ZE_ERR_READ_ONLY] = "read-only",
        [ZE_ERR_CROSS_MOUNT] = "rename across mounts",
        [ZE_ERR_LOOP] = "too many symbolic links",
    };
    if ((unsigned)r >= ZE_RESULT_COUNT || !names[r])
        return "unknown result";
    return names[r];
}

void ze__assert_fail(const char *expr, const char *file, int line, const char *msg)
{
    ze_log(ZE_LOG_FATAL, "assert", "%s:%d: assertion failed: %s%s%s", file, line, expr,
           msg ? ": " : "", msg ? msg : "");
    ze_log_flush();
    abort();
}

void ze__check_fail(const char *expr, const char *file, int line)
{
    ze_log(ZE_LOG_ERROR, "check", "%s:%d: check failed: %s", file, line, expr);
}
