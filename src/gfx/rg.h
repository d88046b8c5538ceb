/* Internal: the render graph's core (rg.c, rg_dump.c), free of GPU calls.
 *
 * What: a frame's passes declare typed uses of images and buffers (sampled,
 * storage read/write, colour/depth attachment, indirect, transfer src/dst,
 * present). ze__rg_compile orders the passes, checks the graph, derives
 * every barrier and layout transition from one access table
 * (ze__rg_access), measures the transient resources through the
 * executor's hook and aliases those whose lifetimes do not overlap, and
 * keeps the result for an executor (the Vulkan one: vk_graph.c) and for a
 * JSON dump (ze__rg_dump_json).
 *
 * Ordering. Passes are declared in the order they would run, and
 * declaration order says which version of a resource a read sees: per
 * resource, a read depends on the nearest writer declared before it (RAW),
 * and a write on every read of the version it replaces (WAR), so a
 * resource may be written, read, and written again in one frame (depth:
 * prepass, pyramid, late geometry), and an imported one read before it is
 * overwritten (history). Two consecutive writers with no read between them
 * are not ordered by that: some other path of edges or an explicit
 * ze__rg_order must put the first one first. The compiled order is a
 * topological order of these edges and the explicit ones that keeps
 * declaration order wherever they allow it (of the passes that are ready,
 * the one declared first goes first); an explicit order may move a pass
 * ahead of its declaration. Compile errors, each logged once on channel
 * "rg" with the passes and resources involved, and returned:
 *   ZE_ERR_CYCLE      explicit orders contradict the data (every edge of
 *                     the cycle, with its resource)
 *   ZE_ERR_NOT_FOUND  a pass reads a resource that no pass declared before
 *                     it writes and that was not imported with its contents
 *   ZE_ERR_CONFLICT   two writers of a resource that nothing orders
 *   ZE_ERR_LIMIT, ZE_ERR_INVALID_ARG, ZE_ERR_EXISTS  from declarations:
 *                     the first one is kept and returned by compile
 *
 * Barriers. Per resource the compiler tracks the last write (stages,
 * accesses) and the reads since then, and before each use emits what that
 * use needs: a write (or a layout change) waits for the last write and
 * every read since; a read waits for the last write unless an earlier
 * barrier already made it visible to the read's stages and accesses.
 * Transients start each frame from UNDEFINED, behind the last use of the
 * resource that held their memory before them (within the frame, or in the
 * previous frame: the same images serve every frame in flight). Imports
 * start from their `before` use and are left in the layout of their
 * `after` use (the final barriers). The values are synchronization2's,
 * copied into the Vulkan structures as they are (vulkan_core.h supplies
 * the constants only; nothing here calls Vulkan).
 *
 * Aliasing. Transients of the same type (image or buffer) whose lifetimes
 * (first to last use in the compiled order) do not overlap share a memory
 * slot, largest first, first fit; a slot is as large and as aligned as its
 * largest member and needs memory types every member accepts. Bytes with
 * and without aliasing are reported (ze__rg_memory).
 *
 * Threads: a graph is used by one thread at a time (the render thread).
 * Memory: ze__rg_create allocates the graph once from desc.alloc; the
 * capacities are the enum below; declaring and compiling never allocate.
 * Handles: {id} with the graph's epoch in the upper bits; ze__rg_reset
 * starts a new epoch, so a handle from before it is refused. */
#ifndef ZE_GFX_RG_H
#define ZE_GFX_RG_H

#include <vulkan/vulkan_core.h>

#include "zengine/base.h"

#define ZE_RG_LOG "rg"

enum {
    ZE_RG_MAX_PASSES = 64, /* reachability is a 64-bit mask per pass */
    ZE_RG_MAX_RESOURCES = 128,
    ZE_RG_MAX_USES = 16, /* per pass */
    ZE_RG_MAX_ORDERS = 128,
    ZE_RG_NAME_MAX = 32, /* including the NUL */
    ZE_RG_MAX_BARRIERS = ZE_RG_MAX_PASSES * ZE_RG_MAX_USES + ZE_RG_MAX_RESOURCES,
};

