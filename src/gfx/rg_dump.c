/* The compiled render graph as JSON (zengine run --dump-graph, the graph's
 * unit test): passes in compiled order with their uses and the barrier
 * batch recorded before each, the final batch, resources with lifetimes,
 * usage and memory slots, and the aliasing figures. Flags are written as
 * arrays of synchronization2 names (unknown bits as hex), layouts and
 * formats by name. Written by the small streaming writer below (two-space
 * indentation, keys in a fixed order, no allocation): the same graph gives
 * the same bytes. */
#include <inttypes.h>
#include <stdio.h>

#include "gfx/rg.h"

typedef struct flag_name_t {
    uint64_t bit;
    const char *name;
} flag_name_t;

static const flag_name_t STAGES[] = {
    {VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, "TOP_OF_PIPE"},
    {VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, "DRAW_INDIRECT"},
    {VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT, "VERTEX_INPUT"},
    {VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, "VERTEX_SHADER"},
    {VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, "FRAGMENT_SHADER"},
    {VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT, "EARLY_FRAGMENT_TESTS"},
    {VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT, "LATE_FRAGMENT_TESTS"},
    {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, "COLOR_ATTACHMENT_OUTPUT"},
    {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, "COMPUTE_SHADER"},
    {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, "ALL_TRANSFER"},
    {VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, "BOTTOM_OF_PIPE"},
    {VK_PIPELINE_STAGE_2_HOST_BIT, "HOST"},
    {VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, "ALL_GRAPHICS"},
    {VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, "ALL_COMMANDS"},
    {VK_PIPELINE_STAGE_2_COPY_BIT, "COPY"},
    {VK_PIPELINE_STAGE_2_BLIT_BIT, "BLIT"},
};

static const flag_name_t ACCESSES[] = {
    {VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT, "INDIRECT_COMMAND_READ"},
    {VK_ACCESS_2_INDEX_READ_BIT, "INDEX_READ"},
    {VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT, "VERTEX_ATTRIBUTE_READ"},
    {VK_ACCESS_2_UNIFORM_READ_BIT, "UNIFORM_READ"},
    {VK_ACCESS_2_SHADER_READ_BIT, "SHADER_READ"},
    {VK_ACCESS_2_SHADER_WRITE_BIT, "SHADER_WRITE"},
    {VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT, "COLOR_ATTACHMENT_READ"},
    {VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, "COLOR_ATTACHMENT_WRITE"},
    {VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT, "DEPTH_STENCIL_ATTACHMENT_READ"},
    {VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, "DEPTH_STENCIL_ATTACHMENT_WRITE"},
    {VK_ACCESS_2_TRANSFER_READ_BIT, "TRANSFER_READ"},
    {VK_ACCESS_2_TRANSFER_WRITE_BIT, "TRANSFER_WRITE"},
    {VK_ACCESS_2_MEMORY_READ_BIT, "MEMORY_READ"},
    {VK_ACCESS_2_MEMORY_WRITE_BIT, "MEMORY_WRITE"},
    {VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, "SHADER_SAMPLED_READ"},
    {VK_ACCESS_2_SHADER_STORAGE_READ_BIT, "SHADER_STORAGE_READ"},
    {VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, "SHADER_STORAGE_WRITE"},
};

static const flag_name_t IMAGE_USAGE[] = {
    {VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "TRANSFER_SRC"},
    {VK_IMAGE_USAGE_TRANSFER_DST_BIT, "TRANSFER_DST"},
    {VK_IMAGE_USAGE_SAMPLED_BIT, "SAMPLED"},
    {VK_IMAGE_USAGE_STORAGE_BIT, "STORAGE"},
    {VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, "COLOR_ATTACHMENT"},
    {VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, "DEPTH_STENCIL_ATTACHMENT"},
};

static const flag_name_t BUFFER_USAGE[] = {
    {VK_BUFFER_USAGE_TRANSFER_SRC_BIT, "TRANSFER_SRC"},
    {VK_BUFFER_USAGE_TRANSFER_DST_BIT, "TRANSFER_DST"},
    {VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "UNIFORM_BUFFER"},
    {VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "STORAGE_BUFFER"},
    {VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, "INDIRECT_BUFFER"},
};

/* ------------------------------------------------------------ writer */

enum { MAX_DEPTH = 16 };

typedef struct writer_t {
    FILE *f;
    int depth;
    bool first[MAX_DEPTH]; /* nothing written in the container yet */
} writer_t;

/* Before a value: the separator, the indentation, the key. */
static void lead(writer_t *w, const char *key)
{
    if (w->depth > 0) {
        fputs(w->first[w->depth] ? "\n" : ",\n", w->f);
        w->first[w->depth] = false;
        fprintf(w->f, "%*s", 2 * w->depth, "");
    }
    if (key)
        fprintf(w->f, "\"%s\": ", key);
}

static void string_value(writer_t *w, const char *s)
{
    fputc('"', w->f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(w->f, "\\%c", c);
        else if (c < 0x20)
            fprintf(w->f, "\\u%04x", c);
        else
            fputc(c, w->f);
    }
    fputc('"', w->f);
}

