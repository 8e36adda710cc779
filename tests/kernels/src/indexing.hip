// 2D and 3D indexing; launched with partial workgroups at the edges.
#include "common.h"

// out[y*w+x] = in[y*w+x] * 3 + (x << 16) + y for x < w, y < h.
extern "C" __global__ void index2d(const unsigned *in, unsigned *out, unsigned w, unsigned h) {
  unsigned x = gid_x(), y = gid_y();
  if (x < w && y < h) {
    unsigned i = y * w + x;
    out[i] = in[i] * 3u + (x << 16) + y;
  }
}

// For each (x,y,z) in range, two words: the global coordinates packed, and the local ids
// and workgroup ids packed.
extern "C" __global__ void index3d(unsigned *out, unsigned nx, unsigned ny, unsigned nz) {
  unsigned x = gid_x(), y = gid_y(), z = gid_z();
  if (x >= nx || y >= ny || z >= nz)
    return;
  unsigned i = (z * ny + y) * nx + x;
  out[2 * i] = x | (y << 10) | (z << 20);
  out[2 * i + 1] = tid_x() | (tid_y() << 6) | (tid_z() << 12) | (bid_x() << 16) |
                   (bid_y() << 21) | (bid_z() << 26);
}
