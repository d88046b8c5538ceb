/* The memory manager: profiles, owners' reservations, budget accounting,
 * the 80 % warning, fault injection, and the system allocator. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include <malloc.h>
#if defined(ZE_SANITIZER_ADDRESS) || defined(ZE_SANITIZER_THREAD)
#include <sanitizer/allocator_interface.h>
#endif

#include "mem_internal.h"

#define LOG_CH "mem"

static const char *const g_owner_names[ZE_MEM_OWNER_COUNT] = {
    [ZE_MEM_OWNER_BOOTSTRAP] = "Bootstrap",
    [ZE_MEM_OWNER_LOGGING] = "Logging",
    [ZE_MEM_OWNER_JOB] = "Job",
    [ZE_MEM_OWNER_VFS] = "VFS",
    [ZE_MEM_OWNER_ASSET] = "Asset",
    [ZE_MEM_OWNER_INPUT] = "Input",
    [ZE_MEM_OWNER_ECS] = "ECS",
    [ZE_MEM_OWNER_IMPORT] = "Import",
    [ZE_MEM_OWNER_UI] = "UI",
    [ZE_MEM_OWNER_RENDER] = "Render",
    [ZE_MEM_OWNER_EDITOR] = "Editor",
    [ZE_MEM_OWNER_SCRATCH] = "Scratch",
    [ZE_MEM_OWNER_GAME] = "Game",
    [ZE_MEM_OWNER_THIRD_PARTY] = "ThirdParty",
    [ZE_MEM_OWNER_VULKAN] = "Vulkan",
    [ZE_MEM_OWNER_INSPECT] = "Inspect",
};

static const char *const g_profile_names[ZE_MEM_PROFILE_COUNT] = {"default", "editor", "server"};

const char *ze_mem_owner_name(ze_mem_owner owner)
{
    return (unsigned)owner < ZE_MEM_OWNER_COUNT ? g_owner_names[owner] : "?";
}

const char *ze_mem_profile_name(ze_mem_profile profile)
{
    return (unsigned)profile < ZE_MEM_PROFILE_COUNT ? g_profile_names[profile] : "?";
}

ze_result ze_mem_profile_parse(const char *s, ze_mem_profile *out)
{
    for (int i = 0; s && i < ZE_MEM_PROFILE_COUNT; i++) {
        if (strcasecmp(s, g_profile_names[i]) == 0) {
            *out = (ze_mem_profile)i;
            return ZE_OK;
        }
    }
    return ZE_ERR_PARSE;
}

/* Budgets in MiB per owner, in enum order. The capacity is a ceiling that
 * the budgets share; the sums stay well below it so a process under a lower
 * RLIMIT_AS still starts (Default: 3,696 MiB of 8 GiB). Render holds a
 * million instances' proxies and instance table (docs/gfx.md). Inspect: the
 * inspector's requests and answers (its connections are bounded). */
static const uint32_t g_profile_mib[ZE_MEM_PROFILE_COUNT][ZE_MEM_OWNER_COUNT] = {
    /*          Boot Log Job  VFS Asset In  ECS  Imp   UI  Rend  Edit Scr  Game 3rd  Vk  Insp */
    [ZE_MEM_PROFILE_DEFAULT] = {64, 16, 64, 128, 768, 16, 768, 256, 64, 640, 0, 128, 256, 256, 256,
                                16},
    [ZE_MEM_PROFILE_EDITOR] = {64, 32, 64, 256, 1024, 16, 768, 512, 256, 768, 512, 128, 256, 512,
                               256, 16},
    [ZE_MEM_PROFILE_SERVER] = {64, 16, 64, 128, 512, 0, 1536, 256, 0, 128, 0, 128, 512, 128, 64,
                               16},
};

ze_mem_budget_config_t ze_mem_profile_config(ze_mem_profile profile)
{
    ze_mem_budget_config_t c = {.capacity = ZE_GIB(ZE_MEM_DEFAULT_CAPACITY_GIB)};
    if ((unsigned)profile >= ZE_MEM_PROFILE_COUNT)
        profile = ZE_MEM_PROFILE_DEFAULT;
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
        c.budget[i] = ZE_MIB(g_profile_mib[profile][i]);
    return c;
}

