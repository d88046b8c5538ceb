/* zengine/zengine.h — the umbrella header: everything a game includes. */
#ifndef ZENGINE_ZENGINE_H
#define ZENGINE_ZENGINE_H

#include "zengine/base.h"
#include "zengine/mem.h"
#include "zengine/job.h"
#include "zengine/ecs.h"
#include "zengine/vfs.h"
#include "zengine/asset.h"
#include "zengine/gfx.h"
#include "zengine/ui.h"
#include "zengine/engine.h"

#endif /* ZENGINE_ZENGINE_H */
