/* The render graph's core: declarations, compile (order, checks, lifetimes,
 * aliasing, barriers). No GPU calls; rg.h says what the rules are. */
#include <string.h>

#include "gfx/rg.h"

/* ------------------------------------------------------- access table */

enum {
    IMG = 1u << ZE_RG_IMAGE,
    BUF = 1u << ZE_RG_BUFFER,
    GFX = 1u << ZE_RG_GRAPHICS,
    CMP = 1u << ZE_RG_COMPUTE,
    XFR = 1u << ZE_RG_TRANSFER,
};

#define SHADERS_GFX \
    (VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT)
#define DEPTH_TESTS \
    (VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT)
#define XFER VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT

/* The one access table: every barrier of a graph (and ze__rg_transition)
 * comes from these rows. stages[] by pass kind: graphics, compute,
 * transfer. */
static const ze_rg_access_t ACCESS[ZE_RG_USE_COUNT] = {
    [ZE_RG_SAMPLED] = {"sampled",
                       IMG,
                       GFX | CMP,
                       {SHADERS_GFX, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0},
                       VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                       0,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                       VK_IMAGE_USAGE_SAMPLED_BIT,
                       0},
    [ZE_RG_STORAGE_READ] = {"storage_read",
                            IMG | BUF,
                            GFX | CMP,
                            {SHADERS_GFX, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0},
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                            0,
                            VK_IMAGE_LAYOUT_GENERAL,
                            VK_IMAGE_USAGE_STORAGE_BIT,
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT},
    [ZE_RG_STORAGE_WRITE] = {"storage_write",
                             IMG | BUF,
                             GFX | CMP,
                             {SHADERS_GFX, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0},
                             VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                             VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                             VK_IMAGE_LAYOUT_GENERAL,
                             VK_IMAGE_USAGE_STORAGE_BIT,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT},
    [ZE_RG_COLOR_ATTACHMENT] = {"color_attachment",
                                IMG,
                                GFX,
                                {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0},
                                VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT,
                                VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                0},
    [ZE_RG_DEPTH_ATTACHMENT] = {"depth_attachment",
                                IMG,
                                GFX,
                                {DEPTH_TESTS, 0, 0},
                                VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                                VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                                VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                0},
    [ZE_RG_DEPTH_READ] = {"depth_read",
                          IMG,
                          GFX,
                          {DEPTH_TESTS, 0, 0},
                          VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                          0,
                          VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL,
                          VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                          0},
    [ZE_RG_INDIRECT] = {"indirect",
                        BUF,
                        GFX | CMP,
                        {VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                         VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, 0},
                        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT,
                        0,
                        VK_IMAGE_LAYOUT_UNDEFINED,
                        0,
                        VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT},
    [ZE_RG_TRANSFER_SRC] = {"transfer_src",
                            IMG | BUF,
                            GFX | CMP | XFR,
                            {XFER, XFER, XFER},
                            VK_ACCESS_2_TRANSFER_READ_BIT,
                            0,
                            VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT},
    [ZE_RG_TRANSFER_DST] = {"transfer_dst",
                            IMG | BUF,
                            GFX | CMP | XFR,
                            {XFER, XFER, XFER},
                            0,
                            VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                            VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                            VK_BUFFER_USAGE_TRANSFER_DST_BIT},
    /* the presentation engine reads it after the submission: nothing to
       wait for inside the queue (the semaphore signal covers it) */
    [ZE_RG_PRESENT] =
        {"present", IMG, GFX | CMP | XFR, {0, 0, 0}, 0, 0, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, 0, 0},
};

const ze_rg_access_t *ze__rg_access(ze_rg_use use)
{
    if (use <= ZE_RG_USE_NONE || use >= ZE_RG_USE_COUNT)
        return NULL;
    return &ACCESS[use];
}

const char *ze__rg_kind_name(ze_rg_pass_kind kind)
{
    static const char *const NAMES[ZE_RG_KIND_COUNT] = {"graphics", "compute", "transfer"};
    return (unsigned)kind < ZE_RG_KIND_COUNT ? NAMES[kind] : "?";
}

/* ------------------------------------------------------------- graph */

typedef ze_rg_pass_use_t rg_use_t;

typedef struct rg_pass_t {
    char name[ZE_RG_NAME_MAX];
    ze_rg_pass_kind kind;
    const void *exec;
    void *user;
    rg_use_t uses[ZE_RG_MAX_USES];
    uint32_t use_count;
} rg_pass_t;

typedef struct rg_res_t {
    char name[ZE_RG_NAME_MAX];
    ze_rg_resource_info_t info;
} rg_res_t;

/* What a resource's next barrier must wait for. */
typedef struct rg_state_t {
    VkImageLayout layout;
    VkPipelineStageFlags2 wstage, rstages; /* the last write; reads since it */
    VkAccessFlags2 waccess, raccess;       /* raccess: made visible already */
} rg_state_t;