typedef enum ze_rg_use {
    ZE_RG_USE_NONE = 0, /* imports: no use before the graph / no final layout */
    ZE_RG_SAMPLED,
    ZE_RG_STORAGE_READ,
    ZE_RG_STORAGE_WRITE, /* read-write */
    ZE_RG_COLOR_ATTACHMENT,
    ZE_RG_DEPTH_ATTACHMENT, /* test and write */
    ZE_RG_DEPTH_READ,       /* test only */
    ZE_RG_INDIRECT,
    ZE_RG_TRANSFER_SRC,
    ZE_RG_TRANSFER_DST,
    ZE_RG_PRESENT,
    ZE_RG_USE_COUNT
} ze_rg_use;

typedef enum ze_rg_pass_kind {
    ZE_RG_GRAPHICS = 0,
    ZE_RG_COMPUTE,
    ZE_RG_TRANSFER,
    ZE_RG_KIND_COUNT
} ze_rg_pass_kind;

typedef enum ze_rg_res_kind {
    ZE_RG_IMAGE = 0,
    ZE_RG_BUFFER,
} ze_rg_res_kind;

/* One row of the access table: everything a barrier and a transient's
 * creation need to know about a use. */
typedef struct ze_rg_access_t {
    const char *name;                               /* in dumps and messages */
    uint8_t resources;                              /* 1 << ze_rg_res_kind allowed */
    uint8_t kinds;                                  /* 1 << ze_rg_pass_kind allowed */
    VkPipelineStageFlags2 stages[ZE_RG_KIND_COUNT]; /* in a pass of that kind */
    VkAccessFlags2 read, write;                     /* write != 0: the use writes */
    VkImageLayout layout;                           /* images */
    VkImageUsageFlags image_usage;                  /* what a transient needs for it */
    VkBufferUsageFlags buffer_usage;
} ze_rg_access_t;

/* The access table's row of `use` (NULL for NONE and out of range). */
const ze_rg_access_t *ze__rg_access(ze_rg_use use);
const char *ze__rg_kind_name(ze_rg_pass_kind kind);

typedef struct ze_rg_pass_t {
    uint32_t id;
} ze_rg_pass_t;
typedef struct ze_rg_res_t {
    uint32_t id;
} ze_rg_res_t;

typedef struct ze_rg_resource_desc_t {
    ze_rg_res_kind kind;
    VkFormat format; /* images */
    uint32_t width, height, mips;
    uint64_t size; /* buffers, bytes */
} ze_rg_resource_desc_t;

/* How an imported resource meets the graph. `before`: its last use before
 * the graph (whose stages and accesses the first barrier waits for, and
 * whose layout it is in); NONE: not used before. `after`: the layout the
 * graph leaves an image in (NONE: as its last use left it); whoever uses
 * it next synchronises from there (an import's `before` should describe
 * its `after`). Both as in a pass of `kind`.
 * `discard`: its contents are not needed (the first use transitions from
 * UNDEFINED); otherwise they are, and passes may read it with no writer. */
typedef struct ze_rg_import_t {
    ze_rg_use before, after;
    ze_rg_pass_kind kind;
    bool discard;
} ze_rg_import_t;

typedef struct ze_rg_memory_t {
    uint64_t size, align;
    uint32_t types; /* memory type bits (any non-zero mask in tests) */
} ze_rg_memory_t;

/* A compiled resource (index = handle's index; ze__rg_resource). */
typedef struct ze_rg_resource_info_t {
    const char *name;
    ze_rg_resource_desc_t desc;
    bool imported;
    ze_rg_import_t import;
    VkImageUsageFlags image_usage; /* union over its uses */
    VkBufferUsageFlags buffer_usage;
    int32_t first, last; /* positions in the compiled order; -1: unused */
    int32_t slot;        /* transients: memory slot; -1 otherwise */
    ze_rg_memory_t mem;  /* transients: measured */
} ze_rg_resource_info_t;

/* The executor's hook: the memory a transient needs, given its usage
 * (res->image_usage / buffer_usage). The Vulkan executor creates the
 * unbound image or buffer here. A failure fails the compile. */
typedef ze_result (*ze_rg_measure_fn)(void *user, uint32_t index, const ze_rg_resource_info_t *res,
                                      ze_rg_memory_t *out);

typedef struct ze_rg_desc_t {
    ze_allocator_t alloc; /* required */
    ze_rg_measure_fn measure;
    void *measure_user;
} ze_rg_desc_t;

typedef struct ze_rg_barrier_t {
    uint32_t resource; /* index */
    VkPipelineStageFlags2 src_stages, dst_stages;
    VkAccessFlags2 src_access, dst_access;
    VkImageLayout old_layout, new_layout; /* images */
} ze_rg_barrier_t;

