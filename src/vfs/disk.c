/* The disk backend: a host directory, every open resolved beneath it.
 *
 * Resolution: openat2(root_fd, rel, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * makes the kernel refuse any `..`, absolute path or symlink (at any depth,
 * including a symlinked directory inside the root) that would leave the root
 * (EXDEV), atomically with the open. Kernels without openat2 (ENOSYS, before
 * 5.6) get the same rules from walk_open: one component at a time with
 * O_NOFOLLOW, links read and spliced into the remaining path by hand, `..`
 * popping the resolved prefix and never past the root, absolute link targets
 * refused. Each step opens relative to a directory fd that was itself reached
 * this way, so a concurrent swap of a directory for a link is caught (O_NOFOLLOW
 * makes it ELOOP or a link we inspect), not followed.
 *
 * Atomic writes: temporary file beside the target (O_EXCL, never through a
 * link), write, fsync, renameat over the target, fsync of the directory.
 */
/* O_PATH, openat2 and fdopendir details are Linux (GNU) extensions. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vfs_internal.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

enum {
    MAX_LINKS = 40,        /* as the kernel's own limit */
    WALK_BUF = 8192,       /* remaining path during a walk, links spliced in */
    WRITE_CHUNK = 1 << 20, /* bytes per write(2) */
};

typedef struct disk_backend {
    ze__vfs_backend base;
    int root_fd;           /* O_PATH | O_DIRECTORY */
    atomic_bool walk_only; /* openat2 missing (or forced by a test) */
    atomic_uint tmp_seq;   /* temporary file names */
} disk_backend;

ze_result ze__vfs_errno(int e)
{
    switch (e) {
    case 0:
        return ZE_OK;
    case ENOENT:
        return ZE_ERR_NOT_FOUND;
    case EACCES:
    case EPERM:
        return ZE_ERR_DENIED;
    case EROFS:
        return ZE_ERR_READ_ONLY;
    case EXDEV:
        return ZE_ERR_PATH_ESCAPE; /* RESOLVE_BENEATH refused */
    case ENAMETOOLONG:
        return ZE_ERR_TOO_LONG;
    case EEXIST:
        return ZE_ERR_EXISTS;
    case ENOTDIR:
        return ZE_ERR_NOT_DIR;
    case EISDIR:
        return ZE_ERR_IS_DIR;
    case ENOTEMPTY:
        return ZE_ERR_NOT_EMPTY;
    case ELOOP:
        return ZE_ERR_LOOP;
    case ENOMEM:
        return ZE_ERR_OUT_OF_MEMORY;
    default:
        return ZE_ERR_IO;
    }
}

static inline disk_backend *as_disk(ze__vfs_backend *b)
{
    return (disk_backend *)b;
}

/* ------------------------------------------------------------- the walk */

/* Re-walk `resolved` (components known to be real directories) from the
 * root; returns an O_PATH fd or -1 with errno. */
