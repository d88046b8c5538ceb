// The test's Draco encoder (draco_encode.h), over libdraco.
#include "draco_encode.h"

#include <cstring>

#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>

extern "C" size_t atu_draco_bound(uint32_t points, const atu_draco_attr_t *attrs, uint32_t nattrs,
                                  uint32_t nindices)
{
    size_t n = 4096 + (size_t)nindices * 4;
    for (uint32_t a = 0; a < nattrs; a++)
        n += (size_t)points * attrs[a].ncomp * sizeof(float);
    return n;
}

extern "C" size_t atu_draco_encode(uint32_t points, atu_draco_attr_t *attrs, uint32_t nattrs,
                                   const uint32_t *indices, uint32_t nindices, int flags,
                                   uint8_t *out, size_t cap)
{
    static const draco::GeometryAttribute::Type types[] = {
        draco::GeometryAttribute::POSITION, draco::GeometryAttribute::NORMAL,
        draco::GeometryAttribute::TEX_COORD, draco::GeometryAttribute::COLOR,
        draco::GeometryAttribute::GENERIC};
    draco::Mesh mesh;
    mesh.set_num_points(points);
    for (uint32_t a = 0; a < nattrs; a++) {
        draco::GeometryAttribute ga;
        ga.Init(types[attrs[a].kind], nullptr, static_cast<uint8_t>(attrs[a].ncomp),
                draco::DT_FLOAT32, false, sizeof(float) * attrs[a].ncomp, 0);
        int id = mesh.AddAttribute(ga, true, points);
        draco::PointAttribute *pa = mesh.attribute(id);
        for (uint32_t i = 0; i < points; i++)
            pa->SetAttributeValue(draco::AttributeValueIndex(i),
                                  attrs[a].values + (size_t)i * attrs[a].ncomp);
        attrs[a].id = pa->unique_id();
    }
    for (uint32_t f = 0; f + 2 < nindices; f += 3) {
        draco::Mesh::Face face;
        for (int k = 0; k < 3; k++)
            face[k] = draco::PointIndex(indices[f + k]);
        mesh.AddFace(face);
    }
    draco::Encoder enc;
    if (!(flags & ATU_DRACO_EDGEBREAKER))
        enc.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
    if (flags & ATU_DRACO_QUANTIZE) {
        enc.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 14);
        enc.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, 10);
        enc.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, 12);
    }
    draco::EncoderBuffer buf;
    if (!enc.EncodeMeshToBuffer(mesh, &buf).ok() || buf.size() > cap)
        return 0;
    std::memcpy(out, buf.data(), buf.size());
    return buf.size();
}