static void open_(writer_t *w, const char *key, char c)
{
    lead(w, key);
    fputc(c, w->f);
    ZE_ASSERT(w->depth + 1 < MAX_DEPTH);
    w->first[++w->depth] = true;
}

static void close_(writer_t *w, char c)
{
    bool empty = w->first[w->depth--];
    if (!empty)
        fprintf(w->f, "\n%*s", 2 * w->depth, "");
    fputc(c, w->f);
}

static void obj(writer_t *w, const char *key)
{
    open_(w, key, '{');
}
static void obj_end(writer_t *w)
{
    close_(w, '}');
}
static void arr(writer_t *w, const char *key)
{
    open_(w, key, '[');
}
static void arr_end(writer_t *w)
{
    close_(w, ']');
}

static void str(writer_t *w, const char *key, const char *v)
{
    lead(w, key);
    if (v)
        string_value(w, v);
    else
        fputs("null", w->f);
}

static void num(writer_t *w, const char *key, int64_t v)
{
    lead(w, key);
    fprintf(w->f, "%" PRId64, v);
}

static void boolean(writer_t *w, const char *key, bool v)
{
    lead(w, key);
    fputs(v ? "true" : "false", w->f);
}

/* ------------------------------------------------------------- names */

static const char *layout_name(VkImageLayout l)
{
    switch (l) {
    case VK_IMAGE_LAYOUT_UNDEFINED:
        return "UNDEFINED";
    case VK_IMAGE_LAYOUT_GENERAL:
        return "GENERAL";
    case VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL:
        return "COLOR_ATTACHMENT_OPTIMAL";
    case VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL:
        return "DEPTH_ATTACHMENT_OPTIMAL";
    case VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL:
        return "DEPTH_READ_ONLY_OPTIMAL";
    case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL:
        return "SHADER_READ_ONLY_OPTIMAL";
    case VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL:
        return "TRANSFER_SRC_OPTIMAL";
    case VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL:
        return "TRANSFER_DST_OPTIMAL";
    case VK_IMAGE_LAYOUT_PRESENT_SRC_KHR:
        return "PRESENT_SRC_KHR";
    default:
        return "OTHER";
    }
}

static const char *format_name(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_R8G8B8A8_UNORM:
        return "R8G8B8A8_UNORM";
    case VK_FORMAT_R8G8B8A8_SRGB:
        return "R8G8B8A8_SRGB";
    case VK_FORMAT_B8G8R8A8_UNORM:
        return "B8G8R8A8_UNORM";
    case VK_FORMAT_R16G16B16A16_SFLOAT:
        return "R16G16B16A16_SFLOAT";
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return "R32G32B32A32_SFLOAT";
    case VK_FORMAT_R16G16_SFLOAT:
        return "R16G16_SFLOAT";
    case VK_FORMAT_R32_SFLOAT:
        return "R32_SFLOAT";
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
        return "B10G11R11_UFLOAT_PACK32";
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
        return "A2B10G10R10_UNORM_PACK32";
    case VK_FORMAT_D32_SFLOAT:
        return "D32_SFLOAT";
    default:
        return NULL; /* written as the number */
    }
}

static void flags(writer_t *w, const char *key, uint64_t v, const flag_name_t *names, size_t count)
{
    arr(w, key);
    if (!v && names == STAGES) /* synchronization2's NONE: nothing to wait for */
        str(w, NULL, "NONE");
    for (size_t i = 0; i < count; i++)
        if (v & names[i].bit) {
            str(w, NULL, names[i].name);
            v &= ~names[i].bit;
        }
    if (v) {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
        str(w, NULL, hex);
    }
    arr_end(w);
}

#define FLAGS(w, key, v, table) flags((w), (key), (v), (table), sizeof(table) / sizeof((table)[0]))

/* ------------------------------------------------------------ graph */

static void barrier(writer_t *w, const ze_rg_t *g, const ze_rg_barrier_t *b)
{
    const ze_rg_resource_info_t *r = ze__rg_resource(g, b->resource);
    obj(w, NULL);
    str(w, "resource", r->name);
    FLAGS(w, "src_stages", b->src_stages, STAGES);
    FLAGS(w, "src_access", b->src_access, ACCESSES);
    FLAGS(w, "dst_stages", b->dst_stages, STAGES);
    FLAGS(w, "dst_access", b->dst_access, ACCESSES);
    if (r->desc.kind == ZE_RG_IMAGE) {
        str(w, "old_layout", layout_name(b->old_layout));
        str(w, "new_layout", layout_name(b->new_layout));
    }
    obj_end(w);
}

static void batch(writer_t *w, const char *key, const ze_rg_t *g, uint32_t first, uint32_t count)
{
    uint32_t total;
    const ze_rg_barrier_t *all = ze__rg_barriers(g, &total);
    arr(w, key);
    for (uint32_t i = first; i < first + count && i < total; i++)
        barrier(w, g, &all[i]);
    arr_end(w);
}

