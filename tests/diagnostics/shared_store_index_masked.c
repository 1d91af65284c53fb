/* c is assigned once, but only in the lanes where v > 0: in the others it keeps its first value */
#pragma omp declare simd uniform(a_out) linear(x)
void f(float *a_out, int x, float v)
{
    int c = x;
    if (v > 0.0f)
        c = x + 1;
    a_out[c] = a_out[c] + v;
}
