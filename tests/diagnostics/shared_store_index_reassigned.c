/* a_out[c] is read and stored at one consecutive index, but c changes between the read and the store:
   lane 0 stores where lane 1 read (the stencil's a_out[c] with c assigned once is private per lane) */
#pragma omp declare simd uniform(a_out) linear(x)
void f(float *a_out, int x)
{
    int c = x;
    float old = a_out[c];
    c = c + 1;
    a_out[c] = old * 2.0f;
}
