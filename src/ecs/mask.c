/* Component sets (ze_mask_t): up to ZE_MASK_MAX ids, ascending, no repeats,
 * unused entries zero (so equal sets are equal bytes: queries are cached by
 * their descs). A result that would not fit, or that names an id no kernel
 * can have, is overflowed (count ZE_MASK_OVERFLOW, no ids); every call that
 * takes a mask checks it (ze__mask_check) and refuses an overflowed one,
 * naming the limit. */
#include <string.h>

#include "ecs_internal.h"

static ze_mask_t overflowed(void)
{
    ze_mask_t m;
    memset(&m, 0, sizeof m);
    m.count = ZE_MASK_OVERFLOW;
    return m;
}

/* Insert id into m (ascending); false when it does not fit. */
static bool insert(ze_mask_t *m, uint32_t id)
{
    uint32_t i = m->count;
    while (i > 0 && m->ids[i - 1] > id)
        i--;
    if (i > 0 && m->ids[i - 1] == id)
        return true;
    if (m->count == ZE_MASK_MAX)
        return false;
    memmove(&m->ids[i + 1], &m->ids[i], (m->count - i) * sizeof m->ids[0]);
    m->ids[i] = (uint16_t)id;
    m->count++;
    return true;
}

ze_mask_t ze_mask_make(const ze_component_t *ids, uint32_t n)
{
    ze_mask_t m;
    memset(&m, 0, sizeof m);
    for (uint32_t i = 0; i < n; i++)
        if (ids[i].id >= ZE_MAX_COMPONENTS || !insert(&m, ids[i].id))
            return overflowed();
    return m;
}

ze_mask_t ze_mask_of(ze_component_t c)
{
    return ze_mask_make(&c, 1);
}

ze_mask_t ze_mask_or(ze_mask_t a, ze_mask_t b)
{
    if (ze_mask_overflowed(a) || ze_mask_overflowed(b))
        return overflowed();
    for (uint32_t i = 0; i < b.count; i++)
        if (!insert(&a, b.ids[i]))
            return overflowed();
    return a;
}

bool ze_mask_has(ze_mask_t m, ze_component_t c)
{
    if (ze_mask_overflowed(m))
        return false;
    for (uint32_t i = 0; i < m.count && i < ZE_MASK_MAX; i++)
        if (m.ids[i] == c.id)
            return true;
    return false;
}

static ze_mask_t filter(ze_mask_t a, ze_mask_t b, bool keep_shared)
{
    if (ze_mask_overflowed(a) || ze_mask_overflowed(b))
        return overflowed();
    ze_mask_t m;
    memset(&m, 0, sizeof m);
    for (uint32_t i = 0; i < a.count; i++)
        if (ze_mask_has(b, (ze_component_t){a.ids[i]}) == keep_shared)
            m.ids[m.count++] = a.ids[i];
    return m;
}

ze_mask_t ze_mask_and(ze_mask_t a, ze_mask_t b)
{
    return filter(a, b, true);
}

ze_mask_t ze_mask_minus(ze_mask_t a, ze_mask_t b)
{
    return filter(a, b, false);
}

bool ze_mask_eq(ze_mask_t a, ze_mask_t b)
{
    if (a.count != b.count)
        return false;
    return ze_mask_overflowed(a) || memcmp(a.ids, b.ids, (size_t)a.count * sizeof a.ids[0]) == 0;
}

bool ze_mask_contains(ze_mask_t m, ze_mask_t sub)
{
    if (ze_mask_overflowed(m) || ze_mask_overflowed(sub))
        return false;
    for (uint32_t i = 0; i < sub.count; i++)
        if (!ze_mask_has(m, (ze_component_t){sub.ids[i]}))
            return false;
    return true;
}

bool ze__mask_meets(ze_mask_t a, ze_mask_t b, uint32_t *first)
{
    if (ze_mask_overflowed(a) || ze_mask_overflowed(b))
        return false;
    /* Both ascending: a merge. */
    for (uint32_t i = 0, j = 0; i < a.count && j < b.count;) {
        if (a.ids[i] == b.ids[j]) {
            if (first)
                *first = a.ids[i];
            return true;
        }
        if (a.ids[i] < b.ids[j])
            i++;
        else
            j++;
    }
    return false;
}

ze_result ze__mask_check(const ze_world_t *w, ze_mask_t m, const char *what)
{
    if (ze_mask_overflowed(m))
        return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_LIMIT,
                               "%s: more than %d component types (the limit of one ze_mask_t) "
                               "or an invalid one",
                               what, ZE_MASK_MAX);
    uint32_t n = w->kernel->component_count;
    for (uint32_t i = 0; i < m.count; i++)
        if (m.ids[i] >= n || (i && m.ids[i] <= m.ids[i - 1]))
            return ze_world_report(w, ZE_LOG_ERROR, ZE_ERR_INVALID_ARG,
                                   "%s: component id %u is not registered (or the mask was not "
                                   "made by ze_mask_make)",
                                   what, m.ids[i]);
    return ZE_OK;
}
