/* fmodf-style shift-subtract on the bits of floats (finite positive normal inputs only;
   others return a fixed value). Up to ~250 iterations per lane. */
#include <stdint.h>
float fmodf_bits(float x, float y)
{
  union { float f; uint32_t i; } ux = {x}, uy = {y};
  uint32_t ix = ux.i, iy = uy.i;
  if (ix < 0x00800000 || ix >= 0x7f800000 || iy < 0x00800000 || iy >= 0x7f800000)
    return 0.0f;
  int ex = ix >> 23, ey = iy >> 23;
  uint32_t mx = (ix & 0x7fffff) | 0x800000, my = (iy & 0x7fffff) | 0x800000;
  if (ex < ey || (ex == ey && mx < my))
    return x;
  while (ex > ey) {
    if (mx >= my)
      mx -= my;
    mx <<= 1;
    ex--;
  }
  if (mx >= my)
    mx -= my;
  if (mx == 0)
    return 0.0f;
  while (mx < 0x800000 && ex > 1) {
    mx <<= 1;
    ex--;
  }
  if (mx < 0x800000)
    return 0.0f;
  ux.i = ((uint32_t)ex << 23) | (mx & 0x7fffff);
  return ux.f;
}
