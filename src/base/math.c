/* Math behind plain structs. cglm does the work; its types are arrays with
 * 16-byte alignment expectations, so we build it for unaligned access and
 * convert at the boundary (the structs stay plain for users and files). */
#define CGLM_ALL_UNALIGNED
#define CGLM_FORCE_DEPTH_ZERO_TO_ONE
#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

#include "zengine/base.h"

_Static_assert(sizeof(ze_mat4_t) == sizeof(mat4), "ze_mat4_t must match cglm's mat4");
_Static_assert(sizeof(ze_quat_t) == sizeof(versor), "ze_quat_t must match cglm's versor");

#define V3(v) ((vec3){(v).x, (v).y, (v).z})
#define Q(q)  ((versor){(q).x, (q).y, (q).z, (q).w})

static ze_vec3_t to_v3(const vec3 v)
{
    return (ze_vec3_t){v[0], v[1], v[2]};
}
static ze_quat_t to_q(const versor q)
{
    return (ze_quat_t){q[0], q[1], q[2], q[3]};
}

ze_vec3_t ze_vec3_add(ze_vec3_t a, ze_vec3_t b)
{
    return (ze_vec3_t){a.x + b.x, a.y + b.y, a.z + b.z};
}
ze_vec3_t ze_vec3_sub(ze_vec3_t a, ze_vec3_t b)
{
    return (ze_vec3_t){a.x - b.x, a.y - b.y, a.z - b.z};
}
ze_vec3_t ze_vec3_scale(ze_vec3_t a, float s)
{
    return (ze_vec3_t){a.x * s, a.y * s, a.z * s};
}
float ze_vec3_dot(ze_vec3_t a, ze_vec3_t b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
ze_vec3_t ze_vec3_cross(ze_vec3_t a, ze_vec3_t b)
{
    vec3 r;
    glm_vec3_cross(V3(a), V3(b), r);
    return to_v3(r);
}
float ze_vec3_length(ze_vec3_t a)
{
    return sqrtf(ze_vec3_dot(a, a));
}
ze_vec3_t ze_vec3_normalize(ze_vec3_t a)
{
    float len = ze_vec3_length(a);
    return len > 0.0f ? ze_vec3_scale(a, 1.0f / len) : a;
}
ze_vec3_t ze_vec3_lerp(ze_vec3_t a, ze_vec3_t b, float t)
{
    return (ze_vec3_t){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

ze_quat_t ze_quat_from_axis_angle(ze_vec3_t axis, float radians)
{
    versor q;
    glm_quatv(q, radians, V3(ze_vec3_normalize(axis)));
    return to_q(q);
}
ze_quat_t ze_quat_mul(ze_quat_t a, ze_quat_t b)
{
    versor r;
    glm_quat_mul(Q(a), Q(b), r);
    return to_q(r);
}
ze_quat_t ze_quat_normalize(ze_quat_t q)
{
    versor r;
    glm_quat_normalize_to(Q(q), r);
    return to_q(r);
}
ze_quat_t ze_quat_slerp(ze_quat_t a, ze_quat_t b, float t)
{
    versor r;
    glm_quat_slerp(Q(a), Q(b), t, r);
    return to_q(r);
}
ze_vec3_t ze_quat_rotate(ze_quat_t q, ze_vec3_t v)
{
    vec3 r;
    glm_quat_rotatev(Q(q), V3(v), r);
    return to_v3(r);
}

ze_mat4_t ze_mat4_identity(void)
{
    ze_mat4_t m;
    glm_mat4_identity(m.m);
    return m;
}
ze_mat4_t ze_mat4_mul(ze_mat4_t a, ze_mat4_t b)
{
    ze_mat4_t r;
    glm_mat4_mul(a.m, b.m, r.m);
    return r;
}
/* Written out rather than through cglm: glm_quat_mat4 assumes a unit
 * quaternion (it scales by 2/|q| where 2/|q|^2 is needed), and composing
 * T * R * S by hand is several times faster than three matrix products. */
ze_mat4_t ze_mat4_from_trs(ze_vec3_t t, ze_quat_t q, ze_vec3_t s)
{
    float n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    float k = n > 0.0f ? 2.0f / n : 0.0f;
    float xx = q.x * q.x * k, yy = q.y * q.y * k, zz = q.z * q.z * k;
    float xy = q.x * q.y * k, xz = q.x * q.z * k, yz = q.y * q.z * k;
    float wx = q.w * q.x * k, wy = q.w * q.y * k, wz = q.w * q.z * k;
    ze_mat4_t r;
    r.m[0][0] = (1.0f - yy - zz) * s.x;
    r.m[0][1] = (xy + wz) * s.x;
    r.m[0][2] = (xz - wy) * s.x;
    r.m[0][3] = 0.0f;
    r.m[1][0] = (xy - wz) * s.y;
    r.m[1][1] = (1.0f - xx - zz) * s.y;
    r.m[1][2] = (yz + wx) * s.y;
    r.m[1][3] = 0.0f;
    r.m[2][0] = (xz + wy) * s.z;
    r.m[2][1] = (yz - wx) * s.z;
    r.m[2][2] = (1.0f - xx - yy) * s.z;
    r.m[2][3] = 0.0f;
    r.m[3][0] = t.x;
    r.m[3][1] = t.y;
    r.m[3][2] = t.z;
    r.m[3][3] = 1.0f;
    return r;
}
bool ze_mat4_inverse(ze_mat4_t m, ze_mat4_t *out)
{
    float det = glm_mat4_det(m.m);
    if (!isfinite(det) || fabsf(det) < 1e-30f)
        return false;
    glm_mat4_inv(m.m, out->m);
    return true;
}
ze_mat4_t ze_mat4_transpose(ze_mat4_t m)
{
    ze_mat4_t r;
    glm_mat4_transpose_to(m.m, r.m);
    return r;
}
ze_vec4_t ze_mat4_mul_vec4(ze_mat4_t m, ze_vec4_t v)
{
    vec4 in = {v.x, v.y, v.z, v.w}, r;
    glm_mat4_mulv(m.m, in, r);
    return (ze_vec4_t){r[0], r[1], r[2], r[3]};
}
ze_vec3_t ze_mat4_transform_point(ze_mat4_t m, ze_vec3_t p)
{
    vec3 r;
    glm_mat4_mulv3(m.m, V3(p), 1.0f, r);
    return to_v3(r);
}
ze_mat4_t ze_mat4_perspective(float fovy, float aspect, float znear, float zfar)
{
    ze_mat4_t r;
    glm_perspective_rh_zo(fovy, aspect, znear, zfar, r.m);
    r.m[1][1] = -r.m[1][1]; /* Vulkan's clip space has y pointing down */
    return r;
}
ze_mat4_t ze_mat4_look_at(ze_vec3_t eye, ze_vec3_t center, ze_vec3_t up)
{
    ze_mat4_t r;
    glm_lookat_rh(V3(eye), V3(center), V3(up), r.m);
    return r;
}
