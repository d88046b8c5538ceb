/* ECS -> render state: the seed's TransformSync and LightSync, the camera
 * and the sky, written as one immutable ze_render_state_t into a mailbox
 * slot's arena and published to the render thread (main thread, step 11).
 *
 * Instances are render proxies (scene.c binds them): the state carries
 * only the changes the render thread may not have yet, from the proxy
 * change queue (fill_changes below; docs/gfx.md "Render proxies").
 *
 * Interpolation rule: the hierarchy computes world matrices at the end of
 * each fixed step. For an entity without a parent (no Parent component, or
 * a dead one) the matrix's translation is drawn at
 * lerp(previous_position, position, alpha), the point between the last two
 * fixed steps that the leftover time reaches; rotation and scale are not
 * interpolated. Children keep the hierarchy's matrix (their parent's motion
 * is already in it, one step behind at most). Instances carry both
 * positions and the backend interpolates (ZE_RENDER_INSTANCE_INTERPOLATE),
 * so one that moved once is sent once; the camera and lights are placed
 * here, every state. */
#include <math.h>
#include <string.h>

#include "engine/engine_internal.h"

static const ze_vec3_t SKY_CLEAR = {0.05f, 0.07f, 0.1f};

static bool has_live_parent(ze_world_t *w, ze_entity_t e)
{
    const ze_parent_t *p = ze_get(w, e, ze_parent_t);
    return p && ze_entity_alive(w, p->parent);
}

/* The render matrix of an entity (see the rule above). */
static ze_mat4_t render_world(ze_world_t *w, ze_entity_t e, const ze_transform_t *t, float alpha)
{
    ze_mat4_t m = t->world;
    if (!has_live_parent(w, e)) {
        ze_vec3_t p = ze_vec3_lerp(t->previous_position, t->position, alpha);
        m.m[3][0] = p.x;
        m.m[3][1] = p.y;
        m.m[3][2] = p.z;
    }
    return m;
}

/* Right-handed, depth 0..1, y down (ze_mat4_perspective); far 0 or
 * infinite: the limit of that matrix as far grows without bound. */
static ze_mat4_t projection(const ze_camera_t *c, float aspect)
{
    float fov = c->fov_y > 0.0f && c->fov_y < 3.14f ? c->fov_y : 1.0471976f;
    float znear = c->near_plane > 0.0f ? c->near_plane : 0.1f;
    bool infinite = c->far_plane == 0.0f || isinf(c->far_plane);
    if (!infinite && c->far_plane > znear)
        return ze_mat4_perspective(fov, aspect, znear, c->far_plane);
    ze_mat4_t m = ze_mat4_perspective(fov, aspect, znear, znear * 2.0f);
    m.m[2][2] = -1.0f;
    m.m[2][3] = -1.0f;
    m.m[3][2] = -znear;
    return m;
}

static void fill_camera(ze_engine_t *e, ze_render_state_t *s, float alpha)
{
    ze_world_t *w = e->world;
    ze_query_t q = ze_query_create(
        w, &(ze_query_desc_t){.with = ZE_MASK(ze_camera_t), .optional = ZE_MASK(ze_transform_t)});
    ze_entity_t best = ZE_ENTITY_NULL;
    bool best_main = false;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const ze_camera_t *c = ze_field(&it, ze_camera_t);
        const ze_transform_t *t = ze_field(&it, ze_transform_t);
        for (uint32_t i = 0; i < it.count && t; i++) {
            ze_entity_t ent = ze_iter_entity(&it, i);
            /* lowest index among the main ones, else among all: stable */
            bool better =
                ze_entity_is_null(best) || (c[i].is_main && !best_main) ||
                (c[i].is_main == best_main && ze_entity_index(ent) < ze_entity_index(best));
            if (better) {
                best = ent;
                best_main = c[i].is_main;
            }
        }
    }
    if (ze_entity_is_null(best))
        return;
    const ze_camera_t *c = ze_get(w, best, ze_camera_t);
    const ze_transform_t *t = ze_get(w, best, ze_transform_t);
    ze_mat4_t world = render_world(w, best, t, alpha);
    float aspect = c->aspect > 0.0f ? c->aspect : (float)s->width / (float)s->height;
    ze_render_camera_t *rc = &s->camera;
    if (!ze_mat4_inverse(world, &rc->view))
        rc->view = ze_mat4_identity();
    rc->projection = projection(c, aspect);
    rc->position = (ze_vec3_t){world.m[3][0], world.m[3][1], world.m[3][2]};
    rc->fov_y = c->fov_y;
    rc->near_plane = c->near_plane;
    rc->far_plane = c->far_plane;
    rc->aspect = aspect;
    s->has_camera = true;
}