/* An edge's cause: what made it (and the resource, in the low bits). */
enum {
    EDGE_RAW = 1u << 12,   /* the writer of what the reader reads */
    EDGE_WAR = 2u << 12,   /* a reader of the version the writer replaces */
    EDGE_ORDER = 3u << 12, /* ze__rg_order */
    EDGE_KIND = 0xF000u,
    EDGE_RES = 0x0FFFu,
};

struct ze_rg_t {
    ze_allocator_t alloc;
    ze_rg_desc_t desc;
    uint32_t epoch;
    ze_result error; /* the first declaration error */
    bool compiled;

    rg_pass_t passes[ZE_RG_MAX_PASSES];
    uint32_t pass_count;
    rg_res_t res[ZE_RG_MAX_RESOURCES];
    uint32_t res_count;
    uint16_t orders[ZE_RG_MAX_ORDERS][2];
    uint32_t order_count;

    /* compile */
    uint64_t succ[ZE_RG_MAX_PASSES];                    /* by declaration index */
    uint16_t cause[ZE_RG_MAX_PASSES][ZE_RG_MAX_PASSES]; /* of edge i->j: EDGE_* | res */
    uint16_t waw[ZE_RG_MAX_PASSES * ZE_RG_MAX_USES][3]; /* consecutive writers, resource */
    uint32_t waw_count;
    uint16_t order[ZE_RG_MAX_PASSES];    /* position -> declared */
    uint16_t position[ZE_RG_MAX_PASSES]; /* declared -> position */
    ze_rg_barrier_t barriers[ZE_RG_MAX_BARRIERS];
    uint32_t barrier_count;
    uint32_t batch_first[ZE_RG_MAX_PASSES + 2]; /* per position, then final, end */
    ze_rg_slot_t slots[ZE_RG_MAX_RESOURCES];
    uint32_t slot_count;
    uint64_t bytes_unaliased, bytes_aliased;
    rg_state_t final[ZE_RG_MAX_RESOURCES];     /* after the last use, from an empty start */
    int16_t prev_in_slot[ZE_RG_MAX_RESOURCES]; /* the slot's previous occupant */
};

enum { EPOCH_SHIFT = 16, INDEX_MASK = 0xFFFF };

static uint32_t make_id(const ze_rg_t *g, uint32_t index)
{
    return (g->epoch << EPOCH_SHIFT) | (index + 1);
}

/* Index of a handle of this epoch below `count`, else -1. */
static int32_t index_of(const ze_rg_t *g, uint32_t id, uint32_t count)
{
    if (!id || (id >> EPOCH_SHIFT) != (g->epoch & 0xFFFF))
        return -1;
    uint32_t i = (id & INDEX_MASK) - 1;
    return i < count ? (int32_t)i : -1;
}

/* The first declaration error wins; each is logged where it happens. */
static void fail(ze_rg_t *g, ze_result r)
{
    if (g->error == ZE_OK)
        g->error = r;
}

static bool copy_name(ze_rg_t *g, char dst[ZE_RG_NAME_MAX], const char *name, const char *what)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= ZE_RG_NAME_MAX) {
        ZE_LOG_ERROR(ZE_RG_LOG, "%s name '%.40s' is empty or longer than %d characters", what,
                     name ? name : "", ZE_RG_NAME_MAX - 1);
        fail(g, ZE_ERR_INVALID_ARG);
        return false;
    }
    memcpy(dst, name, n + 1);
    return true;
}

ze_result ze__rg_create(const ze_rg_desc_t *desc, ze_rg_t **out)
{
    ZE_CHECK(desc && desc->alloc.fn && out, ZE_ERR_INVALID_ARG);
    ze_rg_t *g = ZE_NEW(desc->alloc, ze_rg_t);
    if (!g) {
        ZE_LOG_ERROR(ZE_RG_LOG, "no memory for a render graph (%zu bytes)", sizeof *g);
        return ZE_ERR_OUT_OF_MEMORY;
    }
    memset(g, 0, sizeof *g);
    g->alloc = desc->alloc;
    g->desc = *desc;
    g->epoch = 1;
    *out = g;
    return ZE_OK;
}

void ze__rg_destroy(ze_rg_t *g)
{
    if (g)
        ze_free(g->alloc, g, sizeof *g);
}

void ze__rg_reset(ze_rg_t *g)
{
    /* the compiled arrays are rewritten by compile: clear what declares */
    uint32_t epoch = (g->epoch + 1) & 0xFFFF;
    g->epoch = epoch ? epoch : 1;
    g->error = ZE_OK;
    g->compiled = false;
    g->pass_count = g->res_count = g->order_count = 0;
    g->barrier_count = g->slot_count = 0;
    g->bytes_unaliased = g->bytes_aliased = 0;
}

