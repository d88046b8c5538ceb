/* zengine cook SOURCE --out DIR [--json] [--uuid UUID] [--importer NAME]
 *               [--settings JSON]
 *
 * Imports one source file and writes its artifacts into DIR (created if
 * missing). With --json, prints one JSON object on stdout: the importer,
 * the counts found in the source (before any processing), the cooked
 * counts, the artifacts (paths relative to DIR, sorted), their sub-assets
 * (uuid, type, artifact; same order), "cooked_textures" (per .zetex: its
 * format, psnr_db of mip 0 against the source, bytes of its mips,
 * rgba8_bytes of the same chain uncompressed, bytes_ratio) and the
 * dependencies (external files
 * read, relative to the source's folder, with their content hashes) and
 * "warnings" (what the cook left out, e.g. a missing texture: also printed
 * on stderr, one "warning:" line each; the exit status stays 0). The
 * settings are a `.meta` "settings" object (the coordinator passes the
 * sidecar's). On invalid input: exit status 1,
 * one error line on stderr, no artifact written. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "zengine/asset.h"
#include "zengine/cook.h"

#include "cli.h"

void ze_cli_cook_usage(FILE *out)
{
    fputs("usage: zengine cook SOURCE --out DIR [--json] [--uuid UUID] [--importer NAME]\n"
          "                    [--settings JSON]\n"
          "  SOURCE       a .gltf, .glb, .obj, .fbx, .png, .jpg, .tga or .hdr file\n"
          "  --out DIR    folder for the artifacts (created if missing)\n"
          "  --json       print the import's counts, artifacts, sub-assets and\n"
          "               dependencies as JSON\n"
          "  --uuid UUID  the source's identity (default: derived from its file name)\n"
          "  --importer NAME  gltf, assimp, image or hdr instead of the extension's\n"
          "  --settings JSON  importer settings, e.g. '{\"scale\": 0.01, \"up_axis\": \"z\"}'\n"
          "               (keys: scale, up_axis, flip_uvs, mips, compression, lod_count)\n",
          out);
}

static json_t *cook_json(const ze_cook_result_t *r)
{
    const ze_model_stats_t *s = &r->source;
    char uuid[ZE_UUID_STRING_LEN + 1];
    ze_uuid_format(r->source_uuid, uuid);
    json_t *cooked = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "meshes", (json_int_t)r->cooked.meshes, "submeshes",
        (json_int_t)r->cooked.submeshes, "vertices", (json_int_t)r->cooked.vertices, "indices",
        (json_int_t)r->cooked.indices, "materials", (json_int_t)r->cooked.materials, "textures",
        (json_int_t)r->cooked.textures, "skipped_primitives",
        (json_int_t)r->cooked.skipped_primitives);
    json_t *arts = json_array();
    for (uint32_t i = 0; arts && i < r->artifact_count; i++)
        json_array_append_new(arts, json_string(r->artifacts[i]));
    json_t *subs = json_array();
    for (uint32_t i = 0; subs && i < r->artifact_count; i++) {
        char sub[ZE_UUID_STRING_LEN + 1];
        ze_uuid_format(r->sub_asset_uuids[i], sub);
        json_array_append_new(subs, json_pack("{s:s, s:s, s:s}", "uuid", sub, "type",
                                              ze_asset_type_name(r->sub_asset_types[i]), "artifact",
                                              r->artifacts[i]));
    }
    json_t *deps = json_array(), *dep_hashes = json_array();
    for (uint32_t i = 0; deps && i < r->dependency_count; i++)
        json_array_append_new(deps, json_string(r->dependencies[i]));
    for (uint32_t i = 0; dep_hashes && r->dependency_hashes && i < r->dependency_count; i++) {
        char dh[17];
        snprintf(dh, sizeof dh, "%016llx", (unsigned long long)r->dependency_hashes[i]);
        json_array_append_new(dep_hashes, json_string(dh));
    }
    json_t *texs = json_array();
    for (uint32_t i = 0; texs && i < r->texture_count; i++) {
        const ze_cook_texture_t *t = &r->textures[i];
        json_array_append_new(
            texs, json_pack("{s:s, s:s, s:f, s:I, s:I, s:f}", "artifact", t->artifact, "format",
                            ze_tex_format_name(t->format), "psnr_db", t->psnr_db, "bytes",
                            (json_int_t)t->bytes, "rgba8_bytes", (json_int_t)t->rgba8_bytes,
                            "bytes_ratio",
                            t->rgba8_bytes ? (double)t->bytes / (double)t->rgba8_bytes : 0.0));
    }
    json_t *warns = json_array();
    for (uint32_t i = 0; warns && i < r->warning_count; i++)
        json_array_append_new(warns, json_string(r->warnings[i]));
    char hash[17], shash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->source_hash);
    snprintf(shash, sizeof shash, "%016llx", (unsigned long long)r->settings_hash);
    return json_pack(
        "{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:s, s:o}",
        "importer", r->importer, "uuid", uuid, "source_hash", hash, "meshes", (json_int_t)s->meshes,
        "primitives", (json_int_t)s->primitives, "vertices", (json_int_t)s->vertices, "indices",
        (json_int_t)s->indices, "materials", (json_int_t)s->materials, "textures",
        (json_int_t)s->textures, "images", (json_int_t)s->images, "nodes", (json_int_t)s->nodes,
        "scenes", (json_int_t)s->scenes, "cameras", (json_int_t)s->cameras, "cooked", cooked,
        "artifacts", arts, "sub_assets", subs, "cooked_textures", texs, "dependencies", deps,
        "dependency_hashes", dep_hashes, "settings_hash", shash, "warnings", warns);
}

int ze_cli_cook(int argc, char **argv)
{
    const char *source = NULL, *out_dir = NULL, *uuid_text = NULL, *importer = NULL;
    const char *settings = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "--uuid") == 0 ||
                   strcmp(a, "--importer") == 0 || strcmp(a, "--settings") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "zengine cook: %s needs a value\n", a);
                return ZE_CLI_USAGE;
            }
            if (strcmp(a, "--out") == 0)
                out_dir = argv[++i];
            else if (strcmp(a, "--uuid") == 0)
                uuid_text = argv[++i];
            else if (strcmp(a, "--settings") == 0)
                settings = argv[++i];
            else
                importer = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            ze_cli_cook_usage(stdout);
            return ZE_CLI_OK;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "zengine cook: unknown option '%s'\n", a);
            return ZE_CLI_USAGE;
        } else if (!source) {
            source = a;
        } else {
            fprintf(stderr, "zengine cook: more than one SOURCE ('%s' and '%s')\n", source, a);
            return ZE_CLI_USAGE;
        }
    }
    if (!source || !out_dir) {
        fprintf(stderr,
                "zengine cook: %s is required (usage: zengine cook SOURCE --out DIR "
                "[--json] [--uuid UUID])\n",
                source ? "--out DIR" : "SOURCE");
        return ZE_CLI_USAGE;
    }
    ze_diag_capture_t diag = {0};
    ze_cook_desc_t desc = {.source = source,
                           .out_dir = out_dir,
                           .importer = importer,
                           .settings = settings,
                           .diag = ze_diag_capture_sink(&diag)};
    if (uuid_text && ze_uuid_parse(uuid_text, strlen(uuid_text), &desc.source_uuid) != ZE_OK) {
        fprintf(stderr, "zengine cook: '%s' is not a uuid\n", uuid_text);
        return ZE_CLI_USAGE;
    }
    ze_cook_result_t res;
    ze_result r = ze_asset_cook(&desc, &res);
    if (r != ZE_OK) {
        /* One line: the message never holds a newline, but be sure. */
        for (char *p = diag.last_message; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        fprintf(stderr, "zengine cook: %s: %s\n", source,
                diag.last_message[0] ? diag.last_message : ze_result_str(r));
        ze_asset_cook_result_release(&res);
        return ZE_CLI_FAILED;
    }
    for (uint32_t i = 0; i < res.warning_count; i++)
        fprintf(stderr, "zengine cook: warning: %s: %s\n", source, res.warnings[i]);
    int status = ZE_CLI_OK;
    if (json) {
        json_t *o = cook_json(&res);
        if (!o || json_dumpf(o, stdout, JSON_INDENT(2)) != 0 || fputc('\n', stdout) == EOF) {
            fprintf(stderr, "zengine cook: cannot write the JSON report\n");
            status = ZE_CLI_FAILED;
        }
        json_decref(o);
    }
    ze_asset_cook_result_release(&res);
    if (fflush(stdout) != 0)
        status = ZE_CLI_FAILED;
    return status;
}
