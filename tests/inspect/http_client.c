#include "http_client.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int http_connect(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = 30}; /* a hang deadline */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int http_do(unsigned port, const http_req_t *r, char *buf, size_t cap)
{
    int fd = http_connect(port);
    if (fd < 0)
        return -1;
    size_t blen = r->body ? strlen(r->body) : 0;
    char head[1024], token[128] = "";
    if (r->token)
        snprintf(token, sizeof token, "X-Zengine-Token: %s\r\n", r->token);
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     r->method ? r->method : "GET", r->path, r->host ? r->host : "127.0.0.1", token,
                     blen);
    if (n < 0 || (size_t)n >= sizeof head || send_all(fd, head, (size_t)n) != 0 ||
        (blen && send_all(fd, r->body, blen) != 0)) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    ssize_t got;
    while (len + 1 < cap && (got = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = '\0';
    close(fd);
    int status = 0;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    char *body = strstr(buf, "\r\n\r\n");
    if (!body)
        return -1;
    memmove(buf, body + 4, strlen(body + 4) + 1);
    return status;
}

int http_get(unsigned port, const char *path, char *buf, size_t cap)
{
    return http_do(port, &(http_req_t){.path = path}, buf, cap);
}
