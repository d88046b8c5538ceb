/* A blocking HTTP/1.1 client over loopback for the inspector's tests: one
 * request per connection ("Connection: close"), plain sockets, no library
 * (the server side is libmicrohttpd; the tests must not share its code). */
#ifndef ZE_TEST_HTTP_CLIENT_H
#define ZE_TEST_HTTP_CLIENT_H

#include <stddef.h>

typedef struct http_req_t {
    const char *method; /* "GET" when NULL */
    const char *path;
    const char *host;  /* "127.0.0.1" when NULL */
    const char *token; /* X-Zengine-Token, none when NULL */
    const char *body;  /* none when NULL */
} http_req_t;

/* Sends r to 127.0.0.1:port and reads the answer until the server closes
 * (a 30 s receive deadline). Returns the status and leaves the body,
 * NUL-terminated, in buf; -1 when the connection or the answer failed. */
int http_do(unsigned port, const http_req_t *r, char *buf, size_t cap);

/* GET path with a loopback Host. */
int http_get(unsigned port, const char *path, char *buf, size_t cap);

/* A connected TCP socket to 127.0.0.1:port, -1 on failure. */
int http_connect(unsigned port);

#endif