ze_rg_pass_t ze__rg_pass(ze_rg_t *g, const char *name, ze_rg_pass_kind kind, const void *exec,
                         void *user)
{
    if (g->pass_count >= ZE_RG_MAX_PASSES) {
        ZE_LOG_ERROR(ZE_RG_LOG, "pass '%.40s': more than %d passes", name ? name : "",
                     ZE_RG_MAX_PASSES);
        fail(g, ZE_ERR_LIMIT);
        return (ze_rg_pass_t){0};
    }
    if ((unsigned)kind >= ZE_RG_KIND_COUNT) {
        ZE_LOG_ERROR(ZE_RG_LOG, "pass '%.40s': no pass kind %d", name ? name : "", (int)kind);
        fail(g, ZE_ERR_INVALID_ARG);
        return (ze_rg_pass_t){0};
    }
    rg_pass_t *p = &g->passes[g->pass_count];
    memset(p, 0, sizeof *p);
    if (!copy_name(g, p->name, name, "pass"))
        return (ze_rg_pass_t){0};
    for (uint32_t i = 0; i < g->pass_count; i++)
        if (strcmp(g->passes[i].name, name) == 0) {
            ZE_LOG_ERROR(ZE_RG_LOG, "pass '%s' declared twice", name);
            fail(g, ZE_ERR_EXISTS);
            return (ze_rg_pass_t){0};
        }
    p->kind = kind;
    p->exec = exec;
    p->user = user;
    g->compiled = false;
    return (ze_rg_pass_t){make_id(g, g->pass_count++)};
}

static ze_rg_res_t add_resource(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d,
                                const ze_rg_import_t *imp)
{
    if (g->res_count >= ZE_RG_MAX_RESOURCES) {
        ZE_LOG_ERROR(ZE_RG_LOG, "resource '%.40s': more than %d resources", name ? name : "",
                     ZE_RG_MAX_RESOURCES);
        fail(g, ZE_ERR_LIMIT);
        return (ze_rg_res_t){0};
    }
    rg_res_t *r = &g->res[g->res_count];
    memset(r, 0, sizeof *r);
    if (!copy_name(g, r->name, name, "resource"))
        return (ze_rg_res_t){0};
    if (ze__rg_find(g, name).id) {
        ZE_LOG_ERROR(ZE_RG_LOG, "resource '%s' declared twice", name);
        fail(g, ZE_ERR_EXISTS);
        return (ze_rg_res_t){0};
    }
    bool image = d && d->kind == ZE_RG_IMAGE;
    if (!d || (d->kind != ZE_RG_IMAGE && d->kind != ZE_RG_BUFFER) ||
        (image ? !d->width || !d->height || d->format == VK_FORMAT_UNDEFINED : !d->size)) {
        ZE_LOG_ERROR(ZE_RG_LOG, "resource '%s': %s", name,
                     !d                        ? "no description"
                     : image                   ? "an image needs a format, a width and a height"
                     : d->kind == ZE_RG_BUFFER ? "a buffer needs a size"
                                               : "neither an image nor a buffer");
        fail(g, ZE_ERR_INVALID_ARG);
        return (ze_rg_res_t){0};
    }
    if (imp) {
        const ze_rg_use uses[2] = {imp->before, imp->after};
        for (int i = 0; i < 2; i++) {
            const ze_rg_access_t *a = ze__rg_access(uses[i]);
            if (uses[i] != ZE_RG_USE_NONE && (!a || !(a->resources & (1u << d->kind)))) {
                ZE_LOG_ERROR(ZE_RG_LOG, "import '%s': its %s use is not one for %s", name,
                             i ? "after" : "before", image ? "an image" : "a buffer");
                fail(g, ZE_ERR_INVALID_ARG);
                return (ze_rg_res_t){0};
            }
        }
        if ((unsigned)imp->kind >= ZE_RG_KIND_COUNT) {
            ZE_LOG_ERROR(ZE_RG_LOG, "import '%s': no pass kind %d", name, (int)imp->kind);
            fail(g, ZE_ERR_INVALID_ARG);
            return (ze_rg_res_t){0};
        }
    }
    r->info.name = r->name;
    r->info.desc = *d;
    if (image && !r->info.desc.mips)
        r->info.desc.mips = 1;
    r->info.imported = imp != NULL;
    if (imp)
        r->info.import = *imp;
    r->info.first = r->info.last = r->info.slot = -1;
    g->compiled = false;
    return (ze_rg_res_t){make_id(g, g->res_count++)};
}

ze_rg_res_t ze__rg_create_resource(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d)
{
    return add_resource(g, name, d, NULL);
}

ze_rg_res_t ze__rg_import(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d,
                          const ze_rg_import_t *imp)
{
    const ze_rg_import_t none = {0};
    return add_resource(g, name, d, imp ? imp : &none);
}

ze_rg_res_t ze__rg_find_or_import(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d,
                                  const ze_rg_import_t *imp)
{
    ze_rg_res_t r = ze__rg_find(g, name);
    return r.id ? r : ze__rg_import(g, name, d, imp);
}

