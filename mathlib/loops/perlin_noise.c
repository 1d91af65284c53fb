/* 3-D gradient noise (Perlin's improved noise) summed over 4 octaves, in the style of ispc's noise
   example: each of a cell's 8 corners hashes its coordinates through the permutation table perm[256]
   and takes its gradient from a row of grad[16][3]; every table read has a varying index. */
#include <math.h>

static const int perm[256] = {
  151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225,
  140, 36, 103, 30, 69, 142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148,
  247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32,
  57, 177, 33, 88, 237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68, 175,
  74, 165, 71, 134, 139, 48, 27, 166, 77, 146, 158, 231, 83, 111, 229, 122,
  60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244, 102, 143, 54,
  65, 25, 63, 161, 1, 216, 80, 73, 209, 76, 132, 187, 208, 89, 18, 169,
  200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109, 198, 173, 186, 3, 64,
  52, 217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212,
  207, 206, 59, 227, 47, 16, 58, 17, 182, 189, 28, 42, 223, 183, 170, 213,
  119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9,
  129, 22, 39, 253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104,
  218, 246, 97, 228, 251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162, 241,
  81, 51, 145, 235, 249, 14, 239, 107, 49, 192, 214, 31, 181, 199, 106, 157,
  184, 84, 204, 176, 115, 121, 50, 45, 127, 4, 150, 254, 138, 236, 205, 93,
  222, 114, 67, 29, 24, 72, 243, 141, 128, 195, 78, 66, 215, 61, 156, 180
};

static const float grad[16][3] = {
  {1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0}, {1, 0, 1}, {-1, 0, 1}, {1, 0, -1}, {-1, 0, -1},
  {0, 1, 1}, {0, -1, 1}, {0, 1, -1}, {0, -1, -1}, {1, 1, 0}, {0, -1, 1}, {-1, 1, 0}, {0, -1, -1}
};

static float fade(float t)
{
  return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

static float lerp(float t, float a, float b)
{
  return a + t * (b - a);
}

static float corner(int h, float x, float y, float z)
{
  h &= 15;
  return grad[h][0] * x + grad[h][1] * y + grad[h][2] * z;
}

static float noise(float x, float y, float z)
{
  float fx = floorf(x), fy = floorf(y), fz = floorf(z);
  int X = (int)fx & 255, Y = (int)fy & 255, Z = (int)fz & 255;
  x -= fx;
  y -= fy;
  z -= fz;
  float u = fade(x), v = fade(y), w = fade(z);
  int A = perm[X] + Y, AA = perm[A & 255] + Z, AB = perm[(A + 1) & 255] + Z;
  int B = perm[(X + 1) & 255] + Y, BA = perm[B & 255] + Z, BB = perm[(B + 1) & 255] + Z;
  float x00 = lerp(u, corner(perm[AA & 255], x, y, z), corner(perm[BA & 255], x - 1, y, z));
  float x10 = lerp(u, corner(perm[AB & 255], x, y - 1, z), corner(perm[BB & 255], x - 1, y - 1, z));
  float x01 = lerp(u, corner(perm[(AA + 1) & 255], x, y, z - 1), corner(perm[(BA + 1) & 255], x - 1, y, z - 1));
  float x11 = lerp(u, corner(perm[(AB + 1) & 255], x, y - 1, z - 1),
                   corner(perm[(BB + 1) & 255], x - 1, y - 1, z - 1));
  return lerp(w, lerp(v, x00, x10), lerp(v, x01, x11));
}

float perlin_noise(float x, float y, float z)
{
  if (!(fabsf(x) < 1e6f && fabsf(y) < 1e6f && fabsf(z) < 1e6f))
    return 0.0f;
  float sum = 0.0f, scale = 1.0f;
  for (int octave = 0; octave < 4; octave++) {
    sum += noise(x * scale, y * scale, z * scale) / scale;
    scale *= 2.0f;
  }
  return sum;
}