static int walk_dirs(int root_fd, const char *resolved, size_t len)
{
    int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    size_t i = 0;
    while (fd >= 0 && i < len) {
        size_t j = i;
        while (j < len && resolved[j] != '/')
            j++;
        char name[ZE_PATH_NAME_MAX + 1];
        memcpy(name, resolved + i, j - i);
        name[j - i] = '\0';
        int next = openat(fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        int saved = errno;
        close(fd);
        errno = saved;
        fd = next;
        i = j + 1;
    }
    return fd;
}

/* The fallback resolver: same contract as openat2 with RESOLVE_BENEATH. */
static int walk_open(int root_fd, const char *rel, int flags, mode_t mode)
{
    char rest[WALK_BUF];     /* what is left to resolve */
    char resolved[WALK_BUF]; /* real directories below the root, '/'-joined */
    size_t rest_len = strlen(rel), res_len = 0;
    if (rest_len >= sizeof(rest)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(rest, rel, rest_len + 1);
    int dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    if (dir < 0)
        return -1;
    int links = 0;
    size_t pos = 0;
    for (;;) {
        while (pos < rest_len && rest[pos] == '/')
            pos++;
        if (pos >= rest_len) {
            /* Nothing left (rel was "" or ended in "."/".."): open the
             * directory we are in with the caller's flags. */
            int fd = openat(dir, ".", flags | O_CLOEXEC, mode);
            int saved = errno;
            close(dir);
            errno = saved;
            return fd;
        }
        size_t end = pos;
        while (end < rest_len && rest[end] != '/')
            end++;
        size_t n = end - pos;
        char name[ZE_PATH_NAME_MAX + 1];
        if (n > ZE_PATH_NAME_MAX) {
            close(dir);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, rest + pos, n);
        name[n] = '\0';
        size_t after = end;
        while (after < rest_len && rest[after] == '/')
            after++;
        bool last = after >= rest_len;
        if (n == 1 && name[0] == '.') {
            pos = end;
            continue;
        }
        if (n == 2 && name[0] == '.' && name[1] == '.') {
            if (res_len == 0) {
                close(dir);
                errno = EXDEV; /* above the root */
                return -1;
            }
            while (res_len > 0 && resolved[res_len - 1] != '/')
                res_len--;
            if (res_len > 0)
                res_len--; /* the slash */
            close(dir);
            dir = walk_dirs(root_fd, resolved, res_len);
            if (dir < 0)
                return -1;
            pos = end;
            continue;
        }
        int fd;
        if (last) {
            fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
            int open_err = errno;
            if (fd >= 0 && (flags & O_PATH)) {
                /* O_PATH | O_NOFOLLOW opens a link itself: inspect it. */
                struct stat st;
                if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
                    close(fd);
                    fd = -1;
                    open_err = ELOOP;
                }
            }
            if (fd >= 0) {
                close(dir);
                return fd;
            }
            /* A link at the end fails with ELOOP under O_NOFOLLOW, or with
             * ENOTDIR when O_DIRECTORY is checked first: look at it. */
            struct stat lst;
            bool is_link = (open_err == ELOOP || open_err == ENOTDIR) &&
                           fstatat(dir, name, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
                           S_ISLNK(lst.st_mode);
            if (!is_link) {
                close(dir);
                errno = open_err;
                return -1;
            }
        } else {
            fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                int saved = errno;
                close(dir);
                errno = saved;
                return -1;
            }
            struct stat st;
            if (fstat(fd, &st) != 0) {
                int saved = errno;
                close(fd);
                close(dir);
                errno = saved;
                return -1;
            }
            if (S_ISDIR(st.st_mode)) {
                close(dir);
                dir = fd;
                if (res_len + 1 + n >= sizeof(resolved)) {
                    close(dir);
                    errno = ENAMETOOLONG;
                    return -1;
                }
                if (res_len)
                    resolved[res_len++] = '/';
                memcpy(resolved + res_len, name, n);
                res_len += n;
                pos = end;
                continue;
            }
            close(fd);
            if (!S_ISLNK(st.st_mode)) {
                close(dir);
                errno = ENOTDIR;
                return -1;
            }
        }
        /* `name` is a symbolic link: splice its target into the rest. */
        if (++links > MAX_LINKS) {
            close(dir);
            errno = ELOOP;
            return -1;
        }
        char target[WALK_BUF];
        ssize_t tl = readlinkat(dir, name, target, sizeof(target) - 1);
        if (tl < 0) {
            int saved = errno;
            close(dir);
            errno = saved;
            return -1;
        }
        if (tl == 0 || target[0] == '/') {
            close(dir);
            errno = EXDEV; /* absolute target: outside by definition */
            return -1;
        }
        size_t tail = rest_len - end; /* includes the separator, if any */
        if ((size_t)tl + tail >= sizeof(rest)) {
            close(dir);
            errno = ENAMETOOLONG;
            return -1;
        }
        memmove(rest + tl, rest + end, tail);
        memcpy(rest, target, (size_t)tl);
        rest_len = (size_t)tl + tail;
        rest[rest_len] = '\0';
        pos = 0;
    }
}

/* Open `rel` beneath the root. Returns an fd or -1 with errno. */
static int open_beneath(disk_backend *d, const char *rel, int flags, mode_t mode)
{
    if (!rel[0])
        rel = ".";
    if (!atomic_load_explicit(&d->walk_only, memory_order_relaxed)) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (uint64_t)(flags | O_CLOEXEC);
        how.mode = (flags & O_CREAT) ? mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        for (int attempt = 0; attempt < 8; attempt++) {
            long fd = syscall(SYS_openat2, d->root_fd, rel, &how, sizeof how);
            if (fd >= 0)
                return (int)fd;
            /* EAGAIN: a concurrent rename made the kernel unsure that a
             * `..` stayed beneath; retrying is the documented answer. */
            if (errno != EAGAIN)
                break;
        }
        if (errno != ENOSYS)
            return -1;
        atomic_store_explicit(&d->walk_only, true, memory_order_relaxed);
        ZE_LOG_INFO(ZE__VFS_CH, "openat2 unavailable: resolving paths component by component");
    }
    return walk_open(d->root_fd, rel, flags, mode);
}