ze_rg_res_t ze__rg_find(const ze_rg_t *g, const char *name)
{
    for (uint32_t i = 0; name && i < g->res_count; i++)
        if (strcmp(g->res[i].name, name) == 0)
            return (ze_rg_res_t){make_id(g, i)};
    return (ze_rg_res_t){0};
}

void ze__rg_use(ze_rg_t *g, ze_rg_pass_t pass, ze_rg_res_t res, ze_rg_use use)
{
    int32_t pi = index_of(g, pass.id, g->pass_count);
    int32_t ri = index_of(g, res.id, g->res_count);
    if (pi < 0 || ri < 0) {
        ZE_LOG_ERROR(ZE_RG_LOG, "use of %s: not a handle of this graph",
                     pi < 0 ? "a pass" : "a resource");
        fail(g, ZE_ERR_INVALID_ARG);
        return;
    }
    rg_pass_t *p = &g->passes[pi];
    const rg_res_t *r = &g->res[ri];
    const ze_rg_access_t *a = ze__rg_access(use);
    if (!a) {
        ZE_LOG_ERROR(ZE_RG_LOG, "pass '%s': no use %d of '%s'", p->name, (int)use, r->name);
        fail(g, ZE_ERR_INVALID_ARG);
        return;
    }
    if (!(a->resources & (1u << r->info.desc.kind)) || !(a->kinds & (1u << p->kind))) {
        ZE_LOG_ERROR(ZE_RG_LOG, "pass '%s' (%s): '%s' cannot be a %s use of %s '%s'", p->name,
                     ze__rg_kind_name(p->kind), a->name, ze__rg_kind_name(p->kind),
                     r->info.desc.kind == ZE_RG_IMAGE ? "image" : "buffer", r->name);
        fail(g, ZE_ERR_INVALID_ARG);
        return;
    }
    for (uint32_t i = 0; i < p->use_count; i++)
        if (p->uses[i].resource == ri) {
            ZE_LOG_ERROR(ZE_RG_LOG, "pass '%s' uses '%s' twice (%s and %s): one use per pass",
                         p->name, r->name, ACCESS[p->uses[i].use].name, a->name);
            fail(g, ZE_ERR_INVALID_ARG);
            return;
        }
    if (p->use_count >= ZE_RG_MAX_USES) {
        ZE_LOG_ERROR(ZE_RG_LOG, "pass '%s': more than %d uses", p->name, ZE_RG_MAX_USES);
        fail(g, ZE_ERR_LIMIT);
        return;
    }
    p->uses[p->use_count++] = (rg_use_t){(uint16_t)ri, (uint8_t)use};
    g->compiled = false;
}

void ze__rg_order(ze_rg_t *g, ze_rg_pass_t before, ze_rg_pass_t after)
{
    int32_t a = index_of(g, before.id, g->pass_count), b = index_of(g, after.id, g->pass_count);
    if (a < 0 || b < 0 || a == b) {
        ZE_LOG_ERROR(ZE_RG_LOG, "order: %s",
                     a == b && a >= 0 ? "a pass after itself" : "not a pass of this graph");
        fail(g, ZE_ERR_INVALID_ARG);
        return;
    }
    if (g->order_count >= ZE_RG_MAX_ORDERS) {
        ZE_LOG_ERROR(ZE_RG_LOG, "more than %d explicit orders", ZE_RG_MAX_ORDERS);
        fail(g, ZE_ERR_LIMIT);
        return;
    }
    g->orders[g->order_count][0] = (uint16_t)a;
    g->orders[g->order_count][1] = (uint16_t)b;
    g->order_count++;
    g->compiled = false;
}

/* ----------------------------------------------------------- compile */

static bool writes(uint8_t use)
{
    return ACCESS[use].write != 0;
}

static void add_edge(ze_rg_t *g, uint32_t from, uint32_t to, uint16_t cause)
{
    if (!(g->succ[from] & (1ull << to)))
        g->cause[from][to] = cause;
    g->succ[from] |= 1ull << to;
}

/* Edges, per resource in declaration order: the nearest writer declared
 * before a read to the read (RAW), every read of a version to the write
 * that replaces it (WAR); consecutive writers are kept for check_writers;
 * explicit orders. ZE_ERR_NOT_FOUND: a read with nothing to read. */
