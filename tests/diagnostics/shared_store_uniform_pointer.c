#pragma omp declare simd uniform(count)
void f(float x, int *count)
{
    if (x > 0)
        *count = 1;
}
