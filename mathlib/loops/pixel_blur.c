/* A pixel kernel: a 3-tap blur of a row with a clamp, one output pixel per lane.
   `in`, `out` and `gain` are the same for every lane, `x` is consecutive across lanes, so
   in[x - 1], in[x], in[x + 1] and out[x] are vector loads and stores. */
#pragma omp declare simd uniform(in, out, gain) linear(x)
void pixel_blur(const float *in, float *out, float gain, int x)
{
  float v = (in[x - 1] + 2.0f * in[x] + in[x + 1]) * 0.25f * gain;
  if (v > 1.0f)
    v = 1.0f;
  out[x] = v;
}
