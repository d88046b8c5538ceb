/* Paths beside the running program: packaged engine assets and the
 * `zengine` cooker are found there. */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "zengine/base.h"

bool ze_path_beside_executable(const char *name, char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !name || !out)
        return false;
    exe[n] = '\0';
    const char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    size_t dir = (size_t)(slash - exe), len = strlen(name);
    if (dir + 1 + len + 1 > cap)
        return false;
    memcpy(out, exe, dir + 1);
    memcpy(out + dir + 1, name, len + 1);
    return true;
}
