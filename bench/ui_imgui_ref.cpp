// ui_imgui_ref.cpp — bench_ui's Dear ImGui reference (see ui_imgui_ref.h).
// The only C++ in the tree: a baseline, never linked into the engine.
#include <imgui.h>

#include <cstdio>

#include "ui_imgui_ref.h"

struct ze_bench_imgui_t {
    ImGuiContext *ctx;
};

static ze_bench_imgui_t g_one; // one reference context per process

ze_bench_imgui_t *ze_bench_imgui_create(int width, int height)
{
    IMGUI_CHECKVERSION();
    g_one.ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(g_one.ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.DisplaySize = ImVec2((float)width, (float)height);
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    unsigned char *px = nullptr;
    int tw = 0, th = 0;
    io.Fonts->GetTexDataAsAlpha8(&px, &tw, &th); // builds the atlas once
    io.Fonts->SetTexID((ImTextureID)(intptr_t)1);
    return &g_one;
}

void ze_bench_imgui_destroy(ze_bench_imgui_t *g)
{
    if (g && g->ctx)
        ImGui::DestroyContext(g->ctx);
    if (g)
        g->ctx = nullptr;
}

static void begin(ze_bench_imgui_t *g, float mx, float my)
{
    ImGui::SetCurrentContext(g->ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = ImVec2(mx, my);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("rows", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
}

void ze_bench_imgui_frame(ze_bench_imgui_t *g, int rows, float mx, float my,
                          ze_bench_imgui_stats_t *out)
{
    begin(g, mx, my);
    char buf[32];
    for (int i = 0; i < rows; i++) {
        ImGui::BeginGroup(); // the row
        std::snprintf(buf, sizeof buf, "row %d", i);
        ImGui::TextUnformatted(buf); // the label
        ImGui::EndGroup();
    }
    ImGui::End();
    ImGui::Render();
    const ImDrawData *dd = ImGui::GetDrawData();
    uint32_t calls = 0, verts = 0;
    for (int i = 0; i < dd->CmdListsCount; i++) {
        calls += (uint32_t)dd->CmdLists[i]->CmdBuffer.Size;
        verts += (uint32_t)dd->CmdLists[i]->VtxBuffer.Size;
    }
    if (out) {
        out->draw_calls = calls;
        out->vertices = verts;
    }
}

void ze_bench_imgui_list_frame(ze_bench_imgui_t *g, int rows, int first, float mx, float my)
{
    begin(g, mx, my);
    ImGui::SetScrollY(ImGui::GetTextLineHeightWithSpacing() * (float)first);
    ImGuiListClipper clip;
    clip.Begin(rows);
    char buf[32];
    while (clip.Step()) {
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; i++) {
            std::snprintf(buf, sizeof buf, "row %d", i);
            ImGui::TextUnformatted(buf);
        }
    }
    clip.End();
    ImGui::End();
    ImGui::Render();
}