void ze__vfs_disk_force_walk(ze__vfs_backend *b, bool on)
{
    atomic_store_explicit(&as_disk(b)->walk_only, on, memory_order_relaxed);
}

int ze__vfs_disk_open_dir(ze__vfs_backend *b, const char *rel, ze_result *err)
{
    int fd = open_beneath(as_disk(b), rel, O_RDONLY | O_DIRECTORY, 0);
    *err = fd < 0 ? ze__vfs_errno(errno) : ZE_OK;
    return fd;
}

static void fill_stat(const struct stat *st, ze_vfs_stat_t *out)
{
    memset(out, 0, sizeof *out);
    out->is_dir = S_ISDIR(st->st_mode);
    out->size = out->is_dir ? 0 : (uint64_t)st->st_size;
    out->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Split "a/b/c" into parent "a/b" (into buf) and name "c". */
static const char *split_parent(const char *rel, char *buf, size_t cap)
{
    const char *slash = strrchr(rel, '/');
    if (!slash) {
        buf[0] = '\0';
        return rel;
    }
    size_t n = (size_t)(slash - rel);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, rel, n);
    buf[n] = '\0';
    return slash + 1;
}

/* ------------------------------------------------------------ operations */

static ze_result disk_stat(ze__vfs_backend *b, const char *rel, ze_vfs_stat_t *out)
{
    int fd = open_beneath(as_disk(b), rel, O_PATH, 0);
    if (fd < 0)
        return ze__vfs_errno(errno);
    struct stat st;
    int rc = fstat(fd, &st);
    int saved = errno;
    close(fd);
    if (rc != 0)
        return ze__vfs_errno(saved);
    fill_stat(&st, out);
    return ZE_OK;
}

static ze_result open_regular(disk_backend *d, const char *rel, int *fd_out, struct stat *st)
{
    /* O_NONBLOCK: opening a FIFO must not hang; it is refused below. */
    int fd = open_beneath(d, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0)
        return ze__vfs_errno(errno);
    if (fstat(fd, st) != 0) {
        int saved = errno;
        close(fd);
        return ze__vfs_errno(saved);
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return S_ISDIR(st->st_mode) ? ZE_ERR_IS_DIR : ZE_ERR_UNSUPPORTED;
    }
    *fd_out = fd;
    return ZE_OK;
}

static ze_result disk_read_file(ze__vfs_backend *b, const char *rel, ze_allocator_t alloc,
                                ze_vfs_buffer_t *out)
{
    int fd = -1;
    struct stat st;
    ze_result e = open_regular(as_disk(b), rel, &fd, &st);
    if (e)
        return e;
    size_t size = (size_t)st.st_size, alloc_size;
    if (!ze_size_add(size, 1, &alloc_size)) {
        close(fd);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    uint8_t *data = ze_alloc(alloc, alloc_size, 16);
    if (!data) {
        close(fd);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            close(fd);
            ze_free(alloc, data, alloc_size);
            return ze__vfs_errno(saved);
        }
        if (n == 0)
            break; /* shrank meanwhile: return what is there */
        got += (size_t)n;
    }
    close(fd);
    data[got] = '\0';
    out->data = data;
    out->size = got;
    out->alloc = alloc;
    /* A file that shrank keeps its allocation size in the buffer's
     * bookkeeping: ze_vfs_buffer_free frees size + 1, so shrink it. */
    if (got != size) {
        uint8_t *p = ze_realloc(alloc, data, alloc_size, got + 1, 16);
        if (p)
            out->data = p;
        else {
            ze_free(alloc, data, alloc_size);
            return ZE_ERR_OUT_OF_MEMORY;
        }
    }
    return ZE_OK;
}

static ze_result disk_open(ze__vfs_backend *b, const char *rel, ze_vfs_file_t *f)
{
    int fd = -1;
    struct stat st;
    ze_result e = open_regular(as_disk(b), rel, &fd, &st);
    if (e)
        return e;
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return ZE_OK;
}

