/* Planted violations: check_error_shapes.sh must find each one. */
typedef struct ze_foo_error_t {
    int line;
} ze_foo_error_t;
int ze_foo_parse(const char *text, char err[160]);
int ze_foo_open(const char *path, char *errbuf, unsigned cap);
const char *ze_foo_error(const void *foo);
typedef struct ze_foo_report_t {
    char messages[8][160];
} ze_foo_report_t;
