/* Vulkan instance, validation layer and debug messenger, device selection
 * and the logical device (main thread, at create; destroyed at destroy).
 *
 * Validation: on with ZE_DEBUG or ZENGINE_VK_VALIDATION=1, off with
 * ZENGINE_VK_VALIDATION=0. Messages of severity WARNING and ERROR are
 * counted in stats.validation_messages and logged on channel "vulkan"; the
 * messenger is also chained into vkCreateInstance so instance creation and
 * destruction are covered. A missing layer is a warning (tests assert the
 * layer was enabled through ze__vk_validation_enabled).
 * ZENGINE_VK_SYNC_VALIDATION=1 (with validation) also turns on the layer's
 * synchronization validation (VK_EXT_validation_features): hazards between
 * the render graph's barriers count as validation messages too.
 *
 * Device selection: every physical device is checked for Vulkan 1.3 and the
 * features DESIGN §4 names (dynamic rendering, synchronization2, timeline
 * semaphores, descriptor indexing for a bindless sampled-image array,
 * draw-indirect-count, multi-draw indirect with first instance) and a
 * graphics+compute queue; the best by type wins (discrete > integrated >
 * virtual > CPU). When none qualifies the error lists every device with
 * what it lacks. ZENGINE_VK_FORCE_NO_DEVICE=1 makes every device unsuitable
 * (lifecycle tests of a failed render_device stage).
 *
 * Window: with desc.native_window the instance also enables what
 * glfwGetRequiredInstanceExtensions names, the surface is created with
 * glfwCreateWindowSurface (main thread, at create), a device must present
 * to it from its graphics+compute queue and have VK_KHR_swapchain. The
 * surface is destroyed after the device, before the instance.
 *
 * Sanitizer builds dlopen the loader, lavapipe and the validation layer with
 * RTLD_NODELETE before the instance exists, so their code stays mapped after
 * vkDestroyInstance and LeakSanitizer can symbolize what they keep. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/vk_internal.h"

/* GLFW is a system library (not a zengine module): the window's surface. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

static const char *VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation";

ze_result ze__vk_fail(ze_vk_backend_t *b, VkResult r, const char *what)
{
    if (r == VK_ERROR_DEVICE_LOST) {
        if (!b->lost)
            ZE_LOG_ERROR(ZE_VK_LOG, "device lost (%s)", what);
        b->lost = true;
        return ZE_ERR_IO;
    }
    ZE_LOG_ERROR(ZE_VK_LOG, "%s failed: VkResult %d", what, (int)r);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        return ZE_ERR_OUT_OF_MEMORY;
    return ZE_ERR_INTERNAL;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)types;
    ze_vk_backend_t *b = user;
    const char *msg = data && data->pMessage ? data->pMessage : "(no message)";
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        atomic_fetch_add_explicit(&b->validation_messages, 1, memory_order_relaxed);
        ZE_LOG_ERROR(ZE_VK_LOG, "validation: %s", msg);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        atomic_fetch_add_explicit(&b->validation_messages, 1, memory_order_relaxed);
        ZE_LOG_WARN(ZE_VK_LOG, "validation: %s", msg);
    }
    return VK_FALSE;
}

static bool env_flag(const char *name, bool dflt)
{
    const char *v = getenv(name);
    if (!v || !v[0])
        return dflt;
    return strcmp(v, "0") != 0;
}

static void keep_driver_loaded(void)
{
#if defined(ZE_SANITIZER_ADDRESS) || defined(ZE_SANITIZER_THREAD)
    static const char *libs[] = {"libvulkan.so.1", "libvulkan_lvp.so",
                                 "libVkLayer_khronos_validation.so"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        (void)dlopen(libs[i], RTLD_NOW | RTLD_NODELETE); /* a miss is fine */
#endif
}