static ze_result build_edges(ze_rg_t *g)
{
    memset(g->succ, 0, sizeof g->succ);
    g->waw_count = 0;
    for (uint32_t r = 0; r < g->res_count; r++) {
        const ze_rg_resource_info_t *info = &g->res[r].info;
        bool has_contents = info->imported && !info->import.discard;
        int32_t writer = -1;
        uint64_t readers = 0; /* of the current version */
        for (uint32_t p = 0; p < g->pass_count; p++)
            for (uint32_t u = 0; u < g->passes[p].use_count; u++) {
                if (g->passes[p].uses[u].resource != r)
                    continue;
                if (writes(g->passes[p].uses[u].use)) {
                    for (uint32_t q = 0; q < g->pass_count; q++)
                        if (readers & (1ull << q))
                            add_edge(g, q, p, (uint16_t)(EDGE_WAR | r));
                    if (writer >= 0) {
                        uint16_t *w = g->waw[g->waw_count++];
                        w[0] = (uint16_t)writer;
                        w[1] = (uint16_t)p;
                        w[2] = (uint16_t)r;
                    }
                    writer = (int32_t)p;
                    readers = 0;
                } else {
                    if (writer >= 0) {
                        add_edge(g, (uint32_t)writer, p, (uint16_t)(EDGE_RAW | r));
                    } else if (!has_contents) {
                        ZE_LOG_ERROR(ZE_RG_LOG,
                                     "pass '%s' reads '%s', which no pass declared before it "
                                     "writes and which is not imported with its contents",
                                     g->passes[p].name, g->res[r].name);
                        return ZE_ERR_NOT_FOUND;
                    }
                    readers |= 1ull << p;
                }
            }
    }
    for (uint32_t i = 0; i < g->order_count; i++)
        add_edge(g, g->orders[i][0], g->orders[i][1], EDGE_ORDER);
    return ZE_OK;
}

static int edge_text(const ze_rg_t *g, uint32_t from, uint32_t to, char *out, size_t cap)
{
    uint16_t c = g->cause[from][to];
    const char *a = g->passes[from].name, *b = g->passes[to].name;
    const char *res = (c & EDGE_KIND) != EDGE_ORDER ? g->res[c & EDGE_RES].name : "";
    switch (c & EDGE_KIND) {
    case EDGE_RAW:
        return snprintf(out, cap, "'%s' writes '%s' that '%s' reads", a, res, b);
    case EDGE_WAR:
        return snprintf(out, cap, "'%s' reads '%s' before '%s' writes it", a, res, b);
    default:
        return snprintf(out, cap, "'%s' is ordered before '%s'", a, b);
    }
}

/* Kahn's sort; of the ready passes the one declared first. A cycle is
 * reported edge by edge (each with the resource that makes it). */
static ze_result sort_passes(ze_rg_t *g)
{
    uint32_t n = g->pass_count, indeg[ZE_RG_MAX_PASSES] = {0};
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            indeg[b] += (g->succ[a] >> b) & 1u;
    uint64_t done = 0;
    for (uint32_t pos = 0; pos < n; pos++) {
        uint32_t pick = n;
        for (uint32_t p = 0; p < n && pick == n; p++)
            if (!(done & (1ull << p)) && indeg[p] == 0)
                pick = p;
        if (pick == n)
            break;
        done |= 1ull << pick;
        g->order[pos] = (uint16_t)pick;
        g->position[pick] = (uint16_t)pos;
        for (uint32_t b = 0; b < n; b++)
            if (g->succ[pick] & (1ull << b))
                indeg[b]--;
    }
    uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
    if (done == all)
        return ZE_OK;
    /* every pass left has a predecessor left: walk back until one repeats */
    uint32_t v = 0;
    while (done & (1ull << v))
        v++;
    int32_t seen_at[ZE_RG_MAX_PASSES];
    for (uint32_t i = 0; i < n; i++)
        seen_at[i] = -1;
    uint32_t walk[ZE_RG_MAX_PASSES + 1], len = 0;
    while (seen_at[v] < 0) {
        seen_at[v] = (int32_t)len;
        walk[len++] = v;
        uint32_t u = 0;
        while (u < n && ((done & (1ull << u)) || !(g->succ[u] & (1ull << v))))
            u++;
        if (u == n) /* cannot happen: v's in-degree among the passes left is not 0 */
            return ZE_ERR_INTERNAL;
        v = u;
    }
    /* walk[seen_at[v]..len-1] is the cycle, backwards */
    char msg[ZE_LOG_MESSAGE_MAX];
    int at = snprintf(msg, sizeof msg, "cycle:");
    for (int32_t i = (int32_t)len - 1; i >= seen_at[v]; i--) {
        uint32_t from = walk[i], to = walk[i == seen_at[v] ? (int32_t)len - 1 : i - 1];
        if (at > 0 && (size_t)at < sizeof msg)
            at += snprintf(msg + at, sizeof msg - (size_t)at, "%s ",
                           i == (int32_t)len - 1 ? "" : ";");
        if (at > 0 && (size_t)at < sizeof msg)
            at += edge_text(g, from, to, msg + at, sizeof msg - (size_t)at);
    }
    ZE_LOG_ERROR(ZE_RG_LOG, "%s", msg);
    return ZE_ERR_CYCLE;
}

/* Consecutive writers of a resource must be ordered, the first declared
 * first, by a path of edges: a read of the first one's result, another
 * resource, or an explicit order (a write after a write is never inferred:
 * only the author knows whether the second keeps the first one's work). */