size_t ze_mem_page_size(void)
{
    static size_t page;
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

static atomic_uint_fast64_t g_next_mem_id = 1;

ze_result ze_mem_create(const ze_mem_desc_t *desc, ze_mem_t **out)
{
    ze_mem_desc_t d = desc ? *desc : (ze_mem_desc_t){0};
    if (!out)
        return ZE_ERR_INVALID_ARG;
    *out = NULL;
    ze_mem_budget_config_t cfg = d.config ? *d.config : ze_mem_profile_config(d.profile);
    if (!cfg.capacity)
        cfg.capacity = ZE_GIB(ZE_MEM_DEFAULT_CAPACITY_GIB);
    uint64_t sum = 0;
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
        sum += cfg.budget[i];
    if (sum > cfg.capacity) {
        ZE_LOG_ERROR(LOG_CH, "budgets sum to %llu MiB, above the capacity of %llu MiB",
                     (unsigned long long)(sum >> 20), (unsigned long long)(cfg.capacity >> 20));
        return ZE_ERR_INVALID_ARG;
    }

    ze_mem_t *mm = calloc(1, sizeof *mm);
    if (!mm)
        return ZE_ERR_OUT_OF_MEMORY;
    mm->id = atomic_fetch_add(&g_next_mem_id, 1);
    mm->capacity = cfg.capacity;
#ifdef ZE_MEM_PASSTHROUGH
    mm->passthrough = d.passthrough >= 0;
#else
    mm->passthrough = d.passthrough > 0;
#endif
    mm->warn_ratio = d.warn_ratio > 0.0f && d.warn_ratio <= 1.0f ? d.warn_ratio : 0.8f;
    mm->warn_cooldown_ns = d.warn_cooldown_ns ? d.warn_cooldown_ns : 1000000000ull;
    pthread_mutex_init(&mm->scratch_lock, NULL);
    pthread_mutex_init(&mm->count_lock, NULL);

    size_t page = ze_mem_page_size();
    ze_result r = ZE_OK;
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++) {
        ze__owner_t *o = &mm->owners[i];
        pthread_mutex_init(&o->lock, NULL);
        o->budget = cfg.budget[i];
        if (!o->budget)
            continue;
        /* The budget plus room for the guard page behind each region, so a
         * region as large as the whole budget still fits. */
        o->size = ZE_ALIGN_UP((size_t)o->budget, page) + ZE__GUARD_ALLOWANCE;
        void *p =
            mmap(NULL, o->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            ZE_LOG_ERROR(LOG_CH, "owner %s: cannot reserve %llu MiB of address space: %s",
                         g_owner_names[i], (unsigned long long)(o->size >> 20), strerror(errno));
            o->size = 0;
            r = ZE_ERR_OUT_OF_MEMORY;
            break;
        }
        o->base = p;
        o->extents[0] = (ze__extent_t){0, o->size};
        o->extent_count = 1;
    }
    if (r != ZE_OK) {
        ze_mem_destroy(mm);
        return r;
    }
    *out = mm;
    return ZE_OK;
}

void ze_mem_destroy(ze_mem_t *mm)
{
    if (!mm)
        return;
    ze__scratch_release_all(mm);
    ze__mem_count_release_all(mm);
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++) {
        ze__owner_t *o = &mm->owners[i];
        ze_heap_t *h = atomic_load(&o->heap);
        if (h)
            ze_heap_destroy(h);
        if (o->base) {
            ZE__UNPOISON(o->base, o->size);
            munmap(o->base, o->size);
        }
        pthread_mutex_destroy(&o->lock);
    }
    pthread_mutex_destroy(&mm->scratch_lock);
    pthread_mutex_destroy(&mm->count_lock);
    free(mm);
}

bool ze_mem_is_passthrough(const ze_mem_t *mm)
{
    return mm->passthrough;
}

/* ---------------------------------------------------------- accounting */