static ze_result write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n > WRITE_CHUNK ? WRITE_CHUNK : n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return ze__vfs_errno(errno);
        }
        p += w;
        n -= (size_t)w;
    }
    return ZE_OK;
}

static ze_result disk_write(ze__vfs_backend *b, const char *rel, const void *data, size_t size,
                            ze__vfs_write_opts *opts)
{
    disk_backend *d = as_disk(b);
    if (!rel[0])
        return ZE_ERR_IS_DIR;
    char parent[ZE_PATH_CAPACITY];
    const char *name = split_parent(rel, parent, sizeof parent);
    int dfd = open_beneath(d, parent, O_RDONLY | O_DIRECTORY, 0);
    if (dfd < 0)
        return ze__vfs_errno(errno);
    struct stat old;
    mode_t mode = 0644;
    opts->existed = false;
    if (fstatat(dfd, name, &old, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(old.st_mode)) {
            close(dfd);
            return ZE_ERR_IS_DIR;
        }
        opts->existed = true;
        if (S_ISREG(old.st_mode))
            mode = old.st_mode & 07777;
    }
    /* Limit: the temporary name must fit NAME_MAX, so the target's name is
     * cut to what is left after the prefix and counters. */
    char tmp[ZE_PATH_NAME_MAX + 1];
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        /* Another context of this process may use the same counter values
         * in this directory: O_EXCL tells, and the next number is tried. */
        unsigned seq = atomic_fetch_add_explicit(&d->tmp_seq, 1, memory_order_relaxed);
        int len = snprintf(tmp, sizeof tmp, ZE__VFS_TMP_PREFIX "%c.%ld.%u.",
                           opts->existed ? 'M' : 'C', (long)getpid(), seq);
        if (len < 0 || (size_t)len >= sizeof tmp) {
            close(dfd);
            return ZE_ERR_TOO_LONG;
        }
        snprintf(tmp + len, sizeof tmp - (size_t)len, "%s", name);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int saved = errno;
        close(dfd);
        return ze__vfs_errno(saved);
    }
    const uint8_t *p = data;
    size_t half = size / 2;
    ze_result e = write_all(fd, p, half);
    if (!e && opts->hook && !opts->hook(opts->hook_user, opts->vfs_path, half, size)) {
        /* Simulated crash: leave everything as a dead process would. */
        close(fd);
        close(dfd);
        return ZE_ERR_FAULT_INJECTED;
    }
    if (!e)
        e = write_all(fd, p + half, size - half);
    if (!e && fsync(fd) != 0)
        e = ze__vfs_errno(errno);
    if (close(fd) != 0 && !e)
        e = ze__vfs_errno(errno);
    if (!e && renameat(dfd, tmp, dfd, name) != 0)
        e = ze__vfs_errno(errno);
    if (e) {
        unlinkat(dfd, tmp, 0);
        close(dfd);
        return e;
    }
    /* The rename is durable once the directory is. */
    if (fsync(dfd) != 0)
        e = ze__vfs_errno(errno);
    close(dfd);
    return e;
}

static ze_result disk_remove(ze__vfs_backend *b, const char *rel, bool *was_dir)
{
    if (!rel[0])
        return ZE_ERR_DENIED; /* the root itself */
    char parent[ZE_PATH_CAPACITY];
    const char *name = split_parent(rel, parent, sizeof parent);
    int dfd = open_beneath(as_disk(b), parent, O_PATH | O_DIRECTORY, 0);
    if (dfd < 0)
        return ze__vfs_errno(errno);
    struct stat st;
    ze_result e = ZE_OK;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        e = ze__vfs_errno(errno);
    else {
        *was_dir = S_ISDIR(st.st_mode);
        if (unlinkat(dfd, name, *was_dir ? AT_REMOVEDIR : 0) != 0)
            e = ze__vfs_errno(errno == EEXIST ? ENOTEMPTY : errno);
    }
    close(dfd);
    return e;
}

static ze_result disk_mkdir(ze__vfs_backend *b, const char *rel)
{
    if (!rel[0])
        return ZE_ERR_EXISTS;
    char parent[ZE_PATH_CAPACITY];
    const char *name = split_parent(rel, parent, sizeof parent);
    int dfd = open_beneath(as_disk(b), parent, O_PATH | O_DIRECTORY, 0);
    if (dfd < 0)
        return ze__vfs_errno(errno);
    ze_result e = mkdirat(dfd, name, 0755) == 0 ? ZE_OK : ze__vfs_errno(errno);
    close(dfd);
    return e;
}

