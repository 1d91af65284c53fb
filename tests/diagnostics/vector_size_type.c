typedef float v4 __attribute__((vector_size(16)));

v4 f(v4 x)
{
    return x + x;
}
