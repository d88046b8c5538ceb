/* The virtual file system: the project folder mounted at "/", atomic
 * writes, a memory mount that shadows files, and hot reload: the watcher
 * tells the game that a file changed on disk (an editor saved it) and the
 * game reads it again, without a restart.
 *
 * Run it in a folder it may write to (its test gives it a fresh one):
 *   mkdir scratch && cd scratch && example_vfs_hot_reload
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zengine/zengine.h>

static const char *CONFIG = "/config/game.cfg";

/* The game's setting: "speed=<number>" in the file, read through the VFS
 * (whatever mount answers: the disk, or a memory mount above it). */
static float read_speed(ze_vfs_t *vfs)
{
    ze_vfs_buffer_t buf;
    if (ze_vfs_read_file(vfs, CONFIG, (ze_allocator_t){0}, &buf) != ZE_OK)
        return -1;
    const char *eq = strchr((const char *)buf.data, '='); /* the buffer ends with a NUL */
    float speed = eq ? strtof(eq + 1, NULL) : -1;
    ze_vfs_buffer_free(&buf);
    return speed;
}

/* Watcher events arrive inside ze_vfs_tick, on the main thread, once the
 * file has been quiet for the debounce period (no half-written reads). */
static void on_event(void *user, const ze_vfs_event_t *ev)
{
    if ((ev->kind == ZE_VFS_EVENT_MODIFIED || ev->kind == ZE_VFS_EVENT_CREATED) &&
        strcmp(ev->path->str, CONFIG) == 0)
        *(bool *)user = true;
}

/* Tick the VFS for up to `seconds` (a game ticks it once per frame), until
 * *flag is set when flag is given. */
static void tick_for(ze_vfs_t *vfs, double seconds, const bool *flag)
{
    double end = ze_time_now_s() + seconds;
    while (ze_time_now_s() < end && !(flag && *flag)) {
        ze_vfs_tick(vfs);
        ze_time_sleep_ns(10 * 1000 * 1000);
    }
}

int main(void)
{
    ze_mem_t *mm;
    if (ze_mem_create(&(ze_mem_desc_t){0}, &mm) != ZE_OK)
        return 1;
    /* 1. The project: the current folder at "/", watched. No engine assets
     * are needed here. */
    ze_vfs_t *vfs;
    ze_result r = ze_vfs_create(
        &(ze_vfs_desc_t){.mem = mm, .project_root = ".", .no_engine_mount = true, .watch = true},
        &vfs);
    if (r != ZE_OK)
        return 1; /* the reason was reported */

    /* 2. An atomic write (temporary file, fsync, rename): a reader, or a
     * crash, never sees half a file. */
    const char first[] = "speed=1.5\n";
    if (ze_vfs_mkdirs(vfs, "/config") != ZE_OK ||
        ze_vfs_write_file(vfs, CONFIG, first, strlen(first)) != ZE_OK)
        return 1;
    float speed_before = read_speed(vfs);

    bool changed = false;
    ze_vfs_subscription_t sub;
    if (ze_vfs_subscribe(vfs, on_event, &changed, &sub) != ZE_OK)
        return 1;
    tick_for(vfs, 0.3, NULL); /* let our own write's events go by */
    changed = false;

    /* 3. Someone else saves the file: an editor, a text editor, a tool. Not
     * through the VFS: plain stdio on the host path. */
    FILE *f = fopen("config/game.cfg", "w");
    if (!f || fputs("speed=4.0\n", f) < 0 || fclose(f) != 0)
        return 1;

    /* 4. Hot reload: the game ticks its VFS each frame; when the event
     * comes, it reads the setting again. 10 s only catches a hang. */
    float speed_after = speed_before;
    for (int tries = 0; tries < 1000 && speed_after != 4.0f; tries++) {
        tick_for(vfs, 10.0, &changed);
        if (!changed)
            break;
        changed = false;
        speed_after = read_speed(vfs);
    }

    /* 5. A memory mount above "/config" (priority 1 beats the project's
     * 0): reads find its files first, and writes go to it, the highest
     * writable mount, leaving the disk alone. Mods and tests use this. */
    ze_vfs_mount_id_t mem_mount;
    const char override[] = "speed=9.0\n";
    if (ze_vfs_mount(vfs,
                     &(ze_vfs_mount_desc_t){
                         .point = "/config", .backend = ZE_VFS_BACKEND_MEMORY, .priority = 1},
                     &mem_mount) != ZE_OK ||
        ze_vfs_write_file(vfs, CONFIG, override, strlen(override)) != ZE_OK)
        return 1;
    float speed_override = read_speed(vfs);
    ze_vfs_unmount(vfs, mem_mount);
    float speed_disk = read_speed(vfs); /* the disk's file again */

    ze_vfs_unsubscribe(vfs, sub);
    ze_vfs_destroy(vfs);
    ze_mem_destroy(mm);
    if (speed_before != 1.5f || speed_after != 4.0f || speed_override != 9.0f ||
        speed_disk != 4.0f) {
        printf("vfs_hot_reload: SOMETHING IS WRONG (%.1f, %.1f, %.1f, %.1f)\n", speed_before,
               speed_after, speed_override, speed_disk);
        return 1;
    }
    printf("vfs_hot_reload: speed %.1f -> %.1f after a change event on %s, %.1f from a memory "
           "mount above it\n",
           speed_before, speed_after, CONFIG, speed_override);
    return 0;
}
