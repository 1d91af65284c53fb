#pragma omp declare simd linear(x)
float f(float x)
{
    return x;
}