static bool cooldown_passed(ze_mem_t *mm, atomic_uint_fast64_t *last)
{
    uint64_t now = ze_time_now_ns();
    uint64_t prev = atomic_load_explicit(last, memory_order_relaxed);
    if (prev && now - prev < mm->warn_cooldown_ns)
        return false;
    return atomic_compare_exchange_strong(last, &prev, now);
}

ze_result ze__mem_account(ze_mem_t *mm, ze_mem_owner owner, size_t bytes)
{
    ze__owner_t *o = &mm->owners[owner];
    uint64_t cur = atomic_load_explicit(&o->current, memory_order_relaxed);
    uint64_t next;
    do {
        next = cur + bytes;
        if (next > o->budget || next < cur) {
            ze__mem_note_failure(mm, owner, ZE_ERR_BUDGET, bytes);
            return ZE_ERR_BUDGET;
        }
    } while (!atomic_compare_exchange_weak_explicit(&o->current, &cur, next, memory_order_relaxed,
                                                    memory_order_relaxed));
    uint64_t peak = atomic_load_explicit(&o->peak, memory_order_relaxed);
    while (next > peak && !atomic_compare_exchange_weak_explicit(
                              &o->peak, &peak, next, memory_order_relaxed, memory_order_relaxed)) {
    }
    uint64_t threshold = (uint64_t)((double)o->budget * mm->warn_ratio);
    if (next >= threshold && cur < threshold && cooldown_passed(mm, &o->last_warn_ns)) {
        atomic_fetch_add_explicit(&o->warnings, 1, memory_order_relaxed);
        ZE_LOG_WARN(LOG_CH, "owner %s at %.0f%% of its budget (%llu of %llu MiB)",
                    g_owner_names[owner], 100.0 * (double)next / (double)o->budget,
                    (unsigned long long)(next >> 20), (unsigned long long)(o->budget >> 20));
    }
    return ZE_OK;
}

void ze__mem_unaccount(ze_mem_t *mm, ze_mem_owner owner, size_t bytes)
{
    atomic_fetch_sub_explicit(&mm->owners[owner].current, bytes, memory_order_relaxed);
}

void ze__mem_note_failure(ze_mem_t *mm, ze_mem_owner owner, ze_result why, size_t bytes)
{
    ze__owner_t *o = &mm->owners[owner];
    atomic_fetch_add_explicit(&o->failures, 1, memory_order_relaxed);
    if (why == ZE_ERR_FAULT_INJECTED)
        return; /* tests provoke thousands of these on purpose */
    if (cooldown_passed(mm, &o->last_fail_log_ns))
        ZE_LOG_ERROR(LOG_CH, "owner %s: %s (request of %zu bytes; %llu of %llu MiB in use)",
                     g_owner_names[owner], ze_result_str(why), bytes,
                     (unsigned long long)(atomic_load(&o->current) >> 20),
                     (unsigned long long)(o->budget >> 20));
}

void ze__mem_note_heap_full(ze_mem_t *mm, ze_mem_owner owner, size_t bytes, size_t heap_max)
{
    ze__owner_t *o = &mm->owners[owner];
    atomic_fetch_add_explicit(&o->failures, 1, memory_order_relaxed);
    if (cooldown_passed(mm, &o->last_fail_log_ns))
        ZE_LOG_ERROR(LOG_CH,
                     "owner %s: its heap is full (request of %zu bytes; the heap holds at most "
                     "%zu MiB of the owner's range; %llu of %llu MiB of the budget in use): "
                     "a block this size needs a region or a larger budget",
                     g_owner_names[owner], bytes, heap_max >> 20,
                     (unsigned long long)(atomic_load(&o->current) >> 20),
                     (unsigned long long)(o->budget >> 20));
}