typedef struct ze_rg_pass_use_t {
    uint16_t resource; /* index */
    uint8_t use;       /* ze_rg_use */
} ze_rg_pass_use_t;

typedef struct ze_rg_compiled_pass_t {
    const char *name;
    ze_rg_pass_kind kind;
    ze_rg_pass_t handle;
    uint32_t declared;      /* declaration index */
    const void *exec;       /* the executor's, as declared */
    void *user;             /* as declared */
    uint32_t barrier_first; /* its barrier batch, recorded before it */
    uint32_t barrier_count;
    const ze_rg_pass_use_t *uses; /* as declared */
    uint32_t use_count;
} ze_rg_compiled_pass_t;

typedef struct ze_rg_slot_t {
    ze_rg_memory_t mem;
    uint32_t members; /* resources sharing it */
} ze_rg_slot_t;

typedef struct ze_rg_t ze_rg_t;

/* ZE_ERR_OUT_OF_MEMORY when the allocator refuses the graph. */
ze_result ze__rg_create(const ze_rg_desc_t *desc, ze_rg_t **out);
void ze__rg_destroy(ze_rg_t *g);
/* Forget every declaration and the compiled result; new epoch. */
void ze__rg_reset(ze_rg_t *g);

/* Declarations. A failure (limits, a duplicate name, a use the table
 * forbids) returns a null handle and is kept for ze__rg_compile. */
ze_rg_pass_t ze__rg_pass(ze_rg_t *g, const char *name, ze_rg_pass_kind kind, const void *exec,
                         void *user);
ze_rg_res_t ze__rg_create_resource(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d);
ze_rg_res_t ze__rg_import(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d,
                          const ze_rg_import_t *imp);
/* One use per resource per pass. */
void ze__rg_use(ze_rg_t *g, ze_rg_pass_t pass, ze_rg_res_t res, ze_rg_use use);
/* `after` runs after `before` (whatever their resources). */
void ze__rg_order(ze_rg_t *g, ze_rg_pass_t before, ze_rg_pass_t after);
/* A declared resource by name; {0} when there is none. */
ze_rg_res_t ze__rg_find(const ze_rg_t *g, const char *name);
/* The resource named `name`, or, when there is none yet, an import of it
   (for passes that share an import whichever of them is declared first). */
ze_rg_res_t ze__rg_find_or_import(ze_rg_t *g, const char *name, const ze_rg_resource_desc_t *d,
                                  const ze_rg_import_t *imp);

ze_result ze__rg_compile(ze_rg_t *g);
bool ze__rg_compiled(const ze_rg_t *g);

/* The compiled graph (valid until the next reset). */
uint32_t ze__rg_pass_count(const ze_rg_t *g);
ze_rg_compiled_pass_t ze__rg_pass_at(const ze_rg_t *g, uint32_t position);
const ze_rg_barrier_t *ze__rg_barriers(const ze_rg_t *g, uint32_t *count);
/* The batch after the last pass: imports into their `after` layouts. */
void ze__rg_final_barriers(const ze_rg_t *g, uint32_t *first, uint32_t *count);
uint32_t ze__rg_resource_count(const ze_rg_t *g);
const ze_rg_resource_info_t *ze__rg_resource(const ze_rg_t *g, uint32_t index);
/* Index of a handle of the current epoch; -1 otherwise. */
int32_t ze__rg_index(const ze_rg_t *g, ze_rg_res_t res);
uint32_t ze__rg_slot_count(const ze_rg_t *g);
const ze_rg_slot_t *ze__rg_slot(const ze_rg_t *g, uint32_t slot);
/* Transient bytes: each in its own memory, and as aliased. */
void ze__rg_memory(const ze_rg_t *g, uint64_t *unaliased, uint64_t *aliased);

/* The barrier taking a resource from one use's state to another's, outside
 * any graph (a screenshot's copy): the same table, the same rule. */
ze_rg_barrier_t ze__rg_transition(ze_rg_use from, ze_rg_pass_kind from_kind, ze_rg_use to,
                                  ze_rg_pass_kind to_kind);

/* rg_dump.c: the compiled graph as JSON (passes in order with their uses
 * and barrier batches, the final batch, resources with lifetimes, usage
 * and slots, aliasing bytes). Deterministic: the same graph gives the same
 * bytes. ZE_ERR_STATE before a successful compile; ZE_ERR_IO. */
ze_result ze__rg_dump_json(const ze_rg_t *g, const char *path);

#endif /* ZE_GFX_RG_H */
