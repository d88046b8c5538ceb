/* A stand-in for `zengine cook` in the child-process tests: argv[1] picks how
 * it behaves, so each way a real cooker can fail (crash, runaway memory, hang,
 * endless output, CPU spin, an error on stderr) is reproduced on demand.
 * Not a test itself. No malloc (the allocator-symbol scan covers every object
 * file of the build): the memory hog maps pages with mmap. Built without
 * sanitizers, whose shadow reservations cannot live under RLIMIT_AS. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            _exit(1);
        s += w;
        n -= (size_t)w;
    }
}

/* Touches 16 MiB at a time until the system says no, then aborts the way
 * an uncaught std::bad_alloc does. */
static void hog(void)
{
    const size_t chunk = (size_t)16 << 20;
    for (size_t total = 0;; total += chunk) {
        void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr,
                    "fake_cooker: mmap failed after %zu MiB\n"
                    "terminate called after throwing an instance of 'std::bad_alloc'\n"
                    "  what():  std::bad_alloc\n",
                    total >> 20);
            abort();
        }
        memset(p, 0xa5, chunk);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "ok") == 0) {
        static const char json[] = "{\"importer\": \"fake\", \"artifacts\": [\"mesh_0.zemesh\"]}\n";
        write_all(1, json, sizeof json - 1);
        return 0;
    }
    if (strcmp(mode, "crash") == 0) {
        int *volatile p = NULL; /* opaque: a real store through NULL, not a trap */
        *p = 1;
        return 0;
    }
    if (strcmp(mode, "hog") == 0)
        hog();
    if (strcmp(mode, "hang") == 0)
        for (;;)
            pause();
    if (strcmp(mode, "spam") == 0) {
        static char buf[65536];
        memset(buf, 'x', sizeof buf);
        for (;;)
            write_all(1, buf, sizeof buf);
    }
    if (strcmp(mode, "errspam") == 0) { /* stderr has no cap: the deadline ends it */
        static char buf[65536];
        memset(buf, 'e', sizeof buf);
        for (;;)
            write_all(2, buf, sizeof buf);
    }
    if (strcmp(mode, "stderr") == 0) {
        fputs("fake_cooker: reading input\n"
              "warning: something odd\n"
              "error: bad\taccessor 7\n"
              "\n",
              stderr);
        return 3;
    }
    if (strcmp(mode, "noisy") == 0) { /* more stderr than the parent keeps */
        for (int i = 0; i < 2000; i++)
            fprintf(stderr, "noise line %d\n", i);
        fputs("the very last line\n", stderr);
        return 1;
    }
    if (strcmp(mode, "cpu") == 0) {
        volatile unsigned long n = 0;
        for (;;)
            n++;
    }
    fprintf(stderr, "fake_cooker: unknown mode '%s'\n", mode);
    return 2;
}