void ze__mem_note_range_full(ze_mem_t *mm, ze_mem_owner owner, size_t bytes)
{
    ze__owner_t *o = &mm->owners[owner];
    atomic_fetch_add_explicit(&o->failures, 1, memory_order_relaxed);
    if (cooldown_passed(mm, &o->last_fail_log_ns))
        ZE_LOG_ERROR(LOG_CH,
                     "owner %s: no room in its address range for a region of %zu bytes (%llu "
                     "of %llu MiB reserved by its heaps, arenas and tables; %llu MiB in use)",
                     g_owner_names[owner], bytes,
                     (unsigned long long)(atomic_load(&o->reserved) >> 20),
                     (unsigned long long)(o->size >> 20),
                     (unsigned long long)(atomic_load(&o->current) >> 20));
}

/* ------------------------------------------------- allocation counting */

_Thread_local ze__count_tls_t ze__t_count __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t t_thread_serial;
static atomic_uint_fast64_t g_next_thread_serial = 1;

/* First allocation of this thread from this manager (or the first after it
 * used another one): find or make the thread's slot. */
void ze__mem_count_slow(ze_mem_t *mm, ze_mem_owner owner)
{
    if (!t_thread_serial)
        t_thread_serial = atomic_fetch_add_explicit(&g_next_thread_serial, 1, memory_order_relaxed);
    pthread_mutex_lock(&mm->count_lock);
    ze__count_slot_t *s = mm->counts;
    while (s && s->thread_serial != t_thread_serial)
        s = s->next;
    if (!s && (s = calloc(1, sizeof *s)) != NULL) {
        for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
            atomic_init(&s->allocs[i], 0);
        s->thread_serial = t_thread_serial;
        s->next = mm->counts;
        mm->counts = s;
    }
    pthread_mutex_unlock(&mm->count_lock);
    if (!s) { /* out of memory: count on the shared counter, stay on this path */
        atomic_fetch_add_explicit(&mm->owners[owner].allocs_shared, 1, memory_order_relaxed);
        return;
    }
    ze__t_count.mm_id = mm->id;
    ze__t_count.slot = s;
    atomic_uint_fast64_t *c = &s->allocs[owner];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

void ze__mem_count_release_all(ze_mem_t *mm)
{
    pthread_mutex_lock(&mm->count_lock);
    ze__count_slot_t *s = mm->counts;
    mm->counts = NULL;
    pthread_mutex_unlock(&mm->count_lock);
    while (s) {
        ze__count_slot_t *next = s->next;
        free(s);
        s = next;
    }
}

/* Sum of the per-thread counters of `owner` (count_lock held). */
static uint64_t allocations_locked(ze_mem_t *mm, ze_mem_owner owner)
{
    uint64_t n = atomic_load_explicit(&mm->owners[owner].allocs_shared, memory_order_relaxed);
    for (ze__count_slot_t *s = mm->counts; s; s = s->next)
        n += atomic_load_explicit(&s->allocs[owner], memory_order_relaxed);
    return n;
}

uint64_t ze_mem_allocation_count(ze_mem_t *mm)
{
    uint64_t n = 0;
    pthread_mutex_lock(&mm->count_lock);
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
        n += allocations_locked(mm, (ze_mem_owner)i);
    pthread_mutex_unlock(&mm->count_lock);
    return n;
}

/* ------------------------------------------------------------ statistics */

ze_mem_owner_stats_t ze_mem_owner_stats(ze_mem_t *mm, ze_mem_owner owner)
{
    ze__owner_t *o = &mm->owners[owner];
    pthread_mutex_lock(&mm->count_lock);
    uint64_t allocations = allocations_locked(mm, owner);
    pthread_mutex_unlock(&mm->count_lock);
    return (ze_mem_owner_stats_t){
        .budget = o->budget,
        .reserved = atomic_load(&o->reserved),
        .current = atomic_load(&o->current),
        .peak = atomic_load(&o->peak),
        .regions = atomic_load(&o->regions),
        .failures = atomic_load(&o->failures),
        .warnings = atomic_load(&o->warnings),
        .allocations = allocations,
    };
}

void ze_mem_snapshot(ze_mem_t *mm, ze_mem_owner_stats_t out[ZE_MEM_OWNER_COUNT])
{
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++)
        out[i] = ze_mem_owner_stats(mm, (ze_mem_owner)i);
}