static bool layer_available(ze_vk_backend_t *b, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *props = ZE_NEW_ARRAY(b->alloc, VkLayerProperties, n);
    if (!props)
        return false;
    bool found = false;
    uint32_t want = n;
    if (vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(props[i].layerName, name) == 0;
    ze_free(b->alloc, props, sizeof *props * want);
    return found;
}

ze_result ze__vk_instance_create(ze_vk_backend_t *b)
{
    keep_driver_loaded();
#ifdef ZE_DEBUG
    bool want_validation = env_flag("ZENGINE_VK_VALIDATION", true);
#else
    bool want_validation = env_flag("ZENGINE_VK_VALIDATION", false);
#endif
    uint32_t api = 0;
    if (vkEnumerateInstanceVersion(&api) != VK_SUCCESS || api < VK_API_VERSION_1_3) {
        ZE_LOG_ERROR(ZE_VK_LOG, "the Vulkan loader supports %u.%u; 1.3 is required",
                     VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
        return ZE_ERR_UNSUPPORTED;
    }
    if (want_validation && !layer_available(b, VALIDATION_LAYER)) {
        ZE_LOG_WARN(ZE_VK_LOG, "validation requested but %s is not installed: running without",
                    VALIDATION_LAYER);
        want_validation = false;
    }
    b->validation = want_validation;
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
        .pUserData = b,
    };
    const char *exts[16];
    uint32_t next = 0;
    if (b->validation)
        exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    bool sync = b->validation && env_flag("ZENGINE_VK_SYNC_VALIDATION", false);
    VkValidationFeatureEnableEXT sync_feature =
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .pNext = &mci,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = &sync_feature,
    };
    if (sync)
        exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    if (b->desc.native_window) {
        uint32_t n = 0;
        const char **wexts = glfwGetRequiredInstanceExtensions(&n);
        if (!wexts) {
            ZE_LOG_ERROR(ZE_VK_LOG, "GLFW finds no Vulkan surface support for the window");
            return ZE_ERR_UNSUPPORTED;
        }
        for (uint32_t i = 0; i < n && next < ZE_COUNTOF(exts); i++)
            exts[next++] = wexts[i];
    }
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = b->desc.title ? b->desc.title : "zengine",
        .pEngineName = "ZEngine",
        .engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = sync            ? (const void *)&features
                 : b->validation ? (const void *)&mci
                                 : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = b->validation ? 1u : 0u,
        .ppEnabledLayerNames = &VALIDATION_LAYER,
        .enabledExtensionCount = next,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateInstance(&ici, b->host_cb, &b->instance);
    if (r != VK_SUCCESS) {
        ZE_LOG_ERROR(ZE_VK_LOG, "vkCreateInstance failed: VkResult %d (no Vulkan driver?)", (int)r);
        b->instance = VK_NULL_HANDLE;
        return ZE_ERR_UNSUPPORTED;
    }
    if (b->validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)(void (*)(
            void))vkGetInstanceProcAddr(b->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create || create(b->instance, &mci, b->host_cb, &b->messenger) != VK_SUCCESS) {
            ZE_LOG_WARN(ZE_VK_LOG, "debug messenger unavailable: validation messages not counted");
            b->messenger = VK_NULL_HANDLE;
        }
    }
    ZE_LOG_DEBUG(ZE_VK_LOG, "instance created (validation %s)",
                 sync            ? "on, with synchronization"
                 : b->validation ? "on"
                                 : "off");
    if (b->desc.native_window) {
        r = glfwCreateWindowSurface(b->instance, (GLFWwindow *)b->desc.native_window, b->host_cb,
                                    &b->surface);
        if (r != VK_SUCCESS) {
            ZE_LOG_ERROR(ZE_VK_LOG, "glfwCreateWindowSurface failed: VkResult %d", (int)r);
            b->surface = VK_NULL_HANDLE;
            return ZE_ERR_UNSUPPORTED;
        }
    }
    return ZE_OK;
}

/* ----------------------------------------------------- device selection */

typedef struct features_t {
    VkPhysicalDeviceFeatures2 f;
    VkPhysicalDeviceVulkan11Features v11;
    VkPhysicalDeviceVulkan12Features v12;
    VkPhysicalDeviceVulkan13Features v13;
} features_t;

static void features_chain(features_t *f)
{
    memset(f, 0, sizeof *f);
    f->f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    f->f.pNext = &f->v11;
    f->v11.pNext = &f->v12;
    f->v12.pNext = &f->v13;
}

/* The features we enable, each checked on the candidate. */
#define ZE_VK_FEATURES(X)                               \
    X(f.features.multiDrawIndirect)                     \
    X(f.features.drawIndirectFirstInstance)             \
    X(v11.shaderDrawParameters)                         \
    X(v12.timelineSemaphore)                            \
    X(v12.drawIndirectCount)                            \
    X(v12.descriptorIndexing)                           \
    X(v12.runtimeDescriptorArray)                       \
    X(v12.descriptorBindingPartiallyBound)              \
    X(v12.descriptorBindingSampledImageUpdateAfterBind) \
    X(v12.descriptorBindingUpdateUnusedWhilePending)    \
    X(v12.shaderSampledImageArrayNonUniformIndexing)    \
    X(v12.hostQueryReset)                               \
    X(v13.dynamicRendering)                             \
    X(v13.maintenance4)                                 \
    X(v13.synchronization2)

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    default:
        return 0;
    }
}

static void append(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < cap)
        snprintf(buf + n, cap - n, "%s", s);
}