static ze_result disk_rename(ze__vfs_backend *b, const char *from, const char *to, bool *is_dir)
{
    if (!from[0] || !to[0])
        return ZE_ERR_DENIED;
    char pa[ZE_PATH_CAPACITY], pb[ZE_PATH_CAPACITY];
    const char *na = split_parent(from, pa, sizeof pa);
    const char *nb = split_parent(to, pb, sizeof pb);
    disk_backend *d = as_disk(b);
    int fa = open_beneath(d, pa, O_PATH | O_DIRECTORY, 0);
    if (fa < 0)
        return ze__vfs_errno(errno);
    int fb = open_beneath(d, pb, O_PATH | O_DIRECTORY, 0);
    if (fb < 0) {
        int saved = errno;
        close(fa);
        return ze__vfs_errno(saved);
    }
    struct stat st;
    ze_result e = ZE_OK;
    if (fstatat(fa, na, &st, AT_SYMLINK_NOFOLLOW) != 0)
        e = ze__vfs_errno(errno);
    else {
        *is_dir = S_ISDIR(st.st_mode);
        if (renameat(fa, na, fb, nb) != 0)
            e = ze__vfs_errno(errno == EEXIST ? ENOTEMPTY : errno);
    }
    close(fa);
    close(fb);
    return e;
}

static ze_result disk_list(ze__vfs_backend *b, const char *rel, ze__vfs_list_sink sink, void *user)
{
    disk_backend *d = as_disk(b);
    int dfd = open_beneath(d, rel, O_RDONLY | O_DIRECTORY, 0);
    if (dfd < 0)
        return ze__vfs_errno(errno);
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        int saved = errno;
        close(dfd);
        return ze__vfs_errno(saved);
    }
    size_t rel_len = strlen(rel);
    ze_result e = ZE_OK;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            if (errno)
                e = ze__vfs_errno(errno);
            break;
        }
        const char *name = de->d_name;
        size_t len = strlen(name);
        if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
            continue;
        if (ze__path_name_is_temp(name, len))
            continue;
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        bool is_link = S_ISLNK(st.st_mode);
        if (is_link) {
            /* The target, resolved beneath the root like any open: a link
             * out of the root is left out of the listing. */
            char full[ZE_PATH_CAPACITY];
            int n = snprintf(full, sizeof full, "%s%s%s", rel, rel_len ? "/" : "", name);
            if (n < 0 || (size_t)n >= sizeof full)
                continue;
            int fd = open_beneath(d, full, O_PATH, 0);
            if (fd < 0)
                continue;
            int rc = fstat(fd, &st);
            close(fd);
            if (rc != 0)
                continue;
        }
        ze_vfs_stat_t vs;
        fill_stat(&st, &vs);
        if (!sink(user, name, len, &vs, is_link))
            break;
    }
    closedir(dir);
    return e;
}

static void disk_destroy(ze__vfs_backend *b)
{
    disk_backend *d = as_disk(b);
    close(d->root_fd);
    ze_free(b->alloc, d, sizeof *d);
}

static const ze__vfs_backend_ops disk_ops = {
    .stat = disk_stat,
    .read_file = disk_read_file,
    .open = disk_open,
    .write = disk_write,
    .remove = disk_remove,
    .mkdir = disk_mkdir,
    .rename = disk_rename,
    .list = disk_list,
    .destroy = disk_destroy,
};

ze_result ze__vfs_disk_create(ze_allocator_t alloc, const char *host_root, ze__vfs_backend **out,
                              bool *writable)
{
    int fd = open(host_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ze__vfs_errno(errno);
    disk_backend *d = ze_alloc(alloc, sizeof *d, _Alignof(disk_backend));
    if (!d) {
        close(fd);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(d, 0, sizeof *d);
    d->base.ops = &disk_ops;
    d->base.alloc = alloc;
    d->root_fd = fd;
    atomic_init(&d->walk_only, false);
    atomic_init(&d->tmp_seq, 0);
    struct statvfs sv;
    *writable = faccessat(fd, ".", W_OK, AT_EACCESS) == 0 &&
                !(fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY));
    *out = &d->base;
    return ZE_OK;
}