static void passes(writer_t *w, const ze_rg_t *g)
{
    arr(w, "passes");
    for (uint32_t pos = 0; pos < ze__rg_pass_count(g); pos++) {
        ze_rg_compiled_pass_t p = ze__rg_pass_at(g, pos);
        obj(w, NULL);
        str(w, "name", p.name);
        str(w, "kind", ze__rg_kind_name(p.kind));
        num(w, "declared", p.declared);
        arr(w, "uses");
        for (uint32_t u = 0; u < p.use_count; u++) {
            const ze_rg_resource_info_t *r = ze__rg_resource(g, p.uses[u].resource);
            const ze_rg_access_t *acc = ze__rg_access((ze_rg_use)p.uses[u].use);
            obj(w, NULL);
            str(w, "resource", r->name);
            str(w, "use", acc->name);
            if (r->desc.kind == ZE_RG_IMAGE)
                str(w, "layout", layout_name(acc->layout));
            obj_end(w);
        }
        arr_end(w);
        batch(w, "barriers", g, p.barrier_first, p.barrier_count);
        obj_end(w);
    }
    arr_end(w);
}

static const char *pass_name_at(const ze_rg_t *g, int32_t pos)
{
    return pos >= 0 ? ze__rg_pass_at(g, (uint32_t)pos).name : NULL;
}

static void resources(writer_t *w, const ze_rg_t *g)
{
    arr(w, "resources");
    for (uint32_t i = 0; i < ze__rg_resource_count(g); i++) {
        const ze_rg_resource_info_t *r = ze__rg_resource(g, i);
        bool image = r->desc.kind == ZE_RG_IMAGE;
        obj(w, NULL);
        str(w, "name", r->name);
        str(w, "type", image ? "image" : "buffer");
        if (image) {
            const char *f = format_name(r->desc.format);
            if (f)
                str(w, "format", f);
            else
                num(w, "format", (int64_t)r->desc.format);
            num(w, "width", r->desc.width);
            num(w, "height", r->desc.height);
            num(w, "mips", r->desc.mips);
        } else {
            num(w, "size", (int64_t)r->desc.size);
        }
        boolean(w, "imported", r->imported);
        if (r->imported) {
            const ze_rg_access_t *before = ze__rg_access(r->import.before);
            const ze_rg_access_t *after = ze__rg_access(r->import.after);
            str(w, "before", before ? before->name : NULL);
            str(w, "after", after ? after->name : NULL);
            boolean(w, "discard", r->import.discard);
        }
        str(w, "first_pass", pass_name_at(g, r->first));
        str(w, "last_pass", pass_name_at(g, r->last));
        if (image)
            FLAGS(w, "usage", r->image_usage, IMAGE_USAGE);
        else
            FLAGS(w, "usage", r->buffer_usage, BUFFER_USAGE);
        if (!r->imported && r->first >= 0) {
            num(w, "bytes", (int64_t)r->mem.size);
            num(w, "slot", r->slot);
        }
        obj_end(w);
    }
    arr_end(w);
}

static void aliasing(writer_t *w, const ze_rg_t *g)
{
    obj(w, "aliasing");
    arr(w, "slots");
    for (uint32_t s = 0; s < ze__rg_slot_count(g); s++) {
        const ze_rg_slot_t *slot = ze__rg_slot(g, s);
        obj(w, NULL);
        num(w, "bytes", (int64_t)slot->mem.size);
        num(w, "align", (int64_t)slot->mem.align);
        arr(w, "resources"); /* by first use */
        for (int32_t pos = 0; pos < (int32_t)ze__rg_pass_count(g); pos++)
            for (uint32_t i = 0; i < ze__rg_resource_count(g); i++) {
                const ze_rg_resource_info_t *r = ze__rg_resource(g, i);
                if (r->slot == (int32_t)s && r->first == pos)
                    str(w, NULL, r->name);
            }
        arr_end(w);
        obj_end(w);
    }
    arr_end(w);
    uint64_t unaliased, aliased;
    ze__rg_memory(g, &unaliased, &aliased);
    num(w, "bytes_without_aliasing", (int64_t)unaliased);
    num(w, "bytes_with_aliasing", (int64_t)aliased);
    obj_end(w);
}

ze_result ze__rg_dump_json(const ze_rg_t *g, const char *path)
{
    if (!ze__rg_compiled(g)) {
        ZE_LOG_ERROR(ZE_RG_LOG, "dump %s: the graph is not compiled", path ? path : "");
        return ZE_ERR_STATE;
    }
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f) {
        ZE_LOG_ERROR(ZE_RG_LOG, "dump %s: cannot open for writing", path ? path : "");
        return ZE_ERR_IO;
    }
    writer_t w = {.f = f};
    obj(&w, NULL);
    passes(&w, g);
    uint32_t first, count;
    ze__rg_final_barriers(g, &first, &count);
    batch(&w, "final_barriers", g, first, count);
    resources(&w, g);
    aliasing(&w, g);
    obj_end(&w);
    fputc('\n', f);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0)
        bad = true;
    if (bad) {
        ZE_LOG_ERROR(ZE_RG_LOG, "dump %s: write failed", path);
        return ZE_ERR_IO;
    }
    return ZE_OK;
}