static ze_result check_writers(ze_rg_t *g)
{
    uint32_t n = g->pass_count;
    uint64_t reach[ZE_RG_MAX_PASSES] = {0}; /* by declaration index */
    for (int32_t pos = (int32_t)n - 1; pos >= 0; pos--) {
        uint32_t p = g->order[pos];
        for (uint32_t b = 0; b < n; b++)
            if (g->succ[p] & (1ull << b))
                reach[p] |= (1ull << b) | reach[b];
    }
    for (uint32_t i = 0; i < g->waw_count; i++) {
        const uint16_t *w = g->waw[i];
        if (reach[w[0]] & (1ull << w[1]))
            continue;
        ZE_LOG_ERROR(ZE_RG_LOG,
                     "passes '%s' and '%s' both write '%s' and nothing orders '%s' before '%s' "
                     "(a pass between them reading it, another resource, or an explicit order)",
                     g->passes[w[0]].name, g->passes[w[1]].name, g->res[w[2]].name,
                     g->passes[w[0]].name, g->passes[w[1]].name);
        return ZE_ERR_CONFLICT;
    }
    return ZE_OK;
}

static void lifetimes(ze_rg_t *g)
{
    for (uint32_t r = 0; r < g->res_count; r++) {
        ze_rg_resource_info_t *info = &g->res[r].info;
        info->first = info->last = info->slot = -1;
        info->image_usage = 0;
        info->buffer_usage = 0;
        info->mem = (ze_rg_memory_t){0};
    }
    for (uint32_t pos = 0; pos < g->pass_count; pos++) {
        const rg_pass_t *p = &g->passes[g->order[pos]];
        for (uint32_t u = 0; u < p->use_count; u++) {
            ze_rg_resource_info_t *info = &g->res[p->uses[u].resource].info;
            if (info->first < 0)
                info->first = (int32_t)pos;
            info->last = (int32_t)pos;
            info->image_usage |= ACCESS[p->uses[u].use].image_usage;
            info->buffer_usage |= ACCESS[p->uses[u].use].buffer_usage;
        }
    }
}