void ze_mem_log_stats(ze_mem_t *mm)
{
    ZE_LOG_INFO(LOG_CH, "%-10s %10s %10s %10s %10s %8s %12s", "owner", "budget", "reserved",
                "current", "peak", "failures", "allocations");
    for (int i = 0; i < ZE_MEM_OWNER_COUNT; i++) {
        ze_mem_owner_stats_t s = ze_mem_owner_stats(mm, (ze_mem_owner)i);
        if (!s.budget)
            continue;
        ZE_LOG_INFO(LOG_CH, "%-10s %8.1fMi %8.1fMi %8.2fMi %8.2fMi %8llu %12llu", g_owner_names[i],
                    (double)s.budget / 1048576.0, (double)s.reserved / 1048576.0,
                    (double)s.current / 1048576.0, (double)s.peak / 1048576.0,
                    (unsigned long long)s.failures, (unsigned long long)s.allocations);
    }
}

/* ------------------------------------------------------ fault injection */

static void update_fault_gate(ze_mem_t *mm)
{
    bool any = atomic_load(&mm->fault_armed);
    for (int i = 0; i < ZE_MEM_OWNER_COUNT && !any; i++)
        any = atomic_load(&mm->owners[i].fail);
    atomic_store(&mm->fault_any, any);
}

void ze_mem_fault_fail_nth(ze_mem_t *mm, uint64_t n)
{
    atomic_store(&mm->fault_counter, 0);
    atomic_store(&mm->fault_nth, n);
    atomic_store(&mm->fault_armed, n != 0);
    update_fault_gate(mm);
}

void ze_mem_fault_fail_owner(ze_mem_t *mm, ze_mem_owner owner, bool fail)
{
    atomic_store(&mm->owners[owner].fail, fail);
    update_fault_gate(mm);
}

void ze_mem_fault_exempt_owner(ze_mem_t *mm, ze_mem_owner owner, bool exempt)
{
    atomic_store(&mm->owners[owner].fault_exempt, exempt);
}

uint64_t ze_mem_fault_counter(ze_mem_t *mm)
{
    return atomic_load(&mm->fault_counter);
}

ze_result ze__mem_fault_slow(ze_mem_t *mm, ze_mem_owner owner)
{
    if (atomic_load_explicit(&mm->owners[owner].fail, memory_order_relaxed)) {
        ze__mem_note_failure(mm, owner, ZE_ERR_FAULT_INJECTED, 0);
        return ZE_ERR_FAULT_INJECTED;
    }
    if (atomic_load_explicit(&mm->fault_armed, memory_order_relaxed) &&
        !atomic_load_explicit(&mm->owners[owner].fault_exempt, memory_order_relaxed)) {
        uint64_t c = atomic_fetch_add_explicit(&mm->fault_counter, 1, memory_order_relaxed) + 1;
        if (c == atomic_load_explicit(&mm->fault_nth, memory_order_relaxed)) {
            ze__mem_note_failure(mm, owner, ZE_ERR_FAULT_INJECTED, 0);
            return ZE_ERR_FAULT_INJECTED;
        }
    }
    return ZE_OK;
}

/* -------------------------------------------------------- system memory */

void *ze_mem_sys_alloc(size_t size)
{
    return malloc(size);
}

void ze_mem_sys_free(void *ptr)
{
    free(ptr);
}

uint64_t ze_mem_unrouted_heap_bytes(void)
{
#if defined(ZE_SANITIZER_ADDRESS) || defined(ZE_SANITIZER_THREAD)
    /* the sanitizer's allocator replaces glibc's: mallinfo2 reads zeros */
    return (uint64_t)__sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 mi = mallinfo2();
    return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#endif
}

static void *sys_alloc_fn(void *user, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    (void)user;
    (void)old_size;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    if (align <= 16)
        return realloc(ptr, new_size);
    void *p = NULL;
    if (posix_memalign(&p, align, new_size) != 0)
        return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
    }
    return p;
}

ze_allocator_t ze_mem_system_allocator(void)
{
    return (ze_allocator_t){sys_alloc_fn, NULL};
}