/* Empty `missing` when suitable. */
static void check_device(ze_vk_backend_t *b, VkPhysicalDevice pd, uint32_t *family, char *missing,
                         size_t cap)
{
    missing[0] = 0;
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    if (p.apiVersion < VK_API_VERSION_1_3)
        append(missing, cap, " Vulkan-1.3");
    features_t f;
    features_chain(&f);
    vkGetPhysicalDeviceFeatures2(pd, &f.f);
#define CHECK_FEATURE(field) \
    if (!f.field)            \
        append(missing, cap, " " #field);
    ZE_VK_FEATURES(CHECK_FEATURE)
#undef CHECK_FEATURE
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties qf[16];
    n = n > 16 ? 16 : n;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, qf);
    *family = UINT32_MAX;
    for (uint32_t i = 0; i < n && *family == UINT32_MAX; i++)
        if ((qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            *family = i;
    if (*family == UINT32_MAX)
        append(missing, cap, " graphics+compute-queue");
    if (b->surface) {
        VkBool32 present = VK_FALSE;
        if (*family == UINT32_MAX ||
            vkGetPhysicalDeviceSurfaceSupportKHR(pd, *family, b->surface, &present) != VK_SUCCESS ||
            !present)
            append(missing, cap, " present-to-window");
        uint32_t ne = 0;
        bool swapchain = false;
        VkExtensionProperties ep[256];
        if (vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, NULL) == VK_SUCCESS) {
            ne = ne > 256 ? 256 : ne;
            if (vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, ep) >= 0)
                for (uint32_t i = 0; i < ne && !swapchain; i++)
                    swapchain = strcmp(ep[i].extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0;
        }
        if (!swapchain)
            append(missing, cap, " " VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    }
    if (env_flag("ZENGINE_VK_FORCE_NO_DEVICE", false))
        append(missing, cap, " (ZENGINE_VK_FORCE_NO_DEVICE=1)");
}

static ze_result select_device(ze_vk_backend_t *b)
{
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(b->instance, &n, NULL);
    if (r != VK_SUCCESS)
        return ze__vk_fail(b, r, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice devs[16];
    n = n > 16 ? 16 : n;
    if (n && (r = vkEnumeratePhysicalDevices(b->instance, &n, devs)) < 0)
        return ze__vk_fail(b, r, "vkEnumeratePhysicalDevices");
    int best_rank = -1;
    char report[1024] = "";
    for (uint32_t i = 0; i < n; i++) {
        char missing[512];
        uint32_t family;
        check_device(b, devs[i], &family, missing, sizeof missing);
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        if (missing[0]) {
            char line[800];
            snprintf(line, sizeof line, "; %s lacks:%s", p.deviceName, missing);
            append(report, sizeof report, line);
            continue;
        }
        int rank = type_rank(p.deviceType);
        if (rank > best_rank) {
            best_rank = rank;
            b->gpu = devs[i];
            b->queue_family = family;
            b->gpu_props = p;
        }
    }
    if (best_rank < 0) {
        ZE_LOG_ERROR(ZE_VK_LOG, "no suitable Vulkan device (%u found)%s", n,
                     report[0] ? report : "");
        return ZE_ERR_UNSUPPORTED;
    }
    return ZE_OK;
}

ze_result ze__vk_device_create(ze_vk_backend_t *b)
{
    ze_result res = select_device(b);
    if (res != ZE_OK)
        return res;
    features_t want;
    features_chain(&want);
#define ENABLE_FEATURE(field) want.field = VK_TRUE;
    ZE_VK_FEATURES(ENABLE_FEATURE)
#undef ENABLE_FEATURE
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = b->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    const char *swapchain_ext = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &want.f,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = b->surface ? 1u : 0u,
        .ppEnabledExtensionNames = &swapchain_ext,
    };
    VkResult r = vkCreateDevice(b->gpu, &dci, b->host_cb, &b->device);
    if (r != VK_SUCCESS) {
        b->device = VK_NULL_HANDLE;
        return ze__vk_fail(b, r, "vkCreateDevice");
    }
    vkGetDeviceQueue(b->device, b->queue_family, 0, &b->queue);
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(b->gpu, &nq, NULL);
    VkQueueFamilyProperties qf[16];
    nq = nq > 16 ? 16 : nq;
    vkGetPhysicalDeviceQueueFamilyProperties(b->gpu, &nq, qf);
    b->timestamp_period =
        qf[b->queue_family].timestampValidBits ? b->gpu_props.limits.timestampPeriod : 0.0f;
    const VkPhysicalDeviceProperties *p = &b->gpu_props;
    snprintf(b->device_name, sizeof b->device_name, "%s (Vulkan %u.%u.%u, driver 0x%x%s)",
             p->deviceName, VK_API_VERSION_MAJOR(p->apiVersion),
             VK_API_VERSION_MINOR(p->apiVersion), VK_API_VERSION_PATCH(p->apiVersion),
             p->driverVersion, b->surface ? ", window" : ", headless");
    ZE_LOG_INFO(ZE_VK_LOG, "device: %s", b->device_name);
    return ZE_OK;
}

void ze__vk_instance_destroy(ze_vk_backend_t *b)
{
    if (b->device)
        vkDestroyDevice(b->device, b->host_cb);
    b->device = VK_NULL_HANDLE;
    if (b->surface)
        vkDestroySurfaceKHR(b->instance, b->surface, b->host_cb);
    b->surface = VK_NULL_HANDLE;
    if (b->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)(void (*)(void))vkGetInstanceProcAddr(
                b->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy)
            destroy(b->instance, b->messenger, b->host_cb);
        b->messenger = VK_NULL_HANDLE;
    }
    if (b->instance)
        vkDestroyInstance(b->instance, b->host_cb);
    b->instance = VK_NULL_HANDLE;
}
