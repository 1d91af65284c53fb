#pragma omp declare simd uniform(q)
int f(int x)
{
    return x;
}