/* ------------------------------------------------- instance changes */

/* What the render thread has of a queued proxy. A proxy stays in every
 * state from the first that carried it (carried_at) until it leaves the
 * queue, so once the render thread applied a state at or after that one
 * (consumed), it has the proxy as that state held it: everything up to
 * `consumed`. */
typedef enum delivery { NOT_DELIVERED, DELIVERED, DELIVERED_BUT_MOVED } delivery;

static delivery delivered(const ze__render_proxy_t *p, uint64_t consumed)
{
    if (!p->carried_at || p->carried_at > consumed)
        return NOT_DELIVERED;
    if (p->last_change <= consumed)
        return DELIVERED;
    /* it changed since: a later create or destroy keeps its place (the
       asset release waits for it: scene.c delivered_through); moves
       alone go to the tail as moves, behind what waits longer */
    return p->structural_at <= consumed ? DELIVERED_BUT_MOVED : NOT_DELIVERED;
}

/* A root moves between fixed steps by interpolation; a child keeps the
 * hierarchy's matrix. */
static void place(ze_world_t *w, ze_entity_t ent, ze_mat4_t *world, ze_vec3_t *prev,
                  uint32_t *flags)
{
    const ze_transform_t *t = ze_get(w, ent, ze_transform_t);
    if (!t) { /* a Mesh without a Transform: at the origin */
        *world = ze_mat4_identity();
        *prev = (ze_vec3_t){0, 0, 0};
        *flags = 0;
        return;
    }
    *world = t->world;
    *prev = t->previous_position;
    *flags = has_live_parent(w, ent) ? 0u : ZE_RENDER_INSTANCE_INTERPOLATE;
}

/* The queue holds proxies in changed_at order, and each state carries its
 * head: the first ZE__MAX_STATE_RECORDS that the render thread may lack.
 * A proxy carried by a state stays within the head of every later one
 * until the render thread has it (proxies join only at the tail; what
 * was before it can only leave), so whichever of those states the render
 * thread takes, it gets the change: the lossless rule (docs/gfx.md
 * "Render proxies"). One that moved again since the state the render
 * thread took rejoins at the tail as a move: when more proxies change per
 * step than a state carries, the head turns over each time the render
 * thread takes a state, and every one is carried within a few. The walk
 * drops what was delivered on the way and stops at the head's end:
 * nothing further back was ever carried. The state is pending while a
 * change to the instance set (a create, re-mesh, re-material or destroy)
 * stays behind; moves that wait for the next state never hold a frame
 * back. */
static ze_result fill_changes(ze_engine_t *e, ze_arena_t *a, ze_render_state_t *s)
{
    ze_world_t *w = e->world;
    uint64_t consumed = atomic_load_explicit(&e->render_consumed, memory_order_acquire);
    ze__render_proxy_t *proxies = ze_mem_table_data(&e->proxy_table);
    uint32_t whole = 0, moves = 0, removes = 0, n = 0;
    uint32_t first = ZE_RENDER_INSTANCE_NONE; /* the head after the drops */
    uint32_t limit = e->ctx.state_record_limit ? e->ctx.state_record_limit : ZE__MAX_STATE_RECORDS;
    for (uint32_t k = e->proxy_queue.head; k != ZE_RENDER_INSTANCE_NONE && n < limit;) {
        ze__render_proxy_t *p = &proxies[k];
        uint32_t next = p->q_next;
        delivery d = delivered(p, consumed);
        if (d != NOT_DELIVERED) {
            ze__proxy_queue_unlink(e, k);
            p->changes = 0;
            if (d == DELIVERED_BUT_MOVED) {
                p->changes = ZE__PROXY_TRANSFORM;
                ze__proxy_queue_append(e, k);
                if (next == ZE_RENDER_INSTANCE_NONE)
                    next = k; /* it was the tail: the walk reaches it again */
            }
        } else {
            if (first == ZE_RENDER_INSTANCE_NONE)
                first = k;
            n++;
            if (!p->live)
                removes++;
            else if (p->changes & ZE__PROXY_WHOLE)
                whole++;
            else
                moves++;
        }
        k = next;
    }
    ze_render_instance_t *wr = whole ? ZE_ARENA_NEW_ARRAY(a, ze_render_instance_t, whole) : NULL;
    ze_render_transform_t *mv = moves ? ZE_ARENA_NEW_ARRAY(a, ze_render_transform_t, moves) : NULL;
    uint32_t *rm = removes ? ZE_ARENA_NEW_ARRAY(a, uint32_t, removes) : NULL;
    if ((whole && !wr) || (moves && !mv) || (removes && !rm))
        return ZE_ERR_BUDGET;
    uint64_t serial = e->delta_serial + 1;
    whole = moves = removes = 0;
    uint32_t slot = first;
    for (uint32_t i = 0; i < n; i++, slot = proxies[slot].q_next) {
        ze__render_proxy_t *p = &proxies[slot];
        if (!p->carried_at)
            p->carried_at = serial; /* the first since it joined the queue */
        if (!p->live) {
            rm[removes++] = slot;
        } else if (p->changes & ZE__PROXY_WHOLE) {
            ze_render_instance_t *r = &wr[whole++];
            memset(r, 0, sizeof *r);
            place(w, p->entity, &r->world, &r->previous_position, &r->flags);
            r->slot = slot;
            r->mesh = p->mesh;
            r->material = p->material;
            r->id = p->entity.id;
        } else {
            ze_render_transform_t *r = &mv[moves++];
            memset(r, 0, sizeof *r);
            place(w, p->entity, &r->world, &r->previous_position, &r->flags);
            r->slot = slot;
        }
    }
    s->instance_slots = e->proxy_count;
    s->instance_count = e->proxies_live;
    s->instance_updates = wr;
    s->instance_update_count = whole;
    s->transform_updates = mv;
    s->transform_update_count = moves;
    s->instance_removes = rm;
    s->instance_remove_count = removes;
    s->instances_pending = e->proxy_queue.structural > whole + removes;
    s->delta_serial = serial;
    e->last_records = n;
    e->records_sent += n;
    return ZE_OK;
}