static bool transient(const ze_rg_resource_info_t *info)
{
    return !info->imported && info->first >= 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

/* Largest first, first fit into a slot of the same type whose members'
 * lifetimes do not overlap this one's and whose memory types it accepts. */
static ze_result alias(ze_rg_t *g)
{
    uint16_t idx[ZE_RG_MAX_RESOURCES];
    uint32_t n = 0;
    for (uint32_t r = 0; r < g->res_count; r++) {
        ze_rg_resource_info_t *info = &g->res[r].info;
        if (!transient(info))
            continue;
        if (!g->desc.measure) {
            ZE_LOG_ERROR(ZE_RG_LOG, "transient '%s': the graph has no measure hook",
                         g->res[r].name);
            return ZE_ERR_STATE;
        }
        ze_result res = g->desc.measure(g->desc.measure_user, r, info, &info->mem);
        if (res != ZE_OK)
            return res;
        if (!info->mem.size || !info->mem.types) {
            ZE_LOG_ERROR(ZE_RG_LOG, "transient '%s': measured as %llu bytes, memory types 0x%x",
                         g->res[r].name, (unsigned long long)info->mem.size, info->mem.types);
            return ZE_ERR_INVALID_ARG;
        }
        if (!info->mem.align)
            info->mem.align = 1;
        idx[n++] = (uint16_t)r;
    }
    for (uint32_t i = 1; i < n; i++) { /* by size, descending; ties: declared first */
        uint16_t v = idx[i];
        uint32_t j = i;
        while (j > 0 && g->res[idx[j - 1]].info.mem.size < g->res[v].info.mem.size) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    g->slot_count = 0;
    g->bytes_unaliased = g->bytes_aliased = 0;
    for (uint32_t i = 0; i < n; i++) {
        ze_rg_resource_info_t *a = &g->res[idx[i]].info;
        g->bytes_unaliased += align_up(a->mem.size, a->mem.align);
        int32_t found = -1;
        for (uint32_t s = 0; s < g->slot_count && found < 0; s++) {
            if (!(g->slots[s].mem.types & a->mem.types))
                continue;
            bool fits = true;
            for (uint32_t k = 0; k < i && fits; k++) {
                const ze_rg_resource_info_t *b = &g->res[idx[k]].info;
                if (b->slot == (int32_t)s &&
                    (b->desc.kind != a->desc.kind || (a->first <= b->last && b->first <= a->last)))
                    fits = false;
            }
            if (fits)
                found = (int32_t)s;
        }
        if (found < 0) {
            found = (int32_t)g->slot_count++;
            g->slots[found] = (ze_rg_slot_t){.mem = {0, 1, a->mem.types}};
        }
        ze_rg_slot_t *s = &g->slots[found];
        a->slot = found;
        s->mem.size = a->mem.size > s->mem.size ? a->mem.size : s->mem.size;
        s->mem.align = a->mem.align > s->mem.align ? a->mem.align : s->mem.align;
        s->mem.types &= a->mem.types;
        s->members++;
    }
    for (uint32_t s = 0; s < g->slot_count; s++) {
        g->slots[s].mem.size = align_up(g->slots[s].mem.size, g->slots[s].mem.align);
        g->bytes_aliased += g->slots[s].mem.size;
    }
    /* each member's predecessor in its slot (by first use; the first one's
       is the last one: the previous frame) */
    for (uint32_t r = 0; r < g->res_count; r++) {
        g->prev_in_slot[r] = -1;
        const ze_rg_resource_info_t *a = &g->res[r].info;
        if (a->slot < 0)
            continue;
        int32_t prev = -1, last = (int32_t)r;
        for (uint32_t k = 0; k < g->res_count; k++) {
            const ze_rg_resource_info_t *b = &g->res[k].info;
            if (b->slot != a->slot)
                continue;
            if (b->first < a->first && (prev < 0 || b->first > g->res[prev].info.first))
                prev = (int32_t)k;
            if (b->first > g->res[last].info.first)
                last = (int32_t)k;
        }
        g->prev_in_slot[r] = (int16_t)(prev >= 0 ? prev : last);
    }
    return ZE_OK;
}

/* The barrier a use needs from state `s` (and the state after it); false
 * when none is needed. */
static bool apply(rg_state_t *s, bool image, VkPipelineStageFlags2 stage, VkAccessFlags2 rd,
                  VkAccessFlags2 wr, VkImageLayout layout, ze_rg_barrier_t *out)
{
    bool transition = image && s->layout != layout;
    *out = (ze_rg_barrier_t){
        .src_stages = s->wstage | s->rstages,
        .src_access = s->waccess,
        .dst_stages = stage,
        .dst_access = rd | wr,
        .old_layout = image ? s->layout : VK_IMAGE_LAYOUT_UNDEFINED,
        .new_layout = image ? layout : VK_IMAGE_LAYOUT_UNDEFINED,
    };
    if (!wr && !transition) {
        if (!s->wstage || (!(stage & ~s->rstages) && !(rd & ~s->raccess)))
            return false; /* nothing written, or already visible there */
        out->dst_access = rd;
        s->rstages |= stage;
        s->raccess |= rd;
        return true;
    }
    bool needed = transition || s->wstage || s->rstages;
    if (wr) {
        s->wstage = stage;
        s->waccess = wr;
        s->rstages = 0;
        s->raccess = 0;
    } else { /* a read behind a layout change: earlier reads are behind it */
        s->rstages = stage;
        s->raccess = rd;
    }
    s->layout = image ? layout : VK_IMAGE_LAYOUT_UNDEFINED;
    return needed;
}

static void use_state(ze_rg_use use, ze_rg_pass_kind kind, rg_state_t *s)
{
    const ze_rg_access_t *a = ze__rg_access(use);
    memset(s, 0, sizeof *s);
    if (!a)
        return;
    s->layout = a->layout;
    if (a->write) {
        s->wstage = a->stages[kind];
        s->waccess = a->write;
    } else {
        s->rstages = a->stages[kind];
        s->raccess = a->read;
    }
}

static bool apply_use(rg_state_t *s, const ze_rg_resource_info_t *info, ze_rg_use use,
                      ze_rg_pass_kind kind, ze_rg_barrier_t *out)
{
    const ze_rg_access_t *a = &ACCESS[use];
    return apply(s, info->desc.kind == ZE_RG_IMAGE, a->stages[kind], a->read, a->write, a->layout,
                 out);
}

static void final_states(ze_rg_t *g)
{
    memset(g->final, 0, sizeof g->final);
    ze_rg_barrier_t unused;
    for (uint32_t pos = 0; pos < g->pass_count; pos++) {
        const rg_pass_t *p = &g->passes[g->order[pos]];
        for (uint32_t u = 0; u < p->use_count; u++)
            apply_use(&g->final[p->uses[u].resource], &g->res[p->uses[u].resource].info,
                      p->uses[u].use, p->kind, &unused);
    }
}

static void push_barrier(ze_rg_t *g, uint32_t res, const ze_rg_barrier_t *b)
{
    ZE_ASSERT(g->barrier_count < ZE_RG_MAX_BARRIERS); /* at most one per use and import */
    g->barriers[g->barrier_count] = *b;
    g->barriers[g->barrier_count].resource = res;
    g->barrier_count++;
}

static void emit_barriers(ze_rg_t *g)
{
    rg_state_t st[ZE_RG_MAX_RESOURCES];
    for (uint32_t r = 0; r < g->res_count; r++) {
        const ze_rg_resource_info_t *info = &g->res[r].info;
        if (info->imported) {
            use_state(info->import.before, info->import.kind, &st[r]);
            if (info->import.discard || info->desc.kind != ZE_RG_IMAGE)
                st[r].layout = VK_IMAGE_LAYOUT_UNDEFINED;
        } else if (info->slot >= 0) {
            st[r] = g->final[g->prev_in_slot[r]]; /* behind the slot's previous user */
            st[r].layout = VK_IMAGE_LAYOUT_UNDEFINED;
            st[r].raccess = 0; /* nothing of it is visible to this one yet */
        } else {
            memset(&st[r], 0, sizeof st[r]);
        }
    }
    g->barrier_count = 0;
    for (uint32_t pos = 0; pos < g->pass_count; pos++) {
        const rg_pass_t *p = &g->passes[g->order[pos]];
        g->batch_first[pos] = g->barrier_count;
        for (uint32_t u = 0; u < p->use_count; u++) {
            uint32_t r = p->uses[u].resource;
            ze_rg_barrier_t b;
            if (apply_use(&st[r], &g->res[r].info, p->uses[u].use, p->kind, &b))
                push_barrier(g, r, &b);
        }
    }
    g->batch_first[g->pass_count] = g->barrier_count;
    for (uint32_t r = 0; r < g->res_count; r++) {
        const ze_rg_resource_info_t *info = &g->res[r].info;
        const ze_rg_access_t *a = ze__rg_access(info->import.after);
        if (!info->imported || info->first < 0 || !a || info->desc.kind != ZE_RG_IMAGE ||
            st[r].layout == a->layout)
            continue;
        ze_rg_barrier_t b;
        apply(&st[r], true, a->stages[info->import.kind], a->read, 0, a->layout, &b);
        b.dst_access = a->read | a->write;
        push_barrier(g, r, &b);
    }
    g->batch_first[g->pass_count + 1] = g->barrier_count;
}

ze_result ze__rg_compile(ze_rg_t *g)
{
    g->compiled = false;
    if (g->error != ZE_OK)
        return g->error;
    ze_result r = build_edges(g);
    if (r == ZE_OK)
        r = sort_passes(g);
    if (r == ZE_OK)
        r = check_writers(g);
    if (r != ZE_OK)
        return r;
    lifetimes(g);
    if ((r = alias(g)) != ZE_OK)
        return r;
    final_states(g);
    emit_barriers(g);
    g->compiled = true;
    return ZE_OK;
}

bool ze__rg_compiled(const ze_rg_t *g)
{
    return g->compiled;
}

/* ---------------------------------------------------------- results */

uint32_t ze__rg_pass_count(const ze_rg_t *g)
{
    return g->compiled ? g->pass_count : 0;
}

ze_rg_compiled_pass_t ze__rg_pass_at(const ze_rg_t *g, uint32_t position)
{
    ZE_ASSERT(g->compiled && position < g->pass_count);
    uint32_t d = g->order[position];
    const rg_pass_t *p = &g->passes[d];
    return (ze_rg_compiled_pass_t){
        .name = p->name,
        .kind = p->kind,
        .handle = {make_id(g, d)},
        .declared = d,
        .exec = p->exec,
        .user = p->user,
        .barrier_first = g->batch_first[position],
        .barrier_count = g->batch_first[position + 1] - g->batch_first[position],
        .uses = p->uses,
        .use_count = p->use_count,
    };
}

const ze_rg_barrier_t *ze__rg_barriers(const ze_rg_t *g, uint32_t *count)
{
    *count = g->compiled ? g->barrier_count : 0;
    return g->barriers;
}

void ze__rg_final_barriers(const ze_rg_t *g, uint32_t *first, uint32_t *count)
{
    *first = g->compiled ? g->batch_first[g->pass_count] : 0;
    *count = g->compiled ? g->batch_first[g->pass_count + 1] - *first : 0;
}

uint32_t ze__rg_resource_count(const ze_rg_t *g)
{
    return g->res_count;
}

const ze_rg_resource_info_t *ze__rg_resource(const ze_rg_t *g, uint32_t index)
{
    return index < g->res_count ? &g->res[index].info : NULL;
}

int32_t ze__rg_index(const ze_rg_t *g, ze_rg_res_t res)
{
    return index_of(g, res.id, g->res_count);
}

uint32_t ze__rg_slot_count(const ze_rg_t *g)
{
    return g->compiled ? g->slot_count : 0;
}

const ze_rg_slot_t *ze__rg_slot(const ze_rg_t *g, uint32_t slot)
{
    return slot < g->slot_count ? &g->slots[slot] : NULL;
}

void ze__rg_memory(const ze_rg_t *g, uint64_t *unaliased, uint64_t *aliased)
{
    *unaliased = g->compiled ? g->bytes_unaliased : 0;
    *aliased = g->compiled ? g->bytes_aliased : 0;
}

ze_rg_barrier_t ze__rg_transition(ze_rg_use from, ze_rg_pass_kind from_kind, ze_rg_use to,
                                  ze_rg_pass_kind to_kind)
{
    rg_state_t s;
    use_state(from, from_kind, &s);
    const ze_rg_access_t *a = ze__rg_access(to);
    ze_rg_barrier_t b = {0};
    if (a)
        apply(&s, true, a->stages[to_kind], a->read, a->write, a->layout, &b);
    return b;
}
