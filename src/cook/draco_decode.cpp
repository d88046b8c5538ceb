// KHR_draco_mesh_compression through Debian's libdraco: the C interface of
// draco.h. The one C++ file of the cooker (the bench has its own); it
// holds no state of its own and lets no exception out.
#include "cook/draco.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include <draco/compression/decode.h>
#include <draco/mesh/mesh.h>

struct ze__draco_mesh_t {
    std::unique_ptr<draco::Mesh> mesh;
};

extern "C" ze__draco_mesh_t *ze__draco_decode(const uint8_t *data, size_t size, char *err,
                                              size_t cap)
{
    try {
        draco::DecoderBuffer buf;
        buf.Init(reinterpret_cast<const char *>(data), size);
        auto type = draco::Decoder::GetEncodedGeometryType(&buf);
        if (!type.ok()) {
            std::snprintf(err, cap, "not a Draco stream (%s)", type.status().error_msg());
            return nullptr;
        }
        if (type.value() != draco::TRIANGULAR_MESH) {
            std::snprintf(err, cap, "the Draco stream holds a point cloud, not a triangle mesh");
            return nullptr;
        }
        draco::Decoder dec;
        auto res = dec.DecodeMeshFromBuffer(&buf);
        if (!res.ok()) {
            std::snprintf(err, cap, "the Draco stream does not decode (%s)",
                          res.status().error_msg());
            return nullptr;
        }
        auto *m = new ze__draco_mesh_t;
        m->mesh = std::move(res).value();
        return m;
    } catch (const std::bad_alloc &) {
        std::snprintf(err, cap, "out of memory decoding the Draco stream");
    } catch (...) {
        std::snprintf(err, cap, "the Draco decoder failed");
    }
    return nullptr;
}

extern "C" void ze__draco_free(ze__draco_mesh_t *m)
{
    delete m;
}

extern "C" uint32_t ze__draco_points(const ze__draco_mesh_t *m)
{
    return m->mesh->num_points();
}

extern "C" uint32_t ze__draco_faces(const ze__draco_mesh_t *m)
{
    return m->mesh->num_faces();
}

extern "C" void ze__draco_indices(const ze__draco_mesh_t *m, uint32_t *out)
{
    const draco::Mesh &mesh = *m->mesh;
    for (draco::FaceIndex f(0); f < mesh.num_faces(); ++f) {
        const draco::Mesh::Face &face = mesh.face(f);
        for (int k = 0; k < 3; k++)
            *out++ = face[k].value();
    }
}

extern "C" uint32_t ze__draco_components(const ze__draco_mesh_t *m, uint32_t unique_id)
{
    const draco::PointAttribute *a = m->mesh->GetAttributeByUniqueId(unique_id);
    return a ? a->num_components() : 0;
}

namespace
{

// Every point's value as T (libdraco's conversion: range-checked, the
// attribute's own normalization applied).
template <typename T>
bool values_as(const draco::Mesh &mesh, const draco::PointAttribute &a, uint32_t ncomp, T *out)
{
    for (draco::PointIndex p(0); p < mesh.num_points(); ++p, out += ncomp)
        if (!a.ConvertValue<T>(a.mapped_index(p), static_cast<int8_t>(ncomp), out))
            return false;
    return true;
}

// A normalized integer accessor from an attribute that is not already of
// its type: through floats, scaled to the type's range as glTF reads it.
template <typename T>
bool normalized_as(const draco::Mesh &mesh, const draco::PointAttribute &a, uint32_t ncomp,
                   bool is_signed, double max, T *out)
{
    float v[16];
    for (draco::PointIndex p(0); p < mesh.num_points(); ++p, out += ncomp) {
        if (!a.ConvertValue<float>(a.mapped_index(p), static_cast<int8_t>(ncomp), v))
            return false;
        for (uint32_t k = 0; k < ncomp; k++) {
            double x = v[k];
            if (!std::isfinite(x) || x > 1.0 || x < (is_signed ? -1.0 : 0.0))
                return false;
            out[k] = static_cast<T>(std::lround(x * max));
        }
    }
    return true;
}

template <typename T>
bool integer_as(const draco::Mesh &mesh, const draco::PointAttribute &a, draco::DataType same,
                bool normalized, uint32_t ncomp, bool is_signed, double max, T *out)
{
    if (!normalized || (a.data_type() == same && a.normalized()))
        return values_as<T>(mesh, a, ncomp, out);
    return normalized_as<T>(mesh, a, ncomp, is_signed, max, out);
}

} // namespace

extern "C" bool ze__draco_values(const ze__draco_mesh_t *m, uint32_t unique_id, uint32_t ctype,
                                 bool normalized, uint32_t ncomp, void *out)
{
    const draco::Mesh &mesh = *m->mesh;
    const draco::PointAttribute *a = mesh.GetAttributeByUniqueId(unique_id);
    if (!a || ncomp == 0 || ncomp > 16)
        return false;
    /* the stored types a glTF accessor can come from; a stream may claim
       others (a bool attribute holding any byte, which libdraco's
       conversion would read as a bool: undefined) */
    switch (a->data_type()) {
    case draco::DT_INT8:
    case draco::DT_UINT8:
    case draco::DT_INT16:
    case draco::DT_UINT16:
    case draco::DT_INT32:
    case draco::DT_UINT32:
    case draco::DT_FLOAT32:
        break;
    default:
        return false;
    }
    try {
        switch (ctype) {
        case 5126:
            return values_as<float>(mesh, *a, ncomp, static_cast<float *>(out));
        case 5120:
            return integer_as<int8_t>(mesh, *a, draco::DT_INT8, normalized, ncomp, true, 127.0,
                                      static_cast<int8_t *>(out));
        case 5121:
            return integer_as<uint8_t>(mesh, *a, draco::DT_UINT8, normalized, ncomp, false, 255.0,
                                       static_cast<uint8_t *>(out));
        case 5122:
            return integer_as<int16_t>(mesh, *a, draco::DT_INT16, normalized, ncomp, true, 32767.0,
                                       static_cast<int16_t *>(out));
        case 5123:
            return integer_as<uint16_t>(mesh, *a, draco::DT_UINT16, normalized, ncomp, false,
                                        65535.0, static_cast<uint16_t *>(out));
        case 5125:
            return values_as<uint32_t>(mesh, *a, ncomp, static_cast<uint32_t *>(out));
        default:
            return false;
        }
    } catch (...) {
        return false;
    }
}