static uint32_t fill_lights(ze_engine_t *e, ze_render_light_t *out, uint32_t max, float alpha)
{
    ze_world_t *w = e->world;
    ze_query_t q = ze_query_create(
        w, &(ze_query_desc_t){.with = ZE_MASK(ze_light_t), .optional = ZE_MASK(ze_transform_t)});
    uint32_t n = 0;
    ze_iter_t it = ze_query_iter(w, q);
    while (ze_query_next(&it)) {
        const ze_light_t *l = ze_field(&it, ze_light_t);
        const ze_transform_t *t = ze_field(&it, ze_transform_t);
        for (uint32_t i = 0; i < it.count && n < max && t; i++) {
            ze_mat4_t m = render_world(w, ze_iter_entity(&it, i), &t[i], alpha);
            ze_render_light_t *rl = &out[n++];
            memset(rl, 0, sizeof *rl);
            rl->type = (ze_render_light_type)l[i].type;
            rl->intensity = l[i].intensity;
            rl->range = l[i].range;
            rl->spot_angle = l[i].spot_angle;
            rl->color = l[i].color;
            rl->position = (ze_vec3_t){m.m[3][0], m.m[3][1], m.m[3][2]};
            rl->direction = ze_vec3_normalize((ze_vec3_t){-m.m[2][0], -m.m[2][1], -m.m[2][2]});
        }
    }
    return n;
}

ze_result ze__sync_publish(ze_engine_t *e, float alpha)
{
    ze_world_t *w = e->world;
    ze_arena_t *a = ze_mailbox_begin_write(e->mailbox);
    if (!a)
        return ZE_ERR_STATE;
    ze_render_state_t *s = ZE_ARENA_NEW(a, ze_render_state_t);
    /* Upper bound: the population (lights lacking a Transform are
       skipped when filling). */
    uint32_t max_light = ze_component_population(w, ZE_ID(ze_light_t));
    ze_render_light_t *lights =
        max_light ? ZE_ARENA_NEW_ARRAY(a, ze_render_light_t, max_light) : NULL;
    if (!s || (max_light && !lights)) {
        ze_mailbox_cancel(e->mailbox);
        return ZE_ERR_BUDGET;
    }
    s->frame = e->frame;
    s->sim_steps = e->sim_steps;
    s->alpha = alpha;
    s->width = e->window.width;
    s->height = e->window.height;
    s->resized = s->width != e->last_width || s->height != e->last_height;
    e->last_width = s->width;
    e->last_height = s->height;
    s->scene_revision = e->scene_revision;
    s->sky = (ze_render_sky_t){.clear_color = SKY_CLEAR, .exposure = 1.0f};
    fill_camera(e, s, alpha);
    s->light_count = lights ? fill_lights(e, lights, max_light, alpha) : 0;
    s->lights = lights;
    ze_result r = fill_changes(e, a, s);
    if (r != ZE_OK) { /* nothing is lost: the queue is as it was */
        ze_mailbox_cancel(e->mailbox);
        return r;
    }
    e->delta_serial = s->delta_serial;
    e->last_instances = s->instance_count;
    e->last_lights = s->light_count;
    ze_mailbox_publish(e->mailbox, s, sizeof *s);
    return ZE_OK;
}
